/**
 * The error of the skill lifecycle (`skillset add`, `outdated`, `update`,
 * `remove`): git missing or failing, a source refused, a skill refused for
 * what its folder holds, a source that moved, a local change in the way.
 *
 * Folder `lib/fs/lifecycle/` — the lifecycle: add, outdated, update, remove from git and folder sources.
 *
 * @module
 */
import { SkillsetError } from "../../core/errors.ts";

/** The codes of {@linkcode SkillSourceError}. */
export type SkillSourceCode =
  | "GIT_MISSING"
  | "GIT_FAILED"
  | "UNSAFE_SOURCE"
  | "REF_NOT_FOUND"
  | "NO_SKILL"
  | "LINK_OUT"
  | "TOO_MANY_FILES"
  | "SKILL_TOO_LARGE"
  | "CONTROL_CHARACTER"
  | "NESTED_GIT"
  | "SUBMODULE"
  | "SOURCE_MOVED"
  | "LOCALLY_MODIFIED"
  | "ALREADY_INSTALLED"
  | "NOT_INSTALLED"
  | "OUTSIDE_ROOT"
  | "INVALID_SKILL"
  | "APPLY_FAILED"
  | "FOREIGN_FILE"
  | "UNKNOWN_AGENT"
  | "UNTRUSTED_SOURCE"
  | "FETCH_FAILED"
  | "FETCH_TIMEOUT"
  | "REDIRECT_REFUSED"
  | "DIGEST_MISMATCH"
  | "DIGEST_REQUIRED";

/**
 * A lifecycle step refused or failed: the `git` program is not installed
 * (`GIT_MISSING`) or failed (`GIT_FAILED`, with its message); a source URL or
 * ref git would take as an option or a command (`UNSAFE_SOURCE`); a ref the
 * source does not have (`REF_NOT_FOUND`); no skill (or not the one named) in
 * the source (`NO_SKILL`); a skill folder holding a link that leads out of it
 * (`LINK_OUT`), more files or bytes than a served skill may have
 * (`TOO_MANY_FILES`, `SKILL_TOO_LARGE`), a name with a control character
 * (`CONTROL_CHARACTER`), a nested `.git` (`NESTED_GIT`) or a submodule
 * (`SUBMODULE`); a source no longer at the commit expected
 * (`SOURCE_MOVED`); a skill changed locally since it was locked
 * (`LOCALLY_MODIFIED`, without `force`); a skill already there
 * (`ALREADY_INSTALLED`) or not installed (`NOT_INSTALLED`); a lock entry
 * whose folder is not `<install root>/<name>`, or an install root through a
 * link (`OUTSIDE_ROOT`); a skill folder whose SKILL.md cannot be loaded, or
 * that loses a name clash (`INVALID_SKILL`); a change that could not be
 * applied and was undone (`APPLY_FAILED`); a well-known source that
 * cannot be fetched (`FETCH_FAILED`), is too slow (`FETCH_TIMEOUT`),
 * redirects to another origin (`REDIRECT_REFUSED`), serves skills whose
 * digest is not the one pinned (`DIGEST_MISMATCH`), or has no digest pinned
 * (`DIGEST_REQUIRED`).
 *
 * @example
 * ```ts
 * import { SkillSourceError } from "./skill_source_error.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * const e = new SkillSourceError("LINK_OUT", 'Skill folder "pdf" holds a link out of it: "data"');
 * assert.deepEqual([e.code, e.name], ["LINK_OUT", "SkillSourceError"]);
 * ```
 */
export class SkillSourceError extends SkillsetError {
  /** Always `"SkillSourceError"`. */
  override readonly name = "SkillSourceError";
  /** Which condition failed. */
  readonly code: SkillSourceCode;

  /**
   * Describe a refused or failed step.
   *
   * @param code Which condition failed.
   * @param message What failed and why.
   * @param options The cause, when another error led to this one.
   */
  constructor(code: SkillSourceCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
