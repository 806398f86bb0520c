/**
 * Behaviours of trust that no other test pins (issue 28): the manifest's
 * `visible` view of a link into a gated folder, the pure-TypeScript SHA-256
 * around the padding boundary and past 2^32 bits, a pinned file rewritten
 * long after its check, and two approval stores writing one file in turn.
 */
// @slow: writes approvals from two child processes (left out of `npm run test:quick`)
// @every-runtime: concurrent approval writes go through each runtime's fs
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  approvalRecord,
  parseApprovals,
  parseLockfile,
  pinBundle,
  readResource,
  setVerifiedCacheBytes,
  sha256Digest,
  skillManifest,
  VERIFIED_CACHE_BYTES,
} from "../../../mod.ts";
import { hashAndPin } from "../../../lib/core/trust/pin.ts";
import { hexDigest } from "../../../lib/core/trust/digest.ts";
import { Sha256 } from "../../../lib/core/trust/_sha256.ts";
import { JsonFileApprovalStore, loadSkillFolder } from "../../../lib/load.ts";
import { fc, runs } from "../../_fc.ts";
import { link, put } from "../../_tree.ts";

const temps: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

function temp(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "skillset-behaviours-")));
  temps.push(dir);
  return dir;
}

const MD = "---\nname: pdf\ndescription: PDF\n---\nUse it.\n";

describe("the manifest's visible view", () => {
  it("leaves out a link in a standard folder whose target lies in a gated folder", async () => {
    const dir = temp();
    put(dir, "pdf/SKILL.md", MD);
    put(dir, "pdf/extras/secret.md", "secret\n");
    put(dir, "pdf/references/plain.md", "plain\n");
    link("../extras/secret.md", join(dir, "pdf/references/leak.md"));
    const manifest = await skillManifest(loadSkillFolder(join(dir, "pdf")));
    assert.deepEqual(manifest.files.map((f) => f.path), [
      "SKILL.md",
      "extras/secret.md",
      "references/leak.md",
      "references/plain.md",
    ]);
    assert.deepEqual(manifest.visible.files.map((f) => f.path), [
      "SKILL.md",
      "references/plain.md",
    ]);
    const open = await skillManifest(loadSkillFolder(join(dir, "pdf")), {
      global_safety: false,
      skill_safety: false,
    });
    assert.equal(open.visible.digest, open.digest);
  });
});

function pure(bytes: Uint8Array, pieces: number[] = []): string {
  const hash = new Sha256();
  let at = 0;
  for (const n of pieces) {
    hash.update(bytes.subarray(at, Math.min(bytes.length, at + n)));
    at = Math.min(bytes.length, at + n);
  }
  hash.update(bytes.subarray(at));
  return hexDigest(hash.digest());
}

describe("the pure-TypeScript SHA-256", () => {
  it("equals WebCrypto around the padding boundary (55, 56, 57, 63, 64, 119, 120 mod 64)", async () => {
    for (const base of [0, 64, 128, 4096]) {
      for (const r of [55, 56, 57, 63, 64, 119, 120]) {
        const bytes = Uint8Array.from({ length: base + r }, (_, i) => (i * 31 + r) & 255);
        assert.equal(pure(bytes), await sha256Digest(bytes), `${base + r} bytes`);
      }
    }
  });

  it("equals WebCrypto however the input is split", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 300 }),
        fc.array(fc.nat({ max: 130 }), { maxLength: 6 }),
        async (bytes, pieces) => {
          assert.equal(pure(bytes, pieces), await sha256Digest(bytes));
        },
      ),
      runs(200),
    );
  });

  it("equals sha256sum past 2^32 bits (512 MiB + 57 bytes of zeros)", (t) => {
    if (spawnSync("sha256sum", ["--version"]).status !== 0) {
      t.skip("no sha256sum here");
      return;
    }
    const total = 2 ** 29 + 57;
    const page = new Uint8Array(8 * 1024 * 1024);
    const hash = new Sha256();
    let left = total;
    while (left > 0) {
      const n = Math.min(left, page.length);
      hash.update(page.subarray(0, n));
      left -= n;
    }
    const sum = spawnSync("bash", ["-c", `head -c ${total} /dev/zero | sha256sum`], {
      encoding: "utf8",
    });
    assert.equal(hexDigest(hash.digest()), `sha256:${sum.stdout.slice(0, 64)}`);
  });
});

describe("a pinned file", () => {
  it("rewritten long after its check, with its size and modification time kept, is refused", async () => {
    const dir = temp();
    put(dir, "pdf/SKILL.md", MD);
    const file = join(dir, "pdf/references/forms.md");
    put(dir, "pdf/references/forms.md", "# Forms\n");
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(file, old, old); // outside the racy-clean window: the check is cached
    const bundle = loadSkillFolder(join(dir, "pdf"));
    const pinned = pinBundle(bundle, await skillManifest(bundle));
    assert.equal(readResource(pinned, "references/forms.md").content, "# Forms\n");
    // Later (past the change time's whole second on every runtime), the same size and times.
    await new Promise((done) => setTimeout(done, 1100));
    writeFileSync(file, "# Evil!\n");
    utimesSync(file, old, old);
    assert.throws(() => readResource(pinned, "references/forms.md"), {
      name: "ResourceReadError",
      code: "RESOURCE_CHANGED",
    });
  });
});

describe("two approval stores on one file", () => {
  it("the second writer keeps the first one's approval", async () => {
    const dir = temp();
    put(dir, "a/SKILL.md", "---\nname: a\ndescription: A\n---\n");
    put(dir, "b/SKILL.md", "---\nname: b\ndescription: B\n---\n");
    const path = join(dir, "approvals.json");
    const first = new JsonFileApprovalStore(path);
    const second = new JsonFileApprovalStore(path); // read before the first writes
    const a = await skillManifest(loadSkillFolder(join(dir, "a")));
    const b = await skillManifest(loadSkillFolder(join(dir, "b")));
    first.put(approvalRecord("file", join(dir, "a"), a));
    second.put(approvalRecord("file", join(dir, "b"), b));
    const fresh = new JsonFileApprovalStore(path);
    assert.deepEqual(fresh.records().map((r) => r.name).sort(), ["a", "b"]);
    assert.equal(fresh.get("file", join(dir, "a"))?.digest, a.digest);
  });
});

describe("bounded nesting", () => {
  it("a lockfile or approval file nested deeper than 64 levels is refused at the 65th bracket", () => {
    const deep = "[".repeat(8_000_000);
    assert.throws(() => parseLockfile(deep, "skills.lock.json"), {
      name: "TrustFileError",
      code: "INVALID_JSON",
      message: "skills.lock.json:1:65: Not valid JSON: Nested deeper than 64 levels",
    });
    const objects = `{"version":1,"approvals":${'[{"a":'.repeat(40)}`;
    assert.throws(() => parseApprovals(objects, "a.json"), {
      name: "TrustFileError",
      code: "INVALID_JSON",
    });
    // 64 levels are read (and then refused for their shape, not their depth).
    assert.throws(() => parseLockfile(`${"[".repeat(64)}${"]".repeat(64)}`, "l"), {
      code: "INVALID_FIELD",
    });
  });
});

describe("the verified-bytes cache", () => {
  it("holds what pinned reads verified, within its budget, and serves it only at the verified version", async () => {
    const dir = temp();
    put(dir, "pdf/SKILL.md", MD);
    const file = join(dir, "pdf/references/forms.md");
    put(dir, "pdf/references/forms.md", "# Forms\n");
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(file, old, old);
    const bundle = loadSkillFolder(join(dir, "pdf"));
    const { manifest, pinned } = await hashAndPin(bundle);
    assert.equal(manifest.files.length, 2);
    const before = setVerifiedCacheBytes(VERIFIED_CACHE_BYTES);
    assert.ok(before >= 8, `${before} bytes held`); // the check's own bytes
    assert.equal(readResource(pinned, "references/forms.md").content, "# Forms\n");
    assert.equal(setVerifiedCacheBytes(0), 0); // a budget of 0 keeps nothing
    assert.equal(readResource(pinned, "references/forms.md").content, "# Forms\n");
    assert.equal(setVerifiedCacheBytes(VERIFIED_CACHE_BYTES), 0);
    assert.throws(() => setVerifiedCacheBytes(-1), RangeError);
  });
});
