/**
 * The operating-system sandbox of skill scripts: where its tools are
 * (`bwrap`, `prlimit`, `setpriv`, looked up only in the system folders, never
 * on the caller's `PATH`), the bubblewrap command line (the skill read-only,
 * a fresh working folder, system folders read-only, every namespace
 * unshared, no home folder, the environment given whole) with its resource
 * limits, and the Deno permissions used where bubblewrap is missing.
 *
 * Folder `lib/fs/scripts/` — running a skill's scripts: the sandbox, capped spawns, snapshots.
 *
 * @module
 */
import {
  existsSync,
  lstatSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { SANDBOX_GID } from "./_run_limits.ts";

/** Where the skill is inside the sandbox (read-only). */
export const SANDBOX_SKILL = "/skill";
/** The working folder inside the sandbox (writable). */
export const SANDBOX_WORK = "/work";
/** The temporary folder inside the sandbox (writable, private). */
export const SANDBOX_TMP = "/tmp";
/** Where the JavaScript runtime's binary is inside the sandbox. */
export const SANDBOX_RUNTIME = "/runtime";

/** The folders searched for the sandbox's tools and the interpreters, in order. */
const SYSTEM_BIN: readonly string[] = ["/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"];

/** System folders bound read-only (a link such as `/bin -> usr/bin` stays a link). */
const SYSTEM_DIRS: readonly string[] = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
];

/**
 * The files of `/etc` bound read-only: what the dynamic linker, the C
 * library and Python need. Not `/etc` whole: it may hold secrets
 * (`shadow`, keys, credentials of services); of `/etc/ssl` only the
 * certificates and OpenSSL's configuration, never `private` (TLS keys, which
 * a member of `ssl-cert` could read inside too).
 */
const ETC_ENTRIES: readonly string[] = [
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "alternatives",
  "localtime",
  "nsswitch.conf",
  "passwd",
  "group",
  "mime.types",
  "ssl/certs",
  "ssl/openssl.cnf",
  "ca-certificates",
];

/** What name resolution needs once the network is granted. */
const ETC_NETWORK: readonly string[] = ["resolv.conf", "hosts", "host.conf", "gai.conf"];

/** The open files of one process in the sandbox (`memfd` files, each under the file-size limit, included). */
export const SANDBOX_OPEN_FILES = 256;

/** The sandbox's tools on this machine (`null`: missing). */
export interface SandboxTools {
  /** bubblewrap. */
  readonly bwrap: string | null;
  /** util-linux `prlimit`, run inside the sandbox to set the limits. */
  readonly prlimit: string | null;
  /** util-linux `setpriv`, to leave root before the sandbox starts. */
  readonly setpriv: string | null;
  /** A `deno` binary for JavaScript and TypeScript where bubblewrap is missing. */
  readonly deno: string | null;
}

let override: Partial<SandboxTools> | null = null;
let found: SandboxTools | null = null;

/**
 * A program in the system folders.
 *
 * @param name Its name.
 * @returns Its path, or `null`.
 */
export function systemProgram(name: string): string | null {
  for (const dir of SYSTEM_BIN) {
    const path = `${dir}/${name}`;
    try {
      if (existsSync(path)) return path;
    } catch {
      // Not allowed to look (Deno without read permission): missing.
    }
  }
  return null;
}

/**
 * The sandbox's tools, found once.
 *
 * @returns Where each is, or `null`.
 */
export function sandboxTools(): SandboxTools {
  found ??= Object.freeze({
    bwrap: systemProgram("bwrap"),
    prlimit: systemProgram("prlimit"),
    setpriv: systemProgram("setpriv"),
    deno: runtime().kind === "deno" ? runtime().path : systemProgram("deno"),
  });
  return override === null ? found : Object.freeze({ ...found, ...override });
}

/**
 * For this module's own tests (`lib/load.ts` does not export it): pretend a
 * tool is missing (`null`) or elsewhere, so the refusal paths run on a
 * machine that has them.
 *
 * @param tools The tools to replace.
 * @returns A function that restores the real ones.
 * @example
 * ```ts
 * import { _setSandboxTools, sandboxTools } from "./_sandbox.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * const restore = _setSandboxTools({ bwrap: null });
 * try {
 *   assert.equal(sandboxTools().bwrap, null);
 * } finally {
 *   restore();
 * }
 * ```
 */
export function _setSandboxTools(tools: Partial<SandboxTools>): () => void {
  override = tools;
  return () => {
    override = null;
  };
}

/** The JavaScript runtime running this code. */
export interface Runtime {
  /** Which. */
  readonly kind: "node" | "deno" | "bun";
  /** Its binary's real path. */
  readonly path: string;
  /** Whether it runs TypeScript (Deno, Bun, Node 22.6 or later). */
  readonly typescript: boolean;
}

let current: Runtime | null = null;

/** The runtime running this code, found once. */
export function runtime(): Runtime {
  if (current !== null) return current;
  const g = globalThis as { Deno?: unknown; Bun?: unknown };
  const kind = g.Deno !== undefined ? "deno" : g.Bun !== undefined ? "bun" : "node";
  let path = process.execPath;
  try {
    path = realpathSync(path);
  } catch {
    // Keep the path as the runtime gives it.
  }
  const [major = 0, minor = 0] = (process.versions.node ?? "0.0").split(".").map(Number);
  const typescript = kind !== "node" || major > 22 || (major === 22 && minor >= 6);
  current = Object.freeze({ kind, path, typescript });
  return current;
}

/**
 * The command that runs a script with the current runtime.
 *
 * @param binary Where the runtime's binary is (inside the sandbox, or on the host).
 * @param script The script's path as the runtime will see it.
 * @param typescript Whether the script is TypeScript.
 * @param memoryMiB The heap limit given to V8.
 * @returns The command line.
 */
export function runtimeCommand(
  binary: string,
  script: string,
  typescript: boolean,
  memoryMiB: number,
): string[] {
  const heap = `--max-old-space-size=${memoryMiB}`;
  switch (runtime().kind) {
    case "deno":
      return [
        binary,
        "run",
        "-A",
        "--no-prompt",
        "--no-config",
        "--no-lock",
        `--v8-flags=${heap}`,
        script,
      ];
    case "bun":
      return [binary, "--no-install", script];
    default: {
      const [major = 0, minor = 0] = (process.versions.node ?? "0.0").split(".").map(Number);
      const strip = typescript && (major < 23 || (major === 23 && minor < 6));
      return [
        binary,
        heap,
        ...(strip ? ["--experimental-strip-types", "--no-warnings"] : []),
        script,
      ];
    }
  }
}

/** The resource limits of one run. */
export interface Limits {
  /** CPU seconds. */
  readonly cpuSeconds: number;
  /** Bytes of address space (`null`: not limited; Deno reserves tens of GiB of it). */
  readonly memoryBytes: number | null;
  /** Processes and threads. */
  readonly processes: number;
  /** The largest file the script may write, in bytes. */
  readonly fileBytes: number;
}

/** What a bubblewrap run binds and grants. */
export interface BubblewrapPlan {
  readonly tools: SandboxTools;
  /** As root, the uid the sandbox runs as (the run's own, so its process limit is its own). */
  readonly uid: number;
  /** The skill's files on the host (bound read-only at {@linkcode SANDBOX_SKILL}). */
  readonly skill: string;
  /** The working folder on the host (bound writable at {@linkcode SANDBOX_WORK}). */
  readonly work: string;
  /** Whether `work` is a fresh empty folder (then, where bubblewrap can, one in memory instead). */
  readonly freshWork?: boolean;
  /** The private temporary folder on the host (bound writable at {@linkcode SANDBOX_TMP}, where bubblewrap cannot make one in memory). */
  readonly tmp: string;
  /** The runtime's binary on the host, bound read-only under {@linkcode SANDBOX_RUNTIME}, when the script needs it. */
  readonly runtimeBinary?: string;
  /** Host paths bound read-only at the same place. */
  readonly readPaths: readonly string[];
  /** Host paths bound writable at the same place. */
  readonly writePaths: readonly string[];
  /** Whether the network namespace is shared with the host. */
  readonly network: boolean;
  /** The whole environment inside (bubblewrap clears what it inherits, so a runtime's own additions do not leak in). */
  readonly env: Readonly<Record<string, string>>;
  readonly limits: Limits;
  /** The command inside the sandbox. */
  readonly command: readonly string[];
  /**
   * Whether what it writes is writable by its group too (umask 002): in a
   * host folder, the next run — another uid, the same group — may change it.
   */
  readonly groupWrites?: boolean;
}

/** Whether this process runs as root (then the sandbox leaves root first). */
export function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/**
 * The bubblewrap command line: every namespace unshared (the network only
 * when granted), a new session, killed with its parent, the system folders
 * and a few files of `/etc` read-only, a fresh `/proc` and `/dev`, the skill
 * read-only, the working and temporary folders writable, no home folder;
 * inside, `prlimit` sets the limits and runs the command. As root, `setpriv`
 * first becomes the run's own user (`plan.uid`, group 65534, no other
 * groups), so the process limit holds (the kernel does not apply it to root)
 * and is the run's alone.
 *
 * @param plan What to bind and run.
 * @returns The command line.
 */
export function bubblewrapArgv(plan: BubblewrapPlan): string[] {
  const { tools, limits } = plan;
  const argv: string[] = [];
  if (isRoot()) {
    argv.push(
      tools.setpriv!,
      `--reuid=${plan.uid}`,
      `--regid=${SANDBOX_GID}`,
      "--clear-groups",
      "--",
    );
  }
  argv.push(
    tools.bwrap!,
    "--unshare-all",
    // No user namespace of its own inside (bubblewrap 0.8 or later): it would be root there, with
    // the kernel's network and mount code to attack.
    ...(bwrapHas(tools.bwrap!, "--disable-userns") ? ["--unshare-user", "--disable-userns"] : []),
    ...(plan.network ? ["--share-net"] : []),
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--hostname",
    "sandbox",
  );
  for (const dir of SYSTEM_DIRS) {
    const stat = lstatOrNull(dir);
    if (stat === null) continue;
    if (stat.isSymbolicLink()) argv.push("--symlink", readlinkSync(dir), dir);
    else if (stat.isDirectory()) argv.push("--ro-bind", dir, dir);
  }
  for (const name of [...ETC_ENTRIES, ...pythonEtc(), ...(plan.network ? ETC_NETWORK : [])]) {
    const path = `/etc/${name}`;
    if (lstatOrNull(path) !== null) argv.push("--ro-bind", path, path);
  }
  argv.push(
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--ro-bind",
    plan.skill,
    SANDBOX_SKILL,
  );
  // A fresh folder is a memory file system of at most fileBytes (bubblewrap 0.8 or later): many
  // files, each under the file-size limit, cannot fill the host's disk.
  const sized = bwrapHas(tools.bwrap!, "--size");
  const memory = (inside: string) =>
    argv.push(...(sized ? ["--size", String(limits.fileBytes)] : []), "--tmpfs", inside);
  if (sized && plan.freshWork === true) memory(SANDBOX_WORK);
  else argv.push("--bind", plan.work, SANDBOX_WORK);
  if (sized) memory(SANDBOX_TMP);
  else argv.push("--bind", plan.tmp, SANDBOX_TMP);
  // /dev/shm, which Python's multiprocessing needs, a memory file system of its own (a granted
  // path may still replace it).
  memory("/dev/shm");
  if (plan.runtimeBinary !== undefined) {
    // Spelled with a `/./`: Deno rewrites a child's arguments that follow its own path.
    const at = plan.runtimeBinary.lastIndexOf("/");
    const source = `${plan.runtimeBinary.slice(0, at)}/.${plan.runtimeBinary.slice(at)}`;
    argv.push("--ro-bind", source, `${SANDBOX_RUNTIME}/${runtime().kind}`);
  }
  for (const path of plan.readPaths) argv.push("--ro-bind", path, path);
  for (const path of plan.writePaths) argv.push("--bind", path, path);
  // bubblewrap's root and /dev are memory file systems the script could fill: read-only once
  // everything is mounted.
  argv.push("--remount-ro", "/dev", "--remount-ro", "/");
  argv.push("--clearenv");
  for (const [name, value] of Object.entries(plan.env)) argv.push("--setenv", name, value);
  argv.push("--chdir", SANDBOX_WORK, "--");
  if (plan.groupWrites === true) argv.push("/bin/sh", "-c", 'umask 002 && exec "$@"', "sh");
  argv.push(...prlimitArgv(tools.prlimit!, limits), ...plan.command);
  return argv;
}

const helps = new Map<string, string>();

/** Whether this bubblewrap has an option (`--disable-userns`, `--size`: 0.8 or later), asked once. */
function bwrapHas(bwrap: string, option: string): boolean {
  let help = helps.get(bwrap);
  if (help === undefined) {
    const out = spawnSync(bwrap, ["--help"], { encoding: "utf8", timeout: 10_000 });
    help = `${out.stdout ?? ""}${out.stderr ?? ""}`;
    helps.set(bwrap, help);
  }
  return new RegExp(`^\\s*${option}\\b`, "m").test(help);
}

/** `prlimit` with every limit, then `--` (the command follows). */
function prlimitArgv(prlimit: string, limits: Limits): string[] {
  return [
    prlimit,
    `--cpu=${limits.cpuSeconds}`,
    ...(limits.memoryBytes === null ? [] : [`--as=${limits.memoryBytes}`]),
    `--nproc=${limits.processes}`,
    `--fsize=${limits.fileBytes}`,
    `--nofile=${SANDBOX_OPEN_FILES}`,
    "--core=0",
    "--",
  ];
}

/** Debian keeps Python's site configuration in `/etc/python3.X`. */
function pythonEtc(): string[] {
  try {
    return readdirSync("/etc").filter((n) => /^python3(?:\.\d+)?$/.test(n));
  } catch {
    return [];
  }
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** Where the import map of {@linkcode denoImportMap} sends a module outside the allowed folders. */
const REFUSED_MODULES = "file:///skillset-sandbox-refused/";

/**
 * The import map of a Deno run: Deno loads modules without asking its read
 * permission, so a script could import any JSON file (or see a text file's
 * first line in the parse error) outside the skill; the map sends every
 * `file:` module outside the folders the script may read to a folder that
 * does not exist.
 *
 * @param reads The folders the script may read.
 * @returns The import map, as JSON.
 */
export function denoImportMap(reads: readonly string[]): string {
  const imports: Record<string, string> = { "file:///": REFUSED_MODULES };
  for (const dir of reads) {
    const url = pathToFileURL(dir).href.replace(/\/?$/, "/");
    imports[url] = url;
  }
  return JSON.stringify({ imports });
}

/**
 * The folders a Deno run may read: the skill, the working and temporary
 * folders, and the granted paths.
 *
 * @param dirs The skill, working and temporary folders on the host.
 * @param grants The granted paths.
 * @returns The folders.
 */
export function denoReads(
  dirs: { readonly skill: string; readonly work: string; readonly tmp: string },
  grants: { readonly readPaths: readonly string[]; readonly writePaths: readonly string[] },
): string[] {
  return [dirs.skill, dirs.work, dirs.tmp, ...grants.readPaths, ...grants.writePaths];
}

/**
 * The Deno command that runs a JavaScript or TypeScript script where
 * bubblewrap is missing: no prompt, reads of the skill, working and
 * temporary folders (and granted paths) only — modules too, through the
 * import map — writes to the working and temporary folders only, no
 * network (no remote, `npm:` or `jsr:` module either), no subprocess, no
 * environment, no FFI unless granted.
 *
 * @param deno The `deno` binary.
 * @param script The script's path on the host.
 * @param dirs The skill, working and temporary folders on the host.
 * @param grants The granted network, paths and environment variable names.
 * @param memoryMiB The heap limit given to V8.
 * @param importMap The file holding {@linkcode denoImportMap}'s map.
 * @returns The command line.
 */
export function denoArgv(
  deno: string,
  script: string,
  dirs: { readonly skill: string; readonly work: string; readonly tmp: string },
  grants: {
    readonly network: boolean;
    readonly readPaths: readonly string[];
    readonly writePaths: readonly string[];
    readonly env: readonly string[];
  },
  memoryMiB: number,
  importMap: string,
): string[] {
  const writes = [dirs.work, dirs.tmp, ...grants.writePaths];
  return [
    deno,
    "run",
    "--no-prompt",
    "--no-config",
    "--no-lock",
    "--no-remote",
    "--no-npm",
    `--import-map=${importMap}`,
    `--allow-read=${denoReads(dirs, grants).join(",")}`,
    `--allow-write=${writes.join(",")}`,
    ...(grants.network ? ["--allow-net"] : []),
    ...(grants.env.length > 0 ? [`--allow-env=${grants.env.join(",")}`] : []),
    `--v8-flags=--max-old-space-size=${memoryMiB}`,
    script,
  ];
}
