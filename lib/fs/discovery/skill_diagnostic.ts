/**
 * Diagnostics as data: what discovery and the lenient loader noticed about a
 * skill, in a shape a runtime can show its user (`{ severity, code, path,
 * line, column, message }`).
 *
 * Folder `lib/fs/discovery/` — discovery over roots and what it found: walk, diagnostics, validation.
 *
 * @module
 */
import { type AgentSkillError, formatLocation, withoutLocation } from "../../core/errors.ts";
import type { ResourceClass } from "../../core/resources/resource_path.ts";

/** What a diagnostic is about. */
export type SkillDiagnosticCode =
  /** A frontmatter field breaks an Agent Skills rule; the skill is loaded anyway. */
  | "FRONTMATTER_RULE"
  /** The frontmatter has a field the Agent Skills specification does not know; it is ignored. */
  | "UNKNOWN_FIELD"
  /** The frontmatter `name` differs from the folder name; the frontmatter name is used. */
  | "NAME_MISMATCH"
  /** The skill is skipped: no frontmatter, a YAML error, or no description. */
  | "SKILL_SKIPPED"
  /** The skill is skipped: its SKILL.md is too large, not a regular file, or a link out of the folder. */
  | "SKILL_MD_UNREADABLE"
  /** A folder could not be listed; it is skipped. */
  | "FOLDER_UNREADABLE"
  /** A root does not exist or is not a folder; nothing is found there. */
  | "ROOT_NOT_FOUND"
  /** Folders deeper than the depth bound were not scanned. */
  | "DEPTH_LIMIT"
  /** The scan of a root stopped at its folder bound. */
  | "FOLDER_LIMIT"
  /** A symbolic link leads back to a folder that contains it; not followed again. */
  | "LINK_CYCLE"
  /** A symbolic link is broken or loops; it is skipped. */
  | "BROKEN_LINK"
  /** The same real skill folder was reached again through another path; it counts once. */
  | "SAME_FOLDER"
  /** A skill of a later scope has the name of an earlier one; it is shadowed. */
  | "SHADOWED"
  /** Two skills of one scope share a name; the first by the documented rule wins. */
  | "NAME_CONFLICT"
  /** The body points to a path the safety gate refuses under the current switches and class mapping. */
  | "GATED_REFERENCE"
  /** `validate --max-body-tokens`: the SKILL.md body has more tokens than the budget. */
  | "BODY_OVER_BUDGET"
  /** `validate --collisions`: two skills' descriptions are likely to be confused. */
  | "CONFUSABLE_DESCRIPTIONS"
  /** A root, folder or file could not be read for lack of permission. */
  | "PERMISSION_DENIED"
  /** A folder on the skip list (`.git`, `node_modules`, …) was not entered. */
  | "SKIPPED_FOLDER"
  /** The skill differs from its lockfile entry (the message names the files); not loaded unless the lock only warns. */
  | "LOCK_MISMATCH"
  /** The skill has no lockfile entry; not loaded unless the lock only warns. */
  | "NOT_LOCKED"
  /** The skill was never approved, or changed since it was (the message says what); not loaded. */
  | "NEEDS_APPROVAL"
  /** `validate`: the body points to a file or folder the skill does not have. */
  | "MISSING_REFERENCE"
  /** `validate` (info): the body tells the model to write a path (`-o out.png`); it need not exist. */
  | "WRITTEN_PATH"
  /** `validate`: the body points to a path that is not inside the skill folder. */
  | "OUTSIDE_REFERENCE"
  /** `validate`: the SKILL.md body is longer than 500 lines. */
  | "LONG_BODY"
  /** The skill cannot activate: a skill it requires (`requires-skills`, `requires-any-skills`) is not available. */
  | "MISSING_DEPENDENCY"
  /** The skill cannot activate: its dependencies lead back to it or to a skill on the way. */
  | "DEPENDENCY_CYCLE"
  /** The skill cannot activate: its `requires-skills` or `requires-any-skills` breaks the grammar. */
  | "INVALID_DEPENDENCY";

/** One finding. Lines and columns count from 1; `null` when the finding has no place in a file. */
export interface SkillDiagnostic {
  /** `error`: the skill is skipped; `warning`: loaded or scanned anyway; `info`: for the record. */
  readonly severity: "error" | "warning" | "info";
  /** What it is about. */
  readonly code: SkillDiagnosticCode;
  /** The file or folder concerned. */
  readonly path: string;
  /** The 1-based line in `path`, or `null`. */
  readonly line: number | null;
  /** The 1-based column in `path`, or `null`. */
  readonly column: number | null;
  /** A sentence: capital first, no final period, values quoted. */
  readonly message: string;
  /** For `GATED_REFERENCE`: the normalised path the body points to. */
  readonly target?: string;
  /** For `GATED_REFERENCE`: that path's class (`nonstandard`). */
  readonly class?: ResourceClass;
  /** For `MISSING_DEPENDENCY`: the names the skill requires that are not available, in order. */
  readonly missing?: readonly string[];
}

/**
 * @param severity How serious.
 * @param code What about.
 * @param path The file or folder.
 * @param message The sentence.
 * @returns A frozen diagnostic without a line and column.
 */
export function diagnostic(
  severity: SkillDiagnostic["severity"],
  code: SkillDiagnosticCode,
  path: string,
  message: string,
): SkillDiagnostic {
  return Object.freeze({ severity, code, path, line: null, column: null, message });
}

/**
 * @param severity How serious.
 * @param code What about.
 * @param error The Agent Skills error, whose location gives the line and column.
 * @param fallback The path when the error has no location.
 * @returns A frozen diagnostic.
 */
export function diagnosticFromError(
  severity: SkillDiagnostic["severity"],
  code: SkillDiagnosticCode,
  error: AgentSkillError,
  fallback: string,
): SkillDiagnostic {
  const at = error.location;
  return Object.freeze({
    severity,
    code,
    path: at?.file ?? fallback,
    line: at?.line ?? null,
    column: at?.column ?? null,
    message: withoutLocation(error.message, at),
  });
}

/**
 * One line for a diagnostic, in the style of compilers.
 *
 * @param d A diagnostic.
 * @returns `path:line:col: severity: message` (`path: severity: message` when it has no place).
 * @example
 * ```ts
 * import { formatSkillDiagnostic } from "./skill_diagnostic.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * const text = formatSkillDiagnostic({
 *   severity: "warning",
 *   code: "UNKNOWN_FIELD",
 *   path: "skills/pdf/SKILL.md",
 *   line: 4,
 *   column: 1,
 *   message: 'Invalid SKILL.md at colour: unknown field "colour"',
 * });
 * assert.equal(text, 'skills/pdf/SKILL.md:4:1: warning: Invalid SKILL.md at colour: unknown field "colour"');
 * ```
 */
export function formatSkillDiagnostic(d: SkillDiagnostic): string {
  const location = formatLocation({
    file: d.path,
    ...(d.line === null ? {} : { line: d.line }),
    ...(d.column === null ? {} : { column: d.column }),
  });
  return `${location}: ${d.severity}: ${d.message}`;
}
