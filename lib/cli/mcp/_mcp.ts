/**
 * The MCP commands of the `skillset` CLI: `serve`, and `activate`, `read`
 * and `to-prompt` with `--mcp-stdio "<command>"` or `--mcp-url <url>` as the
 * source. `main.ts` loads this file only for those, so the other commands
 * never load the SDK. Logs go to stderr only: on stdio, stdout is the
 * protocol.
 *
 * Folder `lib/cli/mcp/` — the MCP commands: serve, and reading skills from MCP servers.
 *
 * @module
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { escapeControls as esc, escapeControlsKeepingLines } from "../../core/_text.ts";
import { type Args, type ArgSpec, count, parseArgs, safetyFlags, UsageError } from "../_args.ts";
import { RUN_REPEATED_FLAGS, RUN_SWITCHES, RUN_VALUE_FLAGS } from "../scripts/_run_flags.ts";
import { serve } from "./_serve.ts";
import { nearest } from "../_suggest.ts";
import { errorsOnly } from "./_child_logs.ts";
import { fitSkillCatalog } from "../../core/catalog/skill_catalog.ts";
import type { CliIO } from "../_io.ts";
import { renderActivation } from "../../core/activation/activate.ts";
import { contextDependencies } from "../../core/catalog/skill_dependencies.ts";
import { mayBeDependency } from "../../core/catalog/skill_access.ts";
import type { ModedSkill } from "../../core/catalog/skill_modes.ts";
import { McpSkillError } from "../../mcp/_errors.ts";
import { cappedFetch } from "../../mcp/_capped_fetch.ts";
import { mcpSkillBundles, type McpSkills, ORIGIN } from "../../mcp/_consume.ts";
import { STDIO_MESSAGE_BYTES } from "../../mcp/_serve_options.ts";
import { JsonFileApprovalStore, readLockfile } from "../../fs/trust/trust_files.ts";
import { trustedMcpSkills } from "../../mcp/_trust.ts";
import { usageLogRank } from "../catalog/_stats.ts";
import { rankOf } from "../catalog/_list.ts";
import { resolve } from "node:path";
import { renderResourceRead } from "../../core/resources/read.ts";

/** Where the MCP commands write: the CLI's IO, whose colour they do not use. */
type McpCliIO = Omit<CliIO, "color">;

/**
 * How long a stdio server may take to answer the 2026-07-28 probe before it is taken for a
 * 2025-era server (one that ignores an unknown request before `initialize`).
 */
const STDIO_PROBE_MS = 10_000;

const SAFETY = "[--global-safety true|false] [--skill-safety true|false]";
const SOURCE =
  '(--mcp-stdio "<command>" | --mcp-url <url>) [--origin <label>] [--lockfile FILE] [--approvals FILE]';
const SOURCE_FLAGS = ["--mcp-stdio", "--mcp-url", "--origin", "--lockfile", "--approvals"];

const SPECS: Readonly<Record<string, ArgSpec>> = {
  serve: {
    values: [
      "--root",
      "--http",
      "--prefix",
      "--page-size",
      "--global-safety",
      "--skill-safety",
      "--max-connections",
      "--max-subscriptions",
      "--max-buffered-bytes",
      "--class",
      "--tool-budget",
      "--max-body-tokens",
      "--usage-log",
      "--lockfile",
      "--approvals",
      "--modes",
      "--token-file",
      "--token-env",
      "--ttl-ms",
      "--cache-scope",
      "--profile",
      "--profiles",
      "--paths",
      ...RUN_VALUE_FLAGS,
    ],
    repeated: ["--root", "--class", "--paths", ...RUN_REPEATED_FLAGS],
    switches: ["--watch", "--allow-remote", "--allow-empty", "--allow-scripts", ...RUN_SWITCHES],
    positional: [0, Infinity],
    usage:
      `skillset serve <folder>... [--root scope=path]... [--http 127.0.0.1:PORT [--allow-remote] [--token-file FILE | --token-env NAME]] ` +
      `[--watch] [--prefix <p>] [--page-size N] [--tool-budget N] [--usage-log FILE] ` +
      `[--class NAME=references|assets|scripts]... ${SAFETY} ` +
      `[--lockfile FILE] [--approvals FILE] [--modes FILE] [--profile NAME [--profiles FILE]] ` +
      `[--paths PATH]... [--ttl-ms N] [--cache-scope public|private] ` +
      `[--allow-empty] [--allow-scripts [run's flags]]`,
  },
  activate: {
    values: [...SOURCE_FLAGS, "--global-safety", "--skill-safety"],
    switches: [],
    positional: [1, 1],
    usage: `skillset activate ${SOURCE} <skill> ${SAFETY} [--json]`,
  },
  read: {
    values: [...SOURCE_FLAGS, "--offset", "--limit", "--global-safety", "--skill-safety"],
    switches: [],
    positional: [2, 2],
    usage: `skillset read ${SOURCE} <skill> <path> [--offset N] [--limit N] ${SAFETY} [--json]`,
  },
  "to-prompt": {
    values: [...SOURCE_FLAGS, "--budget", "--rank", "--usage-log"],
    switches: [],
    positional: [0, 0],
    usage:
      `skillset to-prompt ${SOURCE} [--budget N] [--rank position|name|usage [--usage-log FILE]] [--json]`,
  },
};

/**
 * The flags an MCP command accepts, for the project config to fill in.
 *
 * @param command `serve`, or `activate`, `read` or `to-prompt` with an MCP source.
 * @returns Its flag spec, or `undefined`.
 */
export function mcpArgSpec(command: string): ArgSpec | undefined {
  return Object.hasOwn(SPECS, command) ? SPECS[command] : undefined;
}

/** The usage lines of the MCP commands and sources, for the CLI's help. */
export const MCP_USAGE: readonly string[] = Object.values(SPECS).map((s) => s.usage);

/**
 * Run one MCP command. `serve` resolves when the server stops (stdin closed,
 * or SIGINT/SIGTERM for HTTP).
 *
 * @param argv The arguments after the program name.
 * @param io Where to write.
 * @returns The exit code.
 * @throws {UsageError} For bad usage.
 */
export async function runMcpCli(argv: readonly string[], io: McpCliIO): Promise<number> {
  const [command = "", ...rest] = argv;
  const spec = Object.hasOwn(SPECS, command) ? SPECS[command]! : undefined;
  if (spec === undefined) {
    throw new UsageError(
      `${command}: --mcp-stdio and --mcp-url work with activate, read and to-prompt`,
    );
  }
  const args = parseArgs(command, spec, rest);
  if (args.help) {
    io.stdout(`usage: ${spec.usage}\n`);
    return 0;
  }
  if (command === "serve") return await serve(args, io);
  const { client, skills } = await connect(args, io);
  try {
    return await consume(command, args, skills, io);
  } catch (e) {
    throw cliAdvice(e);
  } finally {
    await client.close();
  }
}

/**
 * An error of the library as the command line should word it: the advice to
 * `call refresh("…")` (an API only a library caller has) becomes "run the
 * command again", which fetches the entry anew.
 *
 * @param e What was thrown.
 * @returns The error to report.
 */
export function cliAdvice(e: unknown): unknown {
  const REFRESH = / call refresh\(.*\) to fetch the entry again$/;
  if (!(e instanceof McpSkillError) || !REFRESH.test(e.message)) return e;
  return new McpSkillError(
    e.code,
    e.message.replace(REFRESH, " run the command again to fetch the entry anew"),
    e.uri,
    { cause: e },
  );
}

// ---- consume ----------------------------------------------------------------

/** What the consuming commands use: a server's skills, all of them or only the trusted ones. */
type Skills = Pick<McpSkills, "origin" | "bundles" | "activate" | "read">;

async function connect(args: Args, io: McpCliIO): Promise<{ client: Client; skills: Skills }> {
  const stdio = args.flags.get("--mcp-stdio");
  const url = args.flags.get("--mcp-url");
  if ((stdio === undefined) === (url === undefined)) {
    throw new UsageError("give exactly one of --mcp-stdio and --mcp-url");
  }
  const origin = args.flags.get("--origin") ?? "mcp";
  if (!ORIGIN.test(origin)) {
    throw new UsageError(
      `--origin takes a short label of letters, digits, ".", "_" and "-", got ${
        JSON.stringify(origin)
      }`,
    );
  }
  let client: Client;
  if (stdio !== undefined) {
    const [command, ...commandArgs] = splitCommand(stdio);
    if (command === undefined) throw new UsageError("--mcp-stdio needs a command");
    // As over HTTP: ask for the 2026-07-28 revision (on a short-lived sibling process the SDK
    // spawns from the same command), and fall back to the 2025 handshake when the server does
    // not answer it, answers it with an error, or exits.
    client = new Client({ name: "skillset", version: "0.1.0" }, {
      versionNegotiation: { mode: "auto", probe: { timeoutMs: STDIO_PROBE_MS } },
    });
    // --quiet reaches the server's own logs: only its lines that speak of an error get through.
    const quiet = args.verbosity === "quiet", stderr = quiet ? "pipe" : "inherit";
    const transport = new StdioClientTransport({ command, args: commandArgs, stderr });
    if (quiet) errorsOnly(transport.stderr as NodeJS.ReadableStream | null, io);
    await client.connect(transport);
  } else {
    let endpoint: URL;
    try {
      endpoint = new URL(url!);
    } catch {
      throw new UsageError(`--mcp-url takes a URL, got "${url}"`);
    }
    // Over HTTP, ask for the 2026-07-28 revision and fall back to the 2025 handshake.
    client = new Client({ name: "skillset", version: "0.1.0" }, {
      versionNegotiation: { mode: "auto" },
    });
    await client.connect(new StreamableHTTPClientTransport(endpoint, { fetch: cappedFetch() }));
  }
  try {
    const options = {
      origin,
      // The SDK's stdio transport carries at most 10 MiB a message.
      ...(stdio === undefined ? {} : { maxMessageBytes: STDIO_MESSAGE_BYTES }),
    };
    const lockfile = args.flags.get("--lockfile");
    const approvals = args.flags.get("--approvals");
    if (lockfile === undefined && approvals === undefined) {
      const skills = await mcpSkillBundles(client, options);
      warn(skills, io);
      return { client, skills };
    }
    // Only the skills approved or locked as listed; each refused one named.
    const trusted = await trustedMcpSkills(client, {
      ...options,
      ...(lockfile === undefined ? {} : { lock: readLockfile(resolve(lockfile)) }),
      ...(approvals === undefined ? {} : { approvals: new JsonFileApprovalStore(approvals) }),
    });
    warn(trusted.all, io);
    for (const [name, s] of trusted.standings) {
      if (s.shown) continue;
      const why = s.lock === "not_locked"
        ? "not in the lockfile"
        : s.lock === "changed"
        ? "differs from its lockfile entry"
        : s.approval?.status === "changed_since_approval"
        ? "changed since it was approved"
        : "needs approval";
      io.stderr(`skillset: refused: ${esc(name)}: ${why}\n`);
    }
    return { client, skills: trusted };
  } catch (e) {
    await client.close();
    throw e;
  }
}

function warn(skills: McpSkills, io: McpCliIO): void {
  for (const w of skills.warnings) io.stderr(`${esc(w.uri)}: warning: ${esc(w.message)}\n`);
}

async function consume(
  command: string,
  args: Args,
  skills: Skills,
  io: McpCliIO,
): Promise<number> {
  const flags = safetyFlags(args.flags);
  if (command === "to-prompt") {
    const budget = count(args.flags, "--budget", 0);
    const { rank, usageLog } = rankOf(args.flags.get("--rank"), args.flags.get("--usage-log"));
    const entries = [...skills.bundles.values()].map((b) => ({
      name: b.name,
      description: b.frontmatter.description,
      location: b.uri,
    }));
    if (rank === "name") entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (budget !== undefined) {
      const fit = fitSkillCatalog(entries, {
        budget,
        ...(usageLog === undefined ? {} : { rank: usageLogRank(usageLog, io) }),
      });
      if (args.json) {
        const { listed, left_out, shortened } = fit;
        io.stdout(`${JSON.stringify({ skills: listed, left_out, shortened }, null, 2)}\n`);
      } else io.stdout(`${fit.block}\n`);
      return 0;
    }
    if (args.json) io.stdout(`${JSON.stringify(entries, null, 2)}\n`);
    else io.stdout(`${availableSkills(entries)}\n`);
    return 0;
  }
  const name = skillName(skills, args.positional[0]!);
  if (command === "activate") {
    // The server's own skills are the catalog its skills depend on; one the user has not
    // activated (a manual skill, `disable-model-invocation: true`) satisfies none (`skillAccess`).
    const bundle = skills.bundles.get(name);
    const dependencies = bundle === undefined
      ? undefined
      : contextDependencies(skills.bundles, bundle, (s) => mayBeDependency(s as ModedSkill, name));
    const activation = await skills.activate(name, {
      ...flags,
      ...(dependencies === undefined ? {} : { dependencies }),
    });
    io.stdout(
      `${
        args.json
          ? JSON.stringify(activation, null, 2)
          : escapeControlsKeepingLines(renderActivation(activation))
      }\n`,
    );
    return 0;
  }
  const offset = count(args.flags, "--offset", 0);
  const limit = count(args.flags, "--limit", 1);
  const page = await skills.read(name, args.positional[1]!, {
    ...flags,
    ...(offset === undefined ? {} : { offset }),
    ...(limit === undefined ? {} : { limit }),
  });
  io.stdout(
    `${
      args.json
        ? JSON.stringify(page, null, 2)
        : escapeControlsKeepingLines(renderResourceRead(page))
    }\n`,
  );
  return 0;
}

/** `origin:path` as given, or a bare skill path within the origin. */
function skillName(skills: Skills, given: string): string {
  if (skills.bundles.has(given)) return given;
  const within = `${skills.origin}:${given}`;
  if (skills.bundles.has(within)) return within;
  const near = nearest(given, skills.bundles.keys()) ??
    nearest(within, skills.bundles.keys());
  throw new McpSkillError(
    "UNKNOWN_SKILL",
    near === undefined
      ? `Unknown skill ${JSON.stringify(given)} (the server has: ${
        [...skills.bundles.keys()].join(", ") || "none"
      })`
      : `Unknown skill ${JSON.stringify(given)} (did you mean ${JSON.stringify(near)}?)`,
  );
}

function availableSkills(
  entries: readonly { name: string; description: string; location: string }[],
): string {
  const lines = ["<available_skills>"];
  for (const e of entries) {
    lines.push(
      "<skill>",
      `<name>${xml(esc(e.name))}</name>`,
      `<description>${xml(esc(e.description))}</description>`,
      `<location>${xml(esc(e.location))}</location>`,
      "</skill>",
    );
  }
  lines.push("</available_skills>");
  return lines.join("\n");
}

function xml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!,
  );
}

/**
 * Split a command line into words, like a shell without expansion: blanks
 * separate, single quotes keep everything, double quotes keep all but `\"`
 * and `\\`, a backslash outside quotes escapes the next character.
 *
 * @param line The command line.
 * @returns The words.
 * @throws {UsageError} For an unclosed quote.
 */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === " " || c === "\t" || c === "\n") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new UsageError(`unclosed ' in ${JSON.stringify(line)}`);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      word ??= "";
      for (i++;; i++) {
        if (i >= line.length) throw new UsageError(`unclosed " in ${JSON.stringify(line)}`);
        const d = line[i]!;
        if (d === '"') break;
        if (d === "\\" && (line[i + 1] === '"' || line[i + 1] === "\\")) word += line[++i];
        else word += d;
      }
    } else if (c === "\\" && i + 1 < line.length) {
      word = (word ?? "") + line[++i];
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}
