/**
 * The typed errors a caller catches. Each has a string-literal `code`; misuse
 * of the API (a wrong argument type) throws the built-in `TypeError` or
 * `RangeError` instead.
 *
 * Folder `lib/core/` — the pure core behind `mod.ts`: the error family and shared helpers; no I/O.
 *
 * @module
 */

/**
 * The base of every error this package throws on purpose (misuse of the API
 * throws the built-in `TypeError` or `RangeError` instead). Each subclass has
 * a string-literal `code`, so a caller can test either way:
 *
 * ```ts
 * import { SkillsetError, SkillFolderError } from "./errors.ts";
 * import { assert } from "./_assert.ts";
 *
 * const e: unknown = new SkillFolderError("/srv/skills/pdf", "pdf");
 * if (!(e instanceof SkillsetError)) throw new Error("not a SkillsetError");
 * assert.equal(e.code, "NO_SUCH_FOLDER");
 * ```
 */
export abstract class SkillsetError extends Error {
  /** The class's name, e.g. `"SkillFolderError"`. */
  abstract override readonly name: string;
  /** Which condition failed, e.g. `"NO_SUCH_FOLDER"`; `docs/errors.md` lists every code. */
  abstract readonly code: string;

  /**
   * Create an error.
   *
   * @param message What failed and why.
   * @param options The cause, when another error led to this one.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** Where in a source file something was found; lines and columns count from 1. */
export interface SourceLocation {
  /** The file. */
  readonly file: string;
  /** The 1-based line, when known. */
  readonly line?: number;
  /** The 1-based column, when known. */
  readonly column?: number;
}

/**
 * Write a location as editors link it.
 *
 * @param location A location, possibly without line and column.
 * @returns `file:line:col`, `file:line`, or `file`.
 */
export function formatLocation(location: SourceLocation): string {
  let out = location.file;
  if (location.line !== undefined) {
    out += `:${location.line}`;
    if (location.column !== undefined) out += `:${location.column}`;
  }
  return out;
}

/**
 * Strip a location suffix from a message.
 *
 * @param message An error message that may end with ` (file:line:col)`.
 * @param location The location it names, if any.
 * @returns The message without that suffix, for printing the place first.
 */
export function withoutLocation(message: string, location: SourceLocation | undefined): string {
  if (location === undefined) return message;
  const suffix = ` (${formatLocation(location)})`;
  return message.endsWith(suffix) ? message.slice(0, -suffix.length) : message;
}

/** A skill definition that breaks the data model (SPEC §2). */
export class SkillDefinitionError extends SkillsetError {
  /** Always `"SkillDefinitionError"`. */
  override readonly name = "SkillDefinitionError";
  /** Always `"INVALID_SKILL"`. */
  readonly code = "INVALID_SKILL" as const;
  /** The skill's name when it is known and valid, otherwise `undefined`. */
  readonly skill: string | undefined;
  /** The field path, e.g. `inline_tools[2].writes`; `""` for the whole value. */
  readonly field: string;
  /** What is wrong, without the skill, field and location. */
  readonly reason: string;
  /** Where the offending value is, when the skill was loaded from a file. */
  readonly location: SourceLocation | undefined;

  /**
   * Describe an invalid skill definition.
   *
   * @param details What is wrong and where.
   */
  constructor(
    details: {
      skill: string | undefined;
      field: string;
      reason: string;
      location?: SourceLocation | undefined;
    },
  ) {
    const who = details.skill === undefined ? "Invalid skill" : `Invalid skill "${details.skill}"`;
    const where = details.field === "" ? "" : ` at ${details.field}`;
    const at = details.location === undefined ? "" : ` (${formatLocation(details.location)})`;
    super(`${who}${where}: ${details.reason}${at}`);
    this.skill = details.skill;
    this.field = details.field;
    this.reason = details.reason;
    this.location = details.location;
  }
}

/** The codes of {@linkcode SkillResolutionError}. */
export type SkillResolutionCode = "UNKNOWN_SKILL" | "CYCLE" | "NAME_MISMATCH";

/** Resolution failed: an unknown include, a cycle, or a lookup that answered with another skill. */
export class SkillResolutionError extends SkillsetError {
  /** `"SkillResolutionError"`, or the subclass's name. */
  override readonly name: string = "SkillResolutionError";
  /** Which condition failed. */
  readonly code: SkillResolutionCode;
  /** The include path from the root to the skill that failed, inclusive. */
  readonly path: readonly string[];

  /**
   * Describe a failed resolution.
   *
   * @param code Which condition failed.
   * @param message The whole message.
   * @param path The include path from the root, ending at the failing skill.
   */
  constructor(code: SkillResolutionCode, message: string, path: readonly string[]) {
    super(message);
    this.code = code;
    this.path = Object.freeze([...path]);
  }
}

/**
 * A skill includes itself, directly or through others. The message lists the
 * resolution path from the root to the repeated skill:
 * `Cycle detected in skill includes: local/a -> local/b -> local/a`.
 */
export class SkillCycleError extends SkillResolutionError {
  /** Always `"SkillCycleError"`. */
  override readonly name: string = "SkillCycleError";
  /** Always `"CYCLE"`. */
  declare readonly code: "CYCLE";

  /**
   * Describe an include cycle by its path.
   *
   * @param path The include path from the root; its last name appears earlier in it.
   */
  constructor(path: readonly string[]) {
    super("CYCLE", `Cycle detected in skill includes: ${path.join(" -> ")}`, path);
  }
}

/** A resource path that is empty, absolute, escapes its root, or holds a forbidden character. */
export class InvalidResourcePathError extends SkillsetError {
  /** Always `"InvalidResourcePathError"`. */
  override readonly name = "InvalidResourcePathError";
  /** Always `"INVALID_RESOURCE_PATH"`. */
  readonly code = "INVALID_RESOURCE_PATH" as const;
  /** The path as given. */
  readonly path: string;

  /**
   * Describe a rejected resource path.
   *
   * @param path The rejected input.
   * @param reason Why it was rejected.
   */
  constructor(path: string, reason: string) {
    super(`Invalid resource path ${JSON.stringify(path)}: ${reason}`);
    this.path = path;
  }
}

/** A resource path that names no file of the skill. */
export class ResourceNotFoundError extends SkillsetError {
  /** Always `"ResourceNotFoundError"`. */
  override readonly name = "ResourceNotFoundError";
  /** Always `"RESOURCE_NOT_FOUND"`. */
  readonly code = "RESOURCE_NOT_FOUND" as const;
  /** The (normalised) path. */
  readonly path: string;
  /** The skill's name. */
  readonly skill: string;

  /**
   * Describe a missing resource.
   *
   * @param skill The skill's name.
   * @param path The normalised path.
   */
  constructor(skill: string, path: string) {
    super(`No resource ${JSON.stringify(path)} in skill ${JSON.stringify(skill)}`);
    this.skill = skill;
    this.path = path;
  }
}

/** An Agent Skill's SKILL.md that breaks the Agent Skills rules (SPEC §5). */
export class AgentSkillError extends SkillsetError {
  /** Always `"AgentSkillError"`. */
  override readonly name = "AgentSkillError";
  /** Always `"INVALID_AGENT_SKILL"`. */
  readonly code = "INVALID_AGENT_SKILL" as const;
  /** The frontmatter field at fault, or `""` for the file as a whole. */
  readonly field: string;
  /** What is wrong, without the location. */
  readonly reason: string;
  /** Where, when the SKILL.md came from a file. */
  readonly location: SourceLocation | undefined;

  /**
   * Describe a SKILL.md that breaks the rules.
   *
   * @param field The field at fault, or `""`.
   * @param reason What is wrong.
   * @param location Where, when known.
   */
  constructor(field: string, reason: string, location?: SourceLocation) {
    const at = location === undefined ? "" : ` (${formatLocation(location)})`;
    super(`Invalid SKILL.md${field === "" ? "" : ` at ${field}`}: ${reason}${at}`);
    this.field = field;
    this.reason = reason;
    this.location = location;
  }
}

/** The operations the safety gate decides. */
export type GateOperation = "read" | "list" | "run";

/** The safety gate refused an operation on a resource. */
export class ExecutionError extends SkillsetError {
  /** Always `"ExecutionError"`. */
  override readonly name = "ExecutionError";
  /** Always `"ACCESS_REFUSED"`. */
  readonly code = "ACCESS_REFUSED" as const;
  /** The refused (normalised) path. */
  readonly path: string;
  /** The refused operation: `read`, `list`, or `run` (a script). */
  readonly operation: GateOperation;
  /** The global safety switch at the time. */
  readonly global_safety: boolean;
  /** The skill's safety switch at the time. */
  readonly skill_safety: boolean;

  /**
   * Describe a refused operation.
   *
   * @param message The whole message.
   * @param details The refused request.
   */
  constructor(
    message: string,
    details: {
      path: string;
      operation: GateOperation;
      global_safety: boolean;
      skill_safety: boolean;
    },
  ) {
    super(message);
    this.path = details.path;
    this.operation = details.operation;
    this.global_safety = details.global_safety;
    this.skill_safety = details.skill_safety;
  }
}

/** The codes of {@linkcode ResourceReadError}. */
export type ResourceReadCode =
  | "RESOURCE_GONE"
  | "NOT_A_REGULAR_FILE"
  | "OUTSIDE_ROOT"
  | "RESOURCE_CHANGED"
  | "RESOURCE_UNREADABLE";

/**
 * A bundled file could not be read as the regular file inside the skill
 * folder that was listed: it is gone, is not a regular file (a folder, a
 * named pipe, a socket, a device, a symbolic link where a file was listed),
 * leads outside the folder, changed while it was being opened or read, or the
 * file system refused. The message names only the path inside the skill
 * folder, never a host path.
 *
 * @example
 * ```ts
 * import { ResourceReadError } from "./errors.ts";
 * import { assert } from "./_assert.ts";
 *
 * const e = new ResourceReadError("NOT_A_REGULAR_FILE", "assets/pipe", "it is a named pipe, not a regular file");
 * assert.equal(e.message, 'Cannot read "assets/pipe": it is a named pipe, not a regular file');
 * assert.equal(e.code, "NOT_A_REGULAR_FILE");
 * ```
 */
export class ResourceReadError extends SkillsetError {
  /** Always `"ResourceReadError"`. */
  override readonly name = "ResourceReadError";
  /** Which condition failed. */
  readonly code: ResourceReadCode;
  /** The normalised path inside the skill folder. */
  readonly path: string;

  /**
   * Describe a resource that cannot be read.
   *
   * @param code Which condition failed.
   * @param path The normalised path inside the skill folder.
   * @param reason Why, e.g. `it is a named pipe, not a regular file`.
   */
  constructor(code: ResourceReadCode, path: string, reason: string) {
    super(`Cannot read ${JSON.stringify(path)}: ${reason}`);
    this.code = code;
    this.path = path;
  }
}

/** The codes of {@linkcode SkillFolderError}. */
export type SkillFolderCode = "NO_SUCH_FOLDER" | "PERMISSION_DENIED";

/**
 * A skill folder that does not exist or is not a folder. The message names
 * only the folder's last segment; `folder` holds it as it was given.
 *
 * @example
 * ```ts
 * import { SkillFolderError } from "./errors.ts";
 * import { assert } from "./_assert.ts";
 *
 * const e = new SkillFolderError("/srv/skills/pdf", "pdf");
 * assert.deepEqual([e.code, e.message, e.folder], ["NO_SUCH_FOLDER", 'No such folder "pdf"', "/srv/skills/pdf"]);
 * ```
 */
export class SkillFolderError extends SkillsetError {
  /** Always `"SkillFolderError"`. */
  override readonly name = "SkillFolderError";
  /** `"NO_SUCH_FOLDER"`, or `"PERMISSION_DENIED"` when the folder may not be read. */
  readonly code: SkillFolderCode;
  /** The folder as it was given. */
  readonly folder: string;

  /**
   * Describe a missing (or unreadable) skill folder.
   *
   * @param folder The folder as it was given; the message names only its last segment.
   * @param name That last segment.
   * @param code Why: missing (default) or permission denied.
   */
  constructor(
    folder: string,
    name: string,
    code: SkillFolderCode = "NO_SUCH_FOLDER",
  ) {
    super(
      code === "PERMISSION_DENIED"
        ? `Permission denied: folder ${JSON.stringify(name)} cannot be read`
        : `No such folder ${JSON.stringify(name)}`,
    );
    this.code = code;
    this.folder = folder;
  }
}
