/**
 * Attacks on the trust promises of docs/trust.md from outside (issue 28): a
 * hostile skill author who controls the folder between the check and the
 * use. Each case failed before its defence.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  closeSync,
  mkdtempSync,
  openSync,
  realpathSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  openResource,
  parseApprovals,
  parseLockfile,
  pinBundle,
  skillManifest,
} from "../../../mod.ts";
import {
  discoverSkills,
  loadSkillFolder,
  lockSkills,
  verifySkills,
  writeLockfile,
} from "../../../lib/load.ts";
import { execFileSync } from "node:child_process";
import { compareLock, createLockfile } from "../../../lib/core/trust/lockfile.ts";
import { put } from "../../_tree.ts";
import { serveSkills, trustedMcpSkills } from "../../../lib/mcp.ts";
import { entryOf, hostileClient } from "../../_mcp.ts";

const temps: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

const GOOD = "---\nname: big\ndescription: A big reference\n---\nRead references/big.md.\n";

function skill(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "skillset-attack-")));
  temps.push(root);
  put(root, "big/SKILL.md", GOOD);
  // Past the 8 MiB a pinned file is held whole: its reads go to the disk.
  put(root, "big/references/big.md", "a".repeat(9 * 1024 * 1024));
  return join(root, "big");
}

/** Rewrite a file in place (same inode, same size). */
function rewrite(path: string, text: string): void {
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, text, 0);
  } finally {
    closeSync(fd);
  }
}

describe("a large pinned file rewritten after its check", () => {
  it("is refused, never read from the disk unchecked", async () => {
    const folder = skill();
    const manifest = await skillManifest(loadSkillFolder(folder));
    const pinned = pinBundle(loadSkillFolder(folder), manifest);
    const handle = openResource(pinned.files.get("references/big.md")!);
    try {
      // The open hashed the file; the author writes before the first read.
      rewrite(join(folder, "references/big.md"), "EVIL");
      let page: Uint8Array | undefined;
      try {
        page = handle.read(0, 4);
      } catch (e) {
        assert.equal((e as { code?: unknown }).code, "RESOURCE_CHANGED");
      }
      if (page !== undefined) assert.equal(new TextDecoder().decode(page), "aaaa");
    } finally {
      handle.close();
    }
  });
});

describe("a hostile MCP server", () => {
  it("cannot pass the listing's file cap through an entry fetched again by name", async () => {
    const fm = { name: "pdf", description: "Fill in PDF forms" };
    const small = await entryOf("skill://pdf", fm, { "SKILL.md": "---\nname: pdf\n---\n" });
    const files: Record<string, string> = { "SKILL.md": "x" };
    for (let i = 0; i < 50; i++) files[`references/r${i}.md`] = "r";
    const huge = await entryOf("skill://pdf", fm, files);
    let now = small;
    const { client } = await hostileClient({
      list: () => [now],
      get: () => now,
      read: () => undefined,
    });
    try {
      const trusted = await trustedMcpSkills(client, { origin: "h", maxListing: { files: 10 } });
      now = huge;
      await assert.rejects(trusted.refresh("h:pdf"), {
        name: "McpSkillError",
        code: "LISTING_TOO_LARGE",
      });
      await assert.rejects(trusted.refresh(), { code: "LISTING_TOO_LARGE" });
    } finally {
      await client.close();
    }
  });
});

describe("the bounded trust-file parsers", () => {
  // A backtracking regular expression over a string of a few MiB overflowed the stack (a
  // RangeError, not a typed error).
  const long = [
    '{"version":1,"skills":[{"name":"' + "a".repeat(15 * 1024 * 1024) + '"}]}',
    '{"version":1,"skills":[{"name":"' + "\\u0041".repeat(2 * 1024 * 1024) + '"}]}',
  ];
  for (const [i, text] of long.entries()) {
    it(`a long string (${i}) is read, then refused with a TrustFileError`, () => {
      assert.throws(() => parseLockfile(text, "skills.lock.json"), { name: "TrustFileError" });
      assert.throws(() => parseApprovals(text, "a.json"), { name: "TrustFileError" });
    });
  }
  it("string errors keep their positions", () => {
    assert.throws(() => parseLockfile('{"a\\q":1}', "f"), {
      message: /f:1:4: Not valid JSON: An invalid escape inside a string/,
    });
    assert.throws(() => parseLockfile('{"a\u0001":1}', "f"), {
      message: /f:1:4: Not valid JSON: A control character inside a string/,
    });
    assert.throws(() => parseLockfile('{"abc', "f"), {
      message: /f:1:2: Not valid JSON: A string that is never closed/,
    });
  });
});

describe("an entry whose content cannot be read", () => {
  it("is never verified as unchanged (its content cannot be compared)", async () => {
    const entry = {
      name: "x",
      scope: "project",
      source: "skills/x",
      digest: `sha256:${"0".repeat(64)}`,
      frontmatter_digest: `sha256:${"1".repeat(64)}`,
      files: [],
      entries: [{ path: "hidden", kind: "unreadable" as const }],
    };
    const result = await compareLock(createLockfile([entry]), [entry]);
    assert.equal(result.ok, false);
    assert.deepEqual(result.differences[0]?.entries, [
      { path: "hidden", change: "(unreadable) cannot be checked" },
    ]);
  });

  it("a file whose name is not UTF-8 changed after the lock fails verify on every runtime", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "skillset-attack-")));
    temps.push(root);
    put(root, "skills/x/SKILL.md", "---\nname: x\ndescription: d\n---\nRun scripts/run.py.\n");
    // Made by the shell: a runtime whose file names are strings cannot name these bytes.
    const sh = (script: string) =>
      execFileSync("sh", ["-c", script], { cwd: join(root, "skills/x") });
    sh(`printf 'print(1)' > "$(printf 'u\\377')"`);
    const roots = [{ scope: "project", path: join(root, "skills") }];
    const { lock } = await lockSkills(discoverSkills(roots), { base: root });
    sh(`printf 'evil()!' > "$(printf 'u\\377')"`);
    const result = await verifySkills(discoverSkills(roots), lock, { base: root });
    assert.equal(result.ok, false);
  });
});

describe("a locked server reloading", () => {
  it("does not keep serving a last good version the lockfile no longer holds", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "skillset-attack-")));
    temps.push(root);
    const md = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill\n---\nBody.\n`;
    put(root, "skills/alpha/SKILL.md", md("alpha"));
    put(root, "skills/beta/SKILL.md", md("beta"));
    const roots = [{ scope: "project", path: join(root, "skills") }];
    const lockPath = join(root, "skills.lock.json");
    const { lock } = await lockSkills(discoverSkills(roots), { base: root });
    writeLockfile(lockPath, lock);
    const warnings: string[] = [];
    const served = await serveSkills(() => discoverSkills(roots), {
      lock: lockPath,
      onWarning: (w) => warnings.push(w.message),
    });
    assert.deepEqual([...served.skills.keys()].sort(), ["alpha", "beta"]);
    // The owner takes beta out of the lock; its folder is broken at the same time.
    writeLockfile(
      lockPath,
      createLockfile(lock.skills.filter((s) => s.name !== "beta"), lock.roots),
    );
    writeFileSync(join(root, "skills/beta/SKILL.md"), "---\nname: beta\n---\nno description\n");
    await served.reload();
    assert.deepEqual([...served.skills.keys()], ["alpha"], warnings.join("\n"));
  });
});
