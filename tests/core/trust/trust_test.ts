// @slow: locks and verifies through the CLI as a subprocess (left out of `npm run test:quick`)
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fc, runs } from "../../_fc.ts";
import {
  approve,
  canonicalManifest,
  compareLock,
  createBundle,
  createLockfile,
  decideApproval,
  handleLockedSkillTool,
  handleSkillTool,
  isDigest,
  lockEntry,
  MAX_TRUST_FILE_BYTES,
  MemoryApprovalStore,
  parseApprovals,
  parseLockfile,
  pinBundle,
  readResource,
  renderApprovals,
  renderLockfile,
  renderSkillCatalog,
  type ResourceFile,
  type ResourceHandle,
  ResourceReadError,
  skillDigest,
  skillManifest,
  skillToolDefinition,
  TrustFileError,
} from "../../../mod.ts";
import { manifestFromEntries } from "../../../lib/core/trust/manifest.ts";
import {
  approveSkills,
  discoverSkills,
  type DiscoveryFileSystem,
  JsonFileApprovalStore,
  loadSkillFolder,
  lockSkills,
  nodeDiscoveryFileSystem,
  readLockfile,
  readTrustFile,
  trustDiscovery,
  verifySkills,
  writeLockfile,
} from "../../../lib/load.ts";
import { _setOpenChecks } from "../../../lib/fs/_safe_open.ts";
import { startChild } from "../../_spawn.ts";
import { write as put } from "../../_tree.ts";

let temp = "";
let counter = 0;
before(() => {
  temp = realpathSync(mkdtempSync(join(tmpdir(), "skillset-trust-")));
});
after(() => rmSync(temp, { recursive: true, force: true }));

function fresh(name: string): string {
  const dir = join(temp, `${name}-${counter++}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function skillMd(name: string, description: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;
}

/** A skill as data: its name and files (SKILL.md included) by path. */
type Model = { name: string; files: Map<string, Uint8Array> };

function writeModel(root: string, model: Model): string {
  const dir = join(root, model.name);
  rmSync(dir, { recursive: true, force: true });
  for (const [path, bytes] of model.files) put(join(dir, path), bytes);
  return dir;
}

/** The reference: node:crypto over the model, sorted the simple way. */
function referenceDigest(
  files: ReadonlyMap<string, Uint8Array>,
): { digest: string; lines: string } {
  const lines = [...files.keys()].sort().map((p) =>
    `${createHash("sha256").update(files.get(p)!).digest("hex")}  ${p}\n`
  ).join("");
  return { digest: `sha256:${createHash("sha256").update(lines).digest("hex")}`, lines };
}

const SEGMENT = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,5}$/);
const FOLDER = fc.constantFrom(
  "",
  "references/",
  "assets/",
  "scripts/",
  "extras/",
  "references/deep/",
);
const BYTES = fc.uint8Array({ maxLength: 48 });

/** 2-3 skills with distinct names, each with 0-5 files beside SKILL.md. */
const SKILLS = fc.uniqueArray(fc.constantFrom("alpha", "beta", "gamma", "delta"), {
  minLength: 2,
  maxLength: 3,
}).chain((names) =>
  fc.tuple(
    ...names.map((name) =>
      fc.uniqueArray(fc.tuple(FOLDER, SEGMENT), { maxLength: 5, selector: ([f, s]) => `${f}${s}` })
        .chain((paths) =>
          fc.tuple(...paths.map(() => BYTES)).map((contents) => {
            const files = new Map<string, Uint8Array>();
            files.set("SKILL.md", new TextEncoder().encode(skillMd(name, `Skill ${name}`)));
            paths.forEach(([f, s], i) => {
              const path = `${f}${s}.txt`;
              files.set(path, contents[i]!);
            });
            return { name, files } as Model;
          })
        )
    ),
  )
);

type Mutation =
  | { kind: "byte"; pick: number; at: number; xor: number }
  | { kind: "add"; path: string; bytes: Uint8Array }
  | { kind: "remove"; pick: number }
  | { kind: "rename"; pick: number; to: string }
  | { kind: "frontmatter"; text: string };

const MUTATION: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant("byte" as const),
    pick: fc.nat(),
    at: fc.nat(),
    xor: fc.integer({ min: 1, max: 255 }),
  }),
  fc.record({
    kind: fc.constant("add" as const),
    path: fc.tuple(FOLDER, SEGMENT).map(([f, s]) => `${f}${s}.new`),
    bytes: BYTES,
  }),
  fc.record({ kind: fc.constant("remove" as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant("rename" as const),
    pick: fc.nat(),
    to: fc.tuple(FOLDER, SEGMENT).map(([f, s]) => `${f}${s}.moved`),
  }),
  fc.record({
    kind: fc.constant("frontmatter" as const),
    text: fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,20}$/),
  }),
);

/** Apply a mutation to a model; returns the file changes expected, or null when it changes nothing. */
function mutate(model: Model, m: Mutation): { path: string; change: string }[] | null {
  const others = [...model.files.keys()].filter((p) => p !== "SKILL.md").sort();
  const enc = new TextEncoder();
  switch (m.kind) {
    case "byte": {
      const path = [...model.files.keys()].sort()[m.pick % model.files.size]!;
      const bytes = model.files.get(path)!.slice();
      if (bytes.length === 0) {
        model.files.set(path, Uint8Array.of(m.xor));
      } else {
        bytes[m.at % bytes.length]! ^= m.xor;
        if (path === "SKILL.md") return null; // could break the frontmatter: covered by "frontmatter"
        model.files.set(path, bytes);
      }
      return [{ path, change: "changed" }];
    }
    case "add":
      if (model.files.has(m.path)) return null;
      model.files.set(m.path, m.bytes);
      return [{ path: m.path, change: "added" }];
    case "remove": {
      if (others.length === 0) return null;
      const path = others[m.pick % others.length]!;
      model.files.delete(path);
      return [{ path, change: "removed" }];
    }
    case "rename": {
      if (others.length === 0 || model.files.has(m.to)) return null;
      const path = others[m.pick % others.length]!;
      model.files.set(m.to, model.files.get(path)!);
      model.files.delete(path);
      return [{ path, change: "removed" }, { path: m.to, change: "added" }].sort((a, b) =>
        a.path < b.path ? -1 : 1
      );
    }
    case "frontmatter": {
      const text = skillMd(model.name, `Now ${m.text}`);
      if (new TextDecoder().decode(model.files.get("SKILL.md")) === text) return null;
      model.files.set("SKILL.md", enc.encode(text));
      return [{ path: "SKILL.md", change: "changed" }];
    }
  }
}

/** A discovery file system that lists every folder in a shuffled order. */
function shuffled(seed: number): DiscoveryFileSystem {
  let s = seed | 1;
  return {
    ...nodeDiscoveryFileSystem,
    readdir(dir: string) {
      const entries = [...nodeDiscoveryFileSystem.readdir(dir)];
      for (let i = entries.length - 1; i > 0; i--) {
        s = (s * 1103515245 + 12345) & 0x7fffffff;
        const j = s % (i + 1);
        [entries[i], entries[j]] = [entries[j]!, entries[i]!];
      }
      return entries;
    },
  };
}

describe("skillManifest", () => {
  it("equals the reference (node:crypto, sorted lines) and the full view holds every file", async () => {
    await fc.assert(
      fc.asyncProperty(SKILLS, async (models) => {
        const root = fresh("ref");
        for (const model of models) {
          const dir = writeModel(root, model);
          const manifest = await skillManifest(loadSkillFolder(dir));
          const ref = referenceDigest(model.files);
          assert.equal(canonicalManifest(manifest.files), ref.lines);
          assert.equal(manifest.digest, ref.digest);
          assert.deepEqual(manifest.files.map((f) => f.path), [...model.files.keys()].sort());
          for (const f of manifest.files) {
            assert.equal(f.size, model.files.get(f.path)!.length);
            assert.ok(isDigest(f.digest));
          }
          // The gate's view, closed: exactly the files outside non-standard folders.
          assert.deepEqual(
            manifest.visible.files.map((f) => f.path),
            manifest.files.map((f) => f.path).filter((p) => !p.startsWith("extras/")),
          );
        }
      }),
      runs(25),
    );
  });

  it("gives the same digests on every runtime (a fixed skill, digests recorded once)", async () => {
    const bundle = createBundle({
      frontmatter: { name: "golden", description: "Fixed", metadata: { b: "2", a: "1" } },
      instructions: "",
      files: {
        "SKILL.md": "---\nname: golden\n---\n",
        "références/é.md": "é\n",
        "assets/\u{1F600}.bin": new Uint8Array([0, 255, 10]),
        "extras/x": "",
      },
    });
    const m = await skillManifest(bundle);
    assert.deepEqual([m.digest, m.visible.digest, m.frontmatter_digest], [
      "sha256:7d17153ebbaeb97d83f8192e23115bcfa8745b231edf5edc9439b114a9c72cc0",
      "sha256:a05db27933db11a67119f65e48b00cc8566deae26846664dbaab5db6b4a236f5",
      "sha256:42cdbb4936651ebf03337c3b47626f3afc64fa150447c113e2787c25a615180b",
    ]);
  });

  it("is the same under any order of the files", async () => {
    await fc.assert(
      fc.asyncProperty(SKILLS, fc.integer(), async (models, seed) => {
        const model = models[0]!;
        const entries = [...model.files.entries()];
        const reversed = new Map([...entries].reverse());
        let s = seed | 1;
        const mixed = [...entries];
        for (let i = mixed.length - 1; i > 0; i--) {
          s = (s * 1103515245 + 12345) & 0x7fffffff;
          const j = s % (i + 1);
          [mixed[i], mixed[j]] = [mixed[j]!, mixed[i]!];
        }
        const fm = { name: model.name, description: `Skill ${model.name}` };
        const a = await skillManifest(
          createBundle({ frontmatter: fm, instructions: "", files: new Map(entries) }),
        );
        const b = await skillManifest(
          createBundle({ frontmatter: fm, instructions: "", files: reversed }),
        );
        const c = await skillManifest(
          createBundle({ frontmatter: fm, instructions: "", files: new Map(mixed) }),
        );
        assert.deepEqual(b, a);
        assert.deepEqual(c, a);
      }),
      runs(50),
    );
  });

  it("hashes files larger than a page, and a file that changes while hashed is RESOURCE_CHANGED", async () => {
    const dir = join(fresh("change"), "change");
    put(join(dir, "SKILL.md"), skillMd("change", "Changes"));
    const big = new Uint8Array(9 * 1024 * 1024 + 7).map((_, i) => i * 31);
    put(join(dir, "assets", "big.bin"), big);
    put(join(dir, "references", "a.md"), "abcdef");
    const skill = loadSkillFolder(dir);
    const manifest = await skillManifest(skill);
    assert.equal(
      manifest.files.find((f) => f.path === "assets/big.bin")?.digest,
      `sha256:${createHash("sha256").update(big).digest("hex")}`,
    );
    for (
      const [what, act] of [
        ["rewritten in place", (p: string) => writeFileSync(p, "ABCDEF")],
        ["grown", (p: string) => appendFileSync(p, "g")],
        ["truncated", (p: string) => writeFileSync(p, "ab")],
      ] as const
    ) {
      put(join(dir, "references", "a.md"), "abcdef");
      const restore = _setOpenChecks({
        afterOpen: (full) => {
          if (full.endsWith("a.md")) act(full);
        },
      });
      try {
        await assert.rejects(skillManifest(loadSkillFolder(dir)), (e: unknown) => {
          assert.ok(e instanceof ResourceReadError, what);
          assert.equal(e.code, "RESOURCE_CHANGED", what);
          assert.equal(e.path, "references/a.md");
          return true;
        });
      } finally {
        restore();
      }
    }
  });
});

describe("hashResource without a way to ask the file's version", () => {
  it("a handle that reads more or fewer bytes than it opened with is RESOURCE_CHANGED", async () => {
    for (const [what, extra] of [["longer", 1], ["shorter", -1]] as const) {
      const bytes = new Uint8Array(10);
      const file = {
        path: "references/a.md",
        size: 10,
        read: () => new Uint8Array(0),
        open: () => ({
          size: 10,
          version: "",
          read: (position: number, length: number) =>
            new Uint8Array(bytes.length + extra).subarray(position, position + length),
          close: () => {},
        }),
      };
      const skill = createBundle({
        frontmatter: { name: "x", description: "x" },
        instructions: "",
      });
      const bundle = { ...skill, files: new Map([["references/a.md", file]]) };
      await assert.rejects(skillManifest(bundle), {
        code: "RESOURCE_CHANGED",
        path: "references/a.md",
      }, what);
    }
  });
});

describe("lock and verify", () => {
  it("a change to one skill alters exactly its digest, and verify names exactly the files changed", async () => {
    await fc.assert(
      fc.asyncProperty(SKILLS, fc.nat(), MUTATION, fc.integer(), async (models, which, m, seed) => {
        const base = fresh("prop");
        const root = join(base, "skills");
        for (const model of models) writeModel(root, model);
        const roots = [{ scope: "project", path: root }];
        const { lock, errors } = await lockSkills(discoverSkills(roots, { fs: shuffled(seed) }), {
          base,
        });
        assert.deepEqual(errors, []);
        // Lock then verify on the unchanged tree: clean, under another listing order too.
        const clean = await verifySkills(discoverSkills(roots, { fs: shuffled(seed + 1) }), lock, {
          base,
          frozen: true,
        });
        assert.deepEqual(clean.differences, []);
        assert.equal(clean.ok, true);
        const target = models[which % models.length]!;
        const expected = mutate(target, m);
        fc.pre(expected !== null);
        writeModel(root, target);
        const after = await lockSkills(discoverSkills(roots), { base });
        const before = new Map(lock.skills.map((s) => [s.name, s.digest]));
        for (const s of after.lock.skills) {
          if (s.name === target.name) assert.notEqual(s.digest, before.get(s.name));
          else assert.equal(s.digest, before.get(s.name));
        }
        const result = await verifySkills(discoverSkills(roots), lock, { base });
        assert.equal(result.ok, false);
        assert.equal(result.differences.length, 1);
        const d = result.differences[0]!;
        assert.deepEqual([d.kind, d.name, d.key], [
          "changed",
          target.name,
          `file skills/${target.name}`,
        ]);
        assert.deepEqual(d.files, expected);
        assert.equal(d.frontmatter_changed, m.kind === "frontmatter");
      }),
      runs(40),
    );
  });

  it("reports added and removed skills; frozen fails on a skill not locked", async () => {
    const base = fresh("added");
    const root = join(base, "skills");
    put(join(root, "one", "SKILL.md"), skillMd("one", "One"));
    const roots = [{ scope: "project", path: root }];
    const { lock } = await lockSkills(discoverSkills(roots), { base });
    put(join(root, "two", "SKILL.md"), skillMd("two", "Two"));
    const loose = await verifySkills(discoverSkills(roots), lock, { base });
    assert.deepEqual([loose.ok, loose.differences.map((d) => [d.kind, d.name])], [true, [[
      "added",
      "two",
    ]]]);
    const frozen = await verifySkills(discoverSkills(roots), lock, { base, frozen: true });
    assert.equal(frozen.ok, false);
    rmSync(join(root, "one"), { recursive: true });
    const gone = await verifySkills(discoverSkills(roots), lock, { base });
    assert.equal(gone.ok, false);
    assert.deepEqual(gone.differences.map((d) => [d.kind, d.name]), [["removed", "one"], [
      "added",
      "two",
    ]]);
  });

  it("a skill that can no longer be loaded or hashed is an error, never a clean verify or an approval", async () => {
    const base = fresh("broken");
    const root = join(base, "skills");
    put(join(root, "one", "SKILL.md"), skillMd("one", "One"));
    put(join(root, "two", "SKILL.md"), skillMd("two", "Two"));
    const roots = [{ scope: "project", path: root }];
    const { lock } = await lockSkills(discoverSkills(roots), { base });
    const discovery = discoverSkills(roots);
    put(join(root, "one", "SKILL.md"), skillMd("other", "Renamed after discovery"));
    const locked = await lockSkills(discovery, { base });
    assert.deepEqual(locked.errors.map((e) => [e.key, e.name]), [["file skills/one", "one"]]);
    assert.match(locked.errors[0]!.message, /the skill changed since discovery/);
    const verified = await verifySkills(discovery, lock, { base });
    assert.deepEqual([verified.ok, verified.differences, verified.errors.length], [false, [], 1]);
    const trusted = await trustDiscovery(discovery, { approvals: new MemoryApprovalStore() });
    assert.equal(trusted.skipped[0]?.diagnostics[0]?.code, "LOCK_MISMATCH");
    assert.match(trusted.skipped[0]!.diagnostics[0]!.message, /^Skill "one" could not be hashed: /);
  });

  it("a hand-edited entry whose digest no longer matches its own files is reported as inconsistent", async () => {
    const d = `sha256:${"1".repeat(64)}`;
    const files = [{ path: "SKILL.md", size: 1, digest: d }];
    const m = await manifestFromEntries("pdf", { name: "pdf" }, files);
    const entry = lockEntry(m, { scope: "p", source: "pdf" });
    const edited = createLockfile([{ ...entry, digest: `sha256:${"2".repeat(64)}` }]);
    const result = await compareLock(edited, [entry]);
    assert.equal(result.ok, false);
    assert.deepEqual([result.differences[0]?.inconsistent, result.differences[0]?.files], [
      true,
      [],
    ]);
  });

  it("the lockfile round-trips byte for byte and is sorted", async () => {
    const base = fresh("round");
    for (const name of ["zeta", "alpha", "mid"]) {
      put(join(base, "s", name, "SKILL.md"), skillMd(name, name));
    }
    const { lock } = await lockSkills(discoverSkills([{ scope: "p", path: join(base, "s") }]), {
      base,
    });
    const file = join(base, "skills.lock.json");
    writeLockfile(file, lock);
    const text = readFileSync(file, "utf8");
    assert.equal(renderLockfile(readLockfile(file)), text);
    assert.deepEqual(lock.skills.map((s) => s.name), ["alpha", "mid", "zeta"]);
  });

  it("a recorded base makes version 3 and reads back (docs/security.md#signed-root)", async () => {
    const base = fresh("based");
    put(join(base, "s", "pdf", "SKILL.md"), skillMd("pdf", "pdf"));
    const { lock } = await lockSkills(discoverSkills([{ scope: "p", path: join(base, "s") }]), {
      base,
      recordBase: "tools/ci",
    });
    assert.equal(lock.version, 3);
    const text = renderLockfile(lock);
    assert.match(text, /^\{\n {2}"version": 3,\n {2}"base": "tools\/ci",\n {2}"skills"/);
    assert.deepEqual(parseLockfile(text, "l.json"), lock);
    assert.throws(() => createLockfile([], undefined, "../up"), {
      name: "TypeError",
      message: 'Lockfile base "../up" is not a folder inside the repository',
    });
  });
});

describe("lockfile and approval file: bad input", () => {
  const d = `sha256:${"a".repeat(64)}`;
  const valid = renderLockfile(createLockfile([
    {
      name: "pdf",
      scope: "project",
      source: "skills/pdf",
      digest: d,
      frontmatter_digest: d,
      files: [{ path: "SKILL.md", size: 3, digest: d }, {
        path: "references/a.md",
        size: 1,
        digest: d,
      }],
    },
    {
      name: "docs:x",
      origin: "docs",
      uri: "skill://x/SKILL.md",
      digest: d,
      frontmatter_digest: d,
      files: [],
    },
  ]));

  it("names the file, line and column of what is wrong", () => {
    const cases: [string, string, string][] = [
      [
        valid.replace(`"size": 3`, `"size": -3`),
        "INVALID_FIELD",
        `skills.lock.json:11:39: Field "size" of file "SKILL.md" must be a whole number >= 0`,
      ],
      [
        valid.replace(
          `"${d}",\n      "frontmatter`,
          `"${d.toUpperCase().replace("SHA256", "sha256")}",\n      "frontmatter`,
        ),
        "BAD_DIGEST",
        "",
      ],
      [
        valid.replace(`"version": 1`, `"version": "1"`),
        "UNSUPPORTED_VERSION",
        `skills.lock.json:2:14: Unsupported version a string: this library reads version 1, 2 and 3`,
      ],
      [
        valid.replace(`"scope": "project",`, `"scope": "project", "extra": 1,`),
        "INVALID_FIELD",
        "",
      ],
      [valid.replace(`"references/a.md"`, `"SKILL.md"`), "DUPLICATE_ENTRY", ""],
      [valid.replace(`"references/a.md"`, `"references/../a.md"`), "INVALID_FIELD", ""],
      [valid.replace(`"references/a.md"`, `"./references/a.md"`), "INVALID_FIELD", ""],
      [
        valid.replace(`"source": "skills/pdf",`, `"source": "skills/pdf", "source": "b",`),
        "INVALID_JSON",
        "",
      ],
      [valid.replace(`}\n  ]`, `},\n  ]`), "INVALID_JSON", ""],
      [
        valid.replace(`"uri": "skill://x/SKILL.md"`, `"uri": "skill://x/SKILL.md", "scope": "p"`),
        "INVALID_FIELD",
        "",
      ],
      // A base (version 3 only) stays inside the repository (docs/security.md#signed-root).
      [
        valid.replace(`"version": 1,`, `"version": 3, "base": "../elsewhere",`),
        "INVALID_FIELD",
        `skills.lock.json:2:25: Field "base" must name a folder inside the repository ("." or names separated by "/", no ".."), got "../elsewhere"`,
      ],
      [valid.replace(`"version": 1,`, `"version": 3, "base": "/etc",`), "INVALID_FIELD", ""],
      [valid.replace(`"version": 1,`, `"version": 3, "base": "a//b",`), "INVALID_FIELD", ""],
      [
        valid.replace(`"version": 1,`, `"version": 3,`),
        "INVALID_FIELD",
        `skills.lock.json:1:1: Missing field "base" in the lockfile`,
      ],
      [
        valid.replace(`"version": 1,`, `"version": 2, "base": ".",`),
        "INVALID_FIELD",
        `skills.lock.json:2:17: Field "base" needs version 3`,
      ],
      ["", "INVALID_JSON", "skills.lock.json:1:1: Not valid JSON: Expected a value: the text ends"],
      ["[]", "INVALID_FIELD", "skills.lock.json:1:1: The lockfile must be an object, not an array"],
    ];
    for (const [text, code, message] of cases) {
      assert.throws(() => parseLockfile(text, "skills.lock.json"), (e: unknown) => {
        assert.ok(e instanceof TrustFileError, text);
        assert.equal(e.code, code, e.message);
        assert.equal(e.file, "skills.lock.json");
        assert.ok(e.line !== undefined && e.line >= 1);
        if (message !== "") assert.equal(e.message, message);
        return true;
      });
    }
    // The bad digest is named at its line.
    const bad = valid.replace(
      `"digest": "${d}",\n      "frontmatter`,
      `"digest": "sha256:abc",\n      "frontmatter`,
    );
    assert.throws(() => parseLockfile(bad, "l.json"), {
      code: "BAD_DIGEST",
      message:
        `l.json:8:17: Field "digest" of skill "pdf" must be "sha256:" and 64 lowercase hexadecimal digits, not "sha256:abc"`,
    });
  });

  it("every truncation of a lockfile or approval file is a TrustFileError, never a shorter lock", () => {
    const approvals = renderApprovals([
      {
        origin: "file",
        path: "skills/pdf",
        name: "pdf",
        digest: d,
        frontmatter_digest: d,
        files: [{ path: "SKILL.md", size: 3, digest: d }],
      },
    ]);
    for (const [text, parse] of [[valid, parseLockfile], [approvals, parseApprovals]] as const) {
      assert.doesNotThrow(() => parse(text, "f"));
      // The text without its final line feed is still whole; every shorter prefix is not.
      for (let cut = 0; cut < text.trimEnd().length; cut++) {
        assert.throws(() => parse(text.slice(0, cut), "f"), TrustFileError, `cut at ${cut}`);
      }
    }
  });

  it("a hand edit of any one character is either still a valid file or a TrustFileError", () => {
    fc.assert(
      fc.property(fc.nat(), fc.string({ maxLength: 2 }), (at, replacement) => {
        const i = at % valid.length;
        const text = valid.slice(0, i) + replacement + valid.slice(i + 1);
        try {
          const lock = parseLockfile(text, "f");
          for (const s of lock.skills) {
            assert.ok(isDigest(s.digest));
            for (const f of s.files) assert.ok(isDigest(f.digest));
          }
        } catch (e) {
          assert.ok(e instanceof TrustFileError, String(e));
          assert.ok(e.line !== undefined);
        }
      }),
      runs(500),
    );
  });

  it("refuses a file over 16 MiB, whole or as read from disk", () => {
    const dir = fresh("big");
    const file = join(dir, "skills.lock.json");
    const huge = `{"version":1,"skills":[]}${" ".repeat(MAX_TRUST_FILE_BYTES)}`;
    assert.throws(() => parseLockfile(huge, file), { code: "TOO_LARGE" });
    writeFileSync(file, huge);
    assert.throws(() => readLockfile(file), { code: "TOO_LARGE", file });
    assert.throws(() => new JsonFileApprovalStore(file), { code: "TOO_LARGE" });
    writeFileSync(file, `{"version":1,"skills":[]}${" ".repeat(MAX_TRUST_FILE_BYTES - 30)}`);
    assert.equal(readLockfile(file).skills.length, 0);
  });

  it("refuses a missing lockfile, a folder and bytes that are not UTF-8", () => {
    const dir = fresh("odd");
    assert.throws(() => readLockfile(join(dir, "none.json")), { code: "NOT_FOUND" });
    assert.throws(() => readTrustFile(dir), {
      code: "UNREADABLE",
      message: `${dir}: Not a regular file`,
    });
    writeFileSync(join(dir, "bin.json"), Uint8Array.of(0x7b, 0xff, 0x7d));
    assert.throws(() => readLockfile(join(dir, "bin.json")), {
      message: `${join(dir, "bin.json")}: The file is not valid UTF-8`,
    });
  });

  it("a malformed approval file is an error, never everything approved", () => {
    const dir = fresh("badapprovals");
    put(join(dir, "s", "one", "SKILL.md"), skillMd("one", "One"));
    const file = join(dir, "approvals.json");
    writeFileSync(
      file,
      `{ "version": 1, "approvals": [\n  { "origin": "file", "path": "s/one", "name": "one", "digest": "sha256:x" }\n] }`,
    );
    assert.throws(() => new JsonFileApprovalStore(file), {
      code: "BAD_DIGEST",
      message:
        `${file}:2:65: Field "digest" of the approval of "s/one" must be "sha256:" and 64 lowercase hexadecimal digits, not "sha256:x"`,
    });
  });

  it("concurrent writers never leave a half-written lockfile", async () => {
    const dir = fresh("race");
    const file = join(dir, "skills.lock.json");
    writeLockfile(file, createLockfile([]));
    const children = ["a", "b", "c"].map((tag) => startChild(["write-lock", file, tag, "60"]));
    const exits = children.map((c) =>
      new Promise<number | null>((done) => c.on("exit", (code) => done(code)))
    );
    let running = children.length;
    for (const e of exits) e.then(() => running--);
    let reads = 0;
    const names = new Set<string>();
    while (running > 0) {
      const lock = parseLockfile(readFileSync(file, "utf8"), file);
      for (const s of lock.skills) names.add(s.name);
      reads++;
      await new Promise((done) => setTimeout(done, 1));
    }
    assert.deepEqual(await Promise.all(exits), [0, 0, 0]);
    assert.ok(reads > 0);
    assert.ok(names.size >= 1);
    // No temporary file is left behind.
    assert.deepEqual(
      (await import("node:fs")).readdirSync(dir).filter((n) => n !== "skills.lock.json"),
      [],
    );
  });
});

describe("approvals", () => {
  function tree(): { base: string; root: string; models: Model[] } {
    const base = fresh("appr");
    const root = join(base, "skills");
    const models: Model[] = ["alpha", "beta"].map((name) => ({
      name,
      files: new Map([
        ["SKILL.md", new TextEncoder().encode(skillMd(name, `Skill ${name}`))],
        ["references/guide.md", new TextEncoder().encode(`# ${name}\n`)],
      ]),
    }));
    for (const m of models) writeModel(root, m);
    return { base, root, models };
  }

  it("an approval lapses on any change of the approved skill and on no change of another", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(1), MUTATION, async (which, m) => {
        const { base, root, models } = tree();
        const roots = [{ scope: "project", path: root }];
        const store = new JsonFileApprovalStore(join(base, "approvals.json"));
        await approveSkills(discoverSkills(roots), store, "all");
        const trusted = await trustDiscovery(discoverSkills(roots), { approvals: store });
        assert.deepEqual(trusted.skills.map((s) => s.name), ["alpha", "beta"]);
        const target = models[which]!;
        const expected = mutate(target, m);
        fc.pre(expected !== null);
        writeModel(root, target);
        // A fresh store reads the file again, as another process would.
        const again = new JsonFileApprovalStore(join(base, "approvals.json"));
        const now = await trustDiscovery(discoverSkills(roots), { approvals: again });
        const other = models[1 - which]!.name;
        assert.deepEqual(now.skills.map((s) => s.name), [other]);
        const skipped = now.skipped.find((s) => s.path === join(root, target.name))!;
        assert.equal(skipped.diagnostics[0]?.code, "NEEDS_APPROVAL");
        for (const change of expected!) {
          assert.ok(
            skipped.diagnostics[0]!.message.includes(`"${change.path}" ${change.change}`),
            skipped.diagnostics[0]!.message,
          );
        }
      }),
      runs(30),
    );
  });

  it("an unapproved skill is never in the prompt block, the tool enum or an activation", async () => {
    const { root } = tree();
    const roots = [{ scope: "project", path: root }];
    const store = new MemoryApprovalStore();
    await approveSkills(discoverSkills(roots), store, ["alpha"]);
    const trusted = await trustDiscovery(discoverSkills(roots), { approvals: store });
    const block = renderSkillCatalog(
      trusted.skills.map((s) => ({ name: s.name, description: s.description })),
    );
    assert.ok(block.includes("<name>alpha</name>"));
    assert.ok(!block.includes("beta"));
    const tool = skillToolDefinition(trusted.skills.map((s) => s.name));
    assert.deepEqual((tool.input_schema.properties as { skill: { enum: string[] } }).skill.enum, [
      "alpha",
    ]);
    const refused = handleSkillTool({ skill: "beta" }, { skills: trusted });
    assert.equal(refused.is_error, true);
    assert.ok(!refused.content.includes("# beta"));
    assert.equal(handleSkillTool({ skill: "alpha" }, { skills: trusted }).is_error, false);
    assert.equal(trusted.bundle("beta"), undefined);
    // With no store, everything is listed, as before.
    const untrusted = await trustDiscovery(discoverSkills(roots), {});
    assert.deepEqual(untrusted.skills.map((s) => s.name), ["alpha", "beta"]);
  });

  it("an approved skill is pinned: a file changed after the check is refused, a file added is not there", async () => {
    const { root } = tree();
    const roots = [{ scope: "project", path: root }];
    const store = new MemoryApprovalStore();
    await approveSkills(discoverSkills(roots), store, "all");
    const trusted = await trustDiscovery(discoverSkills(roots), { approvals: store });
    const read = (skill: string, resource: string) =>
      handleSkillTool({ skill, resource }, { skills: trusted });
    assert.equal(read("alpha", "references/guide.md").is_error, false);
    writeFileSync(join(root, "alpha", "references", "guide.md"), "# ALPHA\n"); // same size
    put(join(root, "beta", "references", "new.md"), "new");
    const rotated = read("alpha", "references/guide.md");
    assert.equal(rotated.is_error, true);
    assert.match(
      rotated.content,
      /references\/guide\.md.*not the content that was approved or locked/,
    );
    assert.doesNotMatch(rotated.content, /ALPHA/);
    assert.equal(read("beta", "references/new.md").is_error, true);
    assert.equal(read("beta", "references/guide.md").is_error, false);
  });

  it("a pinned file modified within the clock's granularity of its check is hashed again at each open", async () => {
    // A same-size rewrite in the same clock tick keeps the stat version (Deno: whole milliseconds).
    let bytes = new TextEncoder().encode("aaaa");
    const handle = (): ResourceHandle => ({
      size: 4,
      version: "same",
      mtime_ms: Date.now(),
      read: (position: number, length: number) => bytes.slice(position, position + length),
      close: () => {},
    });
    const file: ResourceFile = {
      path: "a.md",
      size: 4,
      open: handle,
      read: (p, l) => bytes.slice(p, p + l),
    };
    const base = createBundle({
      frontmatter: { name: "x", description: "x" },
      instructions: "",
      files: { "a.md": "aaaa" },
    });
    const manifest = await skillManifest(base);
    const pinned = pinBundle({ ...base, files: new Map([["a.md", file]]) }, manifest);
    assert.equal(readResource(pinned, "a.md").content, "aaaa");
    bytes = new TextEncoder().encode("bbbb");
    assert.throws(() => readResource(pinned, "a.md"), {
      name: "ResourceReadError",
      message: 'Cannot read "a.md": it is not the content that was approved or locked',
    });
  });

  it("decideApproval keys by origin and path, and says what changed", async () => {
    const d = (c: string) => `sha256:${c.repeat(64)}`;
    const v1 = await manifestFromEntries("x", { name: "x" }, [{
      path: "SKILL.md",
      size: 1,
      digest: d("1"),
    }, { path: "a", size: 1, digest: d("1") }]);
    const v2 = await manifestFromEntries("x", { name: "x", description: "y" }, [{
      path: "SKILL.md",
      size: 1,
      digest: d("2"),
    }, { path: "b", size: 1, digest: d("1") }]);
    const store = new MemoryApprovalStore();
    await approve(store, "docs", "skill://x/SKILL.md", v1);
    assert.equal(
      (await decideApproval(store, "other", "skill://x/SKILL.md", v1)).status,
      "needs_approval",
    );
    assert.equal(
      (await decideApproval(store, "docs", "skill://x/SKILL.md", v1)).status,
      "approved",
    );
    const later = await decideApproval(store, "docs", "skill://x/SKILL.md", v2);
    assert.deepEqual(later, {
      status: "changed_since_approval",
      changes: [{ path: "SKILL.md", change: "changed" }, { path: "a", change: "removed" }, {
        path: "b",
        change: "added",
      }],
      frontmatter_changed: true,
      entry_changes: [],
    });
  });
});

/** Skills `one` and `two` under `<base>/skills`, locked in `<base>/skills.lock.json`. */
async function lockedProject(
  name: string,
): Promise<{ root: string; roots: { scope: string; path: string }[]; lockfile: string }> {
  const base = fresh(name);
  const root = join(base, "skills");
  put(join(root, "one", "SKILL.md"), skillMd("one", "One"));
  put(join(root, "two", "SKILL.md"), skillMd("two", "Two"));
  const roots = [{ scope: "project", path: root }];
  const lockfile = join(base, "skills.lock.json");
  writeLockfile(lockfile, (await lockSkills(discoverSkills(roots), { base })).lock);
  return { root, roots, lockfile };
}

describe("lock in discovery", () => {
  it("a skill that differs from its lock entry is not loaded, or loaded with a warning in warn mode", async () => {
    const { root, roots, lockfile } = await lockedProject("lockmode");
    put(join(root, "one", "references", "new.md"), "new");
    put(join(root, "three", "SKILL.md"), skillMd("three", "Three"));
    const strict = await trustDiscovery(discoverSkills(roots), { lock: lockfile });
    assert.deepEqual(strict.skills.map((s) => s.name), ["two"]);
    assert.deepEqual(
      strict.skipped.map((s) => [s.diagnostics[0]?.code, s.diagnostics[0]?.message]),
      [
        ["LOCK_MISMATCH", 'Skill "one" differs from its lockfile entry: "references/new.md" added'],
        ["NOT_LOCKED", 'Skill "three" is not in the lockfile'],
      ],
    );
    const warn = await trustDiscovery(discoverSkills(roots), { lock: lockfile, lockMode: "warn" });
    assert.deepEqual(warn.skills.map((s) => s.name), ["one", "three", "two"]);
    assert.deepEqual(warn.skills[0]!.diagnostics.map((d) => [d.severity, d.code]), [[
      "warning",
      "LOCK_MISMATCH",
    ]]);
  });
});

describe("discoverSkills and the skill tool with a lock or approvals", () => {
  it("trustDiscovery with lock or approvals answers the narrowed discovery; discoverSkills stays synchronous", async () => {
    const { root, roots, lockfile } = await lockedProject("overload");
    put(join(root, "two", "assets", "x.txt"), "x");
    const locked = await trustDiscovery(discoverSkills(roots), { lock: lockfile });
    assert.deepEqual(locked.skills.map((s) => s.name), ["one"]);
    assert.equal(locked.skipped[0]?.diagnostics[0]?.code, "LOCK_MISMATCH");
    const store = new MemoryApprovalStore();
    await approveSkills(discoverSkills(roots), store, ["two"]);
    const approved = await trustDiscovery(discoverSkills(roots), { approvals: store });
    assert.deepEqual(approved.skills.map((s) => s.name), ["two"]);
    // Discovery itself knows nothing of trust: a Discovery at once, whatever the options.
    const plain = discoverSkills(roots, { lock: lockfile } as never);
    assert.ok(!(plain instanceof Promise));
    assert.deepEqual(plain.skills.map((s) => s.name), ["one", "two"]);
  });

  it("handleLockedSkillTool refuses a skill that differs from its entry, on every call, and warns in warn mode", async () => {
    const base = fresh("tool");
    const dir = join(base, "skills", "one");
    put(join(dir, "SKILL.md"), skillMd("one", "One"));
    put(join(dir, "references", "a.md"), "a");
    const roots = [{ scope: "project", path: join(base, "skills") }];
    const { lock } = await lockSkills(discoverSkills(roots), { base });
    const context = { skills: discoverSkills(roots), lock };
    const ok = await handleLockedSkillTool({ skill: "one", resource: "references/a.md" }, context);
    assert.equal(ok.is_error, false);
    writeFileSync(join(dir, "references", "a.md"), "b");
    const refused = await handleLockedSkillTool(
      { skill: "one", resource: "references/a.md" },
      context,
    );
    assert.deepEqual([refused.is_error, refused.content], [
      true,
      'Skill "one" differs from its lockfile entry: "references/a.md" changed',
    ]);
    const warned = await handleLockedSkillTool({ skill: "one" }, { ...context, lockMode: "warn" });
    assert.equal(warned.is_error, false);
    assert.equal(
      warned.lock_warning,
      'Skill "one" differs from its lockfile entry: "references/a.md" changed',
    );
    const unlocked = await handleLockedSkillTool({ skill: "one" }, {
      ...context,
      lock: createLockfile([]),
    });
    assert.deepEqual([unlocked.is_error, unlocked.content], [
      true,
      'Skill "one" is not in the lockfile',
    ]);
    assert.equal((await handleLockedSkillTool({ skill: "nope" }, context)).is_error, true);
  });
});

describe("skill digest recomputed by the shell recipe", () => {
  it("a unicode file name and an empty file digest the same way", async () => {
    const dir = join(fresh("shell"), "shell");
    put(join(dir, "SKILL.md"), skillMd("shell", "S"));
    put(join(dir, "references", "é.md"), "é");
    put(join(dir, "assets", "empty"), "");
    const m = await skillManifest(loadSkillFolder(dir, { lenient: true }));
    const files = new Map<string, Uint8Array>();
    for (const f of m.files) files.set(f.path, readFileSync(join(dir, f.path)));
    assert.equal(m.digest, referenceDigest(files).digest);
    assert.equal(m.digest, await skillDigest(m.files));
    renameSync(join(dir, "assets", "empty"), join(dir, "assets", "empty2"));
    unlinkSync(join(dir, "assets", "empty2"));
  });
});
