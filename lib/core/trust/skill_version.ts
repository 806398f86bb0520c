/**
 * A skill's version as its SKILL.md states it: `metadata.version` (the
 * Agent Skills specification's place for it), or else a top-level `version`
 * (outside the specification, read leniently: a string or a number). It is
 * recorded in lock entries and shown by `list --json`, `outdated` and
 * `update --preview`; it never decides anything (the digest does).
 *
 * Folder `lib/core/trust/` — trust as data: digests, manifests, lockfiles, approvals, pins, SSH signatures.
 *
 * @module
 */

/** The longest version recorded, in characters. */
export const MAX_VERSION_LENGTH = 64;

/** Control, format (bidirectional, zero-width), separator and unassigned characters. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cn}\p{Cs}]/u;

/**
 * Whether a text may stand as a version: 1 to 64 characters, no white space
 * at either end, nothing that could drive or mislead a terminal.
 *
 * @param text A candidate version.
 * @returns Whether it is one.
 * @example
 * ```ts
 * import { isSkillVersion } from "./skill_version.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(isSkillVersion("1.2.0"), true);
 * assert.equal(isSkillVersion("1.0\u001b[31m"), false);
 * assert.equal(isSkillVersion(" 1.0"), false);
 * ```
 */
export function isSkillVersion(text: unknown): text is string {
  return typeof text === "string" && text !== "" && [...text].length <= MAX_VERSION_LENGTH &&
    text.trim() === text && !UNPRINTABLE.test(text);
}

/**
 * The version a SKILL.md's frontmatter states: `metadata.version`, else a
 * top-level `version` (a string, or a finite number written as JavaScript
 * writes it); `undefined` when neither is a usable version
 * ({@linkcode isSkillVersion}). Never throws: frontmatter is untrusted.
 *
 * @param frontmatter The parsed frontmatter, before or after validation.
 * @returns The version, or `undefined`.
 * @example
 * ```ts
 * import { skillVersion } from "./skill_version.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(skillVersion({ name: "pdf", metadata: { version: "2.1.0" } }), "2.1.0");
 * assert.equal(skillVersion({ name: "pdf", version: 3 }), "3");
 * assert.equal(skillVersion({ name: "pdf", metadata: { version: "" }, version: "1.0" }), "1.0");
 * assert.equal(skillVersion({ name: "pdf" }), undefined);
 * ```
 */
export function skillVersion(frontmatter: unknown): string | undefined {
  if (typeof frontmatter !== "object" || frontmatter === null) return undefined;
  const doc = frontmatter as Readonly<Record<string, unknown>>;
  const metadata = Object.hasOwn(doc, "metadata") ? doc["metadata"] : undefined;
  if (typeof metadata === "object" && metadata !== null && Object.hasOwn(metadata, "version")) {
    const stated = (metadata as Readonly<Record<string, unknown>>)["version"];
    if (isSkillVersion(stated)) return stated;
  }
  const top = Object.hasOwn(doc, "version") ? doc["version"] : undefined;
  const text = typeof top === "number" && Number.isFinite(top) ? String(top) : top;
  return isSkillVersion(text) ? text : undefined;
}
