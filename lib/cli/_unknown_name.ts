/**
 * One error for every name a user typed that names nothing known — a skill
 * in a modes file, `approve`, `remove` or `requires-skills`, a `--rank` or
 * `--lang` value, a config key — with up to three nearest names.
 *
 * Folder `lib/cli/` — the command line behind `lib/cli.ts`: the command table, flags, output, config.
 *
 * @module
 */
import { escapeControls as esc } from "../core/_text.ts";
import { UsageError } from "./_args.ts";
import { didYouMean } from "./_suggest.ts";

/**
 * The error for a name the user typed that names nothing known: one shape
 * for skills, modes, values and keys everywhere (exit 2):
 * `unknown skill "ppt" in modes.json (did you mean "pptx"?)`.
 *
 * @param kind What the name should be, e.g. `skill`, `--rank value`.
 * @param name What was typed.
 * @param candidates The known names.
 * @param where Where it was typed, e.g. `in modes.json`, when not on the command line.
 * @returns The error, to throw.
 * @example
 * ```ts
 * import { assert } from "../core/_assert.ts";
 * import { unknownName } from "./_unknown_name.ts";
 *
 * assert.equal(
 *   unknownName("skill", "ppt", ["pptx", "docx"], "in modes.json").message,
 *   'unknown skill "ppt" in modes.json (did you mean "pptx"?)',
 * );
 * assert.equal(unknownName("--rank value", "nme", ["name", "usage"]).message, 'unknown --rank value "nme" (did you mean "name"?)');
 * assert.equal(unknownName("--rank value", "hot", ["name", "usage"]).message, 'unknown --rank value "hot" (one of "name" or "usage")');
 * ```
 */
export function unknownName(
  kind: string,
  name: string,
  candidates: Iterable<string>,
  where?: string,
): UsageError {
  const known = [...candidates];
  let hint = didYouMean(name, known);
  // A short fixed list is worth naming whole when nothing is near.
  if (hint === "" && known.length > 0 && known.length <= 5) {
    const quoted = known.map((k) => esc(JSON.stringify(k)));
    hint = ` (one of ${quoted.slice(0, -1).join(", ")}${quoted.length > 1 ? " or " : ""}${
      quoted[quoted.length - 1]
    })`;
  }
  return new UsageError(
    `unknown ${kind} ${esc(JSON.stringify(name))}${where === undefined ? "" : ` ${where}`}${hint}`,
  );
}
