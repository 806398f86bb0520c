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
import type { Discovery } from "../../fs/discovery/discovery.ts";
import { UsageError } from "../_args.ts";
import { unknownName } from "../_unknown_name.ts";

/** The file each modes map was read from, for naming it in an error. */
const files = new WeakMap<object, string>();

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
  const modes = parseSkillModes(text, path);
  files.set(modes, path);
  return modes;
}

/**
 * Every skill a modes file names is one the roots hold: a typo
 * (`{ "modes": { "ppt": "disabled" } }` beside `pptx`) would otherwise leave
 * the skill it meant offered to the model, silently.
 *
 * @param modes The modes read by {@linkcode modesFlag}, if any.
 * @param discovery What discovery found, before any trust filter: a skill loaded, shadowed or
 *   left out for lack of tools is known.
 * @param also Other names known (the skill `activate` was given).
 * @throws {UsageError} For the first name that is none of them, with the nearest ones.
 */
export function assertModesNameSkills(
  modes: ReadonlyMap<string, SkillMode> | undefined,
  discovery: Discovery,
  also: readonly string[] = [],
): void {
  if (modes === undefined) return;
  const names = new Set([
    ...also,
    ...discovery.skills.map((s) => s.name),
    ...discovery.shadowed.map((s) => s.name),
    ...discovery.unavailable.map((h) => h.skill.name),
  ]);
  for (const name of modes.keys()) {
    if (!names.has(name)) {
      const file = files.get(modes);
      throw unknownName("skill", name, names, file === undefined ? undefined : `in ${esc(file)}`);
    }
  }
}
