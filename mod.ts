/**
 * **skillset** — resolve a skill's tool set and gate access to its bundled
 * files. Runs unchanged on Deno (also imported by URL), Bun and Node.
 *
 * ```ts
 * import { OrderedMap } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const m = OrderedMap.from([["read", 1], ["write", 2], ["read", 3]]);
 * assert.deepEqual(m.toArray(), [["read", 3], ["write", 2]]);
 * ```
 *
 * @module
 */
export { OrderedMap, OrderedMapBuilder } from "./lib/ordered_map.ts";
export {
  ExecutionError,
  formatLocation,
  InvalidResourcePathError,
  SkillCycleError,
  SkillDefinitionError,
  SkillResolutionError,
} from "./lib/errors.ts";
export type { GateOperation, SkillResolutionCode, SourceLocation } from "./lib/errors.ts";
export { formatFieldPath, includeName, isSkillName, parseSkill } from "./lib/skill.ts";
export type {
  InlineTool,
  McpServer,
  ParseSkillOptions,
  Skill,
  SkillInclude,
  ToolOverrides,
} from "./lib/skill.ts";
export { computeCapabilitySummary, resolveTools, SkillResolver } from "./lib/resolve.ts";
export type {
  CapabilitySummary,
  ResolvedToolEntry,
  ResolvedToolKind,
  ResolvedTools,
  SkillLookup,
} from "./lib/resolve.ts";
