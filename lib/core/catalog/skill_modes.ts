/**
 * Per-skill modes: how far each skill is offered to the model. `auto` (the
 * default) lets the budget decide; `pinned` is always listed with its whole
 * description, first; `name-only` is listed without a description; `manual`
 * is not offered to the model at all (not in the catalog, not in the skill
 * tool's enum or description) but the user or the host may still activate it
 * by name; `disabled` is nowhere. The host's modes win; a SKILL.md with
 * `disable-model-invocation: true` is `manual` unless the host says
 * otherwise. Pure: a modes file is read from its text.
 *
 * Folder `lib/core/catalog/` — the prompt catalog: budget, modes, usage ranking, requirements, dependencies.
 *
 * @module
 */
import { SkillsetError } from "../errors.ts";
import { quoteShort } from "../_text.ts";
import { type JsonNode, JsonSyntaxError, lineColumn, parseJsonNodes } from "../trust/_json.ts";

/** How far a skill is offered to the model. */
export type SkillMode = "auto" | "pinned" | "name-only" | "manual" | "disabled";

/** Every mode, from most offered to least. */
export const SKILL_MODES: readonly SkillMode[] = Object.freeze([
  "pinned",
  "auto",
  "name-only",
  "manual",
  "disabled",
]);

/** The host's mode per skill name: a map, or a function (`undefined`: no say). */
export type SkillModes = ReadonlyMap<string, SkillMode> | ((name: string) => SkillMode | undefined);

/** A skill as {@linkcode skillMode} reads it: its name and, when it has one, its frontmatter. */
export interface ModedSkill {
  /** The skill's name. */
  readonly name: string;
  /** Its frontmatter: `disable-model-invocation: true` makes it `manual`. */
  readonly frontmatter?: { readonly "disable-model-invocation"?: boolean };
}

/** The largest modes file read: 1 MiB. */
export const MAX_MODES_FILE_BYTES = 1 << 20;

/** The codes of {@linkcode SkillModeError}. */
export type SkillModeCode =
  /** A modes file over {@linkcode MAX_MODES_FILE_BYTES}. */
  | "TOO_LARGE"
  /** A modes file that is not JSON. */
  | "INVALID_JSON"
  /** A modes file whose shape is wrong, or that names a mode that does not exist. */
  | "INVALID_FIELD"
  /** A skill named while its mode is `disabled`. */
  | "SKILL_DISABLED";

/**
 * A modes file that cannot be used (with its file, line and column), or a
 * skill named while it is disabled.
 *
 * @example
 * ```ts
 * import { parseSkillModes, SkillModeError } from "./skill_modes.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.throws(() => parseSkillModes('{\n  "modes": { "pdf": "pined" }\n}', "modes.json"), {
 *   name: "SkillModeError",
 *   message: 'modes.json:2:21: The mode of "pdf" must be one of pinned, auto, name-only, manual, disabled, not "pined" (did you mean "pinned"?)',
 * });
 * assert.ok(new SkillModeError("SKILL_DISABLED", 'Skill "pdf" is disabled') instanceof Error);
 * ```
 */
export class SkillModeError extends SkillsetError {
  /** Always `"SkillModeError"`. */
  override readonly name = "SkillModeError";
  /** Which condition failed. */
  readonly code: SkillModeCode;
  /** The modes file, as the caller named it (absent for `SKILL_DISABLED`). */
  readonly file: string | undefined;
  /** The 1-based line, when the problem is at a place in the file. */
  readonly line: number | undefined;
  /** The 1-based column, with `line`. */
  readonly column: number | undefined;

  /**
   * Describe an unusable modes file, or a disabled skill that was named.
   *
   * @param code Which condition failed.
   * @param reason What is wrong (capitalised, no final period).
   * @param file The modes file, when the problem is in one.
   * @param at Line and column, when known.
   */
  constructor(
    code: SkillModeCode,
    reason: string,
    file?: string,
    at?: { readonly line: number; readonly column: number },
  ) {
    super(
      file === undefined
        ? reason
        : `${file}${at === undefined ? "" : `:${at.line}:${at.column}`}: ${reason}`,
    );
    this.code = code;
    this.file = file;
    this.line = at?.line;
    this.column = at?.column;
  }
}

/**
 * A skill's mode: the host's, else `manual` when its frontmatter says
 * `disable-model-invocation: true`, else `auto`.
 *
 * @param skill The skill's name and frontmatter.
 * @param modes The host's modes, if any.
 * @returns The mode.
 * @throws {RangeError} When the host's mode for it is not one of {@linkcode SKILL_MODES}.
 * @example
 * ```ts
 * import { skillMode } from "./skill_modes.ts";
 * import { assert } from "../_assert.ts";
 *
 * const deploy = { name: "deploy", frontmatter: { "disable-model-invocation": true } };
 * assert.equal(skillMode(deploy), "manual");
 * assert.equal(skillMode(deploy, new Map([["deploy", "auto"]])), "auto");
 * assert.equal(skillMode({ name: "pdf" }, () => undefined), "auto");
 * ```
 */
export function skillMode(skill: ModedSkill, modes?: SkillModes): SkillMode {
  if (modes !== undefined) {
    const mode = typeof modes === "function" ? modes(skill.name) : modes.get(skill.name);
    if (mode !== undefined) {
      if (!SKILL_MODES.includes(mode)) {
        throw new RangeError(
          `The mode of ${quoteShort(skill.name)} must be one of ${SKILL_MODES.join(", ")}, got ${
            quoteShort(String(mode))
          }`,
        );
      }
      return mode;
    }
  }
  return skill.frontmatter?.["disable-model-invocation"] === true ? "manual" : "auto";
}

/**
 * Read a modes file: a JSON object whose `modes` member maps skill names to
 * modes (`$schema` is allowed beside it). Strict: any other member, a mode
 * that does not exist, a name given twice or text that is not JSON is refused
 * with the line and column.
 *
 * @param text The file's text.
 * @param file The file's name, for errors.
 * @returns The mode per name, in the file's order.
 * @throws {SkillModeError} `TOO_LARGE`, `INVALID_JSON` or `INVALID_FIELD`.
 * @example
 * ```ts
 * import { parseSkillModes } from "./skill_modes.ts";
 * import { assert } from "../_assert.ts";
 *
 * const modes = parseSkillModes('{ "modes": { "pdf": "pinned", "deploy": "manual" } }', "modes.json");
 * assert.deepEqual([...modes], [["pdf", "pinned"], ["deploy", "manual"]]);
 * ```
 */
export function parseSkillModes(text: string, file: string): ReadonlyMap<string, SkillMode> {
  if (typeof text !== "string" || typeof file !== "string") {
    throw new TypeError("parseSkillModes(text, file) takes two strings");
  }
  const fail = (code: SkillModeCode, offset: number, reason: string): SkillModeError =>
    new SkillModeError(code, reason, file, lineColumn(text, offset));
  if (text.length > MAX_MODES_FILE_BYTES) {
    throw new SkillModeError(
      "TOO_LARGE",
      `The file is over ${MAX_MODES_FILE_BYTES} bytes`,
      file,
    );
  }
  let root: JsonNode;
  try {
    root = parseJsonNodes(text);
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    throw fail("INVALID_JSON", e.offset, `Not valid JSON: ${e.message}`);
  }
  if (root.kind !== "object") {
    throw fail("INVALID_FIELD", root.offset, 'The file must hold an object like { "modes": {} }');
  }
  for (const [key, member] of root.entries) {
    if (key === "$schema" && member.node.kind === "string") continue;
    if (key !== "modes") {
      throw fail(
        "INVALID_FIELD",
        member.keyOffset,
        `Unknown field ${quoteShort(key)} (known: $schema, modes)`,
      );
    }
  }
  const modes = root.entries.get("modes");
  if (modes === undefined) throw fail("INVALID_FIELD", root.offset, 'Missing field "modes"');
  if (modes.node.kind !== "object") {
    throw fail(
      "INVALID_FIELD",
      modes.node.offset,
      'Field "modes" must be an object of skill names and modes',
    );
  }
  const out = new Map<string, SkillMode>();
  for (const [name, member] of modes.node.entries) {
    const node = member.node;
    if (name === "") {
      throw fail("INVALID_FIELD", member.keyOffset, "A skill name must not be empty");
    }
    if (node.kind !== "string" || !SKILL_MODES.includes(node.value as SkillMode)) {
      const got = node.kind === "string" ? quoteShort(node.value) : `a ${node.kind}`;
      const near = node.kind === "string" ? nearMode(node.value) : undefined;
      throw fail(
        "INVALID_FIELD",
        node.offset,
        `The mode of ${quoteShort(name)} must be one of ${SKILL_MODES.join(", ")}, not ${got}${
          near === undefined ? "" : ` (did you mean "${near}"?)`
        }`,
      );
    }
    out.set(name, node.value as SkillMode);
  }
  return out;
}

/** The mode a mistyped one most likely meant: same letters but one, or a prefix. */
function nearMode(value: string): SkillMode | undefined {
  const v = value.toLowerCase().replace(/[_ ]/g, "-");
  return SKILL_MODES.find((m) => m === v || (v.length >= 3 && m.startsWith(v))) ??
    SKILL_MODES.find((m) => oneEditApart(m, v));
}

function oneEditApart(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) return a.slice(i + 1) === b.slice(i + 1);
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}
