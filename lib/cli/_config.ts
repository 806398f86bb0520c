/**
 * The project config file, `skillset.json`: found from the working folder
 * upwards, it holds what would otherwise be repeated on every command (roots,
 * class mappings, safety switches, budget and rank, lockfile, approvals,
 * modes, the usage log). Each key becomes the flag of the same meaning, given to a command
 * only when that command's flag spec accepts it and the command line does not
 * already give it: flags override the file. Its shape is published as
 * `skillset.config.schema.json`.
 *
 * Folder `lib/cli/` — the command line behind `lib/cli.ts`: the command table, flags, output, config.
 *
 * @module
 */
import { existsSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { escapeControls as esc } from "../core/_text.ts";
import { type ArgSpec, UsageError } from "./_args.ts";
import type { CliIO } from "./_io.ts";
import { didYouMean } from "./_suggest.ts";
import { isGitTop } from "./_git_dir.ts";
import { createHash } from "node:crypto";
import { JsonSyntaxError, lineColumn, parseJsonNodes } from "../core/trust/_json.ts";

/** The config file's name. */
export const CONFIG_NAME = "skillset.json";

/** Config files larger than this are refused (a config is a few hundred bytes). */
const MAX_CONFIG_BYTES = 1 << 20;

/** A config file read and checked. */
export interface Config {
  /** The file's absolute path. */
  readonly path: string;
  /** The flags it stands for, by flag name: each value as it would be typed. */
  readonly flags: ReadonlyMap<string, readonly string[]>;
  /** Its roots' paths, as typed relative to the working folder (for commands that take folders). */
  readonly folders: readonly string[];
  /** The digest of the bytes read (what an approval records). */
  readonly digest: string;
  /** Each key given, with its flag and its value in the file. */
  readonly keys: ReadonlyMap<string, { readonly flag: string; readonly value: unknown }>;
}

/** A config file's digest: `sha256:` and 64 hexadecimal digits of its bytes. */
export function configDigest(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

type Check = (value: unknown, key: string) => readonly string[];

const bool: Check = (v, key) => {
  if (typeof v !== "boolean") throw invalid(key, "true or false", v);
  return [String(v)];
};
const whole: Check = (v, key) => {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
    throw invalid(key, "a whole number", v);
  }
  return [String(v)];
};
const oneOf = (...allowed: string[]): Check => (v, key) => {
  if (typeof v !== "string" || !allowed.includes(v)) throw invalid(key, allowed.join(" or "), v);
  return [v];
};

/** Each key, the flag it stands for, and how its value becomes the flag's values. */
const KEYS: ReadonlyMap<
  string,
  { flag: string; values: (v: unknown, base: string) => readonly string[] }
> = new Map([
  ["roots", { flag: "--root", values: roots }],
  ["classes", { flag: "--class", values: (v) => classes(v) }],
  ["global_safety", { flag: "--global-safety", values: (v) => bool(v, "global_safety") }],
  ["skill_safety", { flag: "--skill-safety", values: (v) => bool(v, "skill_safety") }],
  ["budget", { flag: "--budget", values: (v) => whole(v, "budget") }],
  ["tool_budget", { flag: "--tool-budget", values: (v) => whole(v, "tool_budget") }],
  [
    "max_body_tokens",
    { flag: "--max-body-tokens", values: (v) => whole(v, "max_body_tokens") },
  ],
  ["rank", { flag: "--rank", values: (v) => oneOf("position", "name", "usage")(v, "rank") }],
  ["usage_log", { flag: "--usage-log", values: (v, base) => [file(v, "usage_log", base)] }],
  ["lockfile", { flag: "--lockfile", values: (v, base) => [file(v, "lockfile", base)] }],
  ["agents", { flag: "--agent", values: (v) => agents(v) }],
  ["approvals", { flag: "--approvals", values: (v, base) => [file(v, "approvals", base)] }],
  ["modes", { flag: "--modes", values: (v, base) => [file(v, "modes", base)] }],
  // Profiles written here (an object) are read from this very file; a string names a profiles file.
  [
    "profiles",
    {
      flag: "--profiles",
      values: (v, base) =>
        typeof v === "string"
          ? [file(v, "profiles", base)]
          : [typed(CONFIG_NAME, base, "profiles")],
    },
  ],
  ["frozen", { flag: "--frozen", values: (v) => bool(v, "frozen") }],
  ["allow_empty", { flag: "--allow-empty", values: (v) => bool(v, "allow_empty") }],
  [
    "diagnostics",
    { flag: "--diagnostics", values: (v) => oneOf("quiet", "normal", "verbose")(v, "diagnostics") },
  ],
]);

/** `agents`: a list of agent names (checked by `add`), or `"all-detected"`. */
function agents(v: unknown): readonly string[] {
  const names = typeof v === "string" ? [v] : v;
  if (
    !Array.isArray(names) || names.length === 0 ||
    !names.every((n) => typeof n === "string" && /^[a-z0-9-]{1,64}$/.test(n))
  ) {
    throw invalid("agents", 'a list of agent names, or "all-detected"', v);
  }
  return [names.join(",")];
}

/**
 * The keys of `"run"`: `skillset run`'s flags, each under `run.<key>` in a
 * config's keys. Which of them wait for approval is `needsApproval`'s
 * decision (`docs/security.md#config-keys`).
 */
const RUN_KEYS: ReadonlyMap<
  string,
  { flag: string; values: (v: unknown, base: string, key: string) => readonly string[] }
> = new Map([
  ["sandbox", {
    flag: "--sandbox",
    values: (v, _, k) => oneOf("auto", "bubblewrap", "deno")(v, k),
  }],
  ["timeout_ms", { flag: "--timeout-ms", values: (v, _, k) => positive(v, k) }],
  ["cpu_seconds", { flag: "--cpu-seconds", values: (v, _, k) => positive(v, k) }],
  ["memory_bytes", { flag: "--memory-bytes", values: (v, _, k) => positive(v, k) }],
  ["processes", { flag: "--processes", values: (v, _, k) => positive(v, k) }],
  ["file_bytes", { flag: "--file-bytes", values: (v, _, k) => positive(v, k) }],
  ["max_output_chars", { flag: "--max-output-chars", values: (v, _, k) => positive(v, k) }],
  [
    "allow_unbounded",
    {
      flag: "--allow-unbounded",
      values: (v, _, k) =>
        list(v, k, (x) => oneOf("memory", "processes", "cpu", "file-size")(x, k)),
    },
  ],
  ["allow_net", { flag: "--allow-net", values: (v, _, k) => bool(v, k) }],
  ["allow_read", {
    flag: "--allow-read",
    values: (v, base, k) => list(v, k, (x) => [file(x, k, base)]),
  }],
  ["allow_write", {
    flag: "--allow-write",
    values: (v, base, k) => list(v, k, (x) => [file(x, k, base)]),
  }],
  ["env", { flag: "--env", values: (v, _, k) => environment(v, k) }],
  ["cwd", { flag: "--cwd", values: (v, base, k) => [file(v, k, base)] }],
  ["out", { flag: "--out", values: (v, base, k) => [file(v, k, base)] }],
]);

const positive: Check = (v, key) => {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1) {
    throw invalid(key, "a whole number of at least 1", v);
  }
  return [String(v)];
};

function list(v: unknown, key: string, each: (x: unknown) => readonly string[]): readonly string[] {
  if (!Array.isArray(v)) throw invalid(key, "a list", v);
  return v.flatMap((x) => each(x));
}

function environment(v: unknown, key: string): readonly string[] {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw invalid(key, 'an object like { "LANG": "C.UTF-8" }', v);
  }
  return Object.entries(v).map(([name, value]) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || typeof value !== "string") {
      throw invalid(`${key}.${name}`, "a string (under a variable name)", value);
    }
    return `${name}=${value}`;
  });
}

/** `"run": { … }`: each key its own `run.<key>` entry, with the flag it stands for. */
function runKeys(
  v: unknown,
  base: string,
): { key: string; flag: string; values: readonly string[]; value: unknown }[] {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw invalid("run", 'an object of run\'s flags, like { "timeout_ms": 10000 }', v);
  }
  return Object.entries(v).map(([name, value]) => {
    const entry = RUN_KEYS.get(name);
    if (entry === undefined) {
      throw new UsageError(
        `${CONFIG_NAME}: unknown key "run.${esc(name)}"${didYouMean(name, RUN_KEYS.keys())}`,
      );
    }
    const key = `run.${name}`;
    return { key, flag: entry.flag, values: entry.values(value, base, key), value };
  });
}

function invalid(key: string, wanted: string, got: unknown): UsageError {
  return new UsageError(
    `${CONFIG_NAME}: "${key}" takes ${wanted}, got ${esc(JSON.stringify(got) ?? String(got))}`,
  );
}

/**
 * A path of the file, relative to its folder, as typed relative to the
 * working folder. It must stay inside the project (the config's folder): not
 * absolute, no `..`, and no link on the way that leads out
 * (`docs/security.md#project-paths`).
 */
function typed(path: string, base: string, key: string): string {
  const segments = path.split(/[\\/]/);
  if (isAbsolute(path) || /^[A-Za-z]:/.test(path) || segments.includes("..")) {
    throw outside(key, path);
  }
  const absolute = resolve(base, path);
  if (!insideReal(absolute, base)) throw outside(key, path);
  return relative(process.cwd(), absolute) || ".";
}

function outside(key: string, path: string): UsageError {
  return new UsageError(
    `${CONFIG_NAME}: "${key}" must name a path inside the project (relative, no "..", no link out), got ${
      esc(JSON.stringify(path))
    }`,
  );
}

/** Whether a path's real path (that of its deepest existing part) lies inside the folder's. */
function insideReal(path: string, folder: string): boolean {
  let root: string;
  try {
    root = realpathSync(folder);
  } catch {
    return false;
  }
  let existing = path, rest = "";
  for (;;) {
    try {
      const real = join(realpathSync(existing), rest);
      return real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);
    } catch {
      const up = dirname(existing);
      if (up === existing) return false;
      rest = join(existing.slice(up.length + (up.endsWith(sep) ? 0 : 1)), rest);
      existing = up;
    }
  }
}

function file(v: unknown, key: string, base: string): string {
  if (typeof v !== "string" || v === "") throw invalid(key, "a file path", v);
  return typed(v, base, key);
}

function roots(v: unknown, base: string): readonly string[] {
  if (!Array.isArray(v)) throw invalid("roots", 'a list of { "scope", "path" }', v);
  return v.map((root: unknown) => {
    const { scope, path } = (root ?? {}) as { scope?: unknown; path?: unknown };
    if (
      typeof root !== "object" || root === null || typeof scope !== "string" || scope === "" ||
      scope.includes("=") || typeof path !== "string" || path === ""
    ) {
      throw invalid("roots", 'a list of { "scope": "project", "path": "skills" }', root);
    }
    return `${scope}=${typed(path, base, "roots")}`;
  });
}

function classes(v: unknown): readonly string[] {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw invalid("classes", 'an object like { "examples": "references" }', v);
  }
  return Object.entries(v).map(([name, cls]) => {
    if (typeof cls !== "string") {
      throw invalid(`classes.${name}`, "references, assets or scripts", cls);
    }
    return `${name}=${cls}`;
  });
}

/**
 * The nearest `skillset.json` at or above a folder, within its repository:
 * the search stops at the first folder holding `.git`, so a checkout never
 * reads a config of the folders around it.
 *
 * @param from Where to start (default: the working folder).
 * @returns Its path, or `undefined` when there is none.
 */
export function findConfig(from: string = process.cwd()): string | undefined {
  for (let dir = resolve(from);; dir = dirname(dir)) {
    const candidate = join(dir, CONFIG_NAME);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here (or not readable): look further up.
    }
    if (dirname(dir) === dir || existsSync(join(dir, ".git"))) return undefined;
  }
}

/**
 * The repository root a signed lockfile's base is resolved from
 * (`docs/security.md#signed-root`): the nearest folder at or above the
 * working folder whose `.git` is a git directory, or names one that names
 * it back (`isGitTop`: a planted empty `.git`, or a `gitdir:` file naming
 * nothing or another checkout's git directory, is passed over;
 * `core.worktree` is never followed there), else
 * the folder of the project's `skillset.json`, else the working folder.
 * Found from where the command runs, never from where the lockfile lies, so
 * it is always the working folder or one above it.
 *
 * @param from Where to start (default: the working folder).
 * @returns Its absolute path.
 */
export function repositoryRoot(from: string = process.cwd()): string {
  const start = resolve(from);
  for (let dir = start;; dir = dirname(dir)) {
    if (isGitTop(dir)) return dir;
    if (dirname(dir) === dir) break;
  }
  const config = findConfig(start);
  return config === undefined ? start : dirname(config);
}

/**
 * Read and check a config file.
 *
 * @param path The file.
 * @returns The config.
 * @throws {UsageError} For a file that is too large, not JSON, not an object, or has an unknown
 *   key or a value of the wrong kind (named with a did-you-mean).
 */
export function readConfig(path: string): Config {
  const where = (message: string) => new UsageError(`${esc(path)}: ${message}`);
  if (statSync(path).size > MAX_CONFIG_BYTES) throw where("larger than 1 MiB; not a config file");
  const bytes = readFileSync(path);
  let data: unknown;
  const text = new TextDecoder().decode(bytes);
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw where(`not valid JSON: ${esc((e as Error).message)}`);
  }
  try {
    // What is approved is what a reader sees: a key given twice (JSON.parse keeps the last, a
    // reviewer may read the first) is refused.
    parseJsonNodes(text);
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    const { line, column } = lineColumn(text, e.offset);
    throw where(`${esc(e.message)} (line ${line}, column ${column})`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw where("must hold a JSON object");
  }
  const base = dirname(path);
  const flags = new Map<string, readonly string[]>();
  const keys = new Map<string, { flag: string; value: unknown }>();
  let folders: readonly string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (key === "$schema") continue;
    if (key === "run") {
      let entries;
      try {
        entries = runKeys(value, base);
      } catch (e) {
        if (e instanceof UsageError) throw where(e.message.slice(CONFIG_NAME.length + 2));
        throw e;
      }
      for (const r of entries) {
        flags.set(r.flag, r.values);
        keys.set(r.key, { flag: r.flag, value: r.value });
      }
      continue;
    }
    const entry = KEYS.get(key);
    if (entry === undefined) {
      throw where(
        `unknown key ${JSON.stringify(esc(key))}${didYouMean(key, [...KEYS.keys(), "run"])}`,
      );
    }
    try {
      flags.set(entry.flag, entry.values(value, base));
    } catch (e) {
      if (e instanceof UsageError) throw where(e.message.slice(CONFIG_NAME.length + 2));
      throw e;
    }
    keys.set(key, { flag: entry.flag, value });
    if (key === "roots") folders = flags.get("--root")!.map((r) => r.slice(r.indexOf("=") + 1));
  }
  return { path, flags, folders, digest: configDigest(bytes), keys };
}

/** Flags a config never fills in for a command that does not take them all. */
const SWITCHES = new Set(["--frozen", "--allow-empty", "--allow-net"]);

/**
 * The command line with the config's flags put in: a flag goes to a command
 * only if `spec` accepts it (so a flag added to a command later just works),
 * and only if the command line does not give it already. A config's roots
 * become folder arguments for a command that takes folders but no `--root`
 * (`to-prompt`, `validate`) when none is given.
 *
 * @param argv The command line (the command first).
 * @param spec The command's flag spec, or `undefined` for an unknown command.
 * @param config The config, if any.
 * @returns The command line to parse.
 */
export function withConfig(
  argv: readonly string[],
  spec: ArgSpec | undefined,
  config: Config | undefined,
): readonly string[] {
  if (config === undefined || spec === undefined || argv.length === 0) return argv;
  const [command, ...rest] = argv;
  const given = new Set(
    rest.filter((a) => a.startsWith("--")).map((a) => a.slice(0, (a + "=").indexOf("="))),
  );
  const added: string[] = [];
  for (const [flag, values] of config.flags) {
    if (given.has(flag)) continue;
    if (flag === "--diagnostics") {
      if (!given.has("--quiet") && !given.has("--verbose") && values[0] !== "normal") {
        added.push(`--${values[0]}`);
      }
    } else if (SWITCHES.has(flag)) {
      if (spec.switches?.includes(flag) === true && values[0] === "true") added.push(flag);
    } else if (spec.values.includes(flag)) {
      for (const value of values) added.push(`${flag}=${value}`);
    }
  }
  const takesFolders = !spec.values.includes("--root") && spec.positional[1] === Infinity;
  const positional = rest.some((a, i) => !a.startsWith("-") && !isValueOf(rest, i, spec));
  const folders = takesFolders && !positional
    ? config.folders.filter((f) => existsSync(f)).map((f) => f.startsWith("-") ? `./${f}` : f)
    : [];
  return [command!, ...added, ...rest, ...folders];
}

/** Whether `rest[i]` is the value of the flag before it (`--budget 100`). */
function isValueOf(rest: readonly string[], i: number, spec: ArgSpec): boolean {
  const before = rest[i - 1];
  return before !== undefined && !before.includes("=") && spec.values.includes(before);
}

/**
 * `skillset init`: write `skillset.json` for the project in the working
 * folder, with its conventional roots (`.agents/skills`, `.claude/skills`,
 * those that exist; else `skills/`, else the folder itself).
 *
 * @param force Whether to replace a config file already there.
 * @param io Where to write.
 * @param written Called with the file's path and the digest of the bytes written.
 * @returns The exit code: 1 when the file exists and `force` is not given.
 */
export function initCommand(
  force: boolean,
  io: Pick<CliIO, "stdout" | "stderr">,
  written: (path: string, digest: string) => void = () => {},
): number {
  const path = resolve(CONFIG_NAME);
  if (!force && existsSync(path)) {
    io.stderr(`skillset: error: ${CONFIG_NAME} exists already (add --force to replace it)\n`);
    return 1;
  }
  const conventional = [join(".agents", "skills"), join(".claude", "skills")];
  let paths = conventional.filter((p) => isFolder(p));
  if (paths.length === 0) paths = isFolder("skills") ? ["skills"] : ["."];
  const config = {
    $schema: schemaPath(dirname(path)),
    roots: paths.map((p) => ({ scope: "project", path: p.split("\\").join("/") })),
    global_safety: true,
    skill_safety: true,
  };
  const bytes = new TextEncoder().encode(`${JSON.stringify(config, null, 2)}\n`);
  writeFileSync(path, bytes, { flag: force ? "w" : "wx" });
  written(path, configDigest(bytes));
  io.stdout(
    `Wrote ${CONFIG_NAME} (roots: ${paths.join(", ")}); every command in this folder and below ` +
      "reads it, and flags override it\n",
  );
  return 0;
}

/**
 * Where the config schema is, as a `$schema` for a config in `folder`: the
 * schema this package ships (found above this module, in a clone as in
 * `node_modules/skillset`), relative when below the folder's parent, else
 * absolute; the installed package's place when it cannot be found.
 *
 * @param folder The folder the config is written to.
 * @returns The `$schema` value.
 */
export function schemaPath(folder: string): string {
  const fallback = "./node_modules/skillset/skillset.config.schema.json";
  let dir: string;
  try {
    dir = dirname(fileURLToPath(import.meta.url));
  } catch {
    return fallback; // imported over http(s): no file to point at
  }
  for (let i = 0; i < 8; i++, dir = dirname(dir)) {
    const schema = join(dir, "skillset.config.schema.json");
    if (existsSync(schema)) {
      const rel = relative(folder, schema).split("\\").join("/");
      if (rel.startsWith("../..") || isAbsolute(rel)) return schema.split("\\").join("/");
      return rel.startsWith(".") ? rel : `./${rel}`;
    }
  }
  return fallback;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
