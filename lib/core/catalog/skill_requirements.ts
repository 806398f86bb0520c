/**
 * Skill requirements: a skill may say in its `metadata` which other skills it
 * needs — `requires-skills: "pdf forms"` (all of them) and
 * `requires-any-skills: "xlsx csv"` (at least one) — as names separated by
 * white space (the Agent Skills specification keeps `metadata` values
 * strings), each a valid Agent Skill name. This file reads those values and
 * holds the error every dependency check throws, with the sentences its
 * messages (and discovery's diagnostics) are made of; resolving them is
 * `skill_dependencies.ts`.
 *
 * Folder `lib/core/catalog/` — the prompt catalog: budget, modes, usage ranking, requirements, dependencies.
 *
 * @module
 */
import { agentSkillNameProblem } from "../activation/agent_skill.ts";
import { SkillsetError } from "../errors.ts";

/** The metadata key naming the skills a skill needs, all of them. */
export const REQUIRES_SKILLS = "requires-skills";
/** The metadata key naming skills of which a skill needs one. */
export const REQUIRES_ANY_SKILLS = "requires-any-skills";

/** What a skill declares it needs (frozen). */
export interface SkillRequirements {
  /** Every one of these (`requires-skills`), in order, each once, NFKC-normalised. */
  readonly all: readonly string[];
  /** At least one of these (`requires-any-skills`), in order, each once; empty for none. */
  readonly any: readonly string[];
}

/** The codes of {@linkcode SkillDependencyError}. */
export type SkillDependencyCode = "INVALID_DEPENDENCY" | "MISSING_DEPENDENCY" | "DEPENDENCY_CYCLE";

/** A skill of a closure that lacks dependencies, or whose requirements do not parse (frozen). */
export interface DependencyGap {
  /** The skill. */
  readonly skill: string;
  /** Its `requires-skills` names no skill available to it provides, in order. */
  readonly missing: readonly string[];
  /** Its whole `requires-any-skills` list when no alternative is available; otherwise empty. */
  readonly missing_any: readonly string[];
  /**
   * Skills of another origin that carry a missing name (`docs:ledger`), in code-unit
   * order: they would do, but the host does not let this skill cross origins.
   */
  readonly elsewhere: readonly string[];
  /** When a requirement could not be read: the parser's message. */
  readonly problem?: string;
}

/**
 * A dependency requirement that does not parse (`INVALID_DEPENDENCY`), a skill
 * that cannot activate because its dependency closure lacks a skill
 * (`MISSING_DEPENDENCY`), or one whose dependencies lead back to a skill on
 * the way (`DEPENDENCY_CYCLE`).
 */
export class SkillDependencyError extends SkillsetError {
  /** Always `"SkillDependencyError"`. */
  override readonly name = "SkillDependencyError";
  /** Which condition failed. */
  readonly code: SkillDependencyCode;
  /** The skill that cannot activate; `null` for `INVALID_DEPENDENCY` read without one. */
  readonly skill: string | null;
  /** `INVALID_DEPENDENCY`: the metadata key (`requires-skills`); otherwise `null`. */
  readonly key: string | null;
  /** `INVALID_DEPENDENCY`: the 1-based column in the value (characters); otherwise 0. */
  readonly column: number;
  /** `MISSING_DEPENDENCY`: each skill of the closure that lacks dependencies, in closure order. */
  readonly gaps: readonly DependencyGap[];
  /** `DEPENDENCY_CYCLE`: the cycle, its first name repeated at its end; otherwise empty. */
  readonly path: readonly string[];

  /**
   * Describe a failed dependency check.
   *
   * @param code Which condition failed.
   * @param message The whole message.
   * @param details The skill, the key and column, the gaps or the cycle.
   */
  constructor(
    code: SkillDependencyCode,
    message: string,
    details: {
      readonly skill?: string;
      readonly key?: string;
      readonly column?: number;
      readonly gaps?: readonly DependencyGap[];
      readonly path?: readonly string[];
    } = {},
  ) {
    super(message);
    this.code = code;
    this.skill = details.skill ?? null;
    this.key = details.key ?? null;
    this.column = details.column ?? 0;
    this.gaps = Object.freeze([...(details.gaps ?? [])]);
    this.path = Object.freeze([...(details.path ?? [])]);
  }
}

/**
 * Read a skill's dependency requirements from its frontmatter metadata.
 *
 * The grammar is strict: names separated by white space, each a valid Agent
 * Skill name (1–64 lowercase letters, digits and single hyphens, compared
 * NFKC-normalised); a name listed twice counts once. An empty value declares
 * nothing. A comma is refused (the names are separated by spaces, as the
 * specification keeps the value one string), so `"pdf, forms"` is an error,
 * never the name `pdf,`.
 *
 * @param metadata The frontmatter's `metadata` (absent: no requirement).
 * @returns The required skills.
 * @throws {SkillDependencyError} `INVALID_DEPENDENCY` when a value breaks the
 *   grammar; the message names the key and the column in its value.
 * @example
 * ```ts
 * import { skillRequirements } from "./skill_requirements.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.deepEqual(
 *   skillRequirements({ "requires-skills": "pdf  forms pdf", "requires-any-skills": "xlsx csv" }),
 *   { all: ["pdf", "forms"], any: ["xlsx", "csv"] },
 * );
 * assert.throws(() => skillRequirements({ "requires-skills": "pdf, forms" }), {
 *   name: "SkillDependencyError",
 *   message: "Invalid metadata.requires-skills at column 4: a comma; skill names are separated by spaces",
 * });
 * ```
 */
export function skillRequirements(
  metadata: Readonly<Record<string, string>> | undefined,
): SkillRequirements {
  return Object.freeze({
    all: readNames(metadata, REQUIRES_SKILLS),
    any: readNames(metadata, REQUIRES_ANY_SKILLS),
  });
}

/**
 * Whether the metadata names any skill requirement (cheap: no parsing).
 *
 * @param metadata The frontmatter's `metadata`.
 * @returns `true` when either key is present.
 */
export function declaresSkillRequirements(
  metadata: Readonly<Record<string, string>> | undefined,
): boolean {
  return metadata !== undefined && metadata !== null &&
    (Object.hasOwn(metadata, REQUIRES_SKILLS) || Object.hasOwn(metadata, REQUIRES_ANY_SKILLS));
}

/** A valid ASCII name: the common case, decided without normalising. */
const PLAIN_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** A run of characters that are not white space: a candidate name. */
const WORD = /\S+/gu;

function readNames(
  metadata: Readonly<Record<string, string>> | undefined,
  key: string,
): readonly string[] {
  if (metadata === undefined || metadata === null || !Object.hasOwn(metadata, key)) {
    return Object.freeze([]);
  }
  const value: unknown = metadata[key];
  if (typeof value !== "string") {
    throw invalid(key, 1, `must be a string of skill names, got ${typeof value}`);
  }
  return Object.freeze(plainNames(value) ?? checkedNames(value, key));
}

/**
 * The names of a value made only of ASCII white space and valid ASCII names
 * (the common case), scanned once without a regular expression; `null` for
 * anything else, which {@linkcode checkedNames} reads.
 */
function plainNames(value: string): string[] | null {
  const names: string[] = [];
  let start = -1;
  for (let i = 0; i <= value.length; i++) {
    const c = i < value.length ? value.charCodeAt(i) : 32;
    if (c === 32 || (c >= 9 && c <= 13)) {
      if (start >= 0) {
        if (i - start > 64 || value.charCodeAt(i - 1) === 45) return null;
        const name = value.slice(start, i);
        if (!names.includes(name)) names.push(name);
        start = -1;
      }
    } else if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
    } else if (c === 45) {
      // A hyphen neither starts a name nor follows another.
      if (start < 0 || value.charCodeAt(i - 1) === 45) return null;
    } else {
      return null;
    }
    if (names.length > 16) return null; // a long list: the Set of the full reading
  }
  return names;
}

/** Every name of the value, checked one by one; the first that breaks a rule is the error. */
function checkedNames(value: string, key: string): string[] {
  const names = new Set<string>();
  for (const match of value.matchAll(WORD)) {
    const name = match[0];
    if (name.length <= 64 && PLAIN_NAME.test(name)) {
      names.add(name);
      continue;
    }
    // Columns count characters (code points), as an editor shows them.
    const column = (at: number) => [...value.slice(0, at)].length + 1;
    const comma = name.indexOf(",");
    if (comma >= 0) {
      throw invalid(
        key,
        column(match.index + comma),
        "a comma; skill names are separated by spaces",
      );
    }
    const problem = agentSkillNameProblem(name);
    if (problem !== null) {
      throw invalid(key, column(match.index), `skill name ${quote(name)}: ${problem}`);
    }
    names.add(name.normalize("NFKC"));
  }
  return [...names];
}

function invalid(key: string, column: number, reason: string): SkillDependencyError {
  return new SkillDependencyError(
    "INVALID_DEPENDENCY",
    `Invalid metadata.${key} at column ${column}: ${reason}`,
    { key, column },
  );
}

/**
 * A name for a message: JSON-quoted, cut to 80 characters.
 *
 * @param name The name.
 * @returns The quoted name.
 */
export function quote(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
}

/**
 * One sentence for a gap, as the errors and diagnostics word it.
 *
 * @param gap A gap of a closure.
 * @returns `"b" requires "x", which is not available` and the like.
 */
export function describeGap(gap: DependencyGap): string {
  if (gap.problem !== undefined) return `${quote(gap.skill)} has ${lower(gap.problem)}`;
  const parts: string[] = [];
  if (gap.missing.length > 0) {
    parts.push(
      `requires ${names(gap.missing)}, which ${
        gap.missing.length === 1 ? "is" : "are"
      } not available`,
    );
  }
  if (gap.missing_any.length > 0) {
    parts.push(`requires one of ${names(gap.missing_any)}, none available`);
  }
  const elsewhere = gap.elsewhere.length === 0
    ? ""
    : ` (another origin has ${
      names(gap.elsewhere)
    }; dependencies do not cross origins unless the host allows it)`;
  return `${quote(gap.skill)} ${parts.join(" and ")}${elsewhere}`;
}

/** Names for a message: quoted, at most {@linkcode SHOWN}, then how many more. */
function names(list: readonly string[]): string {
  const shown = list.slice(0, SHOWN).map(quote).join(", ");
  return list.length > SHOWN ? `${shown} and ${list.length - SHOWN} more` : shown;
}

/** The most gaps, and names of a cycle, a message spells out (the error's fields hold them all). */
const SHOWN = 10;

/**
 * A cycle for a message: whole up to {@linkcode SHOWN} names on each side of a cut.
 *
 * @param cycle A cycle, its first name repeated at its end.
 * @param at Where to start it (default 0): the cycle shown from its `at`-th name.
 * @returns `"a" -> "b" -> "a"`, or the ends with how many are left out between.
 */
export function showCycle(cycle: readonly string[], at = 0): string {
  // The cycle turned to start at `at`, read by index: a long one is never copied.
  const n = cycle.length - 1;
  const name = (k: number) => quote(cycle[n > 0 ? (at + k) % n : 0]!);
  const range = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, i) => name(from + i));
  const names = cycle.length <= 2 * SHOWN + 1 ? range(0, cycle.length) : [
    ...range(0, SHOWN),
    `… ${cycle.length - 2 * SHOWN} more`,
    ...range(cycle.length - SHOWN, cycle.length),
  ];
  return names.join(" -> ");
}

/**
 * The gaps for a message: at most {@linkcode SHOWN}, then how many more.
 *
 * @param gaps The gaps of a closure.
 * @returns Their sentences, joined by `; `.
 */
export function showGaps(gaps: readonly DependencyGap[]): string {
  const shown = gaps.slice(0, SHOWN).map(describeGap).join("; ");
  const more = gaps.length - SHOWN;
  return more > 0
    ? `${shown}; and ${more} more ${more === 1 ? "skill" : "skills"} of its closure lack some`
    : shown;
}

function lower(message: string): string {
  return message.charAt(0).toLowerCase() + message.slice(1);
}
