/**
 * Where the CLI writes, and how it makes text safe and readable there: the
 * IO type, untrusted text made visible, bold, tables, and file names shown
 * as the user typed them.
 *
 * Folder `lib/cli/` — the command line behind `lib/cli.ts`: the command table, flags, output, config.
 *
 * @module
 */
import { isAbsolute, relative } from "node:path";
import process from "node:process";
import { writeStdout } from "./_closed_stdout.ts";

/** Where the CLI writes, and whether it may colour its output. */
export interface CliIO {
  /** Writes to standard output: the command's result. */
  readonly stdout: (text: string) => void;
  /** Writes to standard error: warnings, diagnostics and errors. */
  readonly stderr: (text: string) => void;
  /** Colour on: a TTY without `NO_COLOR`. */
  readonly color: boolean;
}

/**
 * This process's standard output and error.
 *
 * @returns The IO, with colour on for a TTY without `NO_COLOR`.
 */
export function processIO(): CliIO {
  const env = process.env;
  return {
    stdout: writeStdout,
    stderr: (text) => void process.stderr.write(text),
    color: process.stdout.isTTY === true &&
      (env["NO_COLOR"] === undefined || env["NO_COLOR"] === ""),
  };
}

/**
 * How files are named in output: relative to the working folder when every
 * path argument was typed relative, as the absolute path otherwise.
 *
 * @param argv The command line (the command first; flags are ignored).
 * @returns The naming function.
 */
export function shownAsTyped(argv: readonly string[]): (file: string) => string {
  const typedRelative = argv.slice(1).every((a) => a.startsWith("-") || !isAbsolute(a));
  return (file) => (typedRelative && isAbsolute(file) ? relative(".", file) || "." : file);
}

/**
 * Control, bidi and line-separator characters as `\u{…}`, so a name cannot rewrite the terminal.
 *
 * @param text Untrusted text.
 * @returns The text with those characters escaped.
 */
export function visible(text: string): string {
  return text.replace(
    // deno-lint-ignore no-control-regex
    /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`,
  );
}

/**
 * Rows as aligned columns, two spaces apart (the last column not padded).
 *
 * @param rows The cells, row by row.
 * @returns One line per row.
 */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, [...cell].length)));
  }
  return rows.map((row) =>
    row.map((
      cell,
      i,
    ) => (i === row.length - 1 ? cell : cell + " ".repeat(widths[i]! - [...cell].length))).join(
      "  ",
    )
  );
}

/**
 * Bold when the output may be coloured.
 *
 * @param text The text.
 * @param io Where it is written.
 * @returns The text, in bold if colour is on.
 */
export function bold(text: string, io: CliIO): string {
  return io.color ? `\x1b[1m${text}\x1b[0m` : text;
}
