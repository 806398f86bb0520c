// @slow: serves locked skills over MCP, through the CLI as a subprocess (left out of `npm run test:quick`)
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { MemoryApprovalStore, sha256Digest, skillManifest } from "../../mod.ts";
import { loadSkillFolder } from "../../lib/load.ts";
import { mcpSkillBundles, mcpSkillManifest, serveSkills, trustedMcpSkills } from "../../lib/mcp.ts";
import {
  BINARY,
  cliCommand,
  entryOf,
  eventually,
  hostileClient,
  put,
  skillMd,
  tempDir,
  within,
} from "../_mcp.ts";

const TIME = 60_000;
const temps: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

/** Two skills: `alpha` with text, binary, nested and non-standard files; `beta` small. */
function tree(): string {
  const root = tempDir();
  temps.push(root);
  const skills = join(root, "skills");
  put(skills, "alpha/SKILL.md", skillMd("alpha", "Alpha skill", "Read references/guide.md.\n"));
  put(skills, "alpha/top.txt", "top\n");
  put(skills, "alpha/references/guide.md", "# Guide\n");
  put(skills, "alpha/references/deep/note é.txt", "nested\n");
  put(skills, "alpha/assets/blob.bin", BINARY);
  put(skills, "alpha/scripts/run.py", "print(1)\n");
  put(skills, "alpha/extras/hidden.md", "gated\n");
  put(skills, "beta/SKILL.md", skillMd("beta", "Beta skill"));
  put(skills, "beta/references/b.md", "b\n");
  return skills;
}

async function connect(
  server: { connect(t: InMemoryTransport): Promise<void> },
): Promise<Client> {
  const [here, there] = InMemoryTransport.createLinkedPair();
  await server.connect(there);
  const client = new Client({ name: "host", version: "1.0.0" });
  await client.connect(here);
  return client;
}

describe("a skill served over MCP digests as on disk", () => {
  it("with the gate closed and open, listing digests equal skillManifest of the folder, and so do the fetched bytes", async () => {
    const skills = tree();
    for (const open of [false, true]) {
      const flags = open ? { global_safety: false, skill_safety: false } : {};
      const served = await serveSkills([skills], flags);
      const client = await connect(served.server);
      try {
        const mcp = await mcpSkillBundles(client, { origin: "o" });
        for (const name of ["alpha", "beta"]) {
          const disk = await skillManifest(loadSkillFolder(join(skills, name)), flags);
          const bundle = mcp.get(`o:${name}`)!;
          const listed = await mcpSkillManifest(bundle);
          assert.deepEqual(listed.files, disk.visible.files, `${name}, gate open: ${open}`);
          assert.equal(listed.digest, disk.visible.digest);
          assert.equal(listed.frontmatter_digest, disk.frontmatter_digest);
          if (open) assert.equal(listed.digest, disk.digest);
          // Nothing was fetched to compute it.
          assert.equal(bundle.loaded, false);
          // The bytes fetched through the official client hash to the same entries.
          for (const file of listed.files) {
            await mcp.load(`o:${name}`, file.path);
            const bytes = bundle.files.get(file.path)!.read(0, file.size + 1);
            assert.equal(await sha256Digest(bytes), file.digest, file.path);
          }
        }
        assert.notEqual(
          (await mcpSkillManifest(mcp.get("o:alpha")!)).digest,
          open ? "" : (await skillManifest(loadSkillFolder(join(skills, "alpha")))).digest,
        );
      } finally {
        await client.close();
      }
    }
  });

  it("over stdio from `skillset serve`, read with the official client", async () => {
    const skills = tree();
    const transport = new StdioClientTransport({
      ...cliCommand(["serve", skills]),
      stderr: "pipe",
    });
    const client = new Client({ name: "host", version: "1.0.0" });
    await within(TIME, client.connect(transport), "connect over stdio");
    try {
      const mcp = await within(TIME, mcpSkillBundles(client, { origin: "o" }), "list");
      const listed = await mcpSkillManifest(mcp.get("o:alpha")!);
      const disk = await skillManifest(loadSkillFolder(join(skills, "alpha")));
      assert.equal(listed.digest, disk.visible.digest);
      assert.deepEqual(listed.files, disk.visible.files);
    } finally {
      await client.close();
    }
  });
});

describe("serveSkills with a lock", () => {
  it("a folder that differs from its lock entry is not served, at start and at each reload", async () => {
    const skills = tree();
    const base = join(skills, "..");
    const { discoverSkills, lockSkills, writeLockfile } = await import("../../lib/load.ts");
    const lockfile = join(base, "skills.lock.json");
    writeLockfile(
      lockfile,
      (await lockSkills(discoverSkills([{ scope: "p", path: skills }]), { base })).lock,
    );
    const warnings: string[] = [];
    const served = await serveSkills([skills], {
      lock: lockfile,
      onWarning: (w) => warnings.push(w.message),
    });
    assert.deepEqual([...served.skills.keys()].sort(), ["alpha", "beta"]);
    writeFileSync(join(skills, "beta", "references", "b.md"), "changed\n");
    await served.reload();
    assert.deepEqual([...served.skills.keys()], ["alpha"]);
    assert.ok(served.catalog.entries.every((e) => e.uri !== "skill://beta/SKILL.md"));
    assert.deepEqual(warnings, [
      'Skill "beta" differs from its lockfile entry: "references/b.md" changed; not served',
    ]);
    const warned = await serveSkills([skills], {
      lock: lockfile,
      lockMode: "warn",
      onWarning: () => {},
    });
    assert.deepEqual([...warned.skills.keys()].sort(), ["alpha", "beta"]);
  });
});

describe("approvals over MCP", () => {
  it("an unlisted-as-approved skill is kept out; a change lapses only that skill's approval; nothing is prefetched", async () => {
    const skills = tree();
    const served = await serveSkills([skills]);
    const client = await connect(served.server);
    try {
      const store = new MemoryApprovalStore();
      const trusted = await trustedMcpSkills(client, {
        origin: "o",
        approvals: store,
        watch: true,
      });
      assert.deepEqual([...trusted.bundles.keys()], []);
      assert.equal(trusted.standings.get("o:alpha")?.approval?.status, "needs_approval");
      const refused = await trusted.handleSkillTool({ skill: "o:alpha" });
      assert.equal(refused.is_error, true);
      assert.equal(trusted.all.get("o:alpha")?.loaded, false);
      await trusted.approve("o:alpha");
      await trusted.approve("o:beta");
      assert.deepEqual([...trusted.bundles.keys()].sort(), ["o:alpha", "o:beta"]);
      assert.equal(trusted.all.get("o:alpha")?.loaded, false);
      // The server's alpha changes; the server announces it and the host re-checks.
      writeFileSync(join(skills, "alpha", "references", "guide.md"), "# Guide, rotated\n");
      await served.reload();
      await eventually(
        TIME,
        "the changed skill to be hidden",
        () => trusted.bundles.has("o:alpha") ? undefined : true,
      );
      assert.deepEqual([...trusted.bundles.keys()], ["o:beta"]);
      const standing = trusted.standings.get("o:alpha")!;
      assert.equal(standing.approval?.status, "changed_since_approval");
      assert.deepEqual(standing.approval?.changes, [{
        path: "references/guide.md",
        change: "changed",
      }]);
      await assert.rejects(trusted.activate("o:alpha"), { code: "UNKNOWN_SKILL" });
      const ok = await trusted.handleSkillTool({ skill: "o:beta" });
      assert.equal(ok.is_error, false);
    } finally {
      await client.close();
    }
  });

  it("a disabled or unactivated manual skill satisfies no dependency of a shown one (docs/large-libraries.md, skillAccess)", async () => {
    const root = tempDir();
    temps.push(root);
    const skills = join(root, "skills");
    put(skills, "dep/SKILL.md", skillMd("dep", "Dep skill"));
    put(
      skills,
      "needs/SKILL.md",
      "---\nname: needs\ndescription: Needs dep\nmetadata:\n  requires-skills: dep\n---\nUse dep.\n",
    );
    const served = await serveSkills([skills]);
    const client = await connect(served.server);
    try {
      const store = new MemoryApprovalStore();
      const trusted = await trustedMcpSkills(client, { origin: "o", approvals: store });
      await trusted.approve("o:dep");
      await trusted.approve("o:needs");
      const ok = await trusted.handleSkillTool({ skill: "o:needs" });
      assert.equal(ok.is_error, false, ok.content);
      assert.match(ok.content, /Depends on these skills .*"o:dep"/);
      for (const mode of ["disabled", "manual"] as const) {
        const refused = await trusted.handleSkillTool({ skill: "o:needs" }, {
          modes: new Map([["o:dep", mode]]),
        });
        assert.equal(refused.is_error, true, `${mode}: ${refused.content}`);
      }
      const activated = await trusted.handleSkillTool({ skill: "o:needs" }, {
        modes: new Map([["o:dep", "manual"]]),
        activated: new Set(["o:dep"]),
      });
      assert.equal(activated.is_error, false, activated.content);
    } finally {
      await client.close();
    }
  });

  it("a lock entry pins an MCP skill by origin and URI", async () => {
    const skills = tree();
    const served = await serveSkills([skills]);
    const client = await connect(served.server);
    try {
      const first = await trustedMcpSkills(client, { origin: "o" });
      const { createLockfile } = await import("../../mod.ts");
      const lock = createLockfile(first.lockEntries());
      assert.deepEqual(lock.skills.map((s) => [s.origin, s.uri]), [
        ["o", "skill://alpha/SKILL.md"],
        ["o", "skill://beta/SKILL.md"],
      ]);
      writeFileSync(join(skills, "beta", "references", "b.md"), "changed\n");
      await served.reload();
      const locked = await trustedMcpSkills(client, { origin: "o", lock });
      assert.deepEqual([...locked.bundles.keys()], ["o:alpha"]);
      assert.equal(locked.standings.get("o:beta")?.lock, "changed");
      const warned = await trustedMcpSkills(client, { origin: "o", lock, lockMode: "warn" });
      assert.deepEqual([...warned.bundles.keys()].sort(), ["o:alpha", "o:beta"]);
    } finally {
      await client.close();
    }
  });
});

describe("an approved MCP skill whose SKILL.md says other than its listing", () => {
  it("is refused when it is fetched (frontmatter compared field by field), and nothing is fetched before", async () => {
    const md = skillMd("pdf", "What the SKILL.md really says");
    const entry = await entryOf("skill://pdf", {
      name: "pdf",
      description: "What the user approved",
    }, {
      "SKILL.md": md,
    });
    const { client, requests } = await hostileClient({
      list: () => [entry],
      read: (uri) => (uri === "skill://pdf/SKILL.md" ? [{ uri, text: md }] : undefined),
    });
    try {
      const store = new MemoryApprovalStore();
      const trusted = await trustedMcpSkills(client, { origin: "h", approvals: store });
      await trusted.approve("h:pdf");
      assert.ok(!requests.some((r) => r.startsWith("resources/read")), requests.join(", "));
      await assert.rejects(trusted.activate("h:pdf"), (e: unknown) => {
        assert.equal((e as { code?: string }).code, "VERIFICATION_FAILED");
        assert.match((e as Error).message, /failed verification \(frontmatter\)/);
        return true;
      });
    } finally {
      await client.close();
    }
  });
});
