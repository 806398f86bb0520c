import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  canonicalManifest,
  createBundle,
  createLockfile,
  handleLockedSkillTool,
  hashResource,
  lockEntry,
  MemoryApprovalStore,
  memoryFile,
  parseApprovals,
  parseLockfile,
  renderApprovals,
  renderLockfile,
  skillManifest,
  TrustFileError,
} from "../../../mod.ts";
import { canonicalJson } from "../../../lib/core/trust/digest.ts";
import { manifestFromEntries } from "../../../lib/core/trust/manifest.ts";
import { lineColumn, parseJsonNodes } from "../../../lib/core/trust/_json.ts";

const D = `sha256:${"c".repeat(64)}`;

describe("canonical forms", () => {
  it("canonicalManifest refuses a bad digest and a path listed twice", () => {
    assert.throws(() => canonicalManifest([{ path: "a", size: 1, digest: "sha256:x" }]), {
      name: "TypeError",
      message: 'Invalid digest "sha256:x" of "a"',
    });
    assert.throws(
      () =>
        canonicalManifest([{ path: "a", size: 1, digest: D }, { path: "a", size: 2, digest: D }]),
      { name: "TypeError", message: 'The file "a" is listed twice' },
    );
  });

  it("canonicalJson sorts keys at every depth and refuses what JSON cannot hold", () => {
    assert.equal(
      canonicalJson({ b: [1, "x", true, null, { d: 1, c: 2 }], a: -0.5 }),
      '{"a":-0.5,"b":[1,"x",true,null,{"c":2,"d":1}]}',
    );
    const shared = { x: "1" };
    assert.equal(canonicalJson([shared, shared]), '[{"x":"1"},{"x":"1"}]');
    const cycle: Record<string, unknown> = {};
    cycle["self"] = cycle;
    assert.throws(() => canonicalJson(cycle), {
      name: "TypeError",
      message: "Not JSON data: it holds a cycle",
    });
    assert.throws(() => canonicalJson(Number.NaN), {
      name: "TypeError",
      message: "Not a JSON value: NaN",
    });
    assert.throws(() => canonicalJson(undefined), {
      name: "TypeError",
      message: "Not a JSON value: undefined",
    });
    // A deep nesting is no stack overflow.
    let deep: unknown = "end";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.equal(canonicalJson(deep).length, 200_005);
  });
});

describe("the positioned JSON parser", () => {
  it("parses every kind of value and tells where each error is", () => {
    const node = parseJsonNodes(
      ' { "a": [true, false, null, -1.5e3, "\\u00e9\\n"], "b": {}, "c": [] } ',
    );
    assert.equal(node.kind, "object");
    const cases: [string, number, string][] = [
      ['"a\u0001"', 2, "A control character inside a string"],
      ['"a\\x"', 2, "An invalid escape inside a string"],
      ['"abc', 0, "A string that is never closed"],
      ["{ 1: 2 }", 2, 'Expected a key in quotes: unexpected "1"'],
      ['{ "a" 2 }', 6, 'Expected ":" after the key: unexpected "2"'],
      ['{ "a": 1, }', 10, 'Expected a key in quotes: unexpected "}"'],
      ["[1 2]", 3, 'Expected "," or "]": unexpected "2"'],
      ["[1,]", 3, 'Expected a value: unexpected "]"'],
      ["1 2", 2, 'Expected the end of the text: unexpected "2"'],
      ["tru", 0, 'Expected a value: unexpected "t"'],
    ];
    for (const [text, offset, message] of cases) {
      assert.throws(() => parseJsonNodes(text), { offset, message }, text);
    }
    assert.deepEqual(lineColumn("ab\ncd\nef", 7), { line: 3, column: 2 });
  });
});

describe("lockfile and approval file fields", () => {
  const entry = `{ "name": "x", "digest": "${D}", "frontmatter_digest": "${D}", "files": [] }`;
  const folder = entry.replace("{", '{ "source": "s", "scope": "p",');
  const lock = (skill: string) => `{ "version": 1, "skills": [${skill}] }`;

  it("an entry names either a folder or an MCP skill, each once", () => {
    const cases: [string, string][] = [
      [lock(entry), 'The entry of skill "x" needs "source" or "uri"'],
      [
        lock(entry.replace("{", '{ "source": "s", "uri": "u",')),
        'The entry of skill "x" has both "source" and "origin"/"uri"',
      ],
      [
        lock(entry.replace("{", '{ "uri": "u", "origin": "o", "scope": "p",')),
        'The entry of skill "x" has both "uri" and "scope"',
      ],
      [
        lock(entry.replace("{", '{ "uri": "u", "origin": "o", "installed_from": {},'))
          .replace('"version": 1', '"version": 2'),
        'The entry of skill "x" has both "uri" and "installed_from"',
      ],
      [lock(entry.replace("{", '{ "source": "s",')), 'Missing field "scope" in skill "x"'],
      [
        lock(
          `${entry.replace("{", '{ "source": "s", "scope": "p",')},${
            entry.replace("{", '{ "source": "s", "scope": "q",')
          }`,
        ),
        "Skill s is locked twice",
      ],
      [
        lock(folder.replace('"name": "x"', '"name": ""')),
        'Field "name" of a skill entry must be a non-empty string, not an empty string',
      ],
      [
        lock(folder.replace('"name": "x"', '"name": 1')),
        'Field "name" of a skill entry must be a non-empty string, not a number',
      ],
      [
        lock(folder.replace('"files": []', '"files": {}')),
        'Field "files" of skill "x" must be an array, not an object',
      ],
      [
        lock(folder.replace('"files": []', '"files": [null]')),
        'A file of skill "x" must be an object, not null',
      ],
      [
        lock(folder.replace('"files": []', '"files": [{ "path": true }]')),
        'Field "path" of a file of skill "x" must be a non-empty string, not a boolean',
      ],
      [
        lock(folder.replace(`"digest": "${D}"`, '"digest": []')),
        'Field "digest" of skill "x" must be "sha256:" and 64 lowercase hexadecimal digits, not an array',
      ],
      ['{ "version": 1 }', 'Missing field "skills" in the lockfile'],
    ];
    for (const [text, reason] of cases) {
      assert.throws(() => parseLockfile(text, "f"), (e: unknown) => {
        assert.ok(e instanceof TrustFileError);
        assert.equal(e.reason, reason, text);
        return true;
      });
    }
    const mcp = parseLockfile(
      lock(entry.replace("{", '{ "uri": "skill://x/SKILL.md", "origin": "o",')),
      "f",
    );
    assert.deepEqual([mcp.skills[0]?.origin, mcp.skills[0]?.uri], ["o", "skill://x/SKILL.md"]);
    assert.equal(parseLockfile(renderLockfile(mcp), "f").skills[0]?.uri, "skill://x/SKILL.md");
  });

  it("createLockfile refuses two entries of one skill; approvals refuse one skill approved twice", () => {
    const e = { name: "x", scope: "p", source: "s", digest: D, frontmatter_digest: D, files: [] };
    assert.throws(() => createLockfile([e, e]), {
      name: "TypeError",
      message: 'Two lock entries for "file s"',
    });
    const r = { origin: "file", path: "s", name: "x", digest: D, frontmatter_digest: D, files: [] };
    const text = renderApprovals([r]).replace(
      "\n  ]",
      `,\n${renderApprovals([r]).split("\n").slice(3, -3).join("\n")}\n  ]`,
    );
    assert.throws(() => parseApprovals(text, "a.json"), { code: "DUPLICATE_ENTRY" });
    assert.equal(renderApprovals([]), '{\n  "version": 1,\n  "approvals": []\n}\n');
    assert.deepEqual(new MemoryApprovalStore([r]).records(), [r]);
  });
});

describe("hashing edges", () => {
  it("hashResource and skillManifest's options", async () => {
    const entry = await hashResource(memoryFile("a.txt", new Uint8Array(0)));
    assert.equal(
      entry.digest,
      "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
    const bundle = createBundle({
      frontmatter: { name: "x", description: "x" },
      instructions: "",
      files: { "a.md": "a", "b.md": "b" },
    });
    assert.deepEqual(await skillManifest(bundle, { concurrency: 1 }), await skillManifest(bundle));
    await assert.rejects(skillManifest(bundle, { concurrency: 0 }), { name: "RangeError" });
  });

  it("handleLockedSkillTool words bad input as the handler does, and a skill that cannot be hashed is refused", async () => {
    const bundle = createBundle({ frontmatter: { name: "x", description: "x" }, instructions: "" });
    const lock = createLockfile([
      lockEntry(await manifestFromEntries("x", {}, []), { scope: "p", source: "x" }),
    ]);
    assert.equal(
      (await handleLockedSkillTool({ nope: 1 }, { skills: [bundle], lock })).is_error,
      true,
    );
    const broken = {
      ...bundle,
      files: new Map([["a", {
        path: "a",
        size: 1,
        read: () => {
          throw new Error("gone");
        },
      }]]),
    };
    const result = await handleLockedSkillTool({ skill: "x" }, { skills: [broken], lock });
    assert.deepEqual([result.is_error, result.content], [
      true,
      'Skill "x" could not be checked against the lockfile: gone',
    ]);
  });
});

describe("files hashed page by page", () => {
  it("the streamed SHA-256 equals crypto.subtle for any bytes fed in any pieces", async () => {
    const { fc, runs } = await import("../../_fc.ts");
    const { Sha256 } = await import("../../../lib/core/trust/_sha256.ts");
    const { sha256Digest, hexDigest } = await import("../../../lib/core/trust/digest.ts");
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 600 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        async (bytes, cuts) => {
          const hash = new Sha256();
          const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          let from = 0;
          for (const to of [...at, bytes.length]) {
            hash.update(bytes.subarray(from, to));
            from = to;
          }
          assert.equal(hexDigest(hash.digest()), await sha256Digest(bytes));
        },
      ),
      runs(300),
    );
  });

  it("a skill's manifest is the same streamed or whole, and a change while streaming is RESOURCE_CHANGED", async () => {
    const { _setHashWholeBytes } = await import("../../../lib/core/trust/manifest.ts");
    const bytes = new Uint8Array(100_000).map((_, i) => i * 13);
    const bundle = createBundle({
      frontmatter: { name: "x", description: "x" },
      instructions: "",
      files: { "a.bin": bytes, "b.md": "b" },
    });
    const whole = await skillManifest(bundle);
    const restore = _setHashWholeBytes(10);
    try {
      assert.deepEqual(await skillManifest(bundle), whole);
      const growing = {
        path: "a.bin",
        size: 20,
        read: () => new Uint8Array(0),
        open: () => ({
          size: 20,
          version: "1",
          read: (p: number, l: number) => new Uint8Array(30).subarray(p, p + l),
          versionNow: () => "1",
          close: () => {},
        }),
      };
      await assert.rejects(skillManifest({ ...bundle, files: new Map([["a.bin", growing]]) }), {
        code: "RESOURCE_CHANGED",
      });
      const short = {
        ...growing,
        open: () => ({ ...growing.open(), read: () => new Uint8Array(0) }),
      };
      await assert.rejects(skillManifest({ ...bundle, files: new Map([["a.bin", short]]) }), {
        code: "RESOURCE_CHANGED",
      });
    } finally {
      restore();
    }
  });
});

describe("the visible view and the class mapping", () => {
  it("a folder the host maps to a standard class is visible; an unmapped one is not", async () => {
    const files = { "rules/a.md": "a", "extras/b.md": "b", "references/c.md": "c" };
    const frontmatter = { name: "x", description: "x" };
    const plain = await skillManifest(createBundle({ frontmatter, instructions: "", files }));
    const mapped = await skillManifest(
      createBundle({
        frontmatter,
        instructions: "",
        files,
        resource_classes: { rules: "references" },
      }),
    );
    assert.deepEqual(plain.visible.files.map((f) => f.path), ["references/c.md"]);
    assert.deepEqual(mapped.visible.files.map((f) => f.path), ["references/c.md", "rules/a.md"]);
    assert.equal(mapped.digest, plain.digest); // the full view does not depend on it
  });
});
