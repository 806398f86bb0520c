/**
 * **skillset** — resolve a skill's tool set and gate access to its bundled
 * files. Runs unchanged on Deno (also imported by URL), Bun and Node.
 *
 * ```ts
 * import { OrderedMap } from "./mod.ts";
 * import { assert } from "./lib/core/_assert.ts";
 *
 * const m = OrderedMap.from([["read", 1], ["write", 2], ["read", 3]]);
 * assert.deepEqual(m.toArray(), [["read", 3], ["write", 2]]);
 * ```
 *
 * @module
 */
export { OrderedMap, OrderedMapBuilder } from "./lib/core/ordered_map.ts";
export {
  AgentSkillError,
  ExecutionError,
  formatLocation,
  InvalidResourcePathError,
  ResourceNotFoundError,
  ResourceReadError,
  SkillCycleError,
  SkillDefinitionError,
  SkillFolderError,
  SkillResolutionError,
  SkillsetError,
  withoutLocation,
} from "./lib/core/errors.ts";
export type {
  GateOperation,
  ResourceReadCode,
  SkillFolderCode,
  SkillResolutionCode,
  SourceLocation,
} from "./lib/core/errors.ts";
export { formatFieldPath, includeName, isSkillName, parseSkill } from "./lib/core/skill.ts";
export type {
  InlineTool,
  McpServer,
  ParseSkillOptions,
  Skill,
  SkillInclude,
  ToolOverrides,
} from "./lib/core/skill.ts";
export { resolveTools, SkillResolver } from "./lib/core/resolve.ts";
export { computeCapabilitySummary } from "./lib/core/resolved_tools.ts";
export type {
  CapabilitySummary,
  ResolvedToolEntry,
  ResolvedToolKind,
  ResolvedTools,
} from "./lib/core/resolved_tools.ts";
export type { SkillLookup } from "./lib/core/resolve.ts";
export {
  classifyResource,
  effectiveClass,
  normalizeResourcePath,
  RESOURCE_CLASSES,
  resourceClassMap,
} from "./lib/core/resource_path.ts";
export type {
  ResourceClass,
  ResourceClassMap,
  StandardResourceClass,
} from "./lib/core/resource_path.ts";
export { assertAccess, decideAccess, isGateOpen, mayAccess } from "./lib/core/gate.ts";
export type { SafetyFlags } from "./lib/core/gate.ts";
export {
  AllowedToolsError,
  callSubject,
  compilePattern,
  formatAllowedTools,
  formatEntry,
  matchesAllowedTool,
  parseAllowedTools,
} from "./lib/core/policy/allowed_tools.ts";
export type {
  AllowedToolEntry,
  AllowedToolsErrorCode,
  PatternMatcher,
} from "./lib/core/policy/allowed_tools.ts";
export {
  compileToolPolicy,
  decideToolCall,
  DEFAULT_META_TOOLS,
  isTrustedSkill,
  TOOL_POLICY_MODES,
  ToolPolicy,
} from "./lib/core/policy/tool_policy.ts";
export type {
  PolicySkill,
  ResolvedToolSets,
  ToolCall,
  ToolCallDecision,
  ToolCallQuestion,
  ToolPolicyInput,
  ToolPolicyMode,
  ToolPolicyProblem,
  ToolTrust,
  ToolVerdict,
} from "./lib/core/policy/tool_policy.ts";
export { toolsForActiveSkills } from "./lib/core/policy/active_tools.ts";
export { skillsAvailable, toolRequirements } from "./lib/core/policy/requirements.ts";
export type {
  HiddenSkill,
  RequiringSkill,
  SkillAvailability,
  ToolRequirements,
} from "./lib/core/policy/requirements.ts";
export {
  agentSkillNameProblem,
  allowedTools,
  validateAgentSkillFrontmatter,
} from "./lib/core/agent_skill.ts";
export type { AgentSkillFrontmatter } from "./lib/core/agent_skill.ts";
export { createBundle, memoryFile, openResource } from "./lib/core/bundle.ts";
export type { BundleInput, ResourceFile, ResourceHandle, SkillBundle } from "./lib/core/bundle.ts";
export { mediaTypeOf } from "./lib/core/media_type.ts";
export {
  activateSkill,
  DEFAULT_MAX_MANIFEST_ENTRIES,
  renderActivation,
} from "./lib/core/activate.ts";
export type {
  ActivateOptions,
  Activation,
  ActivationTools,
  ManifestEntry,
  ManifestOmissions,
  ResourceManifest,
} from "./lib/core/activate.ts";
export {
  DEFAULT_BYTE_LIMIT,
  DEFAULT_LINE_LIMIT,
  DEFAULT_MAX_PAGE_BYTES,
  MIN_PAGE_BYTES,
  readResource,
  renderResourceRead,
} from "./lib/core/read.ts";
export type { ReadOptions, ResourceRead } from "./lib/core/read.ts";
export {
  EnvelopeError,
  newNonce,
  parseEnvelope,
  parseResourceReadEnvelope,
  renderEnvelope,
  renderResourceReadEnvelope,
  RESOURCE_READ_MARKER,
  utf8Length,
} from "./lib/core/envelope.ts";
export type { Envelope, ParsedEnvelope, ResourceReadFields } from "./lib/core/envelope.ts";
export { escapeControls, escapeControlsKeepingLines, quoteShort } from "./lib/core/_text.ts";
export { decodeBase64, encodeBase64 } from "./lib/core/base64.ts";
export { findSkillBundle, handleSkillTool } from "./lib/core/skill_tool.ts";
export {
  DEFAULT_TOOL_BUDGET,
  skillToolDefinition,
  skillTools,
} from "./lib/core/skill_tool_definition.ts";
export {
  handleSkillSearchTool,
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_QUERY,
  skillSearchToolDefinition,
} from "./lib/core/skill_search_tool.ts";
export { parseSkillToolInput } from "./lib/core/skill_tool_input.ts";
export { toAnthropicTool, toMcpTool, toOpenAITool } from "./lib/core/tool_format.ts";
export type {
  JsonSchema,
  SkillSearchToolDefinition,
  SkillToolDefinition,
  SkillToolResult,
} from "./lib/core/tool_format.ts";
export type { SkillSearchInput } from "./lib/core/skill_search_tool.ts";
export type {
  SkillSummary,
  SkillToolOptions,
  SkillTools,
} from "./lib/core/skill_tool_definition.ts";
export type { SkillToolInput } from "./lib/core/skill_tool_input.ts";
export type { SkillBundleSource, SkillToolContext } from "./lib/core/skill_tool.ts";
export {
  createSkillIndex,
  DEFAULT_SEARCH_LIMIT,
  searchSkills,
  SkillIndex,
} from "./lib/core/search/skill_index.ts";
export type {
  IndexableSkill,
  SearchOptions,
  SkillIndexOptions,
  SkillIndexStatistics,
  SkillSearchResult,
} from "./lib/core/search/skill_index.ts";
export { STOP_WORDS, tokenize } from "./lib/core/search/tokenize.ts";
export { includeGraph } from "./lib/core/include_graph.ts";
export type { GraphEdge, GraphNode, IncludeGraph } from "./lib/core/include_graph.ts";
export {
  budgetInCharacters,
  CHARS_PER_TOKEN,
  DEFAULT_DESCRIPTION_FLOOR,
  fitSkillCatalog,
  localizedDescription,
  renderSkillCatalog,
} from "./lib/core/skill_catalog.ts";
export type {
  CatalogBudget,
  CatalogSkill,
  FittedSkillCatalog,
  SkillCatalogOptions,
  SkillRank,
} from "./lib/core/skill_catalog.ts";
export {
  canonicalJson,
  canonicalManifest,
  DIGEST_PATTERN,
  frontmatterDigest,
  hexDigest,
  isDigest,
  sha256Digest,
  skillDigest,
} from "./lib/core/trust/digest.ts";
export type { FileDigest } from "./lib/core/trust/digest.ts";
export {
  HASH_PAGE_BYTES,
  HASH_WHOLE_BYTES,
  hashResource,
  manifestFromEntries,
  skillManifest,
} from "./lib/core/trust/manifest.ts";
export type {
  ManifestView,
  SkillManifest,
  SkillManifestOptions,
} from "./lib/core/trust/manifest.ts";
export { diffFiles, MAX_TRUST_FILE_BYTES, TrustFileError } from "./lib/core/trust/trust_file.ts";
export type { FileChange, TrustFileCode } from "./lib/core/trust/trust_file.ts";
export {
  compareLock,
  createLockfile,
  lockEntry,
  LOCKFILE_NAME,
  LOCKFILE_VERSION,
  lockKey,
  parseLockfile,
  renderLockfile,
} from "./lib/core/trust/lockfile.ts";
export type {
  LockComparison,
  LockDifference,
  LockEntry,
  Lockfile,
} from "./lib/core/trust/lockfile.ts";
export {
  approvalRecord,
  APPROVALS_VERSION,
  approve,
  decideApproval,
  MemoryApprovalStore,
  parseApprovals,
  renderApprovals,
} from "./lib/core/trust/approval.ts";
export type { ApprovalDecision, ApprovalRecord, ApprovalStore } from "./lib/core/trust/approval.ts";
export { handleLockedSkillTool } from "./lib/core/trust/locked_tool.ts";
export type {
  LockedSkillToolContext,
  LockedSkillToolResult,
} from "./lib/core/trust/locked_tool.ts";
export { pinBundle } from "./lib/core/trust/pin.ts";
