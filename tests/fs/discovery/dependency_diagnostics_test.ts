// @slow: runs the CLI as a subprocess (left out of `npm run test:quick`)
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { discoverSkills, validatePaths } from "../../../lib/load.ts";
import { mcpSkillBundles, serveSkills, trustedMcpSkills } from "../../../lib/mcp.ts";
import { handleSkillTool, MemoryApprovalStore, skillDependencies } from "../../../mod.ts";
import { cli, runInProcess } from "../../_cli.ts";
import { put } from "../../_tree.ts";
import { dependencyDiagnostics } from "../../../lib/fs/discovery/_dependency_diagnostics.ts";
import { skillsWithDependencies } from "../../../mod.ts";
import { cliCommand, commandLine } from "../../_mcp.ts";

const temp = mkdtempSync(join(tmpdir(), "skillset-deps-"));
after(() => rmSync(temp, { recursive: true, force: true }));

/** A skill folder `root/name` whose metadata is `metadata` (YAML lines under `metadata:`). */
function skillAt(root: string, name: string, metadata: Record<string, string> = {}): void {
  const lines = Object.entries(metadata).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`);
  put(
    root,
    `${name}/SKILL.md`,
    `---\nname: ${name}\ndescription: The ${name} skill\n${
      lines.length > 0 ? `metadata:\n${lines.join("\n")}\n` : ""
    }---\nUse ${name}.\n`,
  );
}

const skills = join(temp, "skills");
skillAt(skills, "report", { "requires-skills": "charts" });
skillAt(skills, "charts", { "requires-any-skills": "svg pdf" });
skillAt(skills, "pdf");
skillAt(skills, "audit", { "requires-skills": "ledger" });
skillAt(skills, "loop-a", { "requires-skills": "loop-b" });
skillAt(skills, "loop-b", { "requires-skills": "loop-a" });
skillAt(skills, "typo", { "requires-skills": "pdf, charts" });
skillAt(skills, "plain");
const alone = join(temp, "alone");
skillAt(alone, "solo", { "requires-skills": "pdf" });

describe("discovery", () => {
  const found = discoverSkills([{ scope: "project", path: skills }]);
  const byName = new Map(found.skills.map((s) => [s.name, s]));
  const last = (name: string) => byName.get(name)!.diagnostics.at(-1);

  it("keeps every skill and warns on each that cannot activate, naming what it lacks", () => {
    assert.equal(found.skills.length, 8);
    assert.deepEqual(last("audit"), {
      severity: "warning",
      code: "MISSING_DEPENDENCY",
      path: join(skills, "audit", "SKILL.md"),
      line: null,
      column: null,
      message: 'Skill "audit" cannot activate: "audit" requires "ledger", which is not available',
      missing: ["ledger"],
    });
    assert.equal(last("loop-a")?.code, "DEPENDENCY_CYCLE");
    assert.equal(
      last("loop-a")?.message,
      'Skill "loop-a" cannot activate: its dependencies form a cycle: "loop-a" -> "loop-b" -> "loop-a"',
    );
    assert.equal(last("typo")?.code, "INVALID_DEPENDENCY");
    assert.equal(
      last("typo")?.message,
      'Skill "typo" cannot activate: invalid metadata.requires-skills at column 4: a comma; ' +
        "skill names are separated by spaces",
    );
    for (const ok of ["report", "charts", "pdf", "plain"]) {
      assert.deepEqual(byName.get(ok)!.diagnostics, [], ok);
    }
  });

  it("counts a skill hidden for its tools as not available to depend on", () => {
    const tools = join(temp, "tools");
    skillAt(tools, "needs-bash", { "requires-tools": "Bash" });
    skillAt(tools, "user", { "requires-skills": "needs-bash" });
    const d = discoverSkills([{ scope: "p", path: tools }], { availableTools: ["Read"] });
    assert.deepEqual(d.unavailable.map((h) => h.name), ["needs-bash"]);
    assert.equal(d.skill("user")?.diagnostics.at(-1)?.code, "MISSING_DEPENDENCY");
  });

  it("the skill tool refuses, over a discovery, a skill whose closure does not resolve", () => {
    assert.equal(handleSkillTool({ skill: "report" }, { skills: found }).is_error, false);
    const refused = handleSkillTool({ skill: "audit" }, { skills: found });
    assert.deepEqual(refused, {
      is_error: true,
      content: 'Skill "audit" cannot activate: "audit" requires "ledger", which is not available',
    });
  });
});

describe("validate", () => {
  it("reports a missing dependency as a warning, a cycle and a bad value as errors", () => {
    const found = validatePaths([skills]).filter((d) => d.code?.includes("DEPENDENCY"));
    assert.deepEqual(
      found.map((d) => [d.file.slice(skills.length + 1), d.severity, d.code]),
      [
        ["audit/SKILL.md", "warning", "MISSING_DEPENDENCY"],
        ["loop-a/SKILL.md", "error", "DEPENDENCY_CYCLE"],
        ["loop-b/SKILL.md", "error", "DEPENDENCY_CYCLE"],
        ["typo/SKILL.md", "error", "INVALID_DEPENDENCY"],
      ],
    );
  });

  it("resolves across every path it is given, and names files as they were typed", () => {
    assert.equal(validatePaths([alone]).filter((d) => d.code === "MISSING_DEPENDENCY").length, 1);
    assert.deepEqual(
      validatePaths([alone, join(skills, "pdf")]).filter((d) => d.code?.includes("DEPENDENCY")),
      [],
    );
    const r = runInProcess(["validate", alone, "--json"]);
    const { diagnostics } = JSON.parse(r.stdout) as { diagnostics: { file: string }[] };
    assert.equal(diagnostics[0]?.file, join(alone, "solo", "SKILL.md"));
  });
});

describe("skillset activate", () => {
  it("lists the closure found beside the skill, in the text and in JSON", () => {
    const text = runInProcess(["activate", join(skills, "report")]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      /Depends on these skills \(activate each first, in this order, with the skill tool\): "pdf", "charts"\n/,
    );
    const json = runInProcess(["activate", join(skills, "report"), "--json"]);
    assert.deepEqual(JSON.parse(json.stdout).dependencies, ["pdf", "charts"]);
  });

  it("adds nothing for a skill without dependencies", () => {
    const json = runInProcess(["activate", join(skills, "plain"), "--json"]);
    assert.equal(JSON.parse(json.stdout).dependencies, undefined);
  });

  it("refuses a skill whose dependencies are not there, and finds them under --root", () => {
    const refused = cli(["activate", join(alone, "solo")]);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      'skillset: error: Skill "solo" cannot activate: "solo" requires "pdf", which is not available\n',
    );
    assert.equal(refused.stdout, "");
    const found = runInProcess(["activate", join(alone, "solo"), "--root", `lib=${skills}`]);
    assert.equal(found.code, 0, found.stderr);
    assert.match(found.stdout, /with the skill tool\): "pdf"\n/);
    const server = commandLine(cliCommand(["serve", skills]));
    const remote = cli(["activate", "--mcp-stdio", server, "report", "--json"]);
    assert.equal(remote.code, 0, remote.stderr);
    assert.deepEqual(JSON.parse(remote.stdout).dependencies, ["mcp:pdf", "mcp:charts"]);
    const remoteMissing = cli(["activate", "--mcp-stdio", server, "audit"]);
    assert.equal(remoteMissing.code, 1);
    assert.match(remoteMissing.stderr, /"mcp:audit" requires "ledger", which is not available/);
    const cycle = runInProcess(["activate", join(skills, "loop-a")]);
    assert.equal(cycle.code, 1);
    assert.match(cycle.stderr, /its dependencies form a cycle: "loop-a" -> "loop-b" -> "loop-a"/);
  });

  it("over MCP, a manual skill (disable-model-invocation) satisfies no dependency (skillAccess)", () => {
    const remote = join(temp, "manual-remote");
    skillAt(remote, "wants", { "requires-skills": "quiet" });
    put(
      remote,
      "quiet/SKILL.md",
      "---\nname: quiet\ndescription: The quiet skill\ndisable-model-invocation: true\n---\nUse quiet.\n",
    );
    const server = commandLine(cliCommand(["serve", remote]));
    const refused = cli(["activate", "--mcp-stdio", server, "wants"]);
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, /"mcp:wants" requires "quiet", which is not available/);
    // The user names the manual skill itself: it activates.
    const itself = cli(["activate", "--mcp-stdio", server, "quiet"]);
    assert.equal(itself.code, 0, itself.stderr);
  });

  it("with --lockfile, finds them under --root as without one, and only locked ones count", () => {
    const root = join(temp, "locked");
    skillAt(join(root, "a"), "report", { "requires-skills": "ledger" });
    skillAt(join(root, "b"), "ledger");
    const both = join(root, "both.lock");
    const one = join(root, "one.lock");
    const a = `p=${join(root, "a")}`;
    const b = `q=${join(root, "b")}`;
    assert.equal(cli(["lock", "--root", a, "--root", b, "--lockfile", both]).code, 0);
    assert.equal(cli(["lock", "--root", a, "--lockfile", one]).code, 0);
    const activate = (lock: string) =>
      cli(["activate", join(root, "a", "report"), "--root", b, "--lockfile", lock]);
    const locked = activate(both);
    assert.equal(locked.code, 0, locked.stderr);
    assert.match(locked.stdout, /with the skill tool\): "ledger"\n/);
    const unlocked = activate(one);
    assert.equal(unlocked.code, 1);
    assert.equal(
      unlocked.stderr,
      'skillset: error: Skill "report" cannot activate: "report" requires "ledger", which is not available\n',
    );
  });
});

describe("skills consumed from two MCP servers", () => {
  it("depend only on their own server's skills unless the host allows crossing", async () => {
    const docsRoot = join(temp, "docs");
    skillAt(docsRoot, "report", { "requires-skills": "charts" });
    skillAt(docsRoot, "ledger");
    skillAt(docsRoot, "audit", { "requires-skills": "ledger" });
    const webRoot = join(temp, "web");
    skillAt(webRoot, "charts");
    const consume = async (root: string, origin: string) => {
      const served = await serveSkills([root], { onWarning: () => {} });
      const [here, there] = InMemoryTransport.createLinkedPair();
      await served.server.connect(there);
      const client = new Client({ name: "test-host", version: "1.0.0" });
      await client.connect(here);
      return { client, skills: await mcpSkillBundles(client, { origin }) };
    };
    const docs = await consume(docsRoot, "docs");
    const web = await consume(webRoot, "web");
    try {
      // Inside one origin, the consumer's own handler resolves them.
      const audit = await docs.skills.handleSkillTool({ skill: "docs:audit" });
      assert.equal(audit.is_error, false, audit.content);
      assert.ok(audit.content.includes('with the skill tool): "docs:ledger"'));
      const alone = await docs.skills.handleSkillTool({ skill: "docs:report" });
      assert.deepEqual(alone, {
        is_error: true,
        content:
          'Skill "docs:report" cannot activate: "docs:report" requires "charts", which is not available',
      });
      // The host's catalog holds both servers: still refused, and it says where "charts" is.
      const both = [...docs.skills.bundles.values(), ...web.skills.bundles.values()];
      const closed = await docs.skills.handleSkillTool({ skill: "docs:report" }, {
        dependencies: skillDependencies(both),
      });
      assert.equal(closed.is_error, true);
      assert.ok(closed.content.includes('another origin has "web:charts"'), closed.content);
      const open = await docs.skills.handleSkillTool({ skill: "docs:report" }, {
        dependencies: skillDependencies(both, { crossOrigin: true }),
      });
      assert.equal(open.is_error, false, open.content);
      assert.ok(open.content.includes('with the skill tool): "web:charts"'));
      const activation = await docs.skills.activate("docs:report", {
        dependencies: skillDependencies(both, { crossOrigin: true }),
      });
      assert.deepEqual(activation.dependencies, ["web:charts"]);
    } finally {
      await docs.client.close();
      await web.client.close();
    }
  });
});

describe("skills consumed through approvals", () => {
  it("depend only on the skills shown: an unapproved skill of the listing satisfies none", async () => {
    const root = join(temp, "approved");
    skillAt(root, "audit", { "requires-skills": "ledger" });
    skillAt(root, "ledger");
    const served = await serveSkills([root], { onWarning: () => {} });
    const [here, there] = InMemoryTransport.createLinkedPair();
    await served.server.connect(there);
    const client = new Client({ name: "test-host", version: "1.0.0" });
    await client.connect(here);
    try {
      const trusted = await trustedMcpSkills(client, {
        origin: "docs",
        approvals: new MemoryApprovalStore(),
      });
      await trusted.approve("docs:audit");
      assert.deepEqual([...trusted.bundles.keys()], ["docs:audit"]);
      // "docs:ledger" is listed but not approved: the model could not activate it.
      assert.equal((await trusted.handleSkillTool({ skill: "docs:ledger" })).is_error, true);
      assert.deepEqual(await trusted.handleSkillTool({ skill: "docs:audit" }), {
        is_error: true,
        content:
          'Skill "docs:audit" cannot activate: "docs:audit" requires "ledger", which is not available',
      });
      await trusted.approve("docs:ledger");
      const activated = await trusted.handleSkillTool({ skill: "docs:audit" });
      assert.equal(activated.is_error, false, activated.content);
      assert.ok(activated.content.includes('with the skill tool): "docs:ledger"'));
    } finally {
      await client.close();
    }
  });
});

describe("a cycle through every skill of a large catalog", () => {
  it("costs each skill its message, not a copy of the cycle (20,000 skills on one ring)", () => {
    // A copy per skill would be 20,000 lists of 20,001 names: gigabytes, minutes.
    const n = 20_000;
    const ring = Array.from({ length: n }, (_, i) => ({
      name: `s${i}`,
      frontmatter: { metadata: { "requires-skills": `s${(i + 1) % n}` } },
    }));
    const { hidden } = skillsWithDependencies(ring);
    assert.equal(hidden.length, n);
    // Each skill's cycle still starts (and ends) at it, made when read.
    assert.deepEqual(hidden[7]!.cycle!.slice(0, 3), ["s7", "s8", "s9"]);
    assert.deepEqual([hidden[7]!.cycle!.length, hidden[7]!.cycle!.at(-1)], [n + 1, "s7"]);
    const diagnostics = dependencyDiagnostics(ring, (s) => s.name, "warning");
    assert.equal(diagnostics.size, n);
    const last = diagnostics.get(ring[n - 1]!)!;
    assert.equal(last.code, "DEPENDENCY_CYCLE");
    assert.ok(
      last.message.startsWith(
        `Skill "s${n - 1}" cannot activate: its dependencies form a cycle: "s${
          n - 1
        }" -> "s0" -> "s1"`,
      ),
      last.message,
    );
    const tail = Array.from({ length: 10 }, (_, k) => `"s${n - 10 + k}"`).join(" -> ");
    assert.ok(last.message.endsWith(`… ${n + 1 - 20} more -> ${tail}`), last.message);
  });
});
