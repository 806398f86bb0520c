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

/**
 * Why a child run as `uid`/`gid` could not run `tests/_child.ts` and read
 * `paths` (its checkout may sit in a folder only its owner can enter, such as
 * a clone under a 0700 temporary folder), or null when it can. Checked by
 * running the runtime itself as that user.
 *
 * @param uid The user to run as.
 * @param gid The group to run as.
 * @param paths What else the child must read (the test's own folders).
 * @returns The reason to skip, or null.
 */
export function unreadableBy(
  uid: number,
  gid: number,
  paths: readonly string[] = [],
): string | null {
  const needed = [CHILD, TSX, ...paths];
  const probe = `import("node:fs").then((fs) => { for (const p of ${
    JSON.stringify(needed)
  }) fs.accessSync(p, 4); })`;
  const args = RUNTIME === "deno" ? ["eval", probe] : ["-e", probe];
  const result = spawnSync(process.execPath, args, { uid, gid, encoding: "utf8", timeout: 30_000 });
  if (result.status === 0) return null;
  const why = `${result.error?.message ?? ""}\n${result.stderr ?? ""}`.split("\n")
    .find((l) => /EACCES|denied/i.test(l))?.trim() ?? `exit ${result.status}`;
  return `user ${uid} cannot read what the child needs (${why}): the checkout is in a folder that user cannot enter`;
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
