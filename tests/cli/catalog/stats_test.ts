// @slow: runs the CLI as a subprocess (left out of `npm run test:quick`)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { link, put } from "../../_tree.ts";
import { cli, runInProcess } from "../../_cli.ts";
import { activationEvent, formatActivationEvent } from "../../../mod.ts";
import { statsCommand, usageLogOption } from "../../../lib/cli/catalog/_stats.ts";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { serveSkills } from "../../../lib/mcp.ts";
import { cliCommand, commandLine } from "../../_mcp.ts";
import { usageLogSink } from "../../../lib/load.ts";
import { discoveryFlags } from "../../../lib/cli/_discovery.ts";

const DAY = 86_400_000;
/** The fake clock: 2026-12-01T00:00:00Z. */
const NOW = Date.UTC(2026, 11, 1);

/** Three skills under `<root>/skills`, and a usage log naming two of them and one that is gone. */
function project(): { root: string; skills: string; log: string } {
  const root = mkdtempSync(join(tmpdir(), "skillset-stats-"));
  const skill = (name: string, description: string) =>
    put(
      root,
      `skills/${name}/SKILL.md`,
      `---\nname: ${name}\ndescription: ${description}\n---\nUse it.\n`,
    );
  skill("pdf", "Fill in PDF forms from structured data and check every field of the result");
  skill("csv", "Clean, join and reshape CSV files, keeping their headers and quoting");
  skill("git", "Write commit messages that say what changed and why");
  const log = join(root, "usage.jsonl");
  const at = (name: string, daysAgo: number, trigger: "model" | "user" = "model") =>
    formatActivationEvent(activationEvent({ name, origin: "local", trigger }, NOW - daysAgo * DAY));
  writeFileSync(
    log,
    at("csv", 0) + at("csv", 14, "user") + at("pdf", 28) + at("gone", 1) + '{"time_unix_nano":"1\n',
  );
  return { root, skills: join(root, "skills"), log };
}

function capture() {
  const io = { out: "", err: "" };
  return {
    io,
    cliIO: {
      stdout: (s: string) => void (io.out += s),
      stderr: (s: string) => void (io.err += s),
      color: false,
    },
  };
}

const FLAGS = discoveryFlags({ flags: new Map(), repeated: new Map() });

describe("skillset stats", () => {
  it("lists the hot skills by recent-weighted count and the never-used ones (text)", () => {
    const { skills, log } = project();
    const { io, cliIO } = capture();
    assert.equal(statsCommand([skills], [], FLAGS, { usageLog: log }, false, cliIO, NOW), 0);
    const w = skills.length;
    assert.equal(
      io.out,
      [
        "Hot skills (4 activations, weighted by recency: half-life 14 days)",
        "  name                   score  uses  model  user  last used",
        "  csv                    1.50   2     1      1     2026-12-01T00:00:00.000Z",
        "  gone (not discovered)  0.95   1     1      0     2026-11-30T00:00:00.000Z",
        "  pdf                    0.25   1     1      0     2026-11-03T00:00:00.000Z",
        "",
        "Never used (1 of 3 discovered)",
        `  name  ${"scope".padEnd(w)}  path`,
        `  git   ${skills.padEnd(w)}  ${join(skills, "git")}`,
        "",
      ].join("\n"),
    );
    assert.equal(
      io.err,
      `skillset: warning: usage log ${log}: skipped 1 line that is not an activation event (torn, garbled or another event)\n`,
    );
  });

  it("--json gives the same, as data; --since narrows the window", () => {
    const { skills, log } = project();
    const { io, cliIO } = capture();
    statsCommand([skills], [], FLAGS, { usageLog: log, since: "7d" }, true, cliIO, NOW);
    const data = JSON.parse(io.out);
    assert.deepEqual(data, {
      log,
      now: "2026-12-01T00:00:00.000Z",
      since: "2026-11-24T00:00:00.000Z",
      half_life_days: 14,
      events: 2,
      skipped: 1,
      hot: [
        {
          name: "csv",
          score: 1,
          count: 1,
          by_model: 1,
          by_user: 0,
          last_used: "2026-12-01T00:00:00.000Z",
          discovered: true,
        },
        {
          name: "gone",
          score: 0.951695,
          count: 1,
          by_model: 1,
          by_user: 0,
          last_used: "2026-11-30T00:00:00.000Z",
          discovered: false,
        },
      ],
      never_used: data.never_used,
    });
    assert.deepEqual(
      [...data.never_used].sort((a: { name: string }, b: { name: string }) =>
        a.name < b.name ? -1 : 1
      ),
      ["git", "pdf"].map((name) => ({ name, scope: skills, path: join(skills, name) })),
    );
    assert.deepEqual(data.never_used.map((s: { name: string }) => s.name).sort(), ["git", "pdf"]);
  });

  it("--since takes a span or a date; anything else is a usage error", () => {
    const { skills, log } = project();
    const { io, cliIO } = capture();
    statsCommand([skills], [], FLAGS, { usageLog: log, since: "2026-11-30" }, true, cliIO, NOW);
    assert.equal(JSON.parse(io.out).events, 2);
    // A span back past what a date can hold (271,821 BC) is one too.
    for (
      const bad of ["yesterday", "7", "-1d", "2026-13-45", "7d; rm", "999999999w", "999999999d"]
    ) {
      assert.throws(
        () => statsCommand([skills], [], FLAGS, { usageLog: log, since: bad }, true, cliIO, NOW),
        {
          name: "UsageError",
          message:
            `--since takes a span back from now (30m, 12h, 7d, 2w) or a date (2026-11-01), got "${bad}"`,
        },
      );
    }
  });

  it("a log not written yet is no activations, said on stderr", () => {
    const { skills, root } = project();
    const { io, cliIO } = capture();
    const log = join(root, "none.jsonl");
    assert.equal(statsCommand([skills], [], FLAGS, { usageLog: log }, false, cliIO, NOW), 0);
    assert.match(
      io.out,
      /^Hot skills \(0 activations, .*\n {2}none\n\nNever used \(3 of 3 discovered\)\n/,
    );
    assert.equal(
      io.err,
      `skillset: usage log ${log} does not exist yet: no activations recorded\n`,
    );
  });

  it("needs --usage-log; a folder as the log is an error with its code", () => {
    const { skills, root } = project();
    const missing = runInProcess(["stats", skills]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /stats needs --usage-log FILE/);
    const folder = runInProcess(["stats", skills, "--usage-log", root]);
    assert.equal(folder.code, 1);
    assert.match(folder.stderr, /The usage log is not a regular file/);
  });
});

describe("the usage log in activate and to-prompt", () => {
  it("activate --usage-log appends one event with the trigger user", () => {
    const { skills, root } = project();
    const log = join(root, "new.jsonl");
    for (let i = 0; i < 2; i++) {
      assert.equal(runInProcess(["activate", join(skills, "pdf"), "--usage-log", log]).code, 0);
    }
    const lines = readFileSync(log, "utf8").split("\n").filter((l) => l !== "").map((l) =>
      JSON.parse(l)
    );
    assert.equal(lines.length, 2);
    for (const l of lines) {
      assert.equal(l.event_name, "skillset.skill.activation");
      assert.deepEqual(l.attributes, {
        "gen_ai.skill.name": "pdf",
        "skillset.skill.origin": "local",
        "skillset.skill.trigger": "user",
      });
      assert.match(l.time_unix_nano, /^\d{19}$/);
    }
  });

  it("a log that cannot be appended to is a warning; the activation still prints", () => {
    const { skills, root } = project();
    const result = runInProcess(["activate", join(skills, "pdf"), "--usage-log", root]);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /Use it\./);
    assert.match(
      result.stderr,
      /skillset: warning: the activation was not recorded in .*: The usage log is not a regular file\n/,
    );
  });

  it("a log inside the skill folder is refused before anything is written (it would change the skill)", () => {
    const { skills, root } = project();
    const inside = join(skills, "pdf", "usage.jsonl");
    // Also when reached through a link to the folder, and when served.
    link(join(skills, "pdf"), join(root, "pdf-link"));
    for (const log of [inside, join(root, "pdf-link", "usage.jsonl")]) {
      const result = runInProcess(["activate", join(skills, "pdf"), "--usage-log", log]);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stdout, "");
      assert.match(
        result.stderr,
        /lies inside the skill folder .*keep the log outside skill folders/,
      );
    }
    const served = cli(["serve", skills, "--usage-log", inside]);
    assert.equal(served.code, 2, served.stderr);
    assert.match(served.stderr, /lies inside the skill folder/);
    assert.deepEqual(readdirSync(join(skills, "pdf")), ["SKILL.md"]);
    // Beside the skills is fine.
    const beside = join(skills, "usage.jsonl");
    assert.equal(runInProcess(["activate", join(skills, "pdf"), "--usage-log", beside]).code, 0);
    assert.equal(readFileSync(beside, "utf8").split("\n").length, 2);
  });

  it("to-prompt --rank usage keeps the most used lately; never-used skills go first", () => {
    const { skills, log } = project();
    const budget = "620";
    const byPosition = JSON.parse(
      runInProcess(["to-prompt", skills, "--budget", budget, "--json"]).stdout,
    );
    const byUsage = runInProcess([
      "to-prompt",
      skills,
      "--budget",
      budget,
      "--rank",
      "usage",
      "--usage-log",
      log,
      "--json",
    ]);
    assert.equal(byUsage.code, 0);
    const fit = JSON.parse(byUsage.stdout);
    assert.deepEqual(fit.left_out, ["git"]);
    assert.notDeepEqual(byPosition.left_out, fit.left_out);
    // csv, used most lately, keeps its description whole.
    assert.equal(
      fit.skills.find((s: { name: string }) => s.name === "csv").description,
      "Clean, join and reshape CSV files, keeping their headers and quoting",
    );
    assert.match(byUsage.stderr, /skipped 1 line/);
  });

  it("--rank usage needs the log; another rank is a usage error", () => {
    const { skills } = project();
    const none = runInProcess(["to-prompt", skills, "--rank", "usage"]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--rank usage needs --usage-log FILE/);
    const bad = runInProcess(["to-prompt", skills, "--rank", "hot"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /unknown --rank value "hot" \(one of "position", "name" or "usage"\)/);
  });

  it("skillset.json's usage_log and rank reach activate, to-prompt and stats (the real CLI)", () => {
    const { root } = project();
    writeFileSync(
      join(root, "skillset.json"),
      JSON.stringify({
        roots: [{ scope: "project", path: "skills" }],
        usage_log: "logs.jsonl",
        rank: "usage",
        budget: 620,
      }),
    );
    // Writing the log is honoured once the user approved the file (docs/security.md#config-keys).
    assert.equal(cli(["config", "approve"], root).code, 0);
    assert.equal(cli(["activate", "skills/git"], root).code, 0);
    const prompt = cli(["to-prompt", "--json"], root);
    assert.equal(prompt.code, 0, prompt.stderr);
    assert.deepEqual(JSON.parse(prompt.stdout).left_out.includes("git"), false);
    const stats = cli(["stats", "--json"], root);
    assert.equal(stats.code, 0, stats.stderr);
    const data = JSON.parse(stats.stdout);
    assert.deepEqual(data.hot.map((h: { name: string; by_user: number }) => [h.name, h.by_user]), [[
      "git",
      1,
    ]]);
    assert.equal(
      cli(["help", "stats"], root).stdout.split("\n")[0],
      "usage: skillset stats [folder]... [--root scope=path]... --usage-log FILE [--since 7d|DATE] [--json]",
    );
  });
});

describe("serving records the model's activations", () => {
  it("serveSkills' onActivate gets one event per activation through the skill tool", async () => {
    const { skills, root } = project();
    const log = join(root, "served.jsonl");
    const served = await serveSkills([skills], {
      onWarning: () => {},
      onActivate: usageLogSink(log, { clock: () => NOW }),
    });
    const [here, there] = InMemoryTransport.createLinkedPair();
    await served.server.connect(there);
    const client = new Client({ name: "test-host", version: "1.0.0" });
    await client.connect(here);
    try {
      await client.callTool({ name: "skill", arguments: { skill: "csv" } });
      await client.callTool({ name: "skill", arguments: { skill: "csv", resource: "SKILL.md" } });
      await client.callTool({ name: "skill", arguments: { skill: "nope" } });
    } finally {
      await client.close();
    }
    const at = formatActivationEvent(
      activationEvent({ name: "csv", origin: "local", trigger: "model" }, NOW),
    );
    assert.equal(readFileSync(log, "utf8"), at);
  });

  it("to-prompt over MCP ranks by the log too (the skills named <origin>:<path>)", () => {
    const { skills, root } = project();
    const log = join(root, "mcp.jsonl");
    writeFileSync(
      log,
      formatActivationEvent(
        activationEvent({ name: "mcp:git", origin: "mcp", trigger: "model" }, NOW),
      ),
    );
    const server = commandLine(cliCommand(["serve", skills]));
    const fit = (...rank: string[]) => {
      const r = cli(["to-prompt", "--mcp-stdio", server, "--budget", "400", "--json", ...rank]);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout) as { skills: { name: string }[] };
    };
    assert.ok(!fit().skills.some((s) => s.name === "mcp:git"));
    assert.deepEqual(fit("--rank", "usage", "--usage-log", log).skills.map((s) => s.name), [
      "mcp:git",
    ]);
  });

  it("serve --usage-log: a log that cannot be written is said once, the model still served", () => {
    const { root } = project();
    const lines: string[] = [];
    const { onActivate } = usageLogOption(root, (l) => lines.push(l));
    for (let i = 0; i < 3; i++) onActivate!({ name: "csv", origin: "local", trigger: "model" });
    assert.deepEqual(lines, [
      `warning: activations are not recorded in ${root}: The usage log is not a regular file`,
    ]);
    assert.deepEqual(usageLogOption(undefined, () => {}), {});
  });
});
