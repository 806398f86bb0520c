/**
 * The `skillset` command line: its help text and the dispatch of each command
 * to the file that runs it — `resolve` and `graph` in `_resolve.ts`;
 * `validate`, `activate` and `read` in `_skill.ts`; `list`, `search` and
 * `to-prompt` in `_list.ts`; the trust commands in `_trust.ts`, the MCP
 * ones in `_mcp.ts`, `run` in `_run.ts` and the lifecycle (`add`,
 * `outdated`, `update`, `remove`) in `_lifecycle.ts`, loaded on demand.
 * Runs under `npx tsx`, `deno run -A` and `bun`.
 *
 * Exit codes: 0 ok, 1 invalid input or refused access, 2 bad usage.
 *
 * @module
 */
import { RUN_REPEATED_FLAGS, RUN_SWITCHES, RUN_VALUE_FLAGS } from "./_run_flags.ts";
import { LIFECYCLE_COMMANDS } from "./_lifecycle_flags.ts";
import { realpathSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { escapeControls as esc } from "../core/_text.ts";
import { type ArgSpec, count, parseArgs, toolList, UsageError } from "./_args.ts";
import { discoveryFlags } from "./_discovery.ts";
import { failed } from "./_errors.ts";
import { type CliIO, processIO } from "./_io.ts";
import { listCommand, rankOf, searchCommand, toPromptCommand } from "./_list.ts";
import { CONFIG_NAME, findConfig, initCommand, readConfig, withConfig } from "./_config.ts";
import { didYouMean } from "./_suggest.ts";
import { graphCommand, resolveCommand } from "./_resolve.ts";
import { activateCommand, readCommand, validateCommand } from "./_skill.ts";
import { runStats, STATS_COMMAND } from "./_stats.ts";
import { modesFlag } from "./_modes.ts";
import { VERSION } from "./_version.ts";

/** A command's flags, usage line and help text. */
interface FlagSpec extends ArgSpec {
  readonly help: string;
}

// ---- Trust (issue 20): `lock`, `verify`, `approve`, `list --approvals`, in lib/cli/_trust.ts ----

/** The help entries of the trust commands; they run in lib/cli/_trust.ts (asynchronous: hashing). */
const TRUST_COMMANDS: Readonly<Record<string, FlagSpec>> = {
  lock: {
    values: ["--root", "--lockfile"],
    repeated: ["--root"],
    switches: ["--allow-empty"],
    positional: [0, 0],
    usage: "skillset lock [--root scope=path]... [--lockfile FILE] [--allow-empty] [--json]",
    help: "Write the lockfile (default skills.lock.json): every discovered skill's name, scope,\n" +
      "folder (relative to the lockfile), skill digest and files with their sha256 digests, and\n" +
      "every other entry of its folder (links, pipes, devices, files no reader serves) by kind.\n" +
      "Roots as for list, recorded in the lockfile; a root that does not exist or holds no skill\n" +
      "is an error unless --allow-empty.",
  },
  verify: {
    values: ["--root", "--lockfile", "--signers", "--signature", "--identity"],
    repeated: ["--root"],
    switches: ["--frozen", "--allow-empty"],
    positional: [0, 0],
    usage: "skillset verify [--root scope=path]... [--lockfile FILE] [--frozen] [--allow-empty] " +
      "[--signers FILE [--signature FILE] [--identity PRINCIPAL]] [--json]",
    help:
      "Recompute every discovered skill and compare with the lockfile: each added, removed or\n" +
      "changed skill, file and other entry. Exits 1 on any change; --frozen also fails on skills\n" +
      "not locked. Without --root, the lockfile's roots; roots other than those are an error.\n" +
      "--signers FILE (an ssh-keygen allowed_signers file) first checks the lockfile's signature\n" +
      "(--signature, default <lockfile>.sig; --identity: the signer's principal): exit 1 if missing,\n" +
      "invalid, or not by an allowed signer.",
  },
  sign: {
    values: ["--lockfile", "--key", "--signature"],
    positional: [0, 0],
    usage: "skillset sign [--lockfile FILE] --key FILE [--signature FILE] [--json]",
    help: "Sign the lockfile with an unencrypted ssh-keygen -t ed25519 key: an SSH signature\n" +
      "(namespace skillset-lock) written to <lockfile>.sig, or --signature FILE; ssh-keygen -Y\n" +
      "verify checks it as verify --signers does.",
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

// ---- Scripts (issue 32): `run`, in lib/cli/_run.ts, loaded on demand ----

/** The help entry of `run`; it runs in lib/cli/_run.ts (asynchronous: a child process). */
const RUN_COMMAND: FlagSpec = {
  values: [
    "--root",
    "--lockfile",
    "--approvals",
    "--class",
    "--global-safety",
    "--skill-safety",
    ...RUN_VALUE_FLAGS,
  ],
  repeated: ["--root", "--class", ...RUN_REPEATED_FLAGS],
  switches: [...RUN_SWITCHES],
  positional: [2, 2],
  usage: "skillset run <skill-dir> | --root scope=path <name> <scripts/path> [--lockfile FILE] " +
    "[--approvals FILE] [--cwd DIR] [--allow-net] [--allow-read PATH]... [--allow-write PATH]... " +
    "[--env NAME=VALUE]... [--timeout-ms N] [--max-output-chars N] [--sandbox auto|bubblewrap|deno] " +
    "[--json] [-- args...]",
  help:
    "Run one of a skill's scripts in a sandbox (bubblewrap; Deno's permissions for JS/TS where\n" +
    "it is missing; refused elsewhere): the skill read-only at /skill, a fresh working folder at\n" +
    "/work (or --cwd, writable), no network, no home folder, a fixed environment, limits on CPU\n" +
    "(--cpu-seconds 30), memory (--memory-bytes 2 GiB), processes (--processes 64), file size\n" +
    "(--file-bytes 64 MiB) and time (--timeout-ms 30000, the whole process tree killed); stdout\n" +
    "and stderr each capped (--max-output-chars 30000, the rest counted). Only a file the safety\n" +
    "gate shows runs; with --lockfile or --approvals only a skill matching them, its script's bytes\n" +
    "checked and run from the same buffer. The interpreter comes from the #! line or the extension\n" +
    "(.py python3, .sh bash, .js/.mjs/.cjs/.ts/.mts the current runtime). --allow-net, --allow-read,\n" +
    "--allow-write and --env grant more, and the last line on stderr says what was granted. Exits\n" +
    "with the script's exit code (1 when a signal or the timeout ended it).\n" +
    "--dangerously-run-unsandboxed runs it with your own rights.",
};

// ---- Lifecycle (issue 33): `add`, `outdated`, `update`, `remove`, in lib/cli/_lifecycle.ts ----
// Their help entries are in lib/cli/_lifecycle_flags.ts.

/** The commands that take `--lockfile FILE` and `--approvals FILE` to use only trusted skills. */
const TRUSTED = ["activate", "read", "to-prompt", "list", "search"];
const TRUST_HELP =
  "--lockfile FILE uses only skills that match their entry of the lockfile, --approvals FILE only\n" +
  "skills approved at their digest; each refused skill is named on stderr with why.";

/** Whether the command line is one of the trust commands, or takes a lockfile or approvals (run by lib/cli/_trust.ts). */
function isTrustCommand(argv: readonly string[]): boolean {
  return Object.hasOwn(TRUST_COMMANDS, argv[0] ?? "") ||
    (TRUSTED.includes(argv[0] ?? "") &&
      argv.some((a) => /^--(?:approvals|lockfile)(?:=|$)/.test(a)) &&
      !argv.some((a) => /^--mcp-(?:stdio|url)(?:=|$)/.test(a)));
}

// ---- MCP (issue 13): `serve`, and `--mcp-stdio`/`--mcp-url` sources, in lib/cli/_mcp.ts ----

/** The help entry of `serve`; the command itself runs in lib/cli/_mcp.ts, loaded on demand. */
const MCP_SERVE = {
  values: [],
  positional: [0, Infinity] as const,
  usage:
    "skillset serve <folder>... [--root scope=path]... [--http 127.0.0.1:PORT [--allow-remote]] " +
    "[--watch] [--prefix <p>] [--page-size N] [--tool-budget N] [--usage-log FILE] " +
    "[--class NAME=references|assets|scripts]... [--global-safety true|false] [--skill-safety true|false] " +
    "[--modes FILE] [--allow-scripts [run's grant and limit flags]]",
  help:
    "Serve skills over MCP (SEP-2640 skills extension and the skill tool): stdio by default,\n" +
    "Streamable HTTP at http://HOST:PORT/mcp with --http (loopback only unless --allow-remote).\n" +
    "Skills are discovered as list and to-prompt find them: each folder (a skill, a skills folder\n" +
    "or a repository root, scanned to depth 6) and each --root scope=path, an earlier one winning a\n" +
    "name clash; rule breaks are warnings, and what cannot be served is named on stderr with why.\n" +
    "Exits 1 only when no skill at all can be served. --watch reloads skill by skill: a skill that\n" +
    "breaks keeps its last good version. Over stdio a file too big for one message (10 MiB) is not\n" +
    "published. HTTP bounds: --max-connections N (256), --max-subscriptions N (64, at most half\n" +
    "the connections; the oldest stream of the address holding the most is closed first),\n" +
    "--max-buffered-bytes N (33554432). Logs go to stderr.\n" +
    "--tool-budget N caps the skill tool's definition as sent at N characters (default 8000): skills\n" +
    "that do not fit are not described, its skill name is then a plain string (no enum), and a\n" +
    "skill_search tool is offered to find them. --modes FILE: manual skills are not offered to the\n" +
    "model, disabled ones not served (see to-prompt).\n" +
    "--class NAME=CLASS maps an extra top-level folder to a standard class, as in list.\n" +
    "--usage-log FILE appends each activation the model makes (see: skillset help stats).\n" +
    "--allow-scripts offers a run_skill_script tool that runs a served skill's script in the\n" +
    "sandbox of run, with run's grant and limit flags (--allow-net, --cwd, --timeout-ms, ...), and\n" +
    "activations list the runnable scripts; without it nothing served is ever run.\n\n" +
    'activate, read and to-prompt also take an MCP server as the source: --mcp-stdio "<command>"\n' +
    "or --mcp-url <url> (with --origin <label>, default mcp), and a skill name instead of a folder:\n" +
    '  skillset activate --mcp-stdio "skillset serve examples/skills" pdf\n' +
    "  skillset read --mcp-url http://127.0.0.1:3000/mcp pdf references/forms.md\n" +
    '  skillset to-prompt --mcp-stdio "skillset serve examples/skills"',
};

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
      "first name is a scope/name skill is read as one. A skill whose requires-skills or\n" +
      "requires-any-skills does not resolve among the skills read is reported (a cycle or a bad\n" +
      "value as an error, a missing skill as a warning).\n" + CLASS_HELP,
  },
  activate: {
    values: [
      "--root",
      "--global-safety",
      "--skill-safety",
      "--offset",
      "--max-entries",
      "--class",
      "--lockfile",
      "--approvals",
      "--usage-log",
      "--modes",
    ],
    repeated: ["--class", "--root"],
    positional: [1, 1],
    usage:
      `skillset activate <skill-dir> [--offset N] [--max-entries N] [--root scope=path]... ${CLASS} ${SAFETY} [--lockfile FILE] [--approvals FILE] [--modes FILE] [--usage-log FILE] [--json]`,
    help:
      "Print a skill's instructions and the manifest of its bundled files, grouped by class.\n" +
      "Non-standard folders are listed only when both safety switches are false (each defaults to true).\n" +
      "At most --max-entries files per class are listed (default 500); --offset N lists from entry N.\n" +
      "--usage-log FILE appends the activation (trigger user) to the usage log (see: skillset help stats)." +
      "\nA skill whose metadata requires-skills (all) or requires-any-skills (one of) names other\n" +
      "skills lists its dependency closure, dependencies first; they are looked for under the --root\n" +
      "roots (or the config's), else beside the skill. One that is missing, or a cycle, is an error.\n" +
      "You name the skill, so a manual one is activated; --modes FILE refuses one it marks disabled." +
      "\n" + TRUST_HELP,
  },
  read: {
    values: [
      "--offset",
      "--limit",
      "--max-page-bytes",
      "--global-safety",
      "--skill-safety",
      "--class",
      "--lockfile",
      "--approvals",
    ],
    repeated: ["--class"],
    positional: [2, 2],
    usage:
      `skillset read <skill-dir> <path> [--offset N|L+B] [--limit N] [--max-page-bytes N] ${CLASS} ${SAFETY} [--lockfile FILE] [--approvals FILE] [--json]`,
    help: "Read one page of a bundled file in the [SKILL_RESOURCE_READ] envelope: text by lines\n" +
      "(default 2000), anything else as base64 by bytes (default 49152). Non-standard folders are\n" +
      "readable only when both safety switches are false (each defaults to true). No page holds\n" +
      "more than --max-page-bytes of content (default 262144); a longer line comes in pieces,\n" +
      "continued with --offset L+B (byte B of line L, as next_offset says)." +
      "\n" + TRUST_HELP,
  },
  "to-prompt": {
    values: [
      "--budget",
      "--rank",
      "--tools",
      "--class",
      "--global-safety",
      "--skill-safety",
      "--lockfile",
      "--approvals",
      "--usage-log",
      "--modes",
    ],
    switches: ["--report"],
    repeated: ["--class"],
    positional: [1, Infinity],
    usage:
      `skillset to-prompt <skill-dir>... [--budget N] [--rank position|name|usage [--usage-log FILE]] [--tools a,b,c] [--modes FILE] [--report] ${CLASS} ${SAFETY} [--lockfile FILE] [--approvals FILE] [--json]`,
    help:
      "Print the <available_skills> block for a system prompt. Each argument is a skill folder or\n" +
      "a folder scanned for them; an earlier argument wins a name clash.\n" + DISCOVERY_HELP +
      "\n" +
      "--budget N fits the block into N characters (about 4 per token): descriptions are shortened\n" +
      "first, then skills from the end are left out, and a last line says how many. --rank orders\n" +
      "the skills first: position (as found, earlier arguments first; the default) or name; usage\n" +
      "keeps the skills most used lately (the --usage-log FILE's activations, half-life 14 days) and\n" +
      "shortens or leaves out the least used first, never-used skills in position order.\n" +
      "Rule breaks in a SKILL.md are counted in one line on stderr (--verbose prints each); only a\n" +
      "SKILL.md that cannot be parsed is skipped.\n" +
      "--tools a,b,c names the tools the runtime offers: a skill whose metadata requires-tools (all)\n" +
      "or requires-any-tools (one of) it cannot meet is left out, with a warning naming what it misses.\n" +
      '--modes FILE sets each skill\'s mode ({ "modes": { "pdf": "pinned" } }): auto (the default),\n' +
      "pinned (first, whole), name-only, manual (not listed; disable-model-invocation: true in a\n" +
      "SKILL.md means it too) or disabled. --report prints on stderr each skill not shown in full\n" +
      "(shortened, name-only or dropped), why and the characters saved; --json always has it.\n" +
      CLASS_HELP +
      "\n" + TRUST_HELP,
  },
  list: {
    values: ["--root", "--class", "--global-safety", "--skill-safety", "--approvals", "--lockfile"],
    repeated: ["--root", "--class"],
    positional: [0, Infinity],
    usage:
      `skillset list [folder]... [--root scope=path]... ${CLASS} ${SAFETY} [--lockfile FILE] [--approvals FILE] [--json]`,
    help: "List the skills discovered under the roots, highest precedence first: scope, status\n" +
      "(loaded, shadowed or skipped), name, folder, and diagnostics. Each folder argument is a\n" +
      "root of its own scope (named by the folder), before the --root ones. Without either:\n" +
      "project .agents/skills, project .claude/skills, user ~/.agents/skills, user ~/.claude/skills.\n" +
      DISCOVERY_HELP + "\n" + CLASS_HELP +
      "\n" + TRUST_HELP,
  },
  search: {
    values: ["--root", "--limit", "--lang", "--lockfile", "--approvals"],
    repeated: ["--root"],
    positional: [1, Infinity],
    usage:
      "skillset search <words>... [--root scope=path]... [--limit N] [--lang TAG] [--lockfile FILE] [--approvals FILE] [--json]",
    help:
      "Find skills by what they do: the discovered skills (roots as in list) ranked by BM25F over\n" +
      "name, description, headings and SKILL.md body, best first (a skill whose name is the query\n" +
      "comes first), each with the words that matched and where. --limit N results (default 10);\n" +
      "--lang TAG shows description-<TAG> metadata where a skill has it. Exits 1 when no skill\n" +
      "matches.\n" + TRUST_HELP,
  },
  stats: STATS_COMMAND,
  serve: MCP_SERVE,
  ...TRUST_COMMANDS,
  run: RUN_COMMAND,
  ...LIFECYCLE_COMMANDS,
  init: {
    values: [],
    switches: ["--force"],
    positional: [0, 0],
    usage: "skillset init [--force]",
    help: `Write ${CONFIG_NAME} for the project in this folder: its conventional roots\n` +
      "(.agents/skills, .claude/skills), and the safety switches. Every command run in the folder or\n" +
      "below reads the nearest one; flags override it. Keys: roots, classes, global_safety,\n" +
      "skill_safety, budget, rank, tool_budget, lockfile, approvals, modes, frozen, allow_empty,\n" +
      "diagnostics, usage_log (schema: skillset.config.schema.json).",
  },
};

const TOOL_HELP = `skillset — resolve skills' tool sets and gate access to their bundled files

Usage: skillset <command> [arguments] [--json]

Commands:
${Object.values(COMMANDS).map((c) => `  ${c.usage}`).join("\n")}

Options:
  --json       machine-readable output
  --quiet, -q  errors only; --verbose prints every finding, information too
  --help, -h   help for the tool or a command
  --version    print the version

Config: the nearest ${CONFIG_NAME} at or above the working folder gives every command its
defaults (skillset init writes one); flags override it.

MCP: activate, read and to-prompt also take an MCP server as the source, with
--mcp-stdio "<command>" or --mcp-url <url> (see: skillset help serve).

Exit codes: 0 ok, 1 invalid input or refused access, 2 bad usage.`;

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
  const mcp = argv[0] === "serve" || argv.some((a) => /^--mcp-(?:stdio|url)(?:=|$)/.test(a));
  let mcpCli: typeof import("./_mcp.ts") | undefined;
  try {
    if (mcp && !argv.includes("--help") && !argv.includes("-h")) {
      mcpCli = await import("./_mcp.ts");
      argv = configured(argv, mcpCli.mcpArgSpec(argv[0]!));
    } else {
      argv = configured(argv, COMMANDS[argv[0] ?? ""]);
    }
  } catch (e) {
    return failed(e, argv, io);
  }
  if (isTrustCommand(argv) && !argv.includes("--help") && !argv.includes("-h")) {
    try {
      const { runTrustCli } = await import("./_trust.ts");
      return await runTrustCli(argv, io, COMMANDS[argv[0]!]!);
    } catch (e) {
      return failed(e, argv, io);
    }
  }
  if (
    Object.hasOwn(LIFECYCLE_COMMANDS, argv[0] ?? "") && !argv.includes("--help") &&
    !argv.includes("-h")
  ) {
    try {
      const { runLifecycleCli } = await import("./_lifecycle.ts");
      return await runLifecycleCli(argv, io, LIFECYCLE_COMMANDS[argv[0]!]!);
    } catch (e) {
      return failed(e, argv, io);
    }
  }
  // `run`'s own flags end at `--`; what follows is the script's.
  const own = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  if (argv[0] === "run" && !own.includes("--help") && !own.includes("-h")) {
    try {
      const { runRunCli } = await import("./_run.ts");
      return await runRunCli(argv, io, RUN_COMMAND);
    } catch (e) {
      return failed(e, argv, io);
    }
  }
  if (mcpCli === undefined) return main(argv, io, false);
  try {
    return await mcpCli.runMcpCli(argv, io);
  } catch (e) {
    return failed(e, argv, io);
  }
}

/**
 * Run the CLI's synchronous commands (everything but `serve` and the MCP
 * sources: use {@linkcode mainAsync} for those).
 *
 * @param argv The arguments after the program name.
 * @param io Where to write.
 * @param config Whether the nearest `skillset.json` gives defaults (`mainAsync` has applied it).
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
export function main(
  argv: readonly string[],
  io: CliIO = processIO(),
  config = true,
): number {
  try {
    if (config) argv = configured(argv, COMMANDS[argv[0] ?? ""]);
    if (argv[0] === "serve" && !argv.includes("--help") && !argv.includes("-h")) {
      throw new UsageError("serve runs asynchronously: call mainAsync");
    }
    if (
      (argv[0] === "run" || Object.hasOwn(LIFECYCLE_COMMANDS, argv[0] ?? "")) &&
      !argv.includes("--help") && !argv.includes("-h")
    ) {
      throw new UsageError(`${argv[0]} runs asynchronously: call mainAsync`);
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
    const near = didYouMean(command, Object.keys(COMMANDS));
    throw new UsageError(
      `unknown command "${esc(command)}"${near === "" ? " (try: skillset --help)" : near}`,
    );
  }
  const args = parseArgs(command, spec, rest);
  if (args.help) {
    io.stdout(`${commandHelp(command)}\n`);
    return 0;
  }
  const [first = "", second = ""] = args.positional;
  const { verbosity } = args;
  switch (command) {
    case "init":
      return initCommand(args.switches.has("--force"), io);
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
      return validateCommand(args.positional, discoveryFlags(args), args.json, io, verbosity);
    case "activate":
      return activateCommand(
        first,
        args.flags,
        discoveryFlags(args),
        args.json,
        io,
        verbosity,
        undefined,
        args.repeated.get("--root") ?? [],
      );
    case "read":
      return readCommand(
        first,
        second,
        args.flags,
        discoveryFlags(args),
        args.json,
        io,
        verbosity,
      );
    case "list":
      return listCommand(
        args.positional,
        args.repeated.get("--root") ?? [],
        discoveryFlags(args),
        args.json,
        io,
      );
    case "stats":
      return runStats(args, io);
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
        {
          ...rankOf(args.flags.get("--rank"), args.flags.get("--usage-log")),
          verbosity,
          modes: modesFlag(args.flags.get("--modes")),
          report: args.switches.has("--report"),
        },
      );
  }
}

/**
 * The command line with the nearest `skillset.json`'s defaults put in, for a
 * command that runs (not for help, the version or `init`).
 */
function configured(argv: readonly string[], spec: ArgSpec | undefined): readonly string[] {
  const command = argv[0];
  if (
    spec === undefined || command === "init" || command === "help" ||
    argv.includes("--help") || argv.includes("-h")
  ) return argv;
  const path = findConfig();
  return path === undefined ? argv : withConfig(argv, spec, readConfig(path));
}

function commandHelp(command: string): string {
  const spec = COMMANDS[command]!;
  return `usage: ${spec.usage}\n\n${spec.help}`;
}

function version(): string {
  return `skillset ${VERSION}`;
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
