import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  classifyResource,
  createBundle,
  decideAccess,
  ExecutionError,
  InvalidResourcePathError,
  mayAccess,
  normalizeResourcePath,
  readResource,
  ResourceNotFoundError,
  type SafetyFlags,
  type SkillBundle,
} from "../../../mod.ts";
import { loadSkillFolder } from "../../../lib/load.ts";
import { HOSTILE_PATHS, type HostileCase } from "../../_hostile_paths.ts";

const STATES: readonly SafetyFlags[] = [
  {},
  { global_safety: false },
  { skill_safety: false },
  { global_safety: false, skill_safety: false },
];
const SKILL_MD = "---\nname: hostile\ndescription: d\n---\n";
const validCases = HOSTILE_PATHS.filter((c): c is Extract<HostileCase, { normal: string }> =>
  "normal" in c
);
const invalidCases = HOSTILE_PATHS.filter((c): c is Extract<HostileCase, { invalid: string }> =>
  "invalid" in c
);

/** Reads `c.path` under every safety state and checks the outcome against the corpus. */
function checkReads(
  bundle: SkillBundle,
  c: HostileCase,
  content: (normal: string) => string | null,
) {
  for (const flags of STATES) {
    const what = `${JSON.stringify(c.path)} ${JSON.stringify(flags)}`;
    if ("invalid" in c) {
      assert.throws(() => readResource(bundle, c.path, flags), (e: unknown) => {
        assert.ok(e instanceof InvalidResourcePathError, what);
        assert.equal(e.message, `Invalid resource path ${JSON.stringify(c.path)}: ${c.invalid}`);
        return true;
      });
      continue;
    }
    const expected = content(c.normal);
    if (!mayAccess(c.class, flags)) {
      assert.throws(() => readResource(bundle, c.path, flags), ExecutionError, what);
    } else if (expected === null) {
      assert.throws(() => readResource(bundle, c.path, flags), ResourceNotFoundError, what);
    } else {
      const page = readResource(bundle, c.path, flags);
      assert.deepEqual([page.path, page.class, page.content], [c.normal, c.class, expected], what);
    }
  }
}

describe("the hostile path corpus", () => {
  it("holds at least 300 paths, each with one expected outcome", () => {
    assert.ok(HOSTILE_PATHS.length >= 300, `${HOSTILE_PATHS.length} paths`);
    assert.equal(new Set(HOSTILE_PATHS.map((c) => c.path)).size, HOSTILE_PATHS.length);
  });

  it("the pure gate: normalisation, class and the decision under four safety states", () => {
    for (const c of invalidCases) {
      assert.throws(() => normalizeResourcePath(c.path), {
        name: "InvalidResourcePathError",
        message: `Invalid resource path ${JSON.stringify(c.path)}: ${c.invalid}`,
      });
    }
    for (const c of validCases) {
      assert.equal(normalizeResourcePath(c.path), c.normal, JSON.stringify(c.path));
      assert.equal(classifyResource(c.normal), c.class, JSON.stringify(c.path));
      for (const flags of STATES) {
        assert.equal(
          decideAccess(c.normal, c.class, flags, "read") === null,
          mayAccess(c.class, flags),
        );
      }
    }
  });

  it("in-memory bundles: invalid paths are refused when building and reading", () => {
    for (const c of invalidCases) {
      assert.throws(
        () =>
          createBundle({
            frontmatter: { name: "hostile", description: "d" },
            instructions: "",
            files: { [c.path]: "x" },
          }),
        InvalidResourcePathError,
      );
    }
    const files = new Map<string, string>();
    for (const c of validCases) files.set(c.normal, c.normal);
    const bundle = createBundle({
      frontmatter: { name: "hostile", description: "d" },
      instructions: "",
      files,
    });
    for (const c of HOSTILE_PATHS) checkReads(bundle, c, (normal) => normal);
  });

  describe("the on-disk loader", () => {
    let temp = "";
    before(() => (temp = mkdtempSync(join(tmpdir(), "skillset-hostile-"))));
    after(() => rmSync(temp, { recursive: true, force: true }));

    it("lists only valid paths, skips the rest with warnings, and reads as the corpus says", () => {
      const root = join(temp, "hostile");
      mkdirSync(root);
      writeFileSync(join(root, "SKILL.md"), SKILL_MD);
      const created = new Map<string, string>([["SKILL.md", SKILL_MD]]);
      for (const c of validCases) {
        if (created.has(c.normal)) continue;
        try {
          mkdirSync(join(root, c.normal, ".."), { recursive: true });
          writeFileSync(join(root, c.normal), c.normal);
          created.set(c.normal, c.normal);
        } catch {
          // Too long for a file name: then it is simply not there.
        }
      }
      let planted = 0;
      for (const c of invalidCases) {
        // Plant the names a file system accepts (no NUL, relative, no "..").
        if (/\0|^\/|(^|\/)\.\.(\/|$)|^$/.test(c.path)) continue;
        try {
          mkdirSync(join(root, "planted", c.path, ".."), { recursive: true });
          writeFileSync(join(root, "planted", c.path), "hidden");
          planted++;
        } catch {
          // Some names cannot be made; the rest are enough.
        }
      }
      assert.ok(planted > 150, `${planted} hostile names planted`);
      const skill = loadSkillFolder(root);
      for (const path of skill.files.keys()) {
        assert.equal(normalizeResourcePath(path), path);
        assert.ok(created.has(path) || path.startsWith("planted/"), JSON.stringify(path));
        if (path.startsWith("planted/")) {
          // What survives under planted/ is a valid path (e.g. "planted/a/C:/x").
          assert.equal(skill.files.get(path)!.read(0, 100).length, 6);
        }
      }
      assert.ok(skill.warnings.length >= planted - 10, `${skill.warnings.length} warnings`);
      for (const c of HOSTILE_PATHS) checkReads(skill, c, (normal) => created.get(normal) ?? null);
    });
  });
});
