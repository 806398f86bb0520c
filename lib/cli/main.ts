/**
 * The `skillset` command line: the dispatch of each command (its flags and
 * help are in `_commands.ts`) to the file that runs it — `resolve` and
 * `graph` in `_resolve.ts`;
 * `validate`, `activate` and `read` in `_skill.ts`; `list`, `search` and
 * `to-prompt` in `_list.ts`; the trust commands in `_trust.ts`, the MCP
 * ones in `_mcp.ts`, `run` in `_run.ts` and the lifecycle (`add`,
 * `outdated`, `update`, `remove`) in `_lifecycle.ts`, loaded on demand.
 * Runs under `npx tsx`, `deno run -A` and `bun`.
 *
 * Exit codes: 0 ok, 1 invalid input or refused access, 2 bad usage.
 *
 * Folder `lib/cli/` — the command line behind `lib/cli.ts`: the command table, flags, output, config.
 *
 * @module
 */
import { COMMANDS, isTrustCommand, RUN_COMMAND, TOOL_HELP } from "./_commands.ts";
import { LIFECYCLE_COMMANDS } from "./lifecycle/_lifecycle_flags.ts";
import { realpathSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { escapeControls as esc } from "../core/_text.ts";
import { type ArgSpec, count, parseArgs, toolList, UsageError } from "./_args.ts";
import { discoveryFlags } from "./_discovery.ts";
import { failed } from "./_errors.ts";
import { type CliIO, processIO } from "./_io.ts";
import { listCommand, rankOf, searchCommand, toPromptCommand } from "./catalog/_list.ts";
import { findConfig, initCommand, readConfig, withConfig } from "./_config.ts";
import { approveConfig, configCommand, honouredConfig } from "./_config_trust.ts";
import { didYouMean } from "./_suggest.ts";
import { graphCommand, resolveCommand } from "./catalog/_resolve.ts";
import { activateCommand, readCommand, validateCommand } from "./catalog/_skill.ts";
import { runStats } from "./catalog/_stats.ts";
import { runEval } from "./eval/_eval.ts";
import { profileFlags } from "./catalog/_profile.ts";
import { modesFlag } from "./catalog/_modes.ts";
import { VERSION } from "./_version.ts";
import { endQuietlyOnClosedStdout } from "./_closed_stdout.ts";

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
  let mcpCli: typeof import("./mcp/_mcp.ts") | undefined;
  try {
    if (mcp && !argv.includes("--help") && !argv.includes("-h")) {
      mcpCli = await import("./mcp/_mcp.ts");
      argv = configured(argv, mcpCli.mcpArgSpec(argv[0]!), io);
    } else {
      argv = configured(argv, COMMANDS[argv[0] ?? ""], io);
    }
  } catch (e) {
    return failed(e, argv, io);
  }
  if (isTrustCommand(argv) && !argv.includes("--help") && !argv.includes("-h")) {
    try {
      const { runTrustCli } = await import("./trust/_trust.ts");
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
      const { runLifecycleCli } = await import("./lifecycle/_lifecycle.ts");
      return await runLifecycleCli(argv, io, LIFECYCLE_COMMANDS[argv[0]!]!);
    } catch (e) {
      return failed(e, argv, io);
    }
  }
  // `run`'s own flags end at `--`; what follows is the script's.
  const own = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  if (argv[0] === "run" && !own.includes("--help") && !own.includes("-h")) {
    try {
      const { runRunCli } = await import("./scripts/_run.ts");
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
    if (config) argv = configured(argv, COMMANDS[argv[0] ?? ""], io);
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
      // A file written here, by the user, is approved at once.
      return initCommand(
        args.switches.has("--force"),
        io,
        (path, digest) => approveConfig(path, digest),
      );
    case "config":
      return configCommand(first, io);
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
      return validateCommand(args.positional, discoveryFlags(args), args.json, io, verbosity, {
        maxBodyTokens: count(args.flags, "--max-body-tokens", 0),
        collisions: args.switches.has("--collisions"),
      });
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
        undefined,
        {
          allowEmpty: args.switches.has("--allow-empty"),
          verbosity,
          profiles: profileFlags(args.flags, args.repeated, args.switches),
        },
      );
    case "stats":
      return runStats(args, io);
    case "eval":
      return runEval(args, io);
    case "search":
      return searchCommand(
        args.positional.join(" "),
        args.repeated.get("--root") ?? [],
        {
          limit: count(args.flags, "--limit", 1),
          lang: args.flags.get("--lang"),
          allowEmpty: args.switches.has("--allow-empty"),
          profiles: profileFlags(args.flags, args.repeated, args.switches),
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
          profiles: profileFlags(args.flags, args.repeated, args.switches),
          allowEmpty: args.switches.has("--allow-empty"),
        },
      );
  }
}

/**
 * The command line with the nearest `skillset.json`'s defaults put in, for a
 * command that runs (not for help, the version, `init` or `config`): only
 * the keys honoured for it (`docs/security.md#config-keys`); the keys left
 * out that the command would have taken are named once on stderr.
 */
function configured(
  argv: readonly string[],
  spec: ArgSpec | undefined,
  io: Pick<CliIO, "stderr">,
): readonly string[] {
  const command = argv[0];
  if (
    spec === undefined || command === "init" || command === "help" || command === "config" ||
    argv.includes("--help") || argv.includes("-h")
  ) return argv;
  const path = findConfig();
  if (path === undefined) return argv;
  const decision = honouredConfig(readConfig(path), argv);
  const given = new Set(argv.map((a) => a.slice(0, (a + "=").indexOf("="))));
  const missed = decision.ignored.filter((key) => {
    const flag = decision.config.keys.get(key)!.flag;
    const takes = spec.values.includes(flag) || spec.switches?.includes(flag) === true ||
      (key === "roots" && spec.positional[1] === Infinity);
    return takes && !given.has(flag);
  });
  if (missed.length > 0) {
    const keys = missed.map((k) => `"${k}"`).join(", ");
    io.stderr(
      decision.approved
        ? `skillset: note: ${
          esc(path)
        }: ${keys} ignored: verify --signers checks the lockfile the command line names\n`
        : `skillset: note: ${esc(path)} is not approved on this machine, so ${keys} ${
          missed.length === 1 ? "is" : "are"
        } ignored; to honour ${
          missed.length === 1 ? "it" : "them"
        }, review the file and run \`skillset config approve\`, or give the flag\n`,
    );
  }
  return withConfig(argv, spec, decision.config);
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
  endQuietlyOnClosedStdout();
  mainAsync(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
    // The MCP commands may leave handles (a child process, a socket) behind once done.
    if (process.argv[2] === "serve" || process.argv.some((a) => a.startsWith("--mcp-"))) {
      process.exit(code);
    }
  });
  return true;
}
