/**
 * The `skillset` command line: resolve, graph, validate, activate, read,
 * to-prompt, list, search. Runs under `npx tsx`, `deno run -A` and `bun`.
 *
 * Exit codes: 0 ok, 1 invalid input or refused access, 2 bad usage.
 *
 * @module
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { escapeControls as esc, escapeControlsKeepingLines } from "../core/_text.ts";
import { type ArgSpec, bool, classFlags, count, parseArgs, UsageError } from "./_args.ts";
import { VERSION } from "./_version.ts";
import { activateSkill, renderActivation } from "../core/activate.ts";
import { type Catalog, loadCatalog } from "../fs/catalog.ts";
import {
  AgentSkillError,
  ExecutionError,
  formatLocation,
  InvalidResourcePathError,
  ResourceNotFoundError,
  SkillDefinitionError,
  SkillResolutionError,
  withoutLocation,
} from "../core/errors.ts";
import { type IncludeGraph, includeGraph } from "../core/include_graph.ts";
import { MIN_PAGE_BYTES, readResource, renderResourceRead } from "../core/read.ts";
import { computeCapabilitySummary, type ResolvedToolEntry, resolveTools } from "../core/resolve.ts";
import { discoverSkills, type SkillRoot } from "../fs/discover.ts";
import type { Discovery, ShadowedSkill } from "../fs/discovery.ts";
import { formatSkillDiagnostic, type SkillDiagnostic } from "../fs/skill_diagnostic.ts";
import type { ResourceClassMap } from "../core/resource_path.ts";
import { fitSkillCatalog } from "../core/skill_catalog.ts";
import { createSkillIndex, searchSkills } from "../core/search/skill_index.ts";
import { type LoadedSkill, loadSkillFolder } from "../fs/skill_folder.ts";
import { type Diagnostic, formatDiagnostic, validatePaths } from "../fs/validate.ts";

// ---- Trust (issue 20): `lock`, `verify`, `approve`, `list --approvals`, in lib/cli/_trust.ts ----

/** The help entries of the trust commands; they run in lib/cli/_trust.ts (asynchronous: hashing). */
const TRUST_COMMANDS: Readonly<Record<string, FlagSpec>> = {
  lock: {
    values: ["--root", "--lockfile"],
    repeated: ["--root"],
    positional: [0, 0],
    usage: "skillset lock [--root scope=path]... [--lockfile FILE] [--json]",
    help: "Write the lockfile (default skills.lock.json): every discovered skill's name, scope,\n" +
      "folder (relative to the lockfile), skill digest and files with their sha256 digests.\n" +
      "Roots as for list.",
  },
  verify: {
    values: ["--root", "--lockfile"],
    repeated: ["--root"],
    switches: ["--frozen"],
    positional: [0, 0],
    usage: "skillset verify [--root scope=path]... [--lockfile FILE] [--frozen] [--json]",
    help:
      "Recompute every discovered skill and compare with the lockfile: each added, removed or\n" +
      "changed skill and file. Exits 1 on any change; --frozen also fails on skills not locked.",
  },
  approve: {
    values: ["--root", "--approvals"],
    repeated: ["--root"],
    switches: ["--all"],
    positional: [0, Infinity],
    usage: "skillset approve <name>... | --all [--root scope=path]... [--approvals FILE] [--json]",
    help: "Approve skills as they are now: record their digests in the approval file (default\n" +
      "skills.approvals.json). Any later change to a skill lapses its approval.",
  },
};

/** Whether the command line is one of the trust commands (run by lib/cli/_trust.ts). */
function isTrustCommand(argv: readonly string[]): boolean {
  return Object.hasOwn(TRUST_COMMANDS, argv[0] ?? "") ||
    (argv[0] === "list" && argv.some((a) => /^--approvals(?:=|$)/.test(a)));
}

// ---- MCP (issue 13): `serve`, and `--mcp-stdio`/`--mcp-url` sources, in lib/cli/_mcp.ts ----

/** The help entry of `serve`; the command itself runs in lib/cli/_mcp.ts, loaded on demand. */
const MCP_SERVE = {
  values: [],
  positional: [0, Infinity] as const,
  usage:
    "skillset serve <folder>... [--root scope=path]... [--http 127.0.0.1:PORT [--allow-remote]] " +
    "[--watch] [--prefix <p>] [--page-size N] [--tool-budget N] " +
    "[--class NAME=references|assets|scripts]... [--global-safety true|false] [--skill-safety true|false]",
  help:
    "Serve skills over MCP (SEP-2640 skills extension and the skill tool): stdio by default,\n" +
    "Streamable HTTP at http://HOST:PORT/mcp with --http (loopback only unless --allow-remote).\n" +
    "Skills are discovered as list and to-prompt find them: each folder (a skill, a skills folder\n" +
    "or a repository root, scanned to depth 6) and each --root scope=path, an earlier one winning a\n" +
    "name clash; rule breaks are warnings, and what cannot be served is named on stderr with why.\n" +
    "Exits 1 only when no skill at all can be served. --watch reloads skill by skill: a skill that\n" +
    "breaks keeps its last good version. Over stdio a file too big for one message (10 MiB) is not\n" +
    "published. HTTP bounds: --max-connections N (256), --max-subscriptions N (256),\n" +
    "--max-buffered-bytes N (33554432). Logs go to stderr.\n" +
    "--tool-budget N caps the skill tool's description at N characters (default 8000): skills that\n" +
    "do not fit are named only in its enum, and a skill_search tool is offered to find them.\n" +
    "--class NAME=CLASS maps an extra top-level folder to a standard class, as in list.\n\n" +
    'activate, read and to-prompt also take an MCP server as the source: --mcp-stdio "<command>"\n' +
    "or --mcp-url <url> (with --origin <label>, default mcp), and a skill name instead of a folder:\n" +
    '  skillset activate --mcp-stdio "skillset serve examples/skills" pdf\n' +
    "  skillset read --mcp-url http://127.0.0.1:3000/mcp pdf references/forms.md\n" +
    '  skillset to-prompt --mcp-stdio "skillset serve examples/skills"',
};

/**
 * Run the CLI, including the MCP commands (`serve`, `--mcp-stdio`,
 * `--mcp-url`), which are asynchronous and load the MCP SDK on demand.
 *
 * @param argv The arguments after the program name.
 * @param io Where to write.
 * @returns The exit code (for `serve`, once the server stops).
 * @throws Never: errors become a message on stderr and exit code 1 or 2.
 * @example
 * ```ts
 * import { assert } from "../core/_assert.ts";
 * import { mainAsync } from "./main.ts";
 *
 * const catalog = new URL("../../examples/catalog.yaml", import.meta.url).pathname;
 * let out = "";
 * const io = { stdout: (t: string) => (out += t), stderr: () => {}, color: false };
 * assert.equal(await mainAsync(["resolve", catalog, "local/pdf-tools"], io), 0);
 * assert.ok(out.includes("read_file"));
 * ```
 */
export async function mainAsync(
  argv: readonly string[],
  io: CliIO = processIO(),
): Promise<number> {
  if (isTrustCommand(argv) && !argv.includes("--help") && !argv.includes("-h")) {
    try {
      const { runTrustCli } = await import("./_trust.ts");
      return await runTrustCli(argv, io, COMMANDS[argv[0]!]!);
    } catch (e) {
      return failed(e, argv, io);
    }
  }
  const mcp = argv[0] === "serve" || argv.some((a) => /^--mcp-(?:stdio|url)(?:=|$)/.test(a));
  if (!mcp || argv.includes("--help") || argv.includes("-h")) return main(argv, io);
  try {
    const { runMcpCli } = await import("./_mcp.ts");
    return await runMcpCli(argv, io);
  } catch (e) {
    return failed(e, argv, io);
  }
}

/** A failed command on stderr: a usage error exits 2, any other failure 1. */
function failed(e: unknown, argv: readonly string[], io: CliIO): number {
  // By name: the MCP and trust halves are imported on demand, their UsageError is the same class.
  if ((e as Error)?.name === "UsageError") {
    io.stderr(`skillset: ${escapeControlsKeepingLines((e as Error).message)}\n`);
    return 2;
  }
  io.stderr(`${describeError(e, io, shownAsTyped(argv))}\n`);
  return 1;
}

/** Where the CLI writes, and whether it may colour its output. */
export interface CliIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Colour on: a TTY without `NO_COLOR`. */
  readonly color: boolean;
}

interface FlagSpec extends ArgSpec {
  readonly help: string;
}

const SAFETY = "[--global-safety true|false] [--skill-safety true|false]";
const CLASS = "[--class NAME=references|assets|scripts]...";
const CLASS_HELP =
  "--class NAME=CLASS maps an extra top-level folder to a standard class for every skill (repeat\n" +
  "it for more); by default only references/, assets/ and scripts/ are standard.";
const DISCOVERY_HELP =
  "A folder is scanned for skills (depth 6, 10,000 folders; dot-folders too, but not .git, .hg,\n" +
  ".svn or node_modules; skills inside skills are listed as nested); a project root's\n" +
  ".agents/skills and .claude/skills come first. A SKILL.md linked to another folder's SKILL.md\n" +
  "in the same root is that skill again. Each skill whose body points into a folder the safety\n" +
  "gate refuses gets a GATED_REFERENCE warning.";

const COMMANDS: Readonly<Record<string, FlagSpec>> = {
  resolve: {
    values: [],
    positional: [2, 2],
    usage: "skillset resolve <catalog> <skill> [--json]",
    help:
      "Resolve a skill's tool set: the entries table (name, kind, source skill, overrides) and the\n" +
      "capability summary. <catalog> is a YAML/JSON file or a folder of them.",
  },
  graph: {
    values: ["--format"],
    positional: [1, 2],
    usage: "skillset graph <catalog> [skill] [--format mermaid|dot] [--json]",
    help:
      "Print the include graph (of the whole catalog, or what [skill] reaches). Edges on a cycle are\n" +
      "marked; includes the catalog lacks appear as missing nodes.",
  },
  validate: {
    values: ["--class", "--global-safety", "--skill-safety"],
    repeated: ["--class"],
    positional: [1, Infinity],
    usage: `skillset validate <path>... ${CLASS} ${SAFETY} [--json]`,
    help: "Check catalogs and Agent Skill folders (or folders of them). Prints\n" +
      "file:line:col: error|warning: message. Exits 1 when there is an error. Every rule break of\n" +
      "a SKILL.md is reported, and its body is checked too. A file named on the command line is a\n" +
      "catalog; in a folder, only a .yaml/.yml/.json file that names skill.schema.json or whose\n" +
      "first name is a scope/name skill is read as one.\n" + CLASS_HELP,
  },
  activate: {
    values: ["--global-safety", "--skill-safety", "--offset", "--max-entries", "--class"],
    repeated: ["--class"],
    positional: [1, 1],
    usage:
      `skillset activate <skill-dir> [--offset N] [--max-entries N] ${CLASS} ${SAFETY} [--json]`,
    help:
      "Print a skill's instructions and the manifest of its bundled files, grouped by class.\n" +
      "Non-standard folders are listed only when both safety switches are false (each defaults to true).\n" +
      "At most --max-entries files per class are listed (default 500); --offset N lists from entry N.",
  },
  read: {
    values: [
      "--offset",
      "--limit",
      "--max-page-bytes",
      "--global-safety",
      "--skill-safety",
      "--class",
    ],
    repeated: ["--class"],
    positional: [2, 2],
    usage:
      `skillset read <skill-dir> <path> [--offset N|L+B] [--limit N] [--max-page-bytes N] ${CLASS} ${SAFETY} [--json]`,
    help: "Read one page of a bundled file in the [SKILL_RESOURCE_READ] envelope: text by lines\n" +
      "(default 2000), anything else as base64 by bytes (default 49152). Non-standard folders are\n" +
      "readable only when both safety switches are false (each defaults to true). No page holds\n" +
      "more than --max-page-bytes of content (default 262144); a longer line comes in pieces,\n" +
      "continued with --offset L+B (byte B of line L, as next_offset says).",
  },
  "to-prompt": {
    values: ["--budget", "--tools", "--class", "--global-safety", "--skill-safety"],
    repeated: ["--class"],
    positional: [1, Infinity],
    usage:
      `skillset to-prompt <skill-dir>... [--budget N] [--tools a,b,c] ${CLASS} ${SAFETY} [--json]`,
    help:
      "Print the <available_skills> block for a system prompt. Each argument is a skill folder or\n" +
      "a folder scanned for them; an earlier argument wins a name clash.\n" + DISCOVERY_HELP +
      "\n" +
      "--budget N fits the block into N characters (about 4 per token): descriptions are shortened\n" +
      "first, then skills from the end are left out, and a last line says how many. Rule breaks in a\n" +
      "SKILL.md are warnings on stderr; only a SKILL.md that cannot be parsed is skipped.\n" +
      "--tools a,b,c names the tools the runtime offers: a skill whose metadata requires-tools (all)\n" +
      "or requires-any-tools (one of) it cannot meet is left out, with a warning naming what it misses.\n" +
      CLASS_HELP,
  },
  list: {
    values: ["--root", "--class", "--global-safety", "--skill-safety", "--approvals"],
    repeated: ["--root", "--class"],
    positional: [0, Infinity],
    usage:
      `skillset list [folder]... [--root scope=path]... ${CLASS} ${SAFETY} [--approvals FILE] [--json]`,
    help: "List the skills discovered under the roots, highest precedence first: scope, status\n" +
      "(loaded, shadowed or skipped), name, folder, and diagnostics. Each folder argument is a\n" +
      "root of its own scope (named by the folder), before the --root ones. Without either:\n" +
      "project .agents/skills, project .claude/skills, user ~/.agents/skills, user ~/.claude/skills.\n" +
      DISCOVERY_HELP + "\n" + CLASS_HELP,
  },
  search: {
    values: ["--root", "--limit", "--lang"],
    repeated: ["--root"],
    positional: [1, Infinity],
    usage: "skillset search <words>... [--root scope=path]... [--limit N] [--lang TAG] [--json]",
    help:
      "Find skills by what they do: the discovered skills (roots as in list) ranked by BM25 over\n" +
      "name and description, best first (a skill whose name is the query comes first). --limit N\n" +
      "results (default 10); --lang TAG searches description-<TAG> metadata where a skill has it.\n" +
      "Exits 1 when no skill matches.",
  },
  serve: MCP_SERVE,
  ...TRUST_COMMANDS,
};

const TOOL_HELP = `skillset — resolve skills' tool sets and gate access to their bundled files

Usage: skillset <command> [arguments] [--json]

Commands:
${Object.values(COMMANDS).map((c) => `  ${c.usage}`).join("\n")}

Options:
  --json       machine-readable output
  --help, -h   help for the tool or a command
  --version    print the version

MCP: activate, read and to-prompt also take an MCP server as the source, with
--mcp-stdio "<command>" or --mcp-url <url> (see: skillset help serve).

Exit codes: 0 ok, 1 invalid input or refused access, 2 bad usage.`;

/**
 * Run the CLI's synchronous commands (everything but `serve` and the MCP
 * sources: use {@linkcode mainAsync} for those).
 *
 * @param argv The arguments after the program name.
 * @param io Where to write.
 * @returns The exit code: 0 ok, 1 invalid input or refused access, 2 bad usage.
 * @throws Never: errors become a message on stderr and exit code 1 or 2.
 * @example
 * ```ts
 * import { assert } from "../core/_assert.ts";
 * import { main } from "./main.ts";
 *
 * const catalog = new URL("../../examples/catalog.yaml", import.meta.url).pathname;
 * let err = "";
 * const io = { stdout: () => {}, stderr: (t: string) => (err += t), color: false };
 * assert.equal(main(["resolve", catalog, "local/nope"], io), 1);
 * assert.ok(err.includes("local/nope"));
 * ```
 */
export function main(argv: readonly string[], io: CliIO = processIO()): number {
  try {
    if (argv[0] === "serve" && !argv.includes("--help") && !argv.includes("-h")) {
      throw new UsageError("serve runs asynchronously: call mainAsync");
    }
    if (isTrustCommand(argv) && !argv.includes("--help") && !argv.includes("-h")) {
      throw new UsageError(
        `${argv[0]} ${argv[0] === "list" ? "--approvals " : ""}runs asynchronously: call mainAsync`,
      );
    }
    return run(argv, io);
  } catch (e) {
    return failed(e, argv, io);
  }
}

/**
 * How files are named in output: relative to the working folder when every
 * path argument was typed relative, as the absolute path otherwise.
 */
function shownAsTyped(argv: readonly string[]): (file: string) => string {
  const typedRelative = argv.slice(1).every((a) => a.startsWith("-") || !isAbsolute(a));
  return (file) => (typedRelative && isAbsolute(file) ? relative(".", file) || "." : file);
}

function run(argv: readonly string[], io: CliIO): number {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    const topic = command === "help" ? rest[0] : undefined;
    io.stdout(`${topic !== undefined && COMMANDS[topic] ? commandHelp(topic) : TOOL_HELP}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === "--version") {
    io.stdout(`${version()}\n`);
    return 0;
  }
  const spec = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (spec === undefined) {
    throw new UsageError(`unknown command "${esc(command)}" (try: skillset --help)`);
  }
  const args = parseArgs(command, spec, rest);
  if (args.help) {
    io.stdout(`${commandHelp(command)}\n`);
    return 0;
  }
  const [first = "", second = ""] = args.positional;
  switch (command) {
    case "resolve":
      return resolveCommand(first, second, args.json, io);
    case "graph":
      return graphCommand(
        first,
        args.positional[1],
        args.flags.get("--format") ?? "mermaid",
        args.json,
        io,
      );
    case "validate":
      return validateCommand(args.positional, discoveryFlags(args), args.json, io);
    case "activate":
      return activateCommand(first, args.flags, discoveryFlags(args), args.json, io);
    case "read":
      return readCommand(first, second, args.flags, discoveryFlags(args), args.json, io);
    case "list":
      return listCommand(
        args.positional,
        args.repeated.get("--root") ?? [],
        discoveryFlags(args),
        args.json,
        io,
      );
    case "search":
      return searchCommand(
        args.positional.join(" "),
        args.repeated.get("--root") ?? [],
        {
          limit: count(args.flags, "--limit", 1),
          lang: args.flags.get("--lang"),
        },
        args.json,
        io,
      );
    default:
      return toPromptCommand(
        args.positional,
        count(args.flags, "--budget", 0),
        discoveryFlags(args),
        args.json,
        io,
        toolList(args.flags.get("--tools")),
      );
  }
}

/** The class mapping and the switches, as `discoverSkills`, `loadSkillFolder` and `validatePaths` take them. */
export interface DiscoveryFlags {
  readonly resourceClasses: ResourceClassMap;
  readonly safety: { global_safety: boolean; skill_safety: boolean };
}

/**
 * The class mapping and switches of `--class`, `--global-safety` and `--skill-safety`.
 *
 * @param args The parsed flags.
 * @returns The discovery flags.
 * @throws {UsageError} For a bad `--class` or switch value.
 */
export function discoveryFlags(
  args: { flags: ReadonlyMap<string, string>; repeated: ReadonlyMap<string, readonly string[]> },
): DiscoveryFlags {
  return {
    resourceClasses: classFlags(args.repeated.get("--class") ?? []),
    safety: safety(args.flags),
  };
}

function commandHelp(command: string): string {
  const spec = COMMANDS[command]!;
  return `usage: ${spec.usage}\n\n${spec.help}`;
}

function safety(
  flags: ReadonlyMap<string, string>,
): { global_safety: boolean; skill_safety: boolean } {
  return {
    global_safety: bool(flags, "--global-safety"),
    skill_safety: bool(flags, "--skill-safety"),
  };
}

// ---- commands ----------------------------------------------------------------

function resolveCommand(catalogPath: string, name: string, json: boolean, io: CliIO): number {
  const catalog = loadCatalog(catalogPath);
  const skill = catalog.skills.get(name);
  if (skill === undefined) throw unknownSkill(name, catalog, catalogPath);
  const tools = resolveTools(skill, catalog.skills);
  const summary = computeCapabilitySummary(skill, tools);
  if (json) {
    io.stdout(`${JSON.stringify({ entries: [...tools.values()], summary }, null, 2)}\n`);
    return 0;
  }
  const rows = [...tools.values()].map((e, i) => [
    String(i + 1),
    esc(e.name),
    e.kind,
    esc(e.source_skill),
    esc(describeOverrides(e)),
  ]);
  const out = [
    bold(`${esc(name)}: ${tools.size} tool${tools.size === 1 ? "" : "s"}`, io),
    "",
    ...table([["#", "name", "kind", "source skill", "overrides"], ...rows]).map((l) => `  ${l}`),
    "",
    bold("Capabilities", io),
    ...table([
      ["total tools", String(summary.total_tools)],
      ["read-only tools", String(summary.read_only_tools)],
      ["write tools", String(summary.write_tools)],
      ["checkpointable tools", String(summary.checkpointable_tools)],
      ["side effects", summary.has_side_effects ? esc(summary.side_effects.join(", ")) : "none"],
      [
        "MCP tools",
        `${summary.mcp_tools} from ${summary.mcp_servers} server${
          summary.mcp_servers === 1 ? "" : "s"
        }`,
      ],
      ["Agent Skills", String(summary.agent_skills)],
    ]).map((l) => `  ${l}`),
  ];
  io.stdout(`${out.join("\n")}\n`);
  return 0;
}

function describeOverrides(entry: ResolvedToolEntry): string {
  return Object.keys(entry.overrides).length === 0 ? "-" : JSON.stringify(entry.overrides);
}

function graphCommand(
  catalogPath: string,
  root: string | undefined,
  format: string,
  json: boolean,
  io: CliIO,
): number {
  if (format !== "mermaid" && format !== "dot") {
    throw new UsageError(`--format takes mermaid or dot, got "${esc(format)}"`);
  }
  const catalog = loadCatalog(catalogPath);
  if (root !== undefined && !catalog.skills.has(root)) {
    throw unknownSkill(root, catalog, catalogPath);
  }
  const graph = includeGraph(catalog.skills, root);
  if (json) io.stdout(`${JSON.stringify(graph, null, 2)}\n`);
  else io.stdout(`${format === "dot" ? toDot(graph) : toMermaid(graph)}\n`);
  return 0;
}

function toMermaid(graph: IncludeGraph): string {
  const id = new Map(graph.nodes.map((n, i) => [n.name, `n${i}`]));
  const lines = ["flowchart TD"];
  for (const n of graph.nodes) {
    const label = n.missing ? `${n.name} (missing)` : n.name;
    lines.push(
      `  ${id.get(n.name)}["${label.replaceAll('"', "#quot;")}"]${n.missing ? ":::missing" : ""}`,
    );
  }
  for (const e of graph.edges) {
    lines.push(`  ${id.get(e.from)} ${e.cycle ? "-->|cycle|" : "-->"} ${id.get(e.to)}`);
  }
  const cycleEdges = graph.edges.flatMap((e, i) => (e.cycle ? [i] : []));
  if (cycleEdges.length > 0) {
    lines.push(`  linkStyle ${cycleEdges.join(",")} stroke:red,stroke-width:2px`);
  }
  if (graph.nodes.some((n) => n.missing)) {
    lines.push("  classDef missing stroke-dasharray: 5 5,color:#a00");
  }
  return lines.join("\n");
}

function toDot(graph: IncludeGraph): string {
  const q = (s: string) => JSON.stringify(s);
  const lines = ["digraph includes {", "  rankdir=TB;"];
  for (const n of graph.nodes) {
    lines.push(
      n.missing
        ? `  ${q(n.name)} [label=${q(`${n.name} (missing)`)}, style=dashed, color=red];`
        : `  ${q(n.name)};`,
    );
  }
  for (const e of graph.edges) {
    lines.push(`  ${q(e.from)} -> ${q(e.to)}${e.cycle ? ' [color=red, label="cycle"]' : ""};`);
  }
  lines.push("}");
  return lines.join("\n");
}

function validateCommand(
  paths: readonly string[],
  flags: DiscoveryFlags,
  json: boolean,
  io: CliIO,
): number {
  const diagnostics = validatePaths(paths, flags);
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const warnings = diagnostics.length - errors;
  if (json) {
    io.stdout(`${JSON.stringify({ diagnostics, errors, warnings }, null, 2)}\n`);
  } else {
    for (const d of diagnostics) io.stdout(`${colorDiagnostic(d, io)}\n`);
    io.stdout(
      `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${
        warnings === 1 ? "" : "s"
      }\n`,
    );
  }
  return errors > 0 ? 1 : 0;
}

function colorDiagnostic(d: Diagnostic, io: CliIO): string {
  const text = formatDiagnostic({ ...d, file: esc(d.file), message: esc(d.message) });
  if (!io.color) return text;
  const label = `${d.severity}:`;
  const colored = d.severity === "error" ? `\x1b[31m${label}\x1b[0m` : `\x1b[33m${label}\x1b[0m`;
  return text.replace(`: ${label} `, `: ${colored} `);
}

function activateCommand(
  dir: string,
  flags: ReadonlyMap<string, string>,
  load: DiscoveryFlags,
  json: boolean,
  io: CliIO,
): number {
  const offset = count(flags, "--offset", 0);
  const maxEntries = count(flags, "--max-entries", 1);
  const skill = loadSkillFolder(dir, { lenient: true, ...load });
  warnAbout(skill, io, dir);
  const activation = activateSkill(skill, {
    ...safety(flags),
    ...(offset === undefined ? {} : { offset }),
    ...(maxEntries === undefined ? {} : { max_entries: maxEntries }),
  });
  io.stdout(
    `${
      json
        ? JSON.stringify(activation, null, 2)
        : escapeControlsKeepingLines(renderActivation(activation))
    }\n`,
  );
  return 0;
}

function readCommand(
  dir: string,
  path: string,
  flags: ReadonlyMap<string, string>,
  load: DiscoveryFlags,
  json: boolean,
  io: CliIO,
): number {
  const lineByte = flags.get("--offset")?.match(/^\d+\+\d+$/)?.[0];
  const offset = lineByte ?? count(flags, "--offset", 0);
  const limit = count(flags, "--limit", 1);
  const maxPageBytes = count(flags, "--max-page-bytes", MIN_PAGE_BYTES);
  const skill = loadSkillFolder(dir, { lenient: true, ...load });
  printDiagnostics(skill.diagnostics, io, shownAsTyped(["", dir]));
  const page = readResource(skill, path, {
    ...safety(flags),
    ...(offset === undefined ? {} : { offset }),
    ...(limit === undefined ? {} : { limit }),
    ...(maxPageBytes === undefined ? {} : { max_page_bytes: maxPageBytes }),
  });
  io.stdout(
    `${
      json ? JSON.stringify(page, null, 2) : escapeControlsKeepingLines(renderResourceRead(page))
    }\n`,
  );
  return 0;
}

/** `--tools a,b,c` as names (commas and spaces separate; empty names dropped). */
function toolList(value: string | undefined): readonly string[] | undefined {
  return value === undefined ? undefined : value.split(/[\s,]+/).filter((t) => t !== "");
}

function toPromptCommand(
  paths: readonly string[],
  budget: number | undefined,
  load: DiscoveryFlags,
  json: boolean,
  io: CliIO,
  tools?: readonly string[],
): number {
  const discovery = discoverSkills(paths.map((path) => ({ scope: path, path })), {
    conventionalRoots: true,
    ...load,
    ...(tools === undefined ? {} : { availableTools: tools }),
  });
  // Named as typed: relative when every argument was.
  const shown = paths.every((p) => isAbsolute(p))
    ? (p: string) => p
    : (p: string) => isAbsolute(p) ? relative(".", p) || "." : p;
  // Each failure on its own line; the others are still listed, and the exit code is 1.
  const missing = discovery.diagnostics.filter((d) => d.code === "ROOT_NOT_FOUND");
  for (const d of missing) {
    io.stderr(`${visible(shown(d.path))}: error: Invalid SKILL.md: no such folder\n`);
  }
  reportDiscovery(discovery, io, shown);
  for (const h of discovery.unavailable) {
    const needs = [
      ...(h.missing.length > 0 ? [`needs ${h.missing.join(", ")}`] : []),
      ...(h.missing_any.length > 0 ? [`needs one of ${h.missing_any.join(", ")}`] : []),
      ...(h.problem === undefined ? [] : [h.problem]),
    ];
    io.stderr(
      `${visible(shown(h.skill.skill_md))}: warning: left out, the runtime lacks its tools: ${
        visible(needs.join("; "))
      }\n`,
    );
  }
  if (discovery.skills.length === 0 && discovery.unavailable.length === 0) {
    throw new AgentSkillError("", "no usable SKILL.md in the folder or its sub-folders", {
      file: resolve(paths[0]!),
    });
  }
  const fit = fitSkillCatalog(
    discovery.skills.map((s) => ({
      name: s.name,
      description: s.description,
      // Named as the argument was typed: relative for a relative path.
      location: isAbsolute(s.scope) ? s.skill_md : relative(".", s.skill_md),
    })),
    budget === undefined ? {} : { budget },
  );
  if (json) {
    const { listed, left_out, shortened } = fit;
    const unavailable = discovery.unavailable.map(({ name, missing, missing_any, problem }) => ({
      name,
      missing,
      missing_any,
      ...(problem === undefined ? {} : { problem }),
    }));
    io.stdout(
      `${
        JSON.stringify(
          { skills: listed, left_out, shortened, ...(tools === undefined ? {} : { unavailable }) },
          null,
          2,
        )
      }\n`,
    );
  } else {
    io.stdout(`${fit.block}\n`);
  }
  const denied = discovery.diagnostics.some((d) => d.severity === "error");
  return missing.length > 0 || denied || discovery.skipped.length > 0 ? 1 : 0;
}

/** Everything discovery noticed, to stderr: scan problems, rule breaks, skips, shadowing. */
function reportDiscovery(
  discovery: Discovery,
  io: CliIO,
  shown: (path: string) => string,
): void {
  const scan = discovery.diagnostics.filter((d) =>
    d.severity !== "info" && d.code !== "ROOT_NOT_FOUND"
  );
  printDiagnostics(scan, io, shown);
  for (const s of discovery.skills) printDiagnostics(s.diagnostics, io, shown);
  for (const s of discovery.skipped) printDiagnostics(s.diagnostics, io, shown);
  for (const s of discovery.shadowed) {
    const message = `skill ${JSON.stringify(s.name)} is shadowed by ${
      JSON.stringify(s.winner.path)
    } (scope ${JSON.stringify(s.winner.scope)}); not listed`;
    io.stderr(`${visible(shown(s.skill_md))}: warning: ${visible(message)}\n`);
  }
}

function printDiagnostics(
  diagnostics: readonly SkillDiagnostic[],
  io: CliIO,
  shown: (path: string) => string = (p) => p,
): void {
  for (const d of diagnostics) io.stderr(`${describeDiagnostic({ ...d, path: shown(d.path) })}\n`);
}

/** A diagnostic on one line, with control and bidi characters made visible. */
function describeDiagnostic(d: SkillDiagnostic): string {
  return visible(formatSkillDiagnostic(d));
}

/** The conventional roots, highest precedence first. */
function defaultRoots(): SkillRoot[] {
  const home = homedir();
  return [
    { scope: "project", path: resolve(".agents", "skills") },
    { scope: "project", path: resolve(".claude", "skills") },
    { scope: "user", path: join(home, ".agents", "skills") },
    { scope: "user", path: join(home, ".claude", "skills") },
  ];
}

/** A `--root scope=path` flag as a root. */
function rootOf(flag: string): SkillRoot {
  const eq = flag.indexOf("=");
  if (eq <= 0 || eq === flag.length - 1) {
    throw new UsageError(`--root takes scope=path, got "${flag}"`);
  }
  return { scope: flag.slice(0, eq), path: flag.slice(eq + 1) };
}

function searchCommand(
  query: string,
  rootFlags: readonly string[],
  options: { limit: number | undefined; lang: string | undefined },
  json: boolean,
  io: CliIO,
): number {
  const roots = rootFlags.length === 0 ? defaultRoots() : rootFlags.map(rootOf);
  if (options.lang !== undefined && !/^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/.test(options.lang)) {
    throw new UsageError(`--lang takes a BCP 47 language tag, got "${esc(options.lang)}"`);
  }
  // As in list: the default roots are the conventional folders themselves.
  const discovery = discoverSkills(roots, { conventionalRoots: rootFlags.length > 0 });
  const bySkill = new Map(discovery.skills.map((s) => [s.name, s]));
  const index = createSkillIndex(
    discovery.skills.map((s) => ({
      name: s.name,
      description: s.description,
      ...(s.frontmatter.metadata === undefined ? {} : { metadata: s.frontmatter.metadata }),
    })),
    options.lang === undefined ? {} : { lang: options.lang },
  );
  const results = searchSkills(index, query, { limit: options.limit ?? 10 }).map((r) => {
    const s = bySkill.get(r.name)!;
    return { ...r, scope: s.scope, path: s.path };
  });
  if (discovery.skipped.length > 0) {
    io.stderr(
      `skillset: ${discovery.skipped.length} skill folder${
        discovery.skipped.length === 1 ? " was" : "s were"
      } skipped (see: skillset list)\n`,
    );
  }
  if (json) {
    io.stdout(`${JSON.stringify({ query, skills: discovery.skills.length, results }, null, 2)}\n`);
  } else if (results.length > 0) {
    const lines = results.map((r, i) =>
      `${i + 1}. ${bold(visible(r.name), io)} (${r.score.toFixed(2)}, ${visible(r.scope)})\n   ${
        visible(r.description)
      }`
    );
    io.stdout(`${lines.join("\n")}\n`);
  }
  if (results.length === 0) {
    io.stderr(
      `skillset: no skill matches ${
        JSON.stringify(visible(query))
      } among ${discovery.skills.length} skills\n`,
    );
    return 1;
  }
  return 0;
}

/**
 * The roots of `list` (and the trust commands) and what discovery finds under them: each folder
 * argument a root of its own scope, then the `--root scope=path` ones; without either, the
 * conventional roots.
 *
 * @param folders The folder arguments.
 * @param rootFlags The values of `--root`.
 * @param load The class mapping and switches.
 * @returns The roots and the discovery.
 * @throws {UsageError} When a `--root` value is not `scope=path`.
 */
export function listDiscovery(
  folders: readonly string[],
  rootFlags: readonly string[],
  load: DiscoveryFlags,
): { roots: SkillRoot[]; discovery: Discovery } {
  const given = [
    ...folders.map((path) => ({ scope: path, path })),
    ...rootFlags.map(rootOf),
  ];
  const roots = given.length === 0 ? defaultRoots() : given;
  // The default roots are the conventional folders themselves.
  const discovery = discoverSkills(roots, { conventionalRoots: given.length > 0, ...load });
  return { roots, discovery };
}

/**
 * `list`; with `trust` (from `list --approvals FILE`), the discovery already made and each loaded
 * skill's approval as a column (`approved`, `needs approval`, `changed since approval`).
 *
 * @param folders The folder arguments.
 * @param rootFlags The values of `--root`.
 * @param load The class mapping and switches.
 * @param json Whether to print JSON.
 * @param io Where to write.
 * @param trust The roots and discovery already made, and each loaded skill's approval by folder.
 * @returns The exit code.
 */
export function listCommand(
  folders: readonly string[],
  rootFlags: readonly string[],
  load: DiscoveryFlags,
  json: boolean,
  io: CliIO,
  trust?: {
    readonly roots: readonly SkillRoot[];
    readonly discovery: Discovery;
    readonly approvals: ReadonlyMap<
      string,
      { readonly approval: string; readonly changes: readonly unknown[] }
    >;
  },
): number {
  const { roots, discovery } = trust ?? listDiscovery(folders, rootFlags, load);
  const approvalOf = (path: string) => trust?.approvals.get(path);
  const rows = [
    ...discovery.skills.map((s) => ({ status: "loaded", ...s, ...approvalOf(s.path) })),
    ...discovery.shadowed.map((s) => ({ status: "shadowed", ...s })),
    ...discovery.skipped.map((s) => ({ status: "skipped", name: null, ...s })),
  ];
  if (json) {
    const skills = rows.map((r) => {
      const { frontmatter: _, ...rest } = r as typeof r & { frontmatter?: unknown };
      return rest;
    });
    io.stdout(
      `${
        JSON.stringify(
          {
            roots: roots.map((r) => ({ scope: r.scope, path: resolve(r.path) })),
            skills,
            conflicts: discovery.conflicts,
            diagnostics: discovery.diagnostics,
          },
          null,
          2,
        )
      }\n`,
    );
    return denied(discovery) ? 1 : 0;
  }
  const approvalColumn = (r: object): string[] =>
    trust === undefined
      ? []
      : [((r as { approval?: string }).approval ?? "-").replaceAll("_", " ")];
  const lines = [
    ...table([
      ["scope", "status", ...(trust === undefined ? [] : ["approval"]), "name", "path"],
      ...rows.map((r) =>
        [r.scope, r.status, ...approvalColumn(r), r.name ?? "-", r.path].map(visible)
      ),
    ]),
  ];
  for (const r of rows) {
    if (r.status === "shadowed") {
      const { winner } = r as unknown as ShadowedSkill;
      lines.push(
        `  ${visible(r.path)}: shadowed by ${visible(winner.path)} (scope ${
          visible(winner.scope)
        })`,
      );
    }
    for (const d of r.diagnostics) lines.push(`  ${describeDiagnostic(d)}`);
  }
  for (const d of discovery.diagnostics) lines.push(`  ${describeDiagnostic(d)}`);
  const n = (count: number, what: string) => `${count} ${what}`;
  lines.push(
    "",
    `${n(discovery.skills.length, "loaded")}, ${n(discovery.shadowed.length, "shadowed")}, ${
      n(discovery.skipped.length, "skipped")
    } (roots: ${roots.map((r) => `${r.scope}=${resolve(r.path)}`).map(visible).join(", ")})`,
  );
  io.stdout(`${lines.join("\n")}\n`);
  return denied(discovery) ? 1 : 0;
}

/** Whether a root could not be read for lack of permission (an error, not an empty scope). */
function denied(discovery: Discovery): boolean {
  return discovery.diagnostics.some((d) =>
    d.code === "PERMISSION_DENIED" && d.severity === "error"
  );
}

/** Control, bidi and line-separator characters as `\u{…}`, so a name cannot rewrite the terminal. */
function visible(text: string): string {
  return text.replace(
    // deno-lint-ignore no-control-regex
    /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`,
  );
}

// ---- output helpers ---------------------------------------------------------

function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, [...cell].length)));
  }
  return rows.map((row) =>
    row.map((
      cell,
      i,
    ) => (i === row.length - 1 ? cell : cell + " ".repeat(widths[i]! - [...cell].length))).join(
      "  ",
    )
  );
}

function bold(text: string, io: CliIO): string {
  return io.color ? `\x1b[1m${text}\x1b[0m` : text;
}

function warnAbout(skill: LoadedSkill, io: CliIO, typed: string): void {
  const shown = shownAsTyped(["", typed]);
  printDiagnostics(skill.diagnostics, io, shown);
  for (const w of skill.warnings) {
    io.stderr(`${esc(shown(join(skill.location, w.path)))}: warning: ${esc(w.message)}\n`);
  }
}

function unknownSkill(name: string, catalog: Catalog, typed: string): SkillResolutionError {
  return new SkillResolutionError(
    "UNKNOWN_SKILL",
    `Unknown skill "${name}" in catalog ${typed} (it has: ${
      [...catalog.skills.keys()].join(", ")
    })`,
    [name],
  );
}

/** Errors of this module and of the file system, reported without a stack trace. */
function isExpected(e: unknown): boolean {
  return e instanceof Error && typeof (e as { code?: unknown }).code === "string";
}

/**
 * The error as one clear line: `file:line:col: error: message` when it has a
 * place, else `skillset: error: message` (or `<subject>: error: message`);
 * files named as typed, control characters escaped.
 */
function describeError(
  e: unknown,
  io: CliIO,
  shown: (file: string) => string,
  subject = "skillset",
): string {
  const label = `${esc(subject)}: ${io.color ? "\x1b[31merror:\x1b[0m" : "error:"}`;
  if (e instanceof SkillDefinitionError || e instanceof AgentSkillError) {
    if (e.location === undefined) return `${label} ${esc(e.message)}`;
    const location = { ...e.location, file: esc(shown(e.location.file)) };
    const error = io.color ? "\x1b[31merror:\x1b[0m" : "error:";
    return `${formatLocation(location)}: ${error} ${esc(withoutLocation(e.message, e.location))}`;
  }
  if (
    e instanceof SkillResolutionError || e instanceof ExecutionError ||
    e instanceof InvalidResourcePathError || e instanceof ResourceNotFoundError ||
    e instanceof RangeError
  ) {
    return `${label} ${esc(e.message)}`;
  }
  if (isExpected(e)) return `${label} ${esc((e as Error).message)}`;
  return `${label} internal error: ${esc(e instanceof Error ? e.message : String(e))}`;
}

function version(): string {
  return `skillset ${VERSION}`;
}

function processIO(): CliIO {
  const env = process.env;
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    color: process.stdout.isTTY === true &&
      (env["NO_COLOR"] === undefined || env["NO_COLOR"] === ""),
  };
}

function isMain(entry: string): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(entry));
  } catch {
    return false;
  }
}

/**
 * Run the CLI on this process's arguments if `entry` is the program being run
 * (the `import.meta.url` of `lib/cli.ts`, or of the bundle built from it).
 *
 * @param entry The URL of the module that calls this.
 * @returns Whether it ran (and then the exit code goes to `process.exitCode`).
 * @throws Never.
 * @example Imported, not run
 * ```ts
 * import { assert } from "../core/_assert.ts";
 * import { runIfMain } from "./main.ts";
 *
 * assert.equal(runIfMain("file:///not/the/program.ts"), false);
 * ```
 */
export function runIfMain(entry: string): boolean {
  if (!isMain(entry)) return false;
  mainAsync(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
    // The MCP commands may leave handles (a child process, a socket) behind once done.
    if (process.argv[2] === "serve" || process.argv.some((a) => a.startsWith("--mcp-"))) {
      process.exit(code);
    }
  });
  return true;
}
