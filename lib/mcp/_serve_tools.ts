/**
 * The tools a skill server offers beside its resources: the `skill` tool
 * (SPEC §7) and, when its description had to leave skills out,
 * `skill_search`. Each catalog version builds its tools once
 * ({@linkcode toolOf}); each server registers them, and a reload updates,
 * adds or removes them.
 *
 * Folder `lib/mcp/` — skills over MCP behind `lib/mcp.ts`: serve, consume, watch, HTTP, remote trust.
 *
 * @module
 */
import { fromJsonSchema, type McpServer, type RegisteredTool } from "@modelcontextprotocol/server";
import type { SkillIndex } from "../core/search/skill_index.ts";
import { handleSkillSearchTool } from "../core/activation/skill_search_tool.ts";
import { handleSkillTool } from "../core/activation/skill_tool.ts";
import { skillTools } from "../core/activation/skill_tool_definition.ts";
import type { SkillModes } from "../core/catalog/skill_modes.ts";
import { selector } from "../core/catalog/_selection.ts";
import { offeredToModel } from "../core/catalog/skill_access.ts";
import type { LoadedSkill } from "../fs/load/skill_folder.ts";
import { type ServeSkillsOptions, skillSafety } from "./_serve_options.ts";

/** The `skill` tool of one catalog version: built once, the same schema object for every server. */
export interface ToolVersion {
  readonly description: string;
  readonly inputSchema: ReturnType<typeof fromJsonSchema>;
  /** `skill_search`, offered when the description had to leave skills out. */
  readonly search?: {
    readonly name: string;
    readonly description: string;
    readonly inputSchema: ReturnType<typeof fromJsonSchema>;
    readonly index: SkillIndex;
  };
}

/** Where the tools find the current catalog version: looked up at each call, so a reload is seen at once. */
export interface CurrentTools {
  readonly current: {
    readonly skills: ReadonlyMap<string, LoadedSkill>;
    /** The `skill` tool for these skills; `undefined` when there are none. */
    readonly tool?: ToolVersion;
  };
}

/**
 * The tools of a catalog version, built once: the `skill` tool within the
 * budget, and `skill_search` with its index when the budget left skills out.
 */
export function toolOf(
  skills: ReadonlyMap<string, LoadedSkill>,
  budget: ServeSkillsOptions["toolBudget"],
  modes?: SkillModes,
  options: Pick<ServeSkillsOptions, "profile" | "paths"> = {},
): { tool?: ToolVersion } {
  // No tool when no skill is offered to the model (none served, every one manual, or none
  // the profile and the paths keep).
  const select = selector({
    ...(modes === undefined ? {} : { modes }),
    ...(options.profile === undefined ? {} : { profile: options.profile }),
    ...(options.paths === undefined ? {} : { paths: options.paths }),
  });
  let offered = false;
  for (const s of skills.values()) offered ||= offeredToModel(select(s).mode);
  if (!offered) return {};
  const set = skillTools(skills.values(), {
    ...(budget === undefined ? {} : { budget }),
    ...(modes === undefined ? {} : { modes }),
    ...(options.profile === undefined ? {} : { profile: options.profile }),
    ...(options.paths === undefined ? {} : { paths: options.paths }),
  });
  const schema = (definition: { readonly input_schema: unknown }) =>
    compiled(definition.input_schema);
  const search = set.skill_search === undefined || set.search_index === undefined
    ? undefined
    : Object.freeze({
      name: set.skill_search.name,
      description: set.skill_search.description,
      inputSchema: schema(set.skill_search),
      index: set.search_index,
    });
  return {
    tool: Object.freeze({
      description: set.skill.description,
      inputSchema: schema(set.skill),
      ...(search === undefined ? {} : { search }),
    }),
  };
}

/**
 * The SDK's schema for a definition's input schema, made once per schema
 * object: past its budget the skill tool's schema (a plain string, no enum) is
 * one object for every catalog version, so a reload reuses it.
 */
const COMPILED = new WeakMap<object, ReturnType<typeof fromJsonSchema>>();

function compiled(schema: unknown): ReturnType<typeof fromJsonSchema> {
  const key = schema as object;
  let made = COMPILED.get(key);
  if (made === undefined) {
    made = fromJsonSchema(schema as Record<string, unknown>);
    COMPILED.set(key, made);
  }
  return made;
}

export function registerSkillTool(
  server: McpServer,
  files: CurrentTools,
  options: ServeSkillsOptions,
): RegisteredTool | undefined {
  const tool = files.current.tool;
  if (tool === undefined) return undefined;
  const context = {
    global_safety: options.global_safety !== false,
    skill_safety: (name: string) => skillSafety(options.skill_safety, name),
    ...(options.scripts === undefined ? {} : { run_scripts: true }),
    ...(options.onActivate === undefined ? {} : { on_activate: options.onActivate }),
    ...(options.modes === undefined ? {} : { modes: options.modes }),
    ...(options.activated === undefined ? {} : { activated: options.activated }),
    ...(options.profile === undefined ? {} : { profile: options.profile }),
    ...(options.maxBodyTokens === undefined ? {} : { max_body_tokens: options.maxBodyTokens }),
    ...(options.countTokens === undefined ? {} : { count_tokens: options.countTokens }),
  };
  return server.registerTool(
    "skill",
    { description: tool.description, inputSchema: tool.inputSchema },
    (input: unknown) => {
      const result = handleSkillTool(input, {
        ...context,
        skills: files.current.skills,
        search: files.current.tool?.search !== undefined,
      });
      return { content: [{ type: "text", text: result.content }], isError: result.is_error };
    },
  );
}

/**
 * Register `skill_search` on a server when the current catalog version
 * offers it (the `skill` tool's description left skills out), update it when
 * it stays, remove it when it no longer does. Its schema object is the
 * version's own, so the SDK compiles it once per version, not per server.
 */
export function syncSearchTool(
  server: McpServer,
  registered: WeakMap<McpServer, RegisteredTool>,
  files: CurrentTools,
): void {
  const search = files.current.tool?.search;
  const tool = registered.get(server);
  if (search !== undefined && tool === undefined) {
    registered.set(
      server,
      server.registerTool(
        search.name,
        { description: search.description, inputSchema: search.inputSchema },
        (input: unknown) => {
          const index = files.current.tool?.search?.index;
          const result = index === undefined
            ? { content: "skill_search is not offered for these skills", is_error: true }
            : handleSkillSearchTool(input, index);
          return { content: [{ type: "text", text: result.content }], isError: result.is_error };
        },
      ),
    );
  } else if (search !== undefined && tool !== undefined) {
    tool.update({ description: search.description, paramsSchema: search.inputSchema });
  } else if (search === undefined && tool !== undefined) {
    tool.remove();
    registered.delete(server);
  }
}
