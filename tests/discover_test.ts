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
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { fc, runs } from "./_fc.ts";
import { AgentSkillError, handleSkillTool, skillToolDefinition } from "../mod.ts";
import {
  discoverSkills,
  type Discovery,
  type DiscoveryEntry,
  type DiscoveryFileSystem,
  findSkillFolders,
  loadSkillFolder,
  nodeDiscoveryFileSystem,
  parseSkillMd,
} from "../lib/load.ts";

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

function write(path: string, content: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
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
      segs: fc.array(fc.constantFrom("a", "b", "c", ".h"), { minLength: 1, maxLength: 6 }),
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
 * each folder once, skill folders not entered, hidden names skipped.
 */
function referenceScan(model: Model, place: number, maxDepth: number): {
  skills: Map<string, number>;
  folders: number;
  tooDeep: boolean;
} {
  const root = PLACES[place]!;
  const visited = new Set([root]);
  const queue: [string, number][] = [[root, 0]];
  const skills = new Map<string, number>();
  let tooDeep = false;
  for (let head = 0; head < queue.length; head++) {
    const [id, depth] = queue[head]!;
    if (model.skillAt.has(id)) {
      skills.set(id, depth);
      continue;
    }
    const children = [
      ...model.ids.filter((c) =>
        c.startsWith(`${id}/`) && !c.slice(id.length + 1).includes("/") &&
        !c.slice(id.length + 1).startsWith(".")
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
          if (!skipped) assert.equal((entry as { name: string }).name, name);
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
          for (const path of calls) {
            assert.ok(depthOf(path, root) <= tree.maxDepth || !path.startsWith(root));
          }
          rmSync(model.base, { recursive: true, force: true });
        },
      ),
      runs(40),
    );
  });
});
