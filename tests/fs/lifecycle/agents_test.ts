/**
 * The agent table (`lib/fs/lifecycle/_agents.ts`) is the one in
 * `docs/lifecycle.md#agent-targets`, row for row; detection sees an
 * agent's folder in the project and in the home, never through a link.
 *
 * @module
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentNamed, AGENTS, detectAgents } from "../../../lib/fs/lifecycle/_agents.ts";
import { ROOT } from "../../_cli.ts";
import { tempFolder } from "../../_git.ts";

/** The rows of the agent table in docs/lifecycle.md: name, project, user, documentation URL. */
function docsRows(): string[][] {
  const text = readFileSync(join(ROOT, "docs", "lifecycle.md"), "utf8");
  const section = text.slice(text.indexOf("## Agent targets"));
  const rows: string[][] = [];
  for (const line of section.slice(0, section.indexOf("\n## ", 3)).split("\n")) {
    const m = /^\| `([^`]+)` +\| `([^`]+)` +\| `~\/([^`]+)` +\| \[[^\]]+\]\(([^)]+)\)/.exec(line);
    if (m !== null) rows.push(m.slice(1));
  }
  return rows;
}

describe("the agent table", () => {
  it("docs/lifecycle.md lists every agent of the code, in order, with the same folders and page", () => {
    assert.deepEqual(docsRows(), AGENTS.map((a) => [a.name, a.project, a.user, a.docs]));
  });

  it("names at least the agents the issue asks for, each a lowercase name with relative folders", () => {
    for (
      const name of [
        "claude-code",
        "codex",
        "cursor",
        "github-copilot",
        "gemini-cli",
        "opencode",
        "goose",
        "windsurf",
      ]
    ) assert.ok(agentNamed(name) !== undefined, name);
    for (const a of AGENTS) {
      assert.match(a.name, /^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      for (const folder of [a.project, a.user]) {
        assert.ok(folder.split("/").every((p) => p !== "" && p !== "." && p !== ".."), folder);
      }
    }
  });

  it("detects an agent by its folder in the project or the home; a link or a file does not count", () => {
    const top = tempFolder("skillset-agents-");
    const proj = join(top, "proj");
    const home = join(top, "home");
    mkdirSync(join(proj, ".claude"), { recursive: true });
    mkdirSync(join(home, ".config", "opencode"), { recursive: true });
    mkdirSync(join(home, ".claude"), { recursive: true });
    mkdirSync(join(top, "elsewhere"));
    symlinkSync(join(top, "elsewhere"), join(proj, ".cursor"));
    writeFileSync(join(proj, ".windsurf"), "a file\n");
    mkdirSync(join(proj, ".agents"));
    assert.deepEqual(detectAgents(proj, home).map((a) => [a.name, a.scopes]), [
      ["claude-code", ["project", "user"]],
      ["opencode", ["user"]],
    ]);
  });
});
