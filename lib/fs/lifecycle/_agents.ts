/**
 * The agents whose own documentation names a skills folder, as data: each
 * agent's name (what `--agent` takes), its project folder (relative to the
 * project), its user folder (relative to the home) and the page that names
 * them. `docs/lifecycle.md#agent-targets` prints this table and a test
 * holds the two equal, so adding an agent is one row here and one there.
 * An agent whose folders are the canonical ones (`.agents/skills`,
 * `~/.agents/skills`) reads what `skillset add` installs already: no link
 * is made for it.
 *
 * Folder `lib/fs/lifecycle/` — the lifecycle: add, outdated, update, remove from git and folder sources.
 *
 * @module
 */
import { lstatSync } from "node:fs";
import { join } from "node:path";

/** One agent's skills folders. */
export interface Agent {
  /** The name `--agent` takes: lowercase, `-`-separated. */
  readonly name: string;
  /** The product's name. */
  readonly title: string;
  /** Its project skills folder, relative to the project, `/`-separated. */
  readonly project: string;
  /** Its user skills folder, relative to the home, `/`-separated. */
  readonly user: string;
  /** The folder whose presence in the project (or the home) says the agent is used there. */
  readonly marker: { readonly project: string; readonly user: string };
  /** The agent's own page naming the folders. */
  readonly docs: string;
}

function agent(
  name: string,
  title: string,
  project: string,
  user: string,
  docs: string,
): Agent {
  return Object.freeze({
    name,
    title,
    project,
    user,
    marker: Object.freeze({
      project: project.split("/")[0]!,
      user: user.split("/").slice(0, -1).join("/"),
    }),
    docs,
  });
}

/** The canonical folders, where `skillset add` installs: relative to the project, and to the home. */
export const CANONICAL = Object.freeze({ project: ".agents/skills", user: ".agents/skills" });

/** Every agent known, in the order `docs/lifecycle.md` lists them. */
export const AGENTS: readonly Agent[] = Object.freeze([
  agent(
    "claude-code",
    "Claude Code",
    ".claude/skills",
    ".claude/skills",
    "https://code.claude.com/docs/en/skills",
  ),
  agent(
    "codex",
    "Codex",
    ".agents/skills",
    ".agents/skills",
    "https://developers.openai.com/codex/skills",
  ),
  agent(
    "cursor",
    "Cursor",
    ".cursor/skills",
    ".cursor/skills",
    "https://cursor.com/docs/context/skills",
  ),
  agent(
    "github-copilot",
    "GitHub Copilot",
    ".github/skills",
    ".copilot/skills",
    "https://docs.github.com/en/copilot/concepts/agents/about-agent-skills",
  ),
  agent(
    "gemini-cli",
    "Gemini CLI",
    ".gemini/skills",
    ".gemini/skills",
    "https://geminicli.com/docs/cli/using-agent-skills/",
  ),
  agent(
    "opencode",
    "opencode",
    ".opencode/skills",
    ".config/opencode/skills",
    "https://opencode.ai/docs/skills",
  ),
  agent(
    "goose",
    "Goose",
    ".agents/skills",
    ".agents/skills",
    "https://block.github.io/goose/docs/guides/context-engineering/using-skills",
  ),
  agent(
    "windsurf",
    "Windsurf",
    ".windsurf/skills",
    ".codeium/windsurf/skills",
    "https://docs.windsurf.com/windsurf/cascade/skills",
  ),
]);

/** The names `--agent` takes. */
export function agentNames(): readonly string[] {
  return AGENTS.map((a) => a.name);
}

/** The agent of that name, or undefined. */
export function agentNamed(name: string): Agent | undefined {
  return AGENTS.find((a) => a.name === name);
}

/** An agent's skills folder of a scope, relative to the project or home, `/`-separated. */
export function agentFolder(agent: Agent, scope: "project" | "user"): string {
  return scope === "user" ? agent.user : agent.project;
}

/** Whether an agent's folder of a scope is the canonical one (nothing to link). */
export function readsCanonical(agent: Agent, scope: "project" | "user"): boolean {
  return agentFolder(agent, scope) === CANONICAL[scope];
}

/** One agent found in use. */
export interface DetectedAgent {
  readonly name: string;
  readonly title: string;
  /** Where it was seen: its marker folder in the project, in the home, or both. */
  readonly scopes: readonly ("project" | "user")[];
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The agents in use in a project and a home: those whose marker folder
 * (`.claude`, `.cursor`, …; in the home the folder above its user skills
 * folder) is a real folder there. An agent reading only the canonical
 * folders is detected by its own marker too (`.codex` does not count for
 * Codex: its skills folder is `.agents/skills`, whose marker is shared).
 *
 * @param project The project folder.
 * @param home The user's home.
 * @returns The agents seen, in the table's order.
 */
export function detectAgents(project: string, home: string): readonly DetectedAgent[] {
  const out: DetectedAgent[] = [];
  for (const a of AGENTS) {
    const scopes: ("project" | "user")[] = [];
    if (!readsCanonical(a, "project") && isFolder(join(project, a.marker.project))) {
      scopes.push("project");
    }
    if (!readsCanonical(a, "user") && isFolder(join(home, a.marker.user))) scopes.push("user");
    if (scopes.length > 0) out.push(Object.freeze({ name: a.name, title: a.title, scopes }));
  }
  return Object.freeze(out);
}
