/**
 * The two results a tool handler returns: text for the model, frozen, marked
 * as an error or not.
 *
 * Folder `lib/core/activation/` — activation and the model's tools: bodies, the skill tool, skill_search.
 *
 * @module
 */
import type { SkillToolResult } from "./tool_format.ts";

/**
 * A result that is not an error.
 *
 * @param content The text for the model.
 * @returns The frozen result.
 */
export function success(content: string): SkillToolResult {
  return Object.freeze({ content, is_error: false });
}

/**
 * A result that is an error.
 *
 * @param content The text for the model, saying what failed.
 * @returns The frozen result.
 */
export function failure(content: string): SkillToolResult {
  return Object.freeze({ content, is_error: true });
}
