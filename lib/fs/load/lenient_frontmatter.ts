/**
 * The lenient reading of Agent Skills frontmatter: a skill is given up only
 * when its frontmatter is not a mapping or has no description; every other
 * rule break is kept as a problem and the skill loads. The rules themselves
 * are {@linkcode validateAgentSkillFrontmatter}'s: this module asks it, and
 * repairs or sets aside the field it names until it passes.
 *
 * Folder `lib/fs/load/` — loading one skill folder: verified listings, SKILL.md and YAML, catalog files.
 *
 * @module
 */
import {
  type AgentSkillFrontmatter,
  agentSkillNameProblem,
  frontmatterKey,
  validateAgentSkillFrontmatter,
} from "../../core/activation/agent_skill.ts";
import { AgentSkillError, type SourceLocation } from "../../core/errors.ts";

/** A rule break the lenient reading passed over. */
export interface FrontmatterProblem {
  /** The diagnostic code it becomes. */
  readonly code: "FRONTMATTER_RULE" | "UNKNOWN_FIELD" | "NAME_MISMATCH";
  /** The strict reading's error, with its location. */
  readonly error: AgentSkillError;
}

/** The lenient reading's result. */
export interface LenientFrontmatter {
  /** The frontmatter, with what was kept and without what was set aside. */
  readonly frontmatter: AgentSkillFrontmatter;
  /** Every rule break passed over, in the order the strict reading met them. */
  readonly problems: readonly FrontmatterProblem[];
}

const KNOWN = new Set([
  "name",
  "description",
  "license",
  "compatibility",
  "metadata",
  "allowed-tools",
  "disable-model-invocation",
  "paths",
]);
/** Fields whose over-long or otherwise broken string value is kept as it is. */
const KEPT = new Set(["name", "description", "compatibility"]);
/** A value every string rule accepts, standing in while the others are checked. */
const STAND_IN = "x";
/** A name the name rule accepts. */
const STAND_IN_NAME = "x";

/**
 * Read frontmatter leniently. Kept as written (with a problem): a `name` that
 * breaks the name rule or differs from the folder, and a `description` or
 * `compatibility` of the wrong length. A missing `name` becomes the folder
 * name. Set aside (with a problem): unknown fields and fields of the wrong type.
 *
 * @param data The parsed frontmatter.
 * @param folder The skill folder's name, or `undefined` when there is none.
 * @param locate Maps a field to its location, for the problems.
 * @param options `all: true` reports a missing or broken description as a
 *   problem too (with the value kept as written, or empty), so every rule
 *   break is listed — for validation, not for loading.
 * @returns The frontmatter (frozen) and every problem passed over, in order.
 * @throws {AgentSkillError} When the skill cannot be loaded: the frontmatter is
 *   not a mapping, the description is missing, empty or not a string, or there
 *   is neither a `name` nor a folder to name the skill after.
 * @example
 * ```ts
 * import { validateFrontmatterLeniently } from "./lenient_frontmatter.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * const { frontmatter, problems } = validateFrontmatterLeniently(
 *   { name: "pdf", description: "Fill PDF forms", colour: "red" },
 *   "pdf-tools",
 * );
 * assert.deepEqual(frontmatter, { name: "pdf", description: "Fill PDF forms" });
 * assert.deepEqual(problems.map((p) => p.code), ["UNKNOWN_FIELD", "NAME_MISMATCH"]);
 * assert.throws(() => validateFrontmatterLeniently({ name: "pdf" }, "pdf"), {
 *   message: 'Invalid SKILL.md at description: missing required field "description"',
 * });
 * ```
 */
export function validateFrontmatterLeniently(
  data: unknown,
  folder?: string,
  locate?: (field: string) => SourceLocation | undefined,
  options: { readonly all?: boolean } = {},
): LenientFrontmatter {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return { frontmatter: validateAgentSkillFrontmatter(data, folder, locate), problems: [] };
  }
  const doc = new Map<string, unknown>(Object.entries(data));
  const kept = new Map<string, string>();
  const problems: FrontmatterProblem[] = [];
  let checkFolder = folder;
  // Each round sets aside or stands in for the field the strict reading named, so
  // it ends after at most two rounds per field.
  for (;;) {
    let frontmatter: AgentSkillFrontmatter;
    try {
      frontmatter = validateAgentSkillFrontmatter(Object.fromEntries(doc), checkFolder, locate);
    } catch (e) {
      if (!(e instanceof AgentSkillError)) throw e;
      const field = frontmatterKey(e.field, (key) => doc.has(key));
      const value = doc.get(field);
      const text = typeof value === "string" && value !== "" ? value : undefined;
      if (field === "name") {
        if (text === undefined && folder === undefined) throw e;
        kept.set("name", (text ?? folder!).normalize("NFKC"));
        const mismatch = text !== undefined && agentSkillNameProblem(text) === null;
        problems.push({ code: mismatch ? "NAME_MISMATCH" : "FRONTMATTER_RULE", error: e });
        doc.set("name", STAND_IN_NAME);
        checkFolder = undefined;
      } else if (KEPT.has(field) && text !== undefined) {
        kept.set(field, text);
        problems.push({ code: "FRONTMATTER_RULE", error: e });
        doc.set(field, STAND_IN);
      } else if (field === "description") {
        if (options.all !== true) throw e;
        // Reporting every rule break (validate): a stand-in keeps the others coming.
        problems.push({ code: "FRONTMATTER_RULE", error: e });
        kept.set("description", text ?? "");
        doc.set("description", STAND_IN);
      } else {
        doc.delete(field);
        problems.push({ code: KNOWN.has(field) ? "FRONTMATTER_RULE" : "UNKNOWN_FIELD", error: e });
      }
      continue;
    }
    const out: Record<string, unknown> = { ...frontmatter };
    for (const [field, value] of kept) out[field] = value;
    return { frontmatter: Object.freeze(out) as unknown as AgentSkillFrontmatter, problems };
  }
}
