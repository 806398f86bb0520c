/**
 * The command line's table: each command's flags, usage line and help text,
 * and the tool's help. The commands run elsewhere (see `main.ts`); the
 * lifecycle, stats and script runner keep their flags beside their code.
 *
 * Folder `lib/cli/` — the command line behind `lib/cli.ts`: the command table, flags, output, config.
 *
 * @module
 */
import { RUN_REPEATED_FLAGS, RUN_SWITCHES, RUN_VALUE_FLAGS } from "./scripts/_run_flags.ts";
import { LIFECYCLE_COMMANDS } from "./lifecycle/_lifecycle_flags.ts";
import type { ArgSpec } from "./_args.ts";
import { CONFIG_NAME } from "./_config.ts";
import { STATS_COMMAND } from "./catalog/_stats.ts";
import { EVAL_COMMAND } from "./eval/_eval.ts";
import { PROFILE_FLAGS } from "./catalog/_profile.ts";

/** A command's flags, usage line and help text. */
export interface FlagSpec extends ArgSpec {
  readonly help: string;
}

// ---- Trust (issue 20): `lock`, `verify`, `approve`, `list --approvals`, in lib/cli/trust/_trust.ts ----

/** The help entries of the trust commands; they run in lib/cli/trust/_trust.ts (asynchronous: hashing). */
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
    values: ["--root", "--lockfile", "--signers", "--signer", "--signature", "--identity"],
    repeated: ["--root", "--signer"],
    switches: ["--frozen", "--allow-empty", "--allow-changed-signers"],
    positional: [0, 0],
    usage: "skillset verify [--root scope=path]... [--lockfile FILE] [--frozen] [--allow-empty] " +
      "[--signers FILE [--allow-changed-signers] | --signer KEY|SHA256:FP...] [--signature FILE] " +
      "[--identity PRINCIPAL] [--json]",
    help:
      "Recompute every discovered skill and compare with the lockfile: each added, removed or\n" +
      "changed skill, file and other entry. Exits 1 on any change; --frozen also fails on skills\n" +
      "not locked. Without --root, the lockfile's roots; roots other than those are an error.\n" +
      "--signers FILE (an ssh-keygen allowed_signers file) first checks the lockfile's signature\n" +
      "(--signature, default <lockfile>.sig; --identity: the signer's principal): exit 1 if missing,\n" +
      "invalid, or not by an allowed signer. --signer names a signer on the command line instead: an\n" +
      'allowed signers line ("ci@example.com ssh-ed25519 AAAA...") or a key\'s fingerprint (SHA256:...).\n' +
      "A signers file that the commit under check changes (it differs from HEAD~1, has uncommitted\n" +
      "changes, or there is no HEAD~1) is refused unless --allow-changed-signers. With signers, the\n" +
      "lockfile is the one --lockfile or the default names, never the config's.",
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
    switches: ["--all", "--allow-empty"],
    positional: [0, Infinity],
    usage: "skillset approve <name>... | --all [--root scope=path]... [--approvals FILE] [--json]",
    help: "Approve skills as they are now: record their digests in the approval file (default\n" +
      "skills.approvals.json). Any later change to a skill lapses its approval.",
  },
};

// ---- Scripts (issue 32): `run`, in lib/cli/scripts/_run.ts, loaded on demand ----

/** The help entry of `run`; it runs in lib/cli/scripts/_run.ts (asynchronous: a child process). */
export const RUN_COMMAND: FlagSpec = {
  values: [
    "--root",
    "--lockfile",
    "--approvals",
    "--class",
    "--global-safety",
    "--skill-safety",
    "--out",
    ...RUN_VALUE_FLAGS,
    ...PROFILE_FLAGS.values,
  ],
  repeated: ["--root", "--class", ...RUN_REPEATED_FLAGS, ...PROFILE_FLAGS.repeated],
  switches: [...RUN_SWITCHES],
  positional: [2, 2],
  usage: "skillset run <skill-dir> | --root scope=path <name> <scripts/path> [--lockfile FILE] " +
    "[--approvals FILE] [--cwd DIR | --out DIR] [--allow-unbounded LIMIT]... [--allow-net] [--allow-read PATH]... [--allow-write PATH]... " +
    "[--env NAME=VALUE]... [--timeout-ms N] [--max-output-chars N] [--sandbox auto|bubblewrap|deno] " +
    `${PROFILE_FLAGS.usage} [--json] [-- args...]`,
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
    "with the script's exit code (1 when a signal or the timeout ended it). --out DIR copies back\n" +
    "what it wrote in /work (files and folders, no links, at most --file-bytes). A limit given that\n" +
    "this machine cannot enforce refuses the run, unless --allow-unbounded memory|processes|cpu|\n" +
    "file-size accepts it. A <skill-dir> with a / is a folder even where a config gives roots.\n" +
    "--dangerously-run-unsandboxed runs it with your own rights. --profile NAME refuses a skill the\n" +
    "profile leaves out or disables (you asked to act under it); --paths never refuses a skill\n" +
    "you name.",
};

// ---- Lifecycle (issue 33): `add`, `outdated`, `update`, `remove`, in lib/cli/lifecycle/_lifecycle.ts ----
// Their help entries are in lib/cli/lifecycle/_lifecycle_flags.ts.

/** The commands that take `--lockfile FILE` and `--approvals FILE` to use only trusted skills. */
const TRUSTED = ["activate", "read", "to-prompt", "list", "search"];
const TRUST_HELP =
  "--lockfile FILE uses only skills that match their entry of the lockfile, --approvals FILE only\n" +
  "skills approved at their digest; each refused skill is named on stderr with why.";

/** Whether the command line is one of the trust commands, or takes a lockfile or approvals (run by lib/cli/trust/_trust.ts). */
export function isTrustCommand(argv: readonly string[]): boolean {
  return Object.hasOwn(TRUST_COMMANDS, argv[0] ?? "") ||
    (TRUSTED.includes(argv[0] ?? "") &&
      argv.some((a) => /^--(?:approvals|lockfile)(?:=|$)/.test(a)) &&
      !argv.some((a) => /^--mcp-(?:stdio|url)(?:=|$)/.test(a)));
}

// ---- MCP (issue 13): `serve`, and `--mcp-stdio`/`--mcp-url` sources, in lib/cli/mcp/_mcp.ts ----

/** The help entry of `serve`; the command itself runs in lib/cli/mcp/_mcp.ts, loaded on demand. */
const MCP_SERVE = {
  values: [],
  positional: [0, Infinity] as const,
  usage: "skillset serve <folder>... [--root scope=path]... " +
    "[--http 127.0.0.1:PORT [--allow-remote] [--token-file FILE | --token-env NAME]] " +
    "[--watch] [--prefix <p>] [--page-size N] [--tool-budget N] [--max-body-tokens N] [--usage-log FILE] " +
    "[--class NAME=references|assets|scripts]... [--global-safety true|false] [--skill-safety true|false] " +
    "[--lockfile FILE] [--approvals FILE] [--modes FILE] [--profile NAME [--profiles FILE]] " +
    "[--paths PATH]... [--ttl-ms N] [--cache-scope public|private] [--allow-empty] " +
    "[--allow-scripts [run's grant and limit flags]]",
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
    "--max-body-tokens N: the skill tool's activations show at most N tokens of a body (o200k_base\n" +
    "BPE) and point to the paged read of the rest; the published SKILL.md stays whole.\n" +
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

/** The help line of the commands that also take an MCP server as their source. */
const MCP_SOURCE_HELP =
  '\nFrom an MCP server instead of a folder: --mcp-stdio "<command>" or --mcp-url <url>,\n' +
  "with --origin <label> (default mcp) and a skill name (see: skillset help serve).";
const CLASS = "[--class NAME=references|assets|scripts]...";
const CLASS_HELP =
  "--class NAME=CLASS maps an extra top-level folder to a standard class for every skill (repeat\n" +
  "it for more); by default only references/, assets/ and scripts/ are standard.";
const PROFILE_HELP =
  '--profile NAME shows only that profile\'s skills ("profiles" in skillset.json, or --profiles\n' +
  "FILE); a profile that matches no skill is an error unless --allow-empty. --paths PATH\n" +
  "(repeated) names the files in play: a skill whose SKILL.md has paths globs is left out when\n" +
  "none matches (without --paths every skill is shown).";
const ROOTS_HELP =
  "A folder or root given that does not exist or holds no skill is an error (exit 1) unless\n" +
  "--allow-empty.";
const DISCOVERY_HELP =
  "A folder is scanned for skills (depth 6, 10,000 folders; dot-folders too, but not .git, .hg,\n" +
  ".svn or node_modules; skills inside skills are listed as nested); a project root's\n" +
  ".agents/skills and .claude/skills come first. A SKILL.md linked to another folder's SKILL.md\n" +
  "in the same root is that skill again. Each skill whose body points into a folder the safety\n" +
  "gate refuses gets a GATED_REFERENCE warning.";

export const COMMANDS: Readonly<Record<string, FlagSpec>> = {
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
    values: ["--class", "--global-safety", "--skill-safety", "--max-body-tokens"],
    repeated: ["--class"],
    switches: ["--collisions"],
    positional: [1, Infinity],
    usage:
      `skillset validate <path>... ${CLASS} ${SAFETY} [--max-body-tokens N] [--collisions] [--json]`,
    help: "Check catalogs and Agent Skill folders (or folders of them). Prints\n" +
      "file:line:col: error|warning: message. Exits 1 when there is an error. Every rule break of\n" +
      "a SKILL.md is reported, and its body is checked too. A file named on the command line is a\n" +
      "catalog; in a folder, only a .yaml/.yml/.json file that names skill.schema.json or whose\n" +
      "first name is a scope/name skill is read as one. A skill whose requires-skills or\n" +
      "requires-any-skills does not resolve among the skills read is reported (a cycle or a bad\n" +
      "value as an error, a missing skill as a warning). --max-body-tokens N: an error for each\n" +
      "skill whose SKILL.md body is over N tokens (o200k_base BPE); --collisions: a warning for\n" +
      "each pair of skills whose descriptions are likely to be confused.\n" + CLASS_HELP,
  },
  activate: {
    values: [
      "--root",
      "--global-safety",
      "--skill-safety",
      "--offset",
      "--max-entries",
      "--max-body-tokens",
      "--class",
      "--lockfile",
      "--approvals",
      "--usage-log",
      "--modes",
    ],
    repeated: ["--class", "--root"],
    positional: [1, 1],
    usage:
      `skillset activate <skill-dir> [--offset N] [--max-entries N] [--max-body-tokens N] [--root scope=path]... ${CLASS} ${SAFETY} [--lockfile FILE] [--approvals FILE] [--modes FILE] [--usage-log FILE] [--json]`,
    help:
      "Print a skill's instructions and the manifest of its bundled files, grouped by class.\n" +
      "Non-standard folders are listed only when both safety switches are false (each defaults to true).\n" +
      "At most --max-entries files per class are listed (default 500); --offset N lists from entry N.\n" +
      "--max-body-tokens N shows at most N tokens of the body (o200k_base BPE), cut at a line end when\n" +
      "one fits, and says which read of SKILL.md continues it.\n" +
      "--usage-log FILE appends the activation (trigger user) to the usage log (see: skillset help stats)." +
      "\nA skill whose metadata requires-skills (all) or requires-any-skills (one of) names other\n" +
      "skills lists its dependency closure, dependencies first; they are looked for under the --root\n" +
      "roots (or the config's), else beside the skill. One that is missing, or a cycle, is an error.\n" +
      "You name the skill, so a manual one is activated; --modes FILE refuses one it marks disabled." +
      MCP_SOURCE_HELP + "\n" + TRUST_HELP,
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
      "continued with --offset L+B (byte B of line L, as next_offset says)." + MCP_SOURCE_HELP +
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
      "--profile",
      "--profiles",
      "--paths",
    ],
    switches: ["--report", "--allow-empty"],
    repeated: ["--class", "--paths"],
    positional: [1, Infinity],
    usage:
      `skillset to-prompt <skill-dir>... [--allow-empty] [--budget N] [--rank position|name|usage [--usage-log FILE]] [--tools a,b,c] [--modes FILE] [--profile NAME [--profiles FILE]] [--paths PATH]... [--report] ${CLASS} ${SAFETY} [--lockfile FILE] [--approvals FILE] [--json]`,
    help:
      "Print the <available_skills> block for a system prompt. Each argument is a skill folder or\n" +
      "a folder scanned for them; an earlier argument wins a name clash.\n" + ROOTS_HELP + "\n" +
      DISCOVERY_HELP +
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
      '--profile NAME lists only that profile\'s skills ("profiles" in skillset.json, or --profiles\n' +
      "FILE): include and exclude globs over names (exclude wins), pinned globs, modes, extends; a\n" +
      "profile that matches no skill is an error unless --allow-empty. --paths PATH (repeated) names\n" +
      "the files in play: a skill whose SKILL.md has paths globs is listed only when one matches.\n" +
      CLASS_HELP + MCP_SOURCE_HELP +
      "\n" + TRUST_HELP,
  },
  list: {
    values: [
      "--root",
      "--class",
      "--global-safety",
      "--skill-safety",
      "--approvals",
      "--lockfile",
      ...PROFILE_FLAGS.values,
    ],
    repeated: ["--root", "--class", ...PROFILE_FLAGS.repeated],
    switches: ["--allow-empty"],
    positional: [0, Infinity],
    usage:
      `skillset list [folder]... [--root scope=path]... [--allow-empty] ${PROFILE_FLAGS.usage} ${CLASS} ${SAFETY} [--lockfile FILE] [--approvals FILE] [--json]`,
    help: "List the skills discovered under the roots, highest precedence first: scope, status\n" +
      "(loaded, shadowed or skipped), name, folder, and diagnostics. Each folder argument is a\n" +
      "root of its own scope (named by the folder), before the --root ones. Without either:\n" +
      "project .agents/skills, project .claude/skills, user ~/.agents/skills, user ~/.claude/skills.\n" +
      DISCOVERY_HELP + "\n" + ROOTS_HELP +
      " Each skill's errors are listed under it; its warnings\n" +
      "are counted on stderr (--verbose lists them, --quiet only errors).\n" + CLASS_HELP +
      "\n" + PROFILE_HELP + "\n" + TRUST_HELP,
  },
  search: {
    values: ["--root", "--limit", "--lang", "--lockfile", "--approvals", ...PROFILE_FLAGS.values],
    repeated: ["--root", ...PROFILE_FLAGS.repeated],
    switches: ["--allow-empty"],
    positional: [1, Infinity],
    usage:
      `skillset search <words>... [--root scope=path]... [--allow-empty] [--limit N] [--lang TAG] ${PROFILE_FLAGS.usage} [--lockfile FILE] [--approvals FILE] [--json]`,
    help:
      "Find skills by what they do: the discovered skills (roots as in list) ranked by BM25F over\n" +
      "name, description, headings and SKILL.md body, best first (a skill whose name is the query\n" +
      "comes first), each with the words that matched and where. --limit N results (default 10);\n" +
      "--lang TAG shows description-<TAG> metadata where a skill has it (a tag no skill has is an\n" +
      "error). Exits 1 when no skill matches.\n" + ROOTS_HELP + "\n" + PROFILE_HELP + "\n" +
      TRUST_HELP,
  },
  stats: STATS_COMMAND,
  eval: EVAL_COMMAND,
  serve: MCP_SERVE,
  ...TRUST_COMMANDS,
  run: RUN_COMMAND,
  ...LIFECYCLE_COMMANDS,
  config: {
    values: [],
    positional: [1, 1],
    usage: "skillset config approve|status",
    help:
      `approve: approve the nearest ${CONFIG_NAME} as it is now, on this machine: its digest is\n` +
      "recorded in your state folder ($SKILLSET_STATE_DIR, else $XDG_STATE_HOME/skillset, else\n" +
      "~/.local/state/skillset), and any change to the file lapses it. Until then, the keys that pick\n" +
      "what a verification checks or where skillset writes (lockfile, approvals, usage_log for\n" +
      "activate and serve, roots for lock and verify, allow_empty, classes, a safety switch set to\n" +
      "false; run's grants, paths, deno sandbox and limits above the defaults) are ignored, each\n" +
      "command saying which. status: whether it is approved.",
  },
  init: {
    values: [],
    switches: ["--force"],
    positional: [0, 0],
    usage: "skillset init [--force]",
    help: `Write ${CONFIG_NAME} for the project in this folder: its conventional roots\n` +
      "(.agents/skills, .claude/skills), and the safety switches, approved on this machine at once\n" +
      "(see: skillset help config). Every command run in the folder or\n" +
      "below reads the nearest one; flags override it. Keys: roots, classes, global_safety,\n" +
      "skill_safety, budget, rank, tool_budget, lockfile, approvals, modes, frozen, allow_empty,\n" +
      "diagnostics, usage_log, profiles, run (run's flags; schema: skillset.config.schema.json).",
  },
};

export const TOOL_HELP =
  `skillset — resolve skills' tool sets and gate access to their bundled files

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
