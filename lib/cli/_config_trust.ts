/**
 * Which keys of a project's `skillset.json` are honoured: the file comes with
 * the project (a clone, a pull request), so a key that picks what a
 * verification checks or where skillset writes is honoured only once the user
 * approved the file as it is now — its SHA-256 recorded in the user's own
 * state folder, direnv-style, so any change lapses the approval — or when the
 * command line gives it. Keys that only shape how the project's own skills
 * are shown stay honoured. The decision per key is the table in
 * `docs/security.md#config-keys`.
 *
 * Folder `lib/cli/` — the command line behind `lib/cli.ts`: the command table, flags, output, config.
 *
 * @module
 */
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import process from "node:process";
import { escapeControls as esc } from "../core/_text.ts";
import { UsageError } from "./_args.ts";
import { type Config, CONFIG_NAME, findConfig, readConfig } from "./_config.ts";
import type { CliIO } from "./_io.ts";
import { didYouMean } from "./_suggest.ts";
import { DEFAULT_SCRIPT_LIMITS } from "../fs/scripts/_run_options.ts";

/** The environment variable naming the state folder (else `$XDG_STATE_HOME/skillset`, else `~/.local/state/skillset`). */
export const STATE_DIR_ENV = "SKILLSET_STATE_DIR";

/** The environment a decision reads (the state folder's variables). */
export type StateEnv = Readonly<Record<string, string | undefined>>;

/**
 * The user's own state folder: `$SKILLSET_STATE_DIR`, else
 * `$XDG_STATE_HOME/skillset`, else `~/.local/state/skillset`. Never inside a
 * project: a relative value is ignored.
 *
 * @param env The environment (default: the process's).
 * @returns The folder (it may not exist yet).
 */
export function stateDir(env: StateEnv = process.env): string {
  const own = env[STATE_DIR_ENV];
  if (own !== undefined && own.startsWith("/")) return own;
  const xdg = env.XDG_STATE_HOME;
  if (xdg !== undefined && xdg.startsWith("/")) return join(xdg, "skillset");
  return join(homedir(), ".local", "state", "skillset");
}

/**
 * The folders a folder's project may be, as far as the state folder is
 * concerned: the folder itself and every folder above it holding `.git`
 * (a clone's top) that does not hold the home too (a home kept in git is the
 * user's own). Every one, not only the nearest: a `.git` the project plants
 * in a sub-folder must not shrink the project to that sub-folder.
 */
function projectsOf(folder: string): string[] {
  const start = resolve(folder);
  const home = resolve(homedir());
  const out = [start];
  for (let dir = start;; dir = dirname(dir)) {
    if (dir !== start && existsSync(join(dir, ".git")) && !within(home, dir)) out.push(dir);
    if (dirname(dir) === dir) return out;
  }
}

/** Whether `path` is `folder` or lies below it. */
function within(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The project holding the state folder, when it lies inside the project of
 * `folder` (by its path, or by its real path through any link): a project
 * could ship approvals and sources there, so none are read from it
 * (`docs/security.md#config-approval`).
 *
 * @param folder A folder of the project (the config's, or the working folder).
 * @param env The environment (default: the process's).
 * @returns The project's folder, or undefined when the state folder lies outside it.
 */
export function stateInProject(folder: string, env: StateEnv = process.env): string | undefined {
  const state = stateDir(env);
  const path = resolve(state), realPath = real(state);
  return projectsOf(folder).findLast((project) =>
    within(path, project) || within(realPath, real(project))
  );
}

/**
 * A usage error for a state folder inside the project (see {@linkcode stateInProject}).
 *
 * @param project The project's folder.
 * @param env The environment.
 * @returns The error, naming both folders and the fix.
 */
export function stateInProjectError(project: string, env: StateEnv = process.env): UsageError {
  return new UsageError(
    `The state folder "${esc(stateDir(env))}" lies inside the project "${
      esc(project)
    }", which could ship approvals and sources there: set ${STATE_DIR_ENV} to a folder outside it`,
  );
}

/** Where the approval of the config file at `path` is recorded. */
function approvalFile(path: string, env: StateEnv): string {
  const name = createHash("sha256").update(path).digest("hex").slice(0, 32);
  return join(stateDir(env), "configs", `${name}.json`);
}

/**
 * Whether the user approved this config file with exactly these bytes.
 *
 * @param path The config file's absolute path.
 * @param digest Its digest now (`configDigest` of its bytes).
 * @param env The environment (default: the process's).
 * @returns Whether an approval of this path at this digest is recorded.
 */
export function isConfigApproved(
  path: string,
  digest: string,
  env: StateEnv = process.env,
): boolean {
  // Records in a state folder the project holds are the project's, not the user's.
  if (stateInProject(dirname(path), env) !== undefined) return false;
  let text: string;
  try {
    text = readFileSync(approvalFile(path, env), "utf8");
  } catch {
    return false;
  }
  try {
    const record = JSON.parse(text) as { path?: unknown; digest?: unknown };
    return record.path === path && record.digest === digest;
  } catch {
    return false;
  }
}

/**
 * Record the user's approval of a config file at its digest (in the state
 * folder, created private to the user).
 *
 * @param path The config file's absolute path.
 * @param digest Its digest, of the bytes the user saw checked.
 * @param env The environment (default: the process's).
 * @throws {Error} The file system's error when the state folder cannot be written.
 */
export function approveConfig(path: string, digest: string, env: StateEnv = process.env): void {
  const file = approvalFile(path, env);
  mkdirSync(join(stateDir(env), "configs"), { recursive: true, mode: 0o700 });
  // A new file (created exclusively) renamed over the old record: a reader sees one or the other.
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ path, digest })}\n`, { flag: "wx", mode: 0o600 });
  renameSync(temp, file);
}

/**
 * Whether a key of a not yet approved config is left out for a command:
 * the decision of `docs/security.md#config-keys`.
 *
 * @param key The config key.
 * @param value Its value in the file.
 * @param command The command it would apply to.
 * @returns Whether the key needs the user's approval there.
 */
export function needsApproval(key: string, value: unknown, command: string): boolean {
  if (key.startsWith("run.")) return runKeyNeedsApproval(key.slice(4), value);
  switch (key) {
    case "lockfile":
    case "approvals":
      // For a command that only uses skills, a lockfile or approval file can only take skills
      // away (it narrows what the model sees): honoured as it is. Where it picks what a
      // verification checks, or what is written (lock, verify, sign, approve, the lifecycle),
      // it waits for approval.
      return !NARROWING_COMMANDS.has(command);
    case "allow_empty":
    case "classes":
    // It names folders `add` writes into (each agent's skills folder).
    case "agents":
      return true;
    case "roots":
      return command === "lock" || command === "verify";
    case "usage_log":
      // Writing a log is the user's choice; ranking by the project's own log only shapes display.
      return command === "activate" || command === "serve";
    case "global_safety":
    case "skill_safety":
      // Closing the gate is always honoured; opening it is a trust decision.
      return value === false;
    case "budget":
    case "tool_budget":
    case "max_body_tokens":
    case "rank":
    case "modes":
    case "profiles":
    case "diagnostics":
    // They shape how the project's own skills are shown; frozen only adds checks.
    case "frozen":
      return false;
    default:
      // A key this table does not know yet (one added to the config later) waits for approval.
      return true;
  }
}

/** The limits of `"run"`, with the default each loosens when set higher. */
const RUN_LIMITS: ReadonlyMap<string, number> = new Map([
  ["timeout_ms", DEFAULT_SCRIPT_LIMITS.timeoutMs],
  ["cpu_seconds", DEFAULT_SCRIPT_LIMITS.cpuSeconds],
  ["memory_bytes", DEFAULT_SCRIPT_LIMITS.memoryBytes],
  ["processes", DEFAULT_SCRIPT_LIMITS.processes],
  ["file_bytes", DEFAULT_SCRIPT_LIMITS.fileBytes],
  ["max_output_chars", DEFAULT_SCRIPT_LIMITS.maxOutputChars],
]);

/**
 * Whether a key of `"run"` waits for approval: a limit above its default, a
 * weaker sandbox (`deno`), a grant (network, reads, writes, environment,
 * limits left unbounded) or a path (`cwd`, `out`) does; a lower limit, the
 * default sandbox or `bubblewrap`, and `allow_net: false` only tighten.
 */
function runKeyNeedsApproval(name: string, value: unknown): boolean {
  const limit = RUN_LIMITS.get(name);
  if (limit !== undefined) return !(typeof value === "number" && value <= limit);
  if (name === "sandbox") return value !== "auto" && value !== "bubblewrap";
  if (name === "allow_net") return value !== false;
  return true;
}

/** The commands where `lockfile` and `approvals` only narrow which skills are used (docs/security.md#config-keys). */
const NARROWING_COMMANDS: ReadonlySet<string> = new Set([
  "list",
  "to-prompt",
  "search",
  "read",
  "activate",
  "run",
  "serve",
]);

/** A config with only the keys honoured for one command. */
export interface ConfigDecision {
  /** Whether the user approved the file as it is now. */
  readonly approved: boolean;
  /** The config, narrowed to the keys honoured. */
  readonly config: Config;
  /** The keys present but left out for want of approval (or, for `lockfile` under `verify --signers`, always). */
  readonly ignored: readonly string[];
}

/** Whether a command line checks a signature (`verify --signers FILE` or `--signer KEY`). */
function checksSignature(argv: readonly string[]): boolean {
  return argv[0] === "verify" && argv.some((a) => /^--signers?(?:=|$)/.test(a));
}

/**
 * The keys of a project config honoured for a command line: every key once
 * the user approved the file at its digest, else only those that shape
 * display or add checks. Under `verify --signers` the config never picks the
 * lockfile, approved or not: the signed lockfile is the one the command line
 * or the default names.
 *
 * @param config The config, as `readConfig` read it.
 * @param argv The command line (the command first).
 * @param env The environment (default: the process's; `SKILLSET_STATE_DIR` names the state folder).
 * @returns The narrowed config and the keys left out.
 */
export function honouredConfig(
  config: Config,
  argv: readonly string[],
  env: StateEnv = process.env,
): ConfigDecision {
  const command = argv[0] ?? "";
  const approved = isConfigApproved(config.path, config.digest, env);
  const signed = checksSignature(argv);
  const ignored: string[] = [];
  const flags = new Map(config.flags);
  let folders = config.folders;
  for (const [key, { flag, value }] of config.keys) {
    // `"run"` is `skillset run`'s: `serve --allow-scripts` takes the same flags from its command line only.
    if (key.startsWith("run.") && command !== "run") {
      flags.delete(flag);
      continue;
    }
    const lapsed = !approved && needsApproval(key, value, command);
    if (!lapsed && !(signed && key === "lockfile")) continue;
    ignored.push(key);
    flags.delete(flag);
    if (key === "roots") folders = [];
  }
  return { approved, config: { ...config, flags, folders }, ignored };
}

/**
 * `skillset config approve|status`: approve the nearest `skillset.json` as
 * it is now (it is read and checked first: a config with a bad key or a path
 * out of the project is not approved), or say whether it is approved and
 * which keys wait for that.
 *
 * @param action `approve` or `status`.
 * @param io Where to write.
 * @param env The environment (default: the process's).
 * @returns The exit code: 1 when there is no config file.
 * @throws {UsageError} For another action, or a config that does not check.
 */
export function configCommand(
  action: string,
  io: Pick<CliIO, "stdout" | "stderr">,
  env: StateEnv = process.env,
): number {
  if (action !== "approve" && action !== "status") {
    throw new UsageError(
      `config: unknown action "${esc(action)}"${didYouMean(action, ["approve", "status"])}`,
    );
  }
  const path = findConfig();
  if (path === undefined) {
    io.stderr(`skillset: error: no ${CONFIG_NAME} here or above (skillset init writes one)\n`);
    return 1;
  }
  const config = readConfig(path);
  const project = stateInProject(dirname(path), env);
  if (project !== undefined) throw stateInProjectError(project, env);
  const gated = [...config.keys].filter(([key, { value }]) =>
    GATED_COMMANDS.some((command) => needsApproval(key, value, command))
  ).map(([key]) => key);
  if (action === "approve") {
    approveConfig(path, config.digest, env);
    io.stdout(
      `Approved ${esc(path)} (${config.digest}) on this machine` +
        (gated.length === 0 ? "" : `: ${gated.join(", ")} now honoured`) +
        " until the file changes\n",
    );
    return 0;
  }
  const approved = isConfigApproved(path, config.digest, env);
  io.stdout(
    `${esc(path)} (${config.digest}): ${approved ? "approved" : "not approved"}` +
      (gated.length === 0
        ? "; every key is honoured without approval\n"
        : approved
        ? `; ${gated.join(", ")} honoured\n`
        : `; ${gated.join(", ")} ignored until \`skillset config approve\`\n`),
  );
  return 0;
}

/** The commands some key needs approval for (to name a config's gated keys whatever the command). */
const GATED_COMMANDS = ["lock", "verify", "activate", "serve", "add", "run"];
