/**
 * Flag values shared by the command line's two halves (`lib/cli.ts` and the
 * MCP commands in `lib/_mcp_cli.ts`): the usage error and the two value kinds.
 * Values are quoted with their control characters escaped, since they are
 * printed to a terminal.
 *
 * @module
 */
import { escapeControls as esc } from "./_text.ts";

/** Bad usage: exit code 2. */
export class UsageError extends Error {
  /** Always `"UsageError"`. */
  override readonly name = "UsageError";
}

/**
 * A `true|false` flag; absent means true (both safety switches default to on).
 *
 * @param flags The flags given, by name.
 * @param name The flag, e.g. `--global-safety`.
 * @returns Its value.
 * @throws {UsageError} When the value is neither `true` nor `false`.
 */
export function bool(flags: ReadonlyMap<string, string>, name: string): boolean {
  const value = flags.get(name);
  if (value === undefined || value === "true") return true;
  if (value === "false") return false;
  throw new UsageError(`${name} takes true or false, got "${esc(value)}"`);
}

/**
 * A whole-number flag.
 *
 * @param flags The flags given, by name.
 * @param name The flag, e.g. `--limit`.
 * @param min The least value allowed.
 * @returns Its value, or `undefined` when absent.
 * @throws {UsageError} When the value is not a safe whole number of at least `min`.
 */
export function count(
  flags: ReadonlyMap<string, string>,
  name: string,
  min: number,
): number | undefined {
  const value = flags.get(name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
    throw new UsageError(`${name} takes a whole number of at least ${min}, got "${esc(value)}"`);
  }
  return Number(value);
}
