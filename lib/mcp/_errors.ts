/**
 * The typed error of the MCP entry point (`lib/mcp.ts`).
 *
 * Folder `lib/mcp/` — skills over MCP behind `lib/mcp.ts`: serve, consume, watch, HTTP, remote trust.
 *
 * @module
 */
import { SkillsetError } from "../core/errors.ts";

/** What went wrong between this module and an MCP peer. */
export type McpSkillErrorCode =
  /** Two served folders hold skills with the same name. */
  | "DUPLICATE_SKILL"
  /** A file's bytes differ from its entry's size or digest (or SKILL.md's frontmatter from the entry's). */
  | "VERIFICATION_FAILED"
  /** A file the skill's entry does not list. */
  | "UNLISTED_FILE"
  /** A synchronous read of a file (or instructions) that was not fetched yet. */
  | "NOT_LOADED"
  /** A skill name that no served entry has. */
  | "UNKNOWN_SKILL"
  /** An HTTP listen address that is not loopback, without `allowRemote`. */
  | "REMOTE_NOT_ALLOWED"
  /** The SDK could not list or read a file it was to publish (a skill it refuses is only skipped). */
  | "CATALOG_REFUSED"
  /** The server answered a request with an error (its text quoted, escaped and cut to 200 characters). */
  | "SERVER_ERROR"
  /** A file too large for one message of the transport (the SDK's stdio transport: 10 MiB). */
  | "FILE_TOO_LARGE"
  /** A listing with more entries or files than the host accepts. */
  | "LISTING_TOO_LARGE";

/**
 * An error of the MCP side: serving (a duplicate skill name) or consuming (a
 * file that fails verification, is unlisted, or was not fetched yet).
 *
 * @example
 * ```ts
 * import { McpSkillError } from "./_errors.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const e = new McpSkillError("UNLISTED_FILE", 'File "x.md" is not listed by skill "srv:pdf"');
 * assert.equal(e.code, "UNLISTED_FILE");
 * assert.equal(e.name, "McpSkillError");
 * ```
 */
export class McpSkillError extends SkillsetError {
  /** Always `"McpSkillError"`. */
  override readonly name = "McpSkillError";
  /** Which condition. */
  readonly code: McpSkillErrorCode;
  /** The resource URI concerned, when there is one. */
  readonly uri: string | undefined;

  /**
   * Create an error of the MCP side.
   *
   * @param code Which condition.
   * @param message What failed and why.
   * @param uri The resource URI concerned.
   * @param options The cause, when another error led to this one.
   */
  constructor(code: McpSkillErrorCode, message: string, uri?: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.uri = uri;
  }
}
