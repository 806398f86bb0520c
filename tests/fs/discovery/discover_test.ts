import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { fc, runs } from "../../_fc.ts";
import { AgentSkillError, handleSkillTool, skillToolDefinition } from "../../../mod.ts";
import {
  discoverSkills,
  type Discovery,
  type DiscoveryEntry,
  type DiscoveryFileSystem,
  findSkillFolders,
  loadSkillFolder,
  nodeDiscoveryFileSystem,
  parseSkillMd,
} from "../../../lib/load.ts";
import { write } from "../../_tree.ts";

let temp = "";
let counter = 0;

before(() => {
  temp = realpathSync(mkdtempSync(join(tmpdir(), "skillset-discover-")));
});
after(() => rmSync(temp, { recursive: true, force: true }));

/** A fresh folder under the test's temp dir. */
function fresh(name: string): string {
  const dir = join(temp, `${name}-${counter++}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function skillMd(name: string, description: string, extra = ""): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n# ${name}\n`;
}

/** The file system, with each folder's entries in an order drawn from `seed`. */
function shuffled(seed: number, calls: string[] = []): DiscoveryFileSystem {
  let state = seed >>> 0 || 1;
  const next = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
  return {
    ...nodeDiscoveryFileSystem,
    readdir(dir: string): readonly DiscoveryEntry[] {
      calls.push(dir);
      const entries = [...nodeDiscoveryFileSystem.readdir(dir)];
      for (let i = entries.length - 1; i > 0; i--) {
        const j = next() % (i + 1);
        [entries[i], entries[j]] = [entries[j]!, entries[i]!];
      }
      return entries;
    },
  };
}

/** Everything but the methods, for comparing two discoveries. */
function snapshot(d: Discovery): unknown {
  return JSON.parse(JSON.stringify(d));
}

// ---- the generated-tree model ------------------------------------------------------------

/** Places 0–2 are the roots (scopes s0, s1, s2); place 3 is a store outside every root. */
const PLACES = ["r0", "r1", "r2", "store"] as const;
type SkillKind = "ok" | "unknown" | "long" | "broken" | "nodesc";

interface Tree {
  folders: { place: number; segs: string[] }[];
  skills: { folder: number; kind: SkillKind; name: string }[];
  links: { parent: number; name: string; target: number; broken: boolean }[];
  precedence: number[];
  maxDepth: number;
}

const treeArb: fc.Arbitrary<Tree> = fc.record({
  folders: fc.array(
    fc.record({
      place: fc.integer({ min: 0, max: 3 }),
      segs: fc.array(fc.constantFrom("a", "b", "c", ".h", ".git", "node_modules"), {
        minLength: 1,
        maxLength: 6,
      }),
    }),
    { maxLength: 12 },
  ),
  skills: fc.array(
    fc.record({
      folder: fc.nat(),
      kind: fc.constantFrom<SkillKind>("ok", "ok", "ok", "unknown", "long", "broken", "nodesc"),
      name: fc.constantFrom("pdf", "csv", "web"),
    }),
    { maxLength: 10 },
  ),
  links: fc.array(
    fc.record({
      parent: fc.nat(),
      name: fc.constantFrom("l1", "l2", "l3"),
      target: fc.nat(),
      broken: fc.boolean(),
    }),
    { maxLength: 6 },
  ),
  precedence: fc.shuffledSubarray([0, 1, 2], { minLength: 3, maxLength: 3 }),
  maxDepth: fc.integer({ min: 1, max: 6 }),
});

interface Model {
  base: string;
  /** Every folder, as `place/seg/seg`, roots included (`place`). */
  ids: string[];
  skillAt: Map<string, { kind: SkillKind; name: string }>;
  /** Link targets by parent folder id: [link name, target id]. */
  linksOf: Map<string, [string, string][]>;
  real: (id: string) => string;
}

/** Write the tree to disk and describe it. */
function materialize(tree: Tree): Model {
  const base = fresh("tree");
  const ids = new Set<string>(PLACES.map((p) => p));
  for (const f of tree.folders) {
    for (let n = 1; n <= f.segs.length; n++) {
      ids.add([PLACES[f.place]!, ...f.segs.slice(0, n)].join("/"));
    }
  }
  const sorted = [...ids].sort();
  const real = (id: string): string => join(base, ...id.split("/"));
  for (const id of sorted) mkdirSync(real(id), { recursive: true });
  const skillAt = new Map<string, { kind: SkillKind; name: string }>();
  for (const s of tree.skills) {
    const id = sorted[s.folder % sorted.length]!;
    if (skillAt.has(id)) continue;
    skillAt.set(id, s);
    const folder = id.split("/").at(-1)!;
    const text = {
      ok: skillMd(s.name, `The ${s.name} skill`),
      unknown: skillMd(s.name, `The ${s.name} skill in ${folder}`, "colour: red\n"),
      long: skillMd(s.name, "word ".repeat(300).trim()),
      broken: "---\nname: [\n---\n",
      nodesc: `---\nname: ${s.name}\n---\n`,
    }[s.kind];
    writeFileSync(join(real(id), "SKILL.md"), text);
  }
  const linksOf = new Map<string, [string, string][]>();
  const made = new Set<string>();
  for (const l of tree.links) {
    const parent = sorted[l.parent % sorted.length]!;
    const target = sorted[l.target % sorted.length]!;
    const list = linksOf.get(parent) ?? [];
    if (made.has(`${parent}/${l.name}`)) continue;
    made.add(`${parent}/${l.name}`);
    symlinkSync(
      l.broken ? join(base, "missing", target) : real(target),
      join(real(parent), l.name),
    );
    if (!l.broken) list.push([l.name, target]);
    linksOf.set(parent, list);
  }
  return { base, ids: sorted, skillAt, linksOf, real };
}

/**
 * The reference scan of one root, straight from the model: breadth-first,
 * each folder once, skill folders entered too, dot-folders entered, the skip
 * list (`.git`, `node_modules`) not.
 */
function referenceScan(model: Model, place: number, maxDepth: number): {
  skills: Map<string, number>;
  folders: number;
  tooDeep: boolean;
} {
  const root = PLACES[place]!;
  const visited = new Set<string>([root]);
  const queue: [string, number][] = [[root, 0]];
  const skills = new Map<string, number>();
  let tooDeep = false;
  for (let head = 0; head < queue.length; head++) {
    const [id, depth] = queue[head]!;
    if (model.skillAt.has(id)) skills.set(id, depth);
    const children = [
      ...model.ids.filter((c) =>
        c.startsWith(`${id}/`) && !c.slice(id.length + 1).includes("/") &&
        !SKIP.has(c.slice(id.length + 1))
      ),
      ...(model.linksOf.get(id) ?? []).map(([, target]) => target),
    ];
    for (const child of children) {
      if (visited.has(child)) continue;
      if (depth + 1 > maxDepth) {
        tooDeep = true;
        continue;
      }
      visited.add(child);
      queue.push([child, depth + 1]);
    }
  }
  return { skills, folders: queue.length, tooDeep };
}

const SKIP = new Set([".git", "node_modules"]);

function depthOf(path: string, root: string): number {
  return path === root ? 0 : path.slice(root.length + 1).split(sep).length;
}

describe("discoverSkills on generated trees", () => {
  it("finds every reachable skill exactly once, settles clashes by precedence, and ignores entry order", () => {
    fc.assert(
      fc.property(treeArb, fc.integer(), (tree, seed) => {
        const model = materialize(tree);
        const roots = [0, 1, 2].map((p) => ({ scope: `s${p}`, path: model.real(PLACES[p]!) }));
        const precedence = tree.precedence.map((p) => `s${p}`);
        const options = { maxDepth: tree.maxDepth, precedence };
        const found = discoverSkills(roots, { ...options, fs: shuffled(seed) });

        // Reference: which real skill folders are reachable, and the first scope (by precedence) reaching each.
        const expected = new Map<string, { rank: number }>();
        tree.precedence.forEach((place, rank) => {
          for (const id of referenceScan(model, place, tree.maxDepth).skills.keys()) {
            if (!expected.has(id)) expected.set(id, { rank });
          }
        });
        const all = [...found.skills, ...found.shadowed, ...found.skipped];
        const reals = all.map((s) => s.real_path).sort();
        assert.deepEqual(reals, [...expected.keys()].map(model.real).sort(), "found exactly once");
        for (const [id, { rank }] of expected) {
          const entry = all.find((s) => s.real_path === model.real(id))!;
          assert.equal(entry.scope, precedence[rank], `scope of ${id}`);
          const { kind, name } = model.skillAt.get(id)!;
          const skipped = found.skipped.includes(entry as never);
          assert.equal(skipped, kind === "broken" || kind === "nodesc", `status of ${id}`);
          if (!skipped) assert.equal((entry as unknown as { name: string }).name, name);
        }

        // Precedence: the winner of every name is first by (scope rank, depth, path); every loser is shadowed.
        const rankOf = (scope: string) => precedence.indexOf(scope);
        const rootOf = (scope: string) => roots.find((r) => r.scope === scope)!.path;
        const key = (s: { scope: string; path: string }): [number, number, string] => [
          rankOf(s.scope),
          depthOf(s.path, rootOf(s.scope)),
          s.path,
        ];
        const before = (a: [number, number, string], b: [number, number, string]) =>
          a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] < b[2])));
        assert.equal(new Set(found.skills.map((s) => s.name)).size, found.skills.length);
        for (const loser of found.shadowed) {
          const winner = found.skill(loser.name)!;
          assert.deepEqual(loser.winner, { scope: winner.scope, path: winner.path });
          assert.equal(loser.same_scope, winner.scope === loser.scope);
          assert.ok(before(key(winner), key(loser)), `${winner.path} wins over ${loser.path}`);
        }
        for (const c of found.conflicts) {
          const members = [...found.skills, ...found.shadowed].filter((s) =>
            s.name === c.name && s.scope === c.scope
          );
          assert.deepEqual(c.paths, members.map((s) => s.path));
        }

        // Entry order: the same result unshuffled and under another shuffle.
        const plain = discoverSkills(roots, options);
        assert.deepEqual(snapshot(found), snapshot(plain));
        assert.deepEqual(
          snapshot(discoverSkills(roots, { ...options, fs: shuffled(~seed) })),
          snapshot(plain),
        );
        rmSync(model.base, { recursive: true, force: true });
      }),
      runs(40),
    );
  });

  it("never lists more folders than its bounds, and says so when it stops", () => {
    fc.assert(
      fc.property(
        treeArb,
        fc.integer({ min: 1, max: 6 }),
        fc.integer(),
        (tree, maxFolders, seed) => {
          const model = materialize(tree);
          const calls: string[] = [];
          const root = model.real("r0");
          const found = discoverSkills([{ scope: "s", path: root }], {
            maxDepth: tree.maxDepth,
            maxFolders,
            fs: shuffled(seed, calls),
          });
          const reference = referenceScan(model, 0, tree.maxDepth);
          assert.ok(calls.length <= maxFolders, `${calls.length} listings, bound ${maxFolders}`);
          const codes = found.diagnostics.map((d) => d.code);
          assert.equal(codes.includes("FOLDER_LIMIT"), reference.folders > maxFolders);
          const reals = [...found.skills, ...found.shadowed, ...found.skipped].map((s) =>
            s.real_path
          );
          const expected = [...reference.skills.keys()].map(model.real);
          for (const real of reals) assert.ok(expected.includes(real), `${real} is reachable`);
          if (reference.folders <= maxFolders) {
            assert.equal(reals.length, expected.length);
            assert.equal(codes.includes("DEPTH_LIMIT"), reference.tooDeep);
          }
          rmSync(model.base, { recursive: true, force: true });
        },
      ),
      runs(40),
    );
  });
});

describe("discoverSkills reports every SKILL.md folder", () => {
  it("reports each folder holding a SKILL.md once: loaded, shadowed, skipped, or under a diagnostic naming it or a folder above it", () => {
    fc.assert(
      fc.property(
        treeArb,
        fc.array(fc.record({ folder: fc.nat(), target: fc.nat() }), { maxLength: 4 }),
        fc.integer({ min: 1, max: 40 }),
        (tree, mdLinks, maxFolders) => {
          const model = materialize(tree);
          // SKILL.md links: to another folder's SKILL.md (same root or not), or to a plain file.
          const holders = new Set(model.skillAt.keys());
          for (const l of mdLinks) {
            const id = model.ids[l.folder % model.ids.length]!;
            const target = model.ids[l.target % model.ids.length]!;
            if (holders.has(id)) continue;
            const targetFile = holders.has(target)
              ? join(model.real(target), "SKILL.md")
              : join(model.base, "plain.md");
            writeFileSync(join(model.base, "plain.md"), skillMd("plain", "Not a SKILL.md"));
            symlinkSync(targetFile, join(model.real(id), "SKILL.md"));
            holders.add(id);
          }
          const roots = [0, 1, 2].map((p) => ({ scope: `s${p}`, path: model.real(PLACES[p]!) }));
          const found = discoverSkills(roots, { maxDepth: tree.maxDepth, maxFolders });
          const entries = [...found.skills, ...found.shadowed, ...found.skipped];
          const diagnostics = [
            ...found.diagnostics,
            ...entries.flatMap((e) => e.diagnostics),
          ];
          for (const id of holders) {
            const place = PLACES.indexOf(id.split("/")[0] as typeof PLACES[number]);
            if (place === 3) continue; // the store lies outside every root
            const path = model.real(id);
            const listed = entries.filter((e) => e.path === path).length;
            assert.ok(listed <= 1, `${id} listed ${listed} times`);
            if (listed === 1) continue;
            const named = diagnostics.some((d) =>
              d.path === path || path.startsWith(d.path + sep) ||
              d.path === join(path, "SKILL.md")
            );
            assert.ok(named, `${id} is neither listed nor named by a diagnostic`);
          }
          rmSync(model.base, { recursive: true, force: true });
        },
      ),
      runs(40),
    );
  });
});

describe("discoverSkills on an anthropics-style layout", () => {
  it("finds nested skills from a project root and a user root, with the project first", () => {
    // Arrange: a repository laid out like anthropics/skills, and a user folder linking a store.
    const base = fresh("layout");
    const project = join(base, "project");
    const home = join(base, "home");
    write(join(project, "README.md"), "# Skills\n");
    write(join(project, ".claude-plugin", "marketplace.json"), "{}\n");
    write(join(project, "spec", "agent-skills-spec.md"), "# Spec\n");
    write(join(project, "template", "SKILL.md"), skillMd("template-skill", "Replace me"));
    write(
      join(project, "skills", "canvas-design", "SKILL.md"),
      skillMd("canvas-design", "Create visual art in .png and .pdf documents"),
    );
    write(join(project, "skills", "canvas-design", "canvas-fonts", "Lora.ttf"), "font");
    write(
      join(project, "skills", "algorithmic-art", "SKILL.md"),
      skillMd(
        "algorithmic-art",
        "Generative art with p5.js",
        "license: Complete terms in LICENSE.txt\n",
      ),
    );
    write(join(project, "skills", "algorithmic-art", "templates", "viewer.html"), "<html>\n");
    write(
      join(project, "skills", "document-skills", "pdf", "SKILL.md"),
      skillMd("pdf", "PDF toolkit"),
    );
    write(join(project, "skills", "document-skills", "pdf", "reference.md"), "# Reference\n");
    write(join(project, "skills", "document-skills", "pdf", "scripts", "fill.py"), "print(1)\n");
    write(
      join(project, "skills", "document-skills", "docx", "SKILL.md"),
      skillMd("docx", "Word files"),
    );
    write(join(home, ".agents", "skills", "pdf", "SKILL.md"), skillMd("pdf", "My own PDF skill"));
    write(join(base, "store", "notes@1.2.0", "SKILL.md"), skillMd("notes", "Take notes"));
    write(join(base, "store", "notes@1.2.0", "references", "style.md"), "# Style\n");
    symlinkSync(join(base, "store", "notes@1.2.0"), join(home, ".agents", "skills", "notes"));

    // Act
    const found = discoverSkills([
      { scope: "project", path: project },
      { scope: "user", path: join(home, ".agents", "skills") },
    ]);

    // Assert
    assert.deepEqual(
      found.skills.map((s) => [s.scope, s.name, s.path.slice(base.length + 1)]),
      [
        ["project", "template-skill", join("project", "template")],
        ["project", "algorithmic-art", join("project", "skills", "algorithmic-art")],
        ["project", "canvas-design", join("project", "skills", "canvas-design")],
        ["project", "docx", join("project", "skills", "document-skills", "docx")],
        ["project", "pdf", join("project", "skills", "document-skills", "pdf")],
        ["user", "notes", join("home", ".agents", "skills", "notes")],
      ],
    );
    assert.deepEqual(
      found.shadowed.map((s) => [s.name, s.scope, s.path, s.winner, s.same_scope]),
      [[
        "pdf",
        "user",
        join(home, ".agents", "skills", "pdf"),
        { scope: "project", path: join(project, "skills", "document-skills", "pdf") },
        false,
      ]],
    );
    assert.equal(found.skill("notes")!.real_path, join(base, "store", "notes@1.2.0"));
    assert.deepEqual(found.skill("template-skill")!.diagnostics.map((d) => d.code), [
      "NAME_MISMATCH",
    ]);
    assert.deepEqual(found.skipped, []);
    assert.deepEqual(found.diagnostics, []);
    // The bundle of a linked skill is loaded from the folder discovery found, lazily.
    const notes = found.bundle("notes")!;
    assert.deepEqual([...notes.files.keys()].sort(), ["SKILL.md", "references/style.md"]);
    assert.equal(found.bundle("notes"), notes);
    assert.equal(found.bundle("missing"), undefined);
    assert.ok(found.bundle("canvas-design")!.files.has("canvas-fonts/Lora.ttf"));
  });
});

describe("discoverSkills: lenient SKILL.md", () => {
  it("loads every rule break with a placed diagnostic and skips only what cannot be read", () => {
    const root = fresh("lenient");
    write(join(root, "long", "SKILL.md"), skillMd("long", "x".repeat(1100), "colour: red\n"));
    write(join(root, "renamed", "SKILL.md"), skillMd("other-name", "Named differently"));
    write(join(root, "nameless", "SKILL.md"), "---\ndescription: No name\n---\n");
    write(join(root, "Upper", "SKILL.md"), skillMd("Upper", "Breaks the name rule"));
    write(
      join(root, "typed", "SKILL.md"),
      skillMd("typed", "Typed wrong", "license: 3\nmetadata: [a]\n"),
    );
    write(join(root, "nodesc", "SKILL.md"), "---\nname: nodesc\n---\n");
    write(join(root, "emptydesc", "SKILL.md"), '---\nname: emptydesc\ndescription: ""\n---\n');
    write(join(root, "yaml", "SKILL.md"), "---\nname: yaml\ndescription: [unclosed\n---\n");
    write(join(root, "nofront", "SKILL.md"), "# Just markdown\n");
    write(join(root, "list", "SKILL.md"), "---\n- a\n---\n");

    const found = discoverSkills([{ scope: "s", path: root }]);

    const codes = (name: string) =>
      found.skill(name)!.diagnostics.map((d) => [d.code, d.severity, d.line, d.column]);
    assert.deepEqual(found.skills.map((s) => s.name).sort(), [
      "Upper",
      "long",
      "nameless",
      "other-name",
      "typed",
    ]);
    assert.deepEqual(codes("long"), [
      ["UNKNOWN_FIELD", "warning", 4, 1],
      ["FRONTMATTER_RULE", "warning", 3, 1],
    ]);
    assert.equal(found.skill("long")!.description, "x".repeat(1100));
    assert.deepEqual(found.skill("long")!.diagnostics[1], {
      severity: "warning",
      code: "FRONTMATTER_RULE",
      path: join(root, "long", "SKILL.md"),
      line: 3,
      column: 1,
      message: "Invalid SKILL.md at description: must be 1 to 1024 characters, got 1100",
    });
    assert.deepEqual(codes("other-name"), [["NAME_MISMATCH", "warning", 2, 1]]);
    assert.deepEqual(codes("nameless"), [["FRONTMATTER_RULE", "warning", 2, 1]]);
    assert.deepEqual(codes("Upper"), [["FRONTMATTER_RULE", "warning", 2, 1]]);
    assert.deepEqual(codes("typed"), [
      ["FRONTMATTER_RULE", "warning", 4, 1],
      ["FRONTMATTER_RULE", "warning", 5, 1],
    ]);
    assert.deepEqual(found.skill("typed")!.frontmatter, {
      name: "typed",
      description: "Typed wrong",
    });
    assert.deepEqual(
      found.skipped.map((
        s,
      ) => [s.path.slice(root.length + 1), s.diagnostics[0]!.code, s.diagnostics[0]!.severity]),
      [
        ["emptydesc", "SKILL_SKIPPED", "error"],
        ["list", "SKILL_SKIPPED", "error"],
        ["nodesc", "SKILL_SKIPPED", "error"],
        ["nofront", "SKILL_SKIPPED", "error"],
        ["yaml", "SKILL_SKIPPED", "error"],
      ],
    );
    assert.equal(
      found.skipped[2]!.diagnostics[0]!.message,
      'Invalid SKILL.md at description: missing required field "description"',
    );
  });

  it("keeps the strict loader strict and makes the lenient one opt-in", () => {
    const root = fresh("strict");
    write(join(root, "long", "SKILL.md"), skillMd("long", "x".repeat(1100)));
    assert.throws(() => loadSkillFolder(join(root, "long")), {
      name: "AgentSkillError",
      message: `Invalid SKILL.md at description: must be 1 to 1024 characters, got 1100 (${
        join(root, "long", "SKILL.md")
      }:3:1)`,
    });
    const lenient = loadSkillFolder(join(root, "long"), { lenient: true });
    assert.equal(lenient.frontmatter.description.length, 1100);
    assert.deepEqual(lenient.diagnostics.map((d) => d.code), ["FRONTMATTER_RULE"]);
    assert.deepEqual(parseSkillMd(skillMd("a", "b"), { folder: "a" }).diagnostics, []);
    assert.throws(() => parseSkillMd("---\ndescription: d\n---\n", { lenient: true }), {
      message: 'Invalid SKILL.md at name: missing required field "name"',
    });
  });
});

describe("discoverSkills: clashes and precedence", () => {
  it("reports a same-scope clash as a conflict with a deterministic winner", () => {
    const a = fresh("scope-a");
    const b = fresh("scope-b");
    write(join(a, "x", "deep", "pdf", "SKILL.md"), skillMd("pdf", "Deep"));
    write(join(a, "y", "pdf", "SKILL.md"), skillMd("pdf", "Shallow"));
    write(join(a, "z", "pdf", "SKILL.md"), skillMd("pdf", "Shallow too"));
    write(join(b, "pdf", "SKILL.md"), skillMd("pdf", "Other scope"));

    const found = discoverSkills([{ scope: "a", path: a }, { scope: "b", path: b }]);

    assert.equal(found.skill("pdf")!.description, "Shallow");
    assert.deepEqual(found.conflicts, [{
      name: "pdf",
      scope: "a",
      paths: [join(a, "y", "pdf"), join(a, "z", "pdf"), join(a, "x", "deep", "pdf")],
    }]);
    assert.deepEqual(found.shadowed.map((s) => [s.description, s.same_scope]), [
      ["Shallow too", true],
      ["Deep", true],
      ["Other scope", false],
    ]);
    assert.equal(
      found.skill("pdf")!.diagnostics[0]!.message,
      `3 skills of scope "a" are named "pdf"; this one is used, not "${join(a, "z", "pdf")}", "${
        join(a, "x", "deep", "pdf")
      }"`,
    );
    const reordered = discoverSkills([{ scope: "a", path: a }, { scope: "b", path: b }], {
      precedence: ["b"],
    });
    assert.equal(reordered.skill("pdf")!.description, "Other scope");
    assert.equal(reordered.shadowed.length, 3);
  });

  it("rejects bad roots and options with typed errors", () => {
    const root = { scope: "s", path: "." };
    assert.throws(() => discoverSkills("x" as never), {
      name: "TypeError",
      message: "Roots must be a list of { scope, path }",
    });
    assert.throws(() => discoverSkills([{ scope: "", path: "." }]), {
      name: "TypeError",
      message: "Each root must be { scope, path } with non-empty strings",
    });
    assert.throws(() => discoverSkills([root], { maxDepth: -1 }), {
      name: "RangeError",
      message: "maxDepth must be a whole number of at least 0, got -1",
    });
    assert.throws(() => discoverSkills([root], { maxFolders: 0.5 }), {
      name: "RangeError",
      message: "maxFolders must be a whole number of at least 1, got 0.5",
    });
    assert.throws(() => discoverSkills([root], { precedence: ["s", "s"] }), {
      name: "RangeError",
      message: 'Scope "s" is named twice in precedence',
    });
    assert.throws(() => discoverSkills([root], { precedence: ["t"] }), {
      name: "RangeError",
      message: 'Scope "t" in precedence has no root (scopes: "s")',
    });
  });
});

describe("discoverSkills: links, bounds and attacks", () => {
  it("follows a link cycle once and says so, and reports broken links and missing roots", () => {
    const root = fresh("cycle");
    write(join(root, "a", "pdf", "SKILL.md"), skillMd("pdf", "PDF"));
    symlinkSync(root, join(root, "a", "up"));
    symlinkSync(join(root, "nowhere"), join(root, "broken"));
    symlinkSync(join(root, "a", "pdf"), join(root, "again"));

    const found = discoverSkills([{ scope: "s", path: root }, {
      scope: "t",
      path: join(root, "none"),
    }]);

    // The link is shallower than the folder, so the skill is reported where the link is.
    assert.deepEqual(found.skills.map((s) => [s.path, s.real_path]), [
      [join(root, "again"), join(root, "a", "pdf")],
    ]);
    assert.deepEqual(found.diagnostics.map((d) => [d.code, d.path]), [
      ["BROKEN_LINK", join(root, "broken")],
      ["SAME_FOLDER", join(root, "a", "pdf")],
      ["LINK_CYCLE", join(root, "a", "up")],
      ["ROOT_NOT_FOUND", join(root, "none")],
    ]);
  });

  it("stops at its bounds with a diagnostic", () => {
    const root = fresh("bounds");
    write(join(root, "1", "2", "3", "deep", "SKILL.md"), skillMd("deep", "Deep"));
    for (let i = 0; i < 5; i++) write(join(root, `w${i}`, "SKILL.md"), skillMd(`w${i}`, "Wide"));
    const shallow = discoverSkills([{ scope: "s", path: root }], { maxDepth: 3 });
    assert.equal(shallow.skill("deep"), undefined);
    assert.deepEqual(shallow.diagnostics.map((d) => d.message), [
      `1 sub-folder of "${
        join(root, "1", "2", "3")
      }" is deeper than 3 under "${root}"; not scanned (raise maxDepth to see them)`,
    ]);
    const narrow = discoverSkills([{ scope: "s", path: root }], { maxFolders: 4 });
    assert.deepEqual(narrow.skills.map((s) => s.name), ["w0", "w1"]);
    assert.deepEqual(narrow.diagnostics.map((d) => d.message), [
      `Stopped after listing 4 folders under "${root}": 4 more were not scanned, from "${
        join(root, "w2")
      }" on (raise maxFolders to see them)`,
    ]);
    assert.deepEqual(
      findSkillFolders(root, { maxDepth: 1 }).folders,
      [0, 1, 2, 3, 4].map((i) => join(root, `w${i}`)),
    );
  });

  it("refuses a SKILL.md that links outside its folder, so nothing of the target is shown", () => {
    const root = fresh("md-link");
    write(join(root, "secret.md"), skillMd("leak", "TOP SECRET description"));
    mkdirSync(join(root, "skills", "leak"), { recursive: true });
    symlinkSync(join(root, "secret.md"), join(root, "skills", "leak", "SKILL.md"));

    const found = discoverSkills([{ scope: "s", path: join(root, "skills") }]);

    assert.deepEqual(found.skills, []);
    assert.deepEqual(found.skipped.map((s) => s.diagnostics[0]!.message), [
      "Skipped: SKILL.md is a link that leads outside the skill folder, and not to the SKILL.md of another folder of the same root",
    ]);
    assert.ok(!JSON.stringify(snapshot(found)).includes("TOP SECRET"));
  });

  it("does not hang on a SKILL.md that is a FIFO", { skip: process.platform === "win32" }, () => {
    const root = fresh("fifo");
    mkdirSync(join(root, "pipe"));
    const made = spawnSync("mkfifo", [join(root, "pipe", "SKILL.md")]);
    if (made.status !== 0) return;

    const found = discoverSkills([{ scope: "s", path: root }]);

    assert.deepEqual(
      found.skipped.map((s) => [s.diagnostics[0]!.code, s.diagnostics[0]!.message]),
      [
        ["SKILL_MD_UNREADABLE", "Skipped: SKILL.md could not be read (not a regular file)"],
      ],
    );
  });

  it("refuses to load a skill whose link was swapped after discovery", () => {
    const root = fresh("swap");
    write(join(root, "store", "pdf", "SKILL.md"), skillMd("pdf", "PDF"));
    write(join(root, "evil", "pdf", "SKILL.md"), skillMd("pdf", "Evil"));
    write(join(root, "evil", "pdf", "references", "secret.md"), "secret\n");
    mkdirSync(join(root, "skills"));
    symlinkSync(join(root, "store", "pdf"), join(root, "skills", "pdf"));
    const found = discoverSkills([{ scope: "s", path: join(root, "skills") }]);
    // Swap the link to another folder after discovery.
    symlinkSync(join(root, "evil", "pdf"), join(root, "skills", "next"));
    renameSync(join(root, "skills", "next"), join(root, "skills", "pdf"));

    assert.throws(() => found.bundle("pdf"), {
      name: "AgentSkillError",
      message: "Invalid SKILL.md: the skill folder changed since discovery: it now leads to " +
        `another folder (${join(root, "skills", "pdf")})`,
    });
    const result = handleSkillTool({ skill: "pdf", resource: "references/secret.md" }, {
      skills: found,
    });
    // The model sees neither the file nor a host path.
    assert.deepEqual(result, {
      content: "Invalid SKILL.md: the skill folder changed since discovery: it now leads to " +
        "another folder (pdf)",
      is_error: true,
    });
  });

  it("feeds the skill tool directly", () => {
    const root = fresh("tool");
    write(join(root, "pdf", "SKILL.md"), skillMd("pdf", "Fill PDF forms"));
    write(join(root, "pdf", "references", "forms.md"), "# Forms\n");
    const found = discoverSkills([{ scope: "s", path: root }]);

    const tool = skillToolDefinition(found.skills);
    const activated = handleSkillTool({ skill: "pdf" }, { skills: found });
    const read = handleSkillTool({ skill: "pdf", resource: "references/forms.md" }, {
      skills: found,
    });

    assert.deepEqual((tool.input_schema.properties as { skill: { enum: string[] } }).skill.enum, [
      "pdf",
    ]);
    assert.equal(activated.is_error, false);
    assert.match(activated.content, /references\/forms\.md/);
    assert.match(read.content, /# Forms/);
    assert.deepEqual(handleSkillTool({ skill: "nope" }, { skills: found }), {
      content: 'Unknown skill "nope"',
      is_error: true,
    });
    assert.ok(AgentSkillError);
  });
});

describe("discoverSkills: what it cannot read", () => {
  it("reports unreadable folders and SKILL.md files, repeats across roots and renamed skills", () => {
    const root = fresh("unreadable");
    write(join(root, "locked", "inner", "SKILL.md"), skillMd("inner", "Behind a locked folder"));
    write(join(root, "big", "SKILL.md"), skillMd("big", "Big") + "x".repeat(1024 * 1024));
    mkdirSync(join(root, "dangling"));
    symlinkSync(join(root, "nowhere.md"), join(root, "dangling", "SKILL.md"));
    write(join(root, "pdf", "SKILL.md"), skillMd("pdf", "PDF"));
    const fs: DiscoveryFileSystem = {
      ...nodeDiscoveryFileSystem,
      readdir(dir) {
        if (dir === join(root, "locked")) {
          throw Object.assign(new Error("denied"), { code: "EACCES" });
        }
        return nodeDiscoveryFileSystem.readdir(dir);
      },
    };

    const found = discoverSkills([{ scope: "a", path: root }, {
      scope: "b",
      path: join(root, "pdf"),
    }], { fs });

    assert.deepEqual(found.skills.map((s) => [s.name, s.scope]), [["pdf", "a"]]);
    assert.deepEqual(
      found.skipped.map((s) => [s.path, s.diagnostics[0]!.message]),
      [
        [join(root, "big"), "Skipped: SKILL.md is larger than the limit of 1048576 bytes"],
        [join(root, "dangling"), "Skipped: SKILL.md is a broken link (ENOENT)"],
      ],
    );
    assert.deepEqual(found.diagnostics.map((d) => [d.severity, d.code, d.message]), [
      [
        "warning",
        "PERMISSION_DENIED",
        `Permission denied: folder "${join(root, "locked")}" cannot be listed; skipped`,
      ],
      [
        "info",
        "SAME_FOLDER",
        `"${join(root, "pdf")}" (scope "b") is the skill folder "${
          join(root, "pdf")
        }" (scope "a") again; counted once`,
      ],
    ]);
    // A skill renamed on disk after discovery is not loaded under its old name.
    write(join(root, "pdf", "SKILL.md"), skillMd("other", "Renamed"));
    assert.throws(() => found.bundle("pdf"), {
      name: "AgentSkillError",
      message:
        `Invalid SKILL.md at name: the skill changed since discovery: its name is now "other", not "pdf" (${
          join(root, "pdf", "SKILL.md")
        })`,
    });
  });
});
