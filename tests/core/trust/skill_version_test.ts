import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs } from "../../_fc.ts";
import {
  createLockfile,
  isSkillVersion,
  parseLockfile,
  renderLockfile,
  skillVersion,
} from "../../../mod.ts";

const D = `sha256:${"0".repeat(64)}`;
const ENTRY = {
  name: "pdf",
  scope: "project",
  source: "pdf",
  digest: D,
  frontmatter_digest: D,
  files: [{ path: "SKILL.md", size: 1, digest: D }],
};

describe("skillVersion", () => {
  it("prefers metadata.version, then a top-level version (a string or a number)", () => {
    assert.equal(skillVersion({ metadata: { version: "2.0.0" }, version: "1.0.0" }), "2.0.0");
    assert.equal(skillVersion({ version: "1.0.0" }), "1.0.0");
    assert.equal(skillVersion({ version: 1.5 }), "1.5");
    assert.equal(skillVersion({ metadata: { version: 2 }, version: "0.9" }), "0.9");
    assert.equal(skillVersion({ metadata: "x" }), undefined);
    assert.equal(skillVersion(null), undefined);
    assert.equal(skillVersion({ version: Infinity }), undefined);
    assert.equal(skillVersion({ version: ["1"] }), undefined);
  });

  it("never returns text that could drive a terminal, nor an empty or padded one", () => {
    for (
      const bad of ["", " 1", "1 ", "1\n2", "1\u001b[2J", "1\u202e0", "1\u200b", "x".repeat(65)]
    ) {
      assert.equal(skillVersion({ version: bad }), undefined, JSON.stringify(bad));
      assert.equal(skillVersion({ metadata: { version: bad } }), undefined, JSON.stringify(bad));
    }
    assert.equal(skillVersion({ version: "x".repeat(64) }), "x".repeat(64));
  });

  it("whatever the frontmatter, the result is undefined or a version", () => {
    fc.assert(
      fc.property(
        fc.record({ version: fc.anything(), metadata: fc.anything() }, { requiredKeys: [] }),
        (doc) => {
          const v = skillVersion(doc);
          return v === undefined || isSkillVersion(v);
        },
      ),
      runs(200),
    );
  });
});

describe("a lock entry's version", () => {
  it("round-trips through the lockfile, which becomes version 2", () => {
    const lock = createLockfile([{ ...ENTRY, version: "1.2.0" }]);
    assert.equal(lock.version, 2);
    const text = renderLockfile(lock);
    assert.match(text, /"name": "pdf",\n {6}"version": "1\.2\.0",\n/);
    assert.deepEqual(parseLockfile(text, "skills.lock.json"), lock);
  });

  it("a hostile lockfile's version is refused, not shown", () => {
    const text = (version: string, v = 2) =>
      JSON.stringify({ version: v, skills: [{ ...ENTRY, version }] });
    assert.throws(() => parseLockfile(text("1\u001b[2J"), "skills.lock.json"), {
      name: "TrustFileError",
      message:
        'skills.lock.json:1:381: Field "version" of skill "pdf" must be 1 to 64 printable characters without white space at either end',
    });
    assert.throws(() => parseLockfile(text("1.0", 1), "skills.lock.json"), {
      name: "TrustFileError",
      message: 'skills.lock.json:1:371: Field "version" needs version 2',
    });
  });
});
