/**
 * Run a TypeScript file of this repository as a child process under the
 * runtime running the tests (Node through tsx, Deno or Bun).
 *
 * @module
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { ROOT, RUNTIME } from "./_cli.ts";

/** The child script of the attack tests. */
export const CHILD = join(ROOT, "tests", "_child.ts");
const TSX = join(ROOT, "node_modules", "tsx", "dist", "loader.mjs");

function command(
  script: string,
  args: readonly string[],
  binary: string = process.execPath,
): [string, string[]] {
  switch (RUNTIME) {
    case "deno":
      return [binary, [
        "run",
        "-A",
        `--config=${join(ROOT, "deno.json")}`,
        script,
        ...args,
      ]];
    case "bun":
      return [binary, [script, ...args]];
    default:
      return [binary, ["--import", pathToFileURL(TSX).href, script, ...args]];
  }
}

/**
 * Why the runtime running the tests, run as `uid`/`gid`, cannot start or
 * cannot read `paths`, or null when it can. Checked by running it as that
 * user.
 *
 * @param uid The user to run as.
 * @param gid The group to run as.
 * @param paths What the child must read.
 * @returns The reason, or null.
 */
export function unreadableBy(
  uid: number,
  gid: number,
  paths: readonly string[] = [],
): string | null {
  const probe = `import("node:fs").then((fs) => { for (const p of ${
    JSON.stringify(paths)
  }) fs.accessSync(p, 4); })`;
  const args = RUNTIME === "deno" ? ["eval", probe] : ["-e", probe];
  const result = spawnSync(process.execPath, args, {
    uid,
    gid,
    cwd: tmpdir(),
    encoding: "utf8",
    timeout: 30_000,
  });
  if (result.status === 0) return null;
  const why = `${result.error?.message ?? ""}\n${result.stderr ?? ""}`.split("\n")
    .find((l) => /EACCES|denied/i.test(l))?.trim() ??
    `it exited with ${result.status ?? result.signal ?? "no status: it could not start"}`;
  return `user ${uid} cannot run ${RUNTIME} or read ${paths.join(", ")} (${why})`;
}

let staged: string | undefined;

/**
 * `tests/_child.ts` bundled (with its dependencies) into one file in a
 * temporary folder anyone can read, made once per process and removed at
 * exit: for a child run as another user when that user cannot enter the
 * checkout (a clone under a 0700 temporary folder, as CI may make).
 */
function stagedChild(): string {
  if (staged !== undefined) return staged;
  const dir = mkdtempSync(join(tmpdir(), "skillset-child-"));
  chmodSync(dir, 0o755);
  const out = join(dir, "child.mjs");
  const built = spawnSync(join(ROOT, "node_modules", ".bin", "esbuild"), [
    CHILD,
    "--bundle",
    "--platform=node",
    "--format=esm",
    "--log-level=error",
    `--outfile=${out}`,
    "--banner:js=import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  ], { encoding: "utf8", timeout: 120_000 });
  if (built.status !== 0) {
    throw new Error(`Bundling ${CHILD} failed: ${built.error?.message ?? built.stderr}`);
  }
  chmodSync(out, 0o644);
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  staged = out;
  return out;
}

/** What a child printed, and how it ended (`code` is null when the timeout killed it). */
export interface ChildResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Run `tests/_child.ts` with `args` and wait at most `timeoutMs`.
 *
 * @param args The mode and its arguments.
 * @param timeoutMs The child is killed after this long.
 * @param options Variables added to the environment; the user and group to run as; another
 *   binary of the runtime running the tests (a copy elsewhere) to run it with.
 * @returns Its exit code (null if killed) and output.
 */
export function runChild(
  args: readonly string[],
  timeoutMs: number,
  options: {
    env?: Readonly<Record<string, string>>;
    uid?: number;
    gid?: number;
    binary?: string;
  } = {},
): ChildResult {
  // Run as another user who cannot read the checkout: the bundled child, from a folder it can.
  const stage = options.uid !== undefined &&
    unreadableBy(options.uid, options.gid ?? options.uid, [CHILD, TSX]) !== null;
  const [bin, all] = stage
    ? [
      process.execPath,
      RUNTIME === "deno" ? ["run", "-A", stagedChild(), ...args] : [stagedChild(), ...args],
    ]
    : command(CHILD, args, options.binary);
  const result = spawnSync(bin, all, {
    env: { ...process.env, ...options.env },
    ...(stage ? { cwd: tmpdir() } : {}),
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid }),
    encoding: "utf8",
    timeout: timeoutMs,
    killSignal: "SIGKILL",
  });
  return { code: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

/**
 * Start `tests/_child.ts` with `args` without waiting.
 *
 * @param args The mode and its arguments.
 * @returns The child process.
 */
export function startChild(args: readonly string[]): ChildProcess {
  const [bin, all] = command(CHILD, args);
  return spawn(bin, all, { stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * The first thing a started child prints (it signals readiness).
 *
 * @param child A child from {@linkcode startChild}.
 * @returns Its first stdout chunk; rejects with its stderr when it ends first.
 */
export function firstOutput(child: ChildProcess): Promise<string> {
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += String(d)));
  return new Promise((resolve, reject) => {
    child.stdout!.once("data", (d) => resolve(String(d)));
    child.once("exit", (code) => reject(new Error(`child ended (${code}): ${stderr}`)));
  });
}

/**
 * Wait for a child to end.
 *
 * @param child A child process.
 * @returns Its exit code (null when a signal ended it).
 */
export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}
