/**
 * `skillset serve`: discovers the skills under its folders and roots and
 * serves them over stdio or Streamable HTTP, with the flags that shape what
 * is served (safety, classes, prefix, pages, budget, modes, lock, approvals,
 * cache hints, scripts). `_mcp.ts` parses the arguments and calls it.
 *
 * Folder `lib/cli/mcp/` — the MCP commands: serve, and reading skills from MCP servers.
 *
 * @module
 */
import process from "node:process";
import { resolve } from "node:path";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { escapeControls as esc } from "../../core/_text.ts";
import { type Args, classFlags, count, safetyFlags, UsageError } from "../_args.ts";
import { reportDiscovery, rootOf } from "../_discovery.ts";
import type { CliIO } from "../_io.ts";
import { Report } from "../_report.ts";
import { rootsHoldSkills } from "../_roots.ts";
import { assertModesNameSkills, modesFlag } from "../catalog/_modes.ts";
import { profileFlags } from "../catalog/_profile.ts";
import { assertLogOutside, usageLogOption } from "../catalog/_stats.ts";
import { runOptions } from "../scripts/_run.ts";
import { RUN_SWITCHES, RUN_VALUE_FLAGS } from "../scripts/_run_flags.ts";
import type { RunScriptOptions } from "../../fs/scripts/run_script.ts";
import { discoverSkills, type SkillRoot } from "../../fs/discovery/discover.ts";
import type { Discovery } from "../../fs/discovery/discovery.ts";
import { JsonFileApprovalStore } from "../../fs/trust/trust_files.ts";
import { isLoopbackHost, listenHttp } from "../../mcp/_http.ts";
import { tokenFlag } from "./_token.ts";
import { serveSkills } from "../../mcp/_serve.ts";
import { bodyTokens } from "../eval/_budgets.ts";
import { type CacheHint, MAX_TTL_MS, STDIO_MESSAGE_BYTES } from "../../mcp/_serve_options.ts";
import { watchSkills } from "../../mcp/_watch.ts";

/** Where the MCP commands write: the CLI's IO, whose colour they do not use. */
type McpCliIO = Omit<CliIO, "color">;

/**
 * Run `skillset serve`: over stdio until stdin closes, or over HTTP until SIGINT/SIGTERM.
 *
 * @param args The parsed arguments.
 * @param io Where to write (logs go to stderr only).
 * @returns The exit code.
 * @throws {UsageError} For bad usage.
 */
export async function serve(args: Args, io: McpCliIO): Promise<number> {
  const http = args.flags.get("--http");
  const address = http === undefined ? undefined : hostPort(http);
  if (
    address !== undefined && !args.switches.has("--allow-remote") && !isLoopbackHost(address.host)
  ) {
    throw new UsageError(
      `refused to serve on "${address.host}": not a loopback address (add --allow-remote to serve beyond this machine)`,
    );
  }
  const bearerToken = tokenFlag(args, address !== undefined);
  const roots = serveRoots(args);
  const pageSize = count(args.flags, "--page-size", 1);
  const toolBudget = count(args.flags, "--tool-budget", 0);
  const maxBodyTokens = count(args.flags, "--max-body-tokens", 1);
  const modes = modesFlag(args.flags.get("--modes"));
  const chosen = profileFlags(args.flags, args.repeated, args.switches);
  const prefix = args.flags.get("--prefix");
  const cacheHint = cacheHintFlags(args);
  const bounds = {
    maxConnections: count(args.flags, "--max-connections", 1),
    maxSubscriptions: count(args.flags, "--max-subscriptions", 1),
    maxBufferedBytes: count(args.flags, "--max-buffered-bytes", 1),
  };
  const log = (text: string) => io.stderr(`skillset serve: ${text}\n`);
  const resourceClasses = classFlags(args.repeated.get("--class") ?? []);
  const safety = safetyFlags(args.flags);
  // No silent empties: a root that does not exist or holds no skill is an error.
  const allowEmpty = args.switches.has("--allow-empty");
  const found = discoverSkills(roots, { conventionalRoots: true, resourceClasses, safety });
  if (!rootsHoldSkills(roots, found, true, allowEmpty, io)) return 1;
  assertModesNameSkills(modes, found);
  const usageLog = args.flags.get("--usage-log");
  if (usageLog !== undefined) assertLogOutside(usageLog, found.skills.map((s) => s.real_path));
  const lockfile = args.flags.get("--lockfile");
  const approvalsFile = args.flags.get("--approvals");
  let first = true;
  const discover = (): Discovery => {
    // A folder argument that is a project root is scanned with its client folders, as in list.
    const discovery = discoverSkills(roots, { conventionalRoots: true, resourceClasses, safety });
    // What discovery noticed is printed once; a reload reports only what changes.
    if (first) {
      const report = new Report(io, args.verbosity);
      for (const d of discovery.diagnostics) {
        if (d.code === "ROOT_NOT_FOUND") {
          report.note(`skillset serve: error: ${esc(d.path)}: no such folder`, "error");
        }
      }
      reportDiscovery(discovery, io, {
        verb: "served",
        prefix: "skillset serve: ",
        escape: esc,
        namesSkipped: true,
        report,
      });
      report.summary("skillset serve", "skillset validate or --verbose shows each");
    }
    first = false;
    return discovery;
  };
  const served = await serveSkills(discover, {
    ...safety,
    resourceClasses,
    // The SDK's "no skills found" names no root; the line below names them.
    onWarning: (w) =>
      w.path === "." && w.message.startsWith("no skills found")
        ? undefined
        : log(`warning: ${esc(w.path)}: ${esc(w.message)}`),
    ...(pageSize === undefined ? {} : { pageSize }),
    ...(prefix === undefined ? {} : { prefix }),
    // The SDK's stdio transport refuses a message over 10 MiB: such files are not published.
    ...(address === undefined ? { maxMessageBytes: STDIO_MESSAGE_BYTES } : {}),
    ...(toolBudget === undefined ? {} : { toolBudget }),
    ...(maxBodyTokens === undefined ? {} : { maxBodyTokens, countTokens: bodyTokens }),
    ...usageLogOption(args.flags.get("--usage-log"), log),
    ...(modes === undefined ? {} : { modes }),
    ...(chosen.profile === undefined ? {} : { profile: chosen.profile }),
    ...(chosen.paths === undefined ? {} : { paths: chosen.paths }),
    ...(cacheHint === undefined ? {} : { cacheHint }),
    ...scriptsOption(args, log),
    // Each refused skill is a warning naming it and why (`not served`).
    ...(lockfile === undefined ? {} : { lock: resolve(lockfile) }),
    ...(approvalsFile === undefined ? {} : { approvals: new JsonFileApprovalStore(approvalsFile) }),
  });
  const watching = args.switches.has("--watch");
  if (served.skills.size === 0 && !watching && !allowEmpty) {
    log(
      `error: no skill can be served from ${
        esc(roots.map((r) => r.path).join(", "))
      } (a skill is a folder containing SKILL.md; the warnings above say why each was refused)`,
    );
    return 1;
  }
  // A count; the names too when they are few or asked for (134 names make an 11 KB line).
  if (args.verbosity !== "quiet") {
    const names = [...served.skills.keys()];
    log(
      `serving ${names.length} skill${names.length === 1 ? "" : "s"}${
        names.length <= NAMES_SHOWN || args.verbosity === "verbose"
          ? `: ${esc(names.join(", "))}`
          : " (--verbose names them)"
      }`,
    );
  }
  const hooks: { notifyHttp?: () => void } = {};
  const watcher = watching
    ? watchSkills(served, roots.map((r) => r.path), {
      onReload: (changes) => {
        log(
          `reloaded: ${changes.added.length} added, ${changes.removed.length} removed, ` +
            `${changes.changed.length} changed`,
        );
        hooks.notifyHttp?.();
      },
      onError: (e) =>
        log(
          `warning: reload failed, still serving the previous skills: ${
            esc(e instanceof Error ? e.message : String(e))
          }`,
        ),
    })
    : undefined;
  if (address === undefined) {
    const handle = serveStdio(() => served.createServer(), {
      onerror: (e) => log(`error: ${esc(e.message)}`),
    });
    await new Promise<void>((done) => {
      process.stdin.once("end", done);
      process.stdin.once("close", done);
    });
    watcher?.close();
    await handle.close();
    return 0;
  }
  const listener = await listenHttp(() => served.createServer(), {
    host: address.host,
    port: address.port,
    allowRemote: args.switches.has("--allow-remote"),
    ...(bearerToken === undefined ? {} : { bearerToken }),
    onError: (e) => log(`error: ${esc(e.message)}`),
    ...Object.fromEntries(Object.entries(bounds).filter(([, v]) => v !== undefined)),
  });
  hooks.notifyHttp = () => listener.notifyResourcesChanged();
  log(`listening on ${listener.url}`);
  await new Promise<void>((done) => {
    process.once("SIGINT", done);
    process.once("SIGTERM", done);
  });
  watcher?.close();
  await listener.close();
  return 0;
}

/** `--ttl-ms` and `--cache-scope` as the `cacheHint` option, or `undefined` when neither is given. */
function cacheHintFlags(args: Args): CacheHint | undefined {
  const ttlMs = count(args.flags, "--ttl-ms", 0);
  const scope = args.flags.get("--cache-scope");
  if (scope !== undefined && scope !== "public" && scope !== "private") {
    throw new UsageError(`--cache-scope takes public or private, got ${JSON.stringify(scope)}`);
  }
  if (ttlMs !== undefined && ttlMs > MAX_TTL_MS) {
    throw new UsageError(`--ttl-ms takes at most ${MAX_TTL_MS} (24 hours), got ${ttlMs}`);
  }
  if (ttlMs === undefined && scope === undefined) return undefined;
  return {
    ...(ttlMs === undefined ? {} : { ttlMs }),
    ...(scope === undefined ? {} : { cacheScope: scope }),
  };
}

/** `--allow-scripts` and run's grant and limit flags as the `scripts` option; those flags alone are a usage error. */
function scriptsOption(args: Args, log: (line: string) => void): { scripts?: RunScriptOptions } {
  if (args.switches.has("--allow-scripts")) {
    const scripts = runOptions(args);
    if (scripts.dangerouslyRunUnsandboxed === true) {
      log(
        "WARNING: run_skill_script runs scripts without a sandbox " +
          "(--dangerously-run-unsandboxed): a script can read and write whatever this server can",
      );
    }
    return { scripts };
  }
  const given = [...RUN_VALUE_FLAGS, ...RUN_SWITCHES].find((f) =>
    args.flags.has(f) || args.switches.has(f)
  );
  if (given !== undefined) throw new UsageError(`serve: ${given} needs --allow-scripts`);
  return {};
}

/** The roots `serve` discovers skills under: each folder argument (its own scope), then each `--root`. */
function serveRoots(args: Args): SkillRoot[] {
  const roots: SkillRoot[] = [
    ...args.positional.map((path) => ({ scope: path, path })),
    ...(args.repeated.get("--root") ?? []).map(rootOf),
  ];
  if (roots.length === 0) throw new UsageError("serve needs a folder or --root scope=path");
  return roots;
}

function hostPort(value: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(value);
  const port = Number(match?.[2]);
  if (match === null || port > 65535) {
    throw new UsageError(`--http takes HOST:PORT (e.g. 127.0.0.1:3000), got "${value}"`);
  }
  return { host: match[1]!.replace(/^\[(.*)\]$/, "$1"), port };
}

/** How many skill names `serve` lists at start without `--verbose`. */
const NAMES_SHOWN = 10;
