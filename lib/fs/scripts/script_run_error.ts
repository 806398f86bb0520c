/**
 * The error of running a skill's script: refused before it starts (no
 * sandbox, no known interpreter, no approval, a lock mismatch, too large, a
 * limit that cannot hold, a working folder the sandbox cannot write, a
 * runtime binary it cannot reach).
 * What the script itself does — a non-zero exit, a signal, a timeout — is
 * a result, not an error.
 *
 * Folder `lib/fs/scripts/` — running a skill's scripts: the sandbox, capped spawns, snapshots.
 *
 * @module
 */
import { SkillsetError } from "../../core/errors.ts";

/** The codes of {@linkcode ScriptRunError}. */
export type ScriptRunCode =
  | "SANDBOX_UNAVAILABLE"
  | "UNKNOWN_INTERPRETER"
  | "INTERPRETER_MISSING"
  | "NOT_APPROVED"
  | "LOCK_MISMATCH"
  | "SKILL_TOO_LARGE"
  | "LIMIT_UNAVAILABLE"
  | "CWD_NOT_WRITABLE"
  | "RUNTIME_UNREACHABLE";

/**
 * A skill's script was not run: no sandbox on this machine
 * (`SANDBOX_UNAVAILABLE`, naming what is missing), neither its `#!` line nor
 * its extension names a known interpreter (`UNKNOWN_INTERPRETER`), the
 * interpreter is not installed (`INTERPRETER_MISSING`), the skill is not
 * approved at its current digest or comes over MCP without an approval
 * (`NOT_APPROVED`), it differs from its lockfile entry (`LOCK_MISMATCH`),
 * its files are over the size limit (`SKILL_TOO_LARGE`), a limit the caller
 * set cannot be enforced on this machine and was not accepted unbounded
 * (`LIMIT_UNAVAILABLE`, naming it), or the sandbox's user cannot write the
 * host working folder (`CWD_NOT_WRITABLE`, saying how to let it), or cannot
 * reach the runtime's binary a JavaScript or TypeScript script runs with
 * (`RUNTIME_UNREACHABLE`, naming the binary, why and how to let it).
 *
 * @example
 * ```ts
 * import { ScriptRunError } from "./script_run_error.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * const e = new ScriptRunError("SANDBOX_UNAVAILABLE", "pdf", "scripts/a.py", "No sandbox: bwrap is missing");
 * assert.deepEqual([e.code, e.skill, e.path], ["SANDBOX_UNAVAILABLE", "pdf", "scripts/a.py"]);
 * ```
 */
export class ScriptRunError extends SkillsetError {
  /** Always `"ScriptRunError"`. */
  override readonly name = "ScriptRunError";
  /** Which condition refused the run. */
  readonly code: ScriptRunCode;
  /** The skill's name. */
  readonly skill: string;
  /** The script's path inside the skill. */
  readonly path: string;

  /**
   * Describe a refused run.
   *
   * @param code Which condition refused it.
   * @param skill The skill's name.
   * @param path The script's path inside the skill.
   * @param message The whole message.
   */
  constructor(code: ScriptRunCode, skill: string, path: string, message: string) {
    super(message);
    this.code = code;
    this.skill = skill;
    this.path = path;
  }
}
