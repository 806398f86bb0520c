/**
 * `--modes FILE`: the per-skill modes of `to-prompt` and `activate`, read
 * from a JSON file (`{ "modes": { "pdf": "pinned", "deploy": "manual" } }`).
 *
 * Folder `lib/cli/catalog/` — the commands that show skills: resolve, activate, list, search, stats.
 *
 * @module
 */
import { readFileSync, statSync } from "node:fs";
import { escapeControls as esc } from "../../core/_text.ts";
import {
  MAX_MODES_FILE_BYTES,
  parseSkillModes,
  type SkillMode,
  SkillModeError,
} from "../../core/catalog/skill_modes.ts";
import { UsageError } from "../_args.ts";

/**
 * The modes file of `--modes`, read and checked.
 *
 * @param path The flag's value, if given.
 * @returns The mode per skill name, or `undefined` without the flag.
 * @throws {UsageError} When the file is missing, not a file or unreadable.
 * @throws {SkillModeError} When it is too large or malformed (with its line and column).
 */
export function modesFlag(path: string | undefined): ReadonlyMap<string, SkillMode> | undefined {
  if (path === undefined) return undefined;
  let text: string;
  try {
    if (!statSync(path).isFile()) throw new UsageError(`--modes: "${esc(path)}" is not a file`);
    if (statSync(path).size > MAX_MODES_FILE_BYTES) {
      throw new SkillModeError(
        "TOO_LARGE",
        `The file is over ${MAX_MODES_FILE_BYTES} bytes`,
        path,
      );
    }
    text = readFileSync(path, "utf8");
  } catch (e) {
    if (e instanceof UsageError || e instanceof SkillModeError) throw e;
    throw new UsageError(
      `--modes: cannot read "${esc(path)}" (${esc(String((e as { code?: unknown }).code))})`,
    );
  }
  return parseSkillModes(text, path);
}
