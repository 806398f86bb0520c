/**
 * Run a TypeScript file of this repository as a child process under the
 * runtime running the tests (Node through tsx, Deno or Bun).
 *
 * @module
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { ROOT, RUNTIME } from "./_cli.ts";

/** The child script of the attack tests. */
export const CHILD = join(ROOT, "tests", "_child.ts");
const TSX = join(ROOT, "node_modules", "tsx", "dist", "loader.mjs");

function command(script: string, args: readonly string[]): [string, string[]] {
  switch (RUNTIME) {
    case "deno":
      return [process.execPath, [
        "run",
        "-A",
        `--config=${join(ROOT, "deno.json")}`,
        script,
        ...args,
      ]];
    case "bun":
      return [process.execPath, [script, ...args]];
    default:
      return [process.execPath, ["--import", pathToFileURL(TSX).href, script, ...args]];
  }
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
 * @param options Variables added to the environment; the user and group to run as.
 * @returns Its exit code (null if killed) and output.
 */
export function runChild(
  args: readonly string[],
  timeoutMs: number,
  options: { env?: Readonly<Record<string, string>>; uid?: number; gid?: number } = {},
): ChildResult {
  const [bin, all] = command(CHILD, args);
  const result = spawnSync(bin, all, {
    env: { ...process.env, ...options.env },
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
