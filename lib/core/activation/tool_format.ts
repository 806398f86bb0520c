/**
 * What the package's two tools (`skill` and `skill_search`) look like to a
 * host: the shapes of their definitions and results, and a definition
 * converted to the MCP, OpenAI and Anthropic tool APIs.
 *
 * Folder `lib/core/activation/` — activation and the model's tools: bodies, the skill tool, skill_search.
 *
 * @module
 */

/** A JSON Schema object (plain data). */
export type JsonSchema = { readonly [key: string]: unknown };

/** The tool definition: a name, a description for the model and a JSON Schema for its input. */
export interface SkillToolDefinition {
  /** Always `skill`. */
  readonly name: "skill";
  /** What the model is told about the tool. */
  readonly description: string;
  /** The JSON Schema of the input. */
  readonly input_schema: JsonSchema;
}

/** The `skill_search` tool definition: a name, a description and the JSON Schema of its input. */
export interface SkillSearchToolDefinition {
  /** Always `skill_search`. */
  readonly name: "skill_search";
  /** What the model is told about the tool. */
  readonly description: string;
  /** The JSON Schema of the input. */
  readonly input_schema: JsonSchema;
}

/** What the handler returns: text for the model, and whether it is an error. */
export interface SkillToolResult {
  /** The text for the model. */
  readonly content: string;
  /** Whether the request failed (the text says why). */
  readonly is_error: boolean;
}

/**
 * The definition as an MCP tool.
 *
 * @param definition The `skill` or `skill_search` tool's definition.
 * @returns An MCP `tools/list` entry.
 * @throws Never.
 * @example
 * ```ts
 * import { toMcpTool } from "./tool_format.ts";
 * import { skillToolDefinition } from "./skill_tool_definition.ts";
 * import { assert } from "../_assert.ts";
 *
 * const tool = toMcpTool(skillToolDefinition(["pdf"]));
 * assert.equal(tool.name, "skill");
 * assert.deepEqual((tool.inputSchema as any).required, ["skill"]);
 * ```
 */
export function toMcpTool(
  definition: SkillToolDefinition | SkillSearchToolDefinition,
): {
  name: string;
  description: string;
  inputSchema: JsonSchema;
} {
  return {
    name: definition.name,
    description: definition.description,
    inputSchema: definition.input_schema,
  };
}

/**
 * The definition as an OpenAI function tool.
 *
 * @param definition The `skill` or `skill_search` tool's definition.
 * @returns An OpenAI function tool.
 * @throws Never.
 * @example
 * ```ts
 * import { toOpenAITool } from "./tool_format.ts";
 * import { skillToolDefinition } from "./skill_tool_definition.ts";
 * import { assert } from "../_assert.ts";
 *
 * const tool = toOpenAITool(skillToolDefinition(["pdf"]));
 * assert.equal(tool.type, "function");
 * assert.equal(tool.function.name, "skill");
 * ```
 */
export function toOpenAITool(
  definition: SkillToolDefinition | SkillSearchToolDefinition,
): {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
} {
  return {
    type: "function",
    function: {
      name: definition.name,
      description: definition.description,
      parameters: definition.input_schema,
    },
  };
}

/**
 * The definition as an Anthropic tool.
 *
 * @param definition The `skill` or `skill_search` tool's definition.
 * @returns An Anthropic tool.
 * @throws Never.
 * @example
 * ```ts
 * import { toAnthropicTool } from "./tool_format.ts";
 * import { skillSearchToolDefinition } from "./skill_search_tool.ts";
 * import { assert } from "../_assert.ts";
 *
 * const tool = toAnthropicTool(skillSearchToolDefinition());
 * assert.equal(tool.name, "skill_search");
 * assert.deepEqual((tool.input_schema as any).required, ["query"]);
 * ```
 */
export function toAnthropicTool(
  definition: SkillToolDefinition | SkillSearchToolDefinition,
): {
  name: string;
  description: string;
  input_schema: JsonSchema;
} {
  return {
    name: definition.name,
    description: definition.description,
    input_schema: definition.input_schema,
  };
}
