/**
 * A closed standard output (`skillset outdated | head`) ends the command
 * quietly: the reader has gone, so there is no one to tell; exit 0, never a
 * stack trace. Node and Bun report the broken pipe as an `error` event on
 * the stream, Deno as an exception thrown by the write.
 *
 * Folder `lib/cli/` — the command line behind `lib/cli.ts`: the command table, flags, output, config.
 *
 * @module
 */
import process from "node:process";

/**
 * Whether an error says the other end of a pipe or socket has closed.
 *
 * @param e What was thrown or emitted.
 * @returns Whether it is `EPIPE` (or Deno's `BrokenPipe`).
 * @example
 * ```ts
 * import { assert } from "../core/_assert.ts";
 * import { isClosedPipe } from "./_closed_stdout.ts";
 *
 * assert.equal(isClosedPipe(Object.assign(new Error("write EPIPE"), { code: "EPIPE" })), true);
 * assert.equal(isClosedPipe(new Error("disk full")), false);
 * ```
 */
export function isClosedPipe(e: unknown): boolean {
  if (typeof e !== "object" || e === null) return false;
  const { code, name } = e as { code?: unknown; name?: unknown };
  return code === "EPIPE" || code === "ERR_STREAM_DESTROYED" || name === "BrokenPipe";
}

/** Exit quietly: the reader of standard output has gone. */
function leave(): never {
  process.exit(0);
}

/** Whether {@linkcode endQuietlyOnClosedStdout} has run. */
let installed = false;

/**
 * From now on, a closed standard output ends the process with exit code 0
 * and nothing on stderr (for the process running the CLI, not a library).
 */
export function endQuietlyOnClosedStdout(): void {
  if (installed) return;
  installed = true;
  process.stdout.on("error", (e: unknown) => {
    if (isClosedPipe(e)) leave();
    throw e;
  });
}

/**
 * Write to standard output; a write the closed pipe refuses at once (Deno) ends the process quietly.
 *
 * @param text What to write.
 */
export function writeStdout(text: string): void {
  try {
    process.stdout.write(text);
  } catch (e) {
    if (isClosedPipe(e)) leave();
    throw e;
  }
}
