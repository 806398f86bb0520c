/**
 * What a command noticed, on stderr, the same way for every command: each
 * distinct finding once per run, errors always, warnings unless `--quiet`,
 * information only with `--verbose`; then one summary line counting every
 * finding — errors too — by severity and code. Commands that only use skills (`read`, `activate`, `to-prompt`,
 * `serve`) print the summary alone unless `--verbose`: a skill's rule
 * breaks are `validate`'s and `list`'s to show.
 *
 * Folder `lib/cli/` — the command line behind `lib/cli.ts`: the command table, flags, output, config.
 *
 * @module
 */
import type { Verbosity } from "./_args.ts";
import type { CliIO } from "./_io.ts";

/** How serious a finding is. */
export type Severity = "error" | "warning" | "info";

/** Collects a run's findings and prints each once. */
export class Report {
  readonly #stderr: (text: string) => void;
  readonly #lines: (text: string) => void;
  readonly #verbosity: Verbosity;
  readonly #detail: boolean;
  readonly #seen = new Set<string>();
  readonly #counts = new Map<Severity, Map<string, number>>();
  #hidden = 0;

  /**
   * @param io Where to write.
   * @param verbosity `--quiet`, `--verbose`, or neither.
   * @param detail Whether warnings are printed one by one without `--verbose` (validate, list).
   * @param lines Where the findings go (default: stderr; validate's go to stdout).
   */
  constructor(
    io: Pick<CliIO, "stderr">,
    verbosity: Verbosity,
    detail = false,
    lines: (text: string) => void = io.stderr,
  ) {
    this.#stderr = io.stderr;
    this.#lines = lines;
    this.#verbosity = verbosity;
    this.#detail = detail;
  }

  /**
   * One finding: printed the first time it is met, if the verbosity shows it.
   *
   * @param line The finding as one line, made safe for a terminal.
   * @param severity How serious.
   * @param code What it is about (counted in the summary), e.g. `UNKNOWN_FIELD`.
   */
  note(line: string, severity: Severity, code: string = severity): void {
    if (this.#seen.has(line)) return;
    this.#seen.add(line);
    const counts = this.#counts.get(severity) ?? new Map<string, number>();
    this.#counts.set(severity, counts.set(code, (counts.get(code) ?? 0) + 1));
    if (this.shows(severity)) this.#lines(`${line}\n`);
    else if (severity !== "error") this.#hidden++;
  }

  /**
   * Whether findings of a severity are printed one by one.
   *
   * @param severity How serious.
   * @returns Whether they are printed.
   */
  shows(severity: Severity): boolean {
    if (severity === "error") return true;
    if (this.#verbosity === "quiet") return false;
    if (this.#verbosity === "verbose") return true;
    return severity === "warning" && this.#detail;
  }

  /**
   * The summary: `prefix: 13 findings: 1 error (1 INVALID_NAME), 12 warnings (8 UNKNOWN_FIELD,
   * 4 GATED_REFERENCE)`, and how to see those not printed; nothing with `--quiet` or when there
   * is nothing to count but errors (each printed already).
   *
   * @param prefix What the line speaks for, e.g. `skillset`.
   * @param more Where the findings not printed can be seen.
   */
  summary(prefix = "skillset", more = "--verbose shows each"): void {
    if (this.#verbosity === "quiet" || this.#counts.size === 0) return;
    // Errors alone are printed one by one already: a count would only repeat them.
    if (this.#counts.size === 1 && this.#counts.has("error")) return;
    let total = 0;
    const parts: string[] = [];
    for (const severity of ["error", "warning", "info"] as const) {
      const counts = this.#counts.get(severity);
      if (counts === undefined) continue;
      const n = [...counts.values()].reduce((a, b) => a + b, 0);
      total += n;
      // A finding noted without a code is counted by its severity alone.
      const codes = [...counts].filter(([code]) => code !== severity)
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      const named = codes.map(([code, k]) => `${k} ${code}`).join(", ");
      parts.push(
        `${n} ${severity}${n === 1 || severity === "info" ? "" : "s"}${
          named === "" ? "" : ` (${named})`
        }`,
      );
    }
    const hint = this.#hidden > 0 ? `; ${more}` : "";
    this.#stderr(
      `${prefix}: ${total} finding${total === 1 ? "" : "s"}: ${parts.join(", ")}${hint}\n`,
    );
  }
}
