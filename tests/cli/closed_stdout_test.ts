/**
 * A closed standard output (`skillset outdated | head`) ends every command
 * quietly (issue 41): exit 0 (or the shell's 141), nothing on stderr, never
 * a stack trace. One command of each family, under the runtime running the
 * test (Node, Deno or Bun), each writing to a pipe whose reader has gone.
 */
// @slow: spawns the CLI (and git-free lifecycle, a sandbox, an MCP child) as subprocesses (left out of `npm run test:quick`)
// @every-runtime: a closed stdout surfaces differently on each runtime (EPIPE event or write exception)
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { cliCommand, commandLine } from "../_mcp.ts";
import { CLI_TIMEOUT_MS, runIn } from "../_cli.ts";
import { put } from "../_tree.ts";

const temps: string[] = [];
after(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));

/** A project with 300 skills under s/ (output longer than any pipe buffer), one with a script. */
function project(): string {
  const root = mkdtempSync(join(tmpdir(), "skillset-epipe-"));
  temps.push(root);
  for (let i = 0; i < 300; i++) {
    put(
      root,
      `s/sk${i}/SKILL.md`,
      `---\nname: sk${i}\ndescription: Skill ${i} does things.\n---\n# sk${i}\n`,
    );
  }
  put(
    root,
    "s/sk0/scripts/loud.sh",
    "#!/bin/sh\ni=0\nwhile [ $i -lt 20000 ]; do echo line $i; i=$((i+1)); done\n",
  );
  return root;
}

/** `skillset ...args | true`: the reader exits at once, long before the CLI writes. */
function intoClosedPipe(cwd: string, args: readonly string[]): { code: number; stderr: string } {
  const { command, args: full } = cliCommand(args);
  const r = spawnSync("bash", [
    "-c",
    '"$@" | true; exit "${PIPESTATUS[0]}"',
    "bash",
    command,
    ...full,
  ], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
    timeout: CLI_TIMEOUT_MS,
  });
  return { code: r.status ?? -1, stderr: r.stderr };
}

function quiet(r: { code: number; stderr: string }, what: string): void {
  assert.ok(r.code === 0 || r.code === 141, `${what}: exit ${r.code}\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /EPIPE|BrokenPipe|Broken pipe|\n\s+at /, `${what}: ${r.stderr}`);
}

describe("a closed stdout ends the command quietly", () => {
  const root = project();

  it("catalog: list, to-prompt, search, validate, help", () => {
    for (
      const args of [
        ["list", "s"],
        ["to-prompt", "s"],
        ["search", "skill", "--root", "local=s", "--limit", "300"],
        ["validate", "s", "--json"],
        ["--help"],
      ]
    ) quiet(intoClosedPipe(root, args), args.join(" "));
  });

  it("trust: lock --json, verify --json", () => {
    quiet(intoClosedPipe(root, ["lock", "--root", "local=s", "--json"]), "lock");
    quiet(intoClosedPipe(root, ["verify", "--json"]), "verify");
  });

  it("lifecycle: outdated", async () => {
    const added = await runIn(root, "add", "s", "--skill", "sk1", "--skill", "sk2");
    assert.equal(added.code, 0, added.err);
    quiet(intoClosedPipe(root, ["outdated", "--json"]), "outdated");
  });

  it("scripts: run", () => {
    quiet(intoClosedPipe(root, ["run", "s/sk0", "scripts/loud.sh"]), "run");
  });

  it("mcp: activate through an --mcp-stdio child", () => {
    const serve = commandLine(cliCommand(["serve", "s"]));
    quiet(intoClosedPipe(root, ["to-prompt", "--mcp-stdio", serve]), "to-prompt --mcp-stdio");
  });
});

describe("an --mcp-stdio child's logs", () => {
  const root = project();
  const serve = commandLine(cliCommand(["serve", "s"]));

  it("summarise the skills served in a count, and -q passes to the child", () => {
    const { command, args } = cliCommand(["to-prompt", "--mcp-stdio", serve]);
    const run = (extra: string[]) =>
      spawnSync(command, [...args, ...extra], {
        cwd: root,
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1" },
        timeout: CLI_TIMEOUT_MS,
      });
    const normal = run([]);
    assert.equal(normal.status, 0, normal.stderr);
    assert.match(normal.stderr, /skillset serve: serving 300 skills \(--verbose names them\)\n/);
    assert.ok(normal.stderr.length < 500, normal.stderr);
    const quiet = run(["-q"]);
    assert.equal(quiet.status, 0, quiet.stderr);
    assert.equal(quiet.stderr, "");
    assert.match(quiet.stdout, /<name>mcp:sk299<\/name>/);
  });
});
