/**
 * A failed command on stderr, the same for the synchronous, MCP and trust
 * commands: a usage error exits 2, any other failure 1, each as one clear
 * line with its file named as typed.
 *
 * Folder `lib/cli/` — the command line behind `lib/cli.ts`: the command table, flags, output, config.
 *
 * @module
 */
import { escapeControls as esc, escapeControlsKeepingLines } from "../core/_text.ts";
import {
  AgentSkillError,
  ExecutionError,
  formatLocation,
  InvalidResourcePathError,
  ResourceNotFoundError,
  SkillDefinitionError,
  SkillResolutionError,
  withoutLocation,
} from "../core/errors.ts";
import { type CliIO, shownAsTyped } from "./_io.ts";

/** A did-you-mean for an error, said after it (see {@linkcode withHint}). */
const hints = new WeakMap<object, string>();

/**
 * Add a hint to an error, printed at the end of its line: ` (did you mean "x"?)`.
 *
 * @param e The error.
 * @param hint The hint, starting with a space; nothing when empty.
 * @returns The error.
 */
export function withHint<E extends object>(e: E, hint: string): E {
  if (hint !== "") hints.set(e, hint);
  return e;
}

/**
 * Report a failed command on stderr.
 *
 * @param e What was thrown.
 * @param argv The command line, for naming files as typed.
 * @param io Where to write.
 * @returns The exit code: 2 for a usage error, 1 for any other failure.
 */
export function failed(e: unknown, argv: readonly string[], io: CliIO): number {
  // By name: the MCP and trust halves are imported on demand, their UsageError is the same class.
  if ((e as Error)?.name === "UsageError") {
    io.stderr(`skillset: ${escapeControlsKeepingLines((e as Error).message)}\n`);
    return 2;
  }
  const hint = typeof e === "object" && e !== null ? hints.get(e) ?? "" : "";
  io.stderr(`${describeError(e, io, shownAsTyped(argv))}${esc(hint)}\n`);
  return 1;
}

/** Errors of this module and of the file system, reported without a stack trace. */
function isExpected(e: unknown): boolean {
  return e instanceof Error && typeof (e as { code?: unknown }).code === "string";
}

/**
 * The error as one clear line: `file:line:col: error: message` when it has a
 * place, else `skillset: error: message` (or `<subject>: error: message`);
 * files named as typed, control characters escaped.
 *
 * @param e What was thrown.
 * @param io Where it is written (for colour).
 * @param shown How a file is named.
 * @param subject What the line speaks for when the error has no place.
 * @returns The line, without a line break.
 */
function describeError(
  e: unknown,
  io: CliIO,
  shown: (file: string) => string,
  subject = "skillset",
): string {
  const label = `${esc(subject)}: ${io.color ? "\x1b[31merror:\x1b[0m" : "error:"}`;
  if (e instanceof SkillDefinitionError || e instanceof AgentSkillError) {
    if (e.location === undefined) return `${label} ${esc(e.message)}`;
    const location = { ...e.location, file: esc(shown(e.location.file)) };
    const error = io.color ? "\x1b[31merror:\x1b[0m" : "error:";
    return `${formatLocation(location)}: ${error} ${esc(withoutLocation(e.message, e.location))}`;
  }
  if (
    e instanceof SkillResolutionError || e instanceof ExecutionError ||
    e instanceof InvalidResourcePathError || e instanceof ResourceNotFoundError ||
    e instanceof RangeError
  ) {
    return `${label} ${esc(e.message)}`;
  }
  if (isExpected(e)) return `${label} ${esc((e as Error).message)}`;
  return `${label} internal error: ${esc(e instanceof Error ? e.message : String(e))}`;
}
