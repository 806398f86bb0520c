/**
 * The opt-in `run_skill_script` tool of a skill server: offered only when
 * `serveSkills` is given `scripts` (the CLI's `serve --allow-scripts`), it
 * runs a served skill's script through `runSkillScript` — the same gate, the
 * server's lock, the sandbox, the limits and the grants the host chose —
 * and answers with what the run did as JSON. The model names the skill, the
 * script and its arguments; it cannot widen a grant.
 *
 * Folder `lib/mcp/` — skills over MCP behind `lib/mcp.ts`: serve, consume, watch, HTTP, remote trust.
 *
 * @module
 */
import { fromJsonSchema, type McpServer, type RegisteredTool } from "@modelcontextprotocol/server";
import { runSkillScript } from "../fs/scripts/run_script.ts";
import type { CurrentTools } from "./_serve_tools.ts";
import { type ServeSkillsOptions, skillSafety } from "./_serve_options.ts";
import { skillMode } from "../core/catalog/skill_modes.ts";
import { skillAccess, wasActivated } from "../core/catalog/skill_access.ts";

/** The tool's name. */
export const RUN_TOOL_NAME = "run_skill_script";

const DESCRIPTION = "Run one of a skill's scripts (a path the skill's activation lists under " +
  "Runnable scripts) in a sandbox on the host: the skill read-only, a fresh working folder, no " +
  "network, limits on time, memory and output. Answers with the exit code, stdout and stderr " +
  "(each capped; *_truncated counts what was cut) and what the host granted.";

/** The description when the host chose to run scripts unsandboxed: never claims a sandbox. */
const UNSANDBOXED_DESCRIPTION = "Run one of a skill's scripts (a path the skill's activation " +
  "lists under Runnable scripts) on the host WITHOUT A SANDBOX: the host chose to run them with " +
  "its own rights (they can read and write whatever the host can, and use the network); only " +
  "time and output are limited. Answers with the exit code, stdout and stderr (each capped; " +
  "*_truncated counts what was cut).";

const INPUT_SCHEMA = fromJsonSchema({
  type: "object",
  properties: {
    skill: { type: "string", description: "The skill's name" },
    path: {
      type: "string",
      description: "The script's path inside the skill, e.g. scripts/fill.py",
    },
    args: {
      type: "array",
      items: { type: "string" },
      maxItems: 256,
      description: "The script's arguments",
    },
  },
  required: ["skill", "path"],
  additionalProperties: false,
});

/** Runs waiting or running at once per served set, beyond which a call is refused. */
export const MAX_PENDING_RUNS = 8;

/** The runs of one served set: one at a time, the others waiting in order. */
interface RunLine {
  tail: Promise<void>;
  pending: number;
}

// Keyed by the served set, not the server: over HTTP every request builds a server.
const lines = new WeakMap<CurrentTools, RunLine>();

/**
 * Register `run_skill_script` on a server when `options.scripts` is set.
 *
 * @param server The server.
 * @param files Where the current skills are (looked up at each call).
 * @param options The server's options: `scripts` (the run options), the safety switches, the lock.
 * @returns The registered tool, or `undefined` when scripts are not offered.
 */
export function registerRunTool(
  server: McpServer,
  files: CurrentTools,
  options: ServeSkillsOptions,
): RegisteredTool | undefined {
  const scripts = options.scripts;
  if (scripts === undefined) return undefined;
  return server.registerTool(
    RUN_TOOL_NAME,
    {
      description: scripts.dangerouslyRunUnsandboxed === true
        ? UNSANDBOXED_DESCRIPTION
        : DESCRIPTION,
      inputSchema: INPUT_SCHEMA,
    },
    async (input: unknown) => {
      const { skill: name, path, args } = input as {
        readonly skill: string;
        readonly path: string;
        readonly args?: readonly string[];
      };
      const skill = files.current.skills.get(name);
      if (skill === undefined) return failure(`Unknown skill ${JSON.stringify(name)}`);
      // The one rule (skill_access.ts): a manual skill's scripts run only once the user activated it.
      const state = {
        mode: skillMode(skill, options.modes),
        activated: wasActivated(options.activated, name),
      };
      if (!skillAccess("scripts", state)) {
        return failure(
          `The scripts of skill ${JSON.stringify(name)} run only once the user has activated it`,
        );
      }
      // One run at a time: a peer calling in parallel cannot start sandboxes without bound.
      let line = lines.get(files);
      if (line === undefined) lines.set(files, line = { tail: Promise.resolve(), pending: 0 });
      if (line.pending >= MAX_PENDING_RUNS) {
        return failure(
          `Too many script runs at once (${MAX_PENDING_RUNS} running or waiting): call again when one has ended`,
        );
      }
      const before = line.tail;
      let done!: () => void;
      line.tail = new Promise<void>((resolve) => done = resolve);
      line.pending++;
      try {
        await before;
        const run = await runSkillScript(skill, path, args ?? [], {
          ...scripts,
          global_safety: options.global_safety !== false,
          skill_safety: skillSafety(options.skill_safety, name),
          ...(options.lock === undefined ? {} : { lock: options.lock }),
          ...(options.lockBase === undefined ? {} : { lockBase: options.lockBase }),
        });
        return {
          content: [{ type: "text" as const, text: JSON.stringify(run, null, 2) }],
          isError: run.exit_code !== 0,
        };
      } catch (e) {
        return failure(e instanceof Error ? e.message : String(e));
      } finally {
        line.pending--;
        done();
      }
    },
  );
}

function failure(text: string): { content: { type: "text"; text: string }[]; isError: true } {
  return { content: [{ type: "text", text }], isError: true };
}
