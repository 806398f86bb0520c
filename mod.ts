/**
 * **skillset** — the pure core: resolve a skill's tool set, gate access to
 * its bundled files, activate and read skills, fit a catalog, decide tool
 * calls and check trust. Web standards only, so it runs unchanged on Deno
 * (also imported by URL), Bun and Node; the file system, MCP, the command
 * line and the testing kit are separate entry points (`skillset/load`,
 * `skillset/mcp`, `skillset/cli`, `skillset/testing`).
 *
 * The exports come in these groups, in this order:
 *
 * - **Resolve**: a skill's tool set, flattened: includes depth-first, first
 *   position kept, last metadata wins, cycles reported with their path.
 * - **Ordered map**: the persistent insertion-ordered map the resolver
 *   returns.
 * - **Gate and reads**: resource paths and classes, the double safety switch,
 *   bundles, paged reads and envelopes.
 * - **Activation and the skill tool**: Agent Skill frontmatter, activation
 *   with its manifest, the `skill` tool for any model API.
 * - **Catalog and search**: the prompt catalog within a budget and its report,
 *   per-skill modes, usage ranking from activation events, the search index
 *   and the `skill_search` tool.
 * - **Policy**: `allowed-tools` parsed and decided per call, tool
 *   requirements, and skill dependencies (resolved like includes).
 * - **Trust**: the skill digest, lockfiles, approvals, pinned bundles, the
 *   locked skill tool, and SSH signatures over a lockfile (`ssh-keygen -Y`).
 * - **Errors**: one family: every error extends `SkillsetError` and has a
 *   documented `code`.
 *
 * ```ts
 * import { createBundle, handleSkillTool, OrderedMap } from "./mod.ts";
 * import { assert } from "./lib/core/_assert.ts";
 *
 * const m = OrderedMap.from([["read", 1], ["write", 2], ["read", 3]]);
 * assert.deepEqual(m.toArray(), [["read", 3], ["write", 2]]);
 *
 * const pdf = createBundle({
 *   frontmatter: { name: "pdf", description: "Fill in PDF forms" },
 *   instructions: "Read references/forms.md first.",
 *   files: { "references/forms.md": "# Forms", "notes/private.md": "gated" },
 * });
 * const read = handleSkillTool({ skill: "pdf", resource: "references/forms.md" }, { skills: [pdf] });
 * assert.equal(read.is_error, false);
 * const gated = handleSkillTool({ skill: "pdf", resource: "notes/private.md" }, { skills: [pdf] });
 * assert.equal(gated.is_error, true);
 * ```
 *
 * @module
 */
// ── Resolve ───────────────────────────────────────────────────────────────────
export {
  formatFieldPath,
  includeName,
  isSkillName,
  parseSkill,
} from "./lib/core/resolver/skill.ts";
export type {
  InlineTool,
  McpServer,
  ParseSkillOptions,
  Skill,
  SkillInclude,
  ToolOverrides,
} from "./lib/core/resolver/skill.ts";
export { resolveTools, SkillResolver } from "./lib/core/resolver/resolve.ts";
export type { SkillLookup } from "./lib/core/resolver/resolve.ts";
export { computeCapabilitySummary } from "./lib/core/resolver/resolved_tools.ts";
export type {
  CapabilitySummary,
  ResolvedToolEntry,
  ResolvedToolKind,
  ResolvedTools,
} from "./lib/core/resolver/resolved_tools.ts";
export { includeGraph } from "./lib/core/resolver/include_graph.ts";
export type { GraphEdge, GraphNode, IncludeGraph } from "./lib/core/resolver/include_graph.ts";

// ── Ordered map ───────────────────────────────────────────────────────────────
export { OrderedMap, OrderedMapBuilder } from "./lib/core/resolver/ordered_map.ts";

// ── Gate and reads ────────────────────────────────────────────────────────────
export {
  classifyResource,
  effectiveClass,
  normalizeResourcePath,
  RESOURCE_CLASSES,
  resourceClassMap,
} from "./lib/core/resources/resource_path.ts";
export type {
  ResourceClass,
  ResourceClassMap,
  StandardResourceClass,
} from "./lib/core/resources/resource_path.ts";
export { assertAccess, decideAccess, isGateOpen, mayAccess } from "./lib/core/resources/gate.ts";
export type { SafetyFlags } from "./lib/core/resources/gate.ts";
export { createBundle, memoryFile, openResource } from "./lib/core/resources/bundle.ts";
export type {
  BundleInput,
  ResourceFile,
  ResourceHandle,
  SkillBundle,
} from "./lib/core/resources/bundle.ts";
export { mediaTypeOf } from "./lib/core/resources/media_type.ts";
export {
  DEFAULT_BYTE_LIMIT,
  DEFAULT_LINE_LIMIT,
  DEFAULT_MAX_PAGE_BYTES,
  MIN_PAGE_BYTES,
  readResource,
  renderResourceRead,
} from "./lib/core/resources/read.ts";
export type { ReadOptions, ResourceRead } from "./lib/core/resources/read.ts";
export {
  EnvelopeError,
  newNonce,
  parseEnvelope,
  parseResourceReadEnvelope,
  renderEnvelope,
  renderResourceReadEnvelope,
  RESOURCE_READ_MARKER,
} from "./lib/core/resources/envelope.ts";
export type {
  Envelope,
  ParsedEnvelope,
  ResourceReadFields,
} from "./lib/core/resources/envelope.ts";
export { decodeBase64, encodeBase64 } from "./lib/core/resources/base64.ts";
export { escapeControls } from "./lib/core/_text.ts";

// ── Activation and the skill tool ─────────────────────────────────────────────
export {
  agentSkillNameProblem,
  allowedTools,
  validateAgentSkillFrontmatter,
} from "./lib/core/activation/agent_skill.ts";
export type { AgentSkillFrontmatter } from "./lib/core/activation/agent_skill.ts";
export {
  activateSkill,
  DEFAULT_MAX_MANIFEST_ENTRIES,
  renderActivation,
} from "./lib/core/activation/activate.ts";
export type {
  ActivateOptions,
  Activation,
  ActivationTools,
  InstructionsCut,
  ManifestEntry,
  ManifestOmissions,
  ResourceManifest,
  RunnableScript,
} from "./lib/core/activation/activate.ts";
export { capBody, estimateTokens } from "./lib/core/activation/body_budget.ts";
export type { BodyCut, CappedBody, TokenCounter } from "./lib/core/activation/body_budget.ts";
export {
  interpreterByExtension,
  SCRIPT_EXTENSIONS,
  scriptInterpreter,
} from "./lib/core/resources/script_kind.ts";
export type { ScriptInterpreter } from "./lib/core/resources/script_kind.ts";
export { handleSkillTool } from "./lib/core/activation/skill_tool.ts";
export type {
  SkillBundleSource,
  SkillToolCall,
  SkillToolContext,
} from "./lib/core/activation/skill_tool.ts";
export {
  DEFAULT_TOOL_BUDGET,
  skillToolDefinition,
  skillTools,
} from "./lib/core/activation/skill_tool_definition.ts";
export type {
  SkillSummary,
  SkillToolOptions,
  SkillTools,
} from "./lib/core/activation/skill_tool_definition.ts";
export { parseSkillToolInput } from "./lib/core/activation/skill_tool_input.ts";
export type { SkillToolInput } from "./lib/core/activation/skill_tool_input.ts";
export { toAnthropicTool, toMcpTool, toOpenAITool } from "./lib/core/activation/tool_format.ts";
export type {
  JsonSchema,
  SkillSearchToolDefinition,
  SkillToolDefinition,
  SkillToolResult,
} from "./lib/core/activation/tool_format.ts";

// ── Catalog and search ────────────────────────────────────────────────────────
export {
  budgetInCharacters,
  CATALOG_REASONS,
  CHARS_PER_TOKEN,
  DEFAULT_DESCRIPTION_FLOOR,
  fitSkillCatalog,
  localizedDescription,
  renderSkillCatalog,
} from "./lib/core/catalog/skill_catalog.ts";
export type {
  CatalogBudget,
  CatalogReason,
  CatalogReportEntry,
  CatalogSkill,
  ExcludedSkill,
  FittedSkillCatalog,
  SkillCatalogOptions,
  SkillRank,
} from "./lib/core/catalog/skill_catalog.ts";
export type { SelectionOptions } from "./lib/core/catalog/_selection.ts";
export {
  ACTIVATION_EVENT_NAME,
  activationEvent,
  DEFAULT_HALF_LIFE_MS,
  DEFAULT_MAX_SKILLS,
  eventTimeMs,
  formatActivationEvent,
  MAX_EVENT_FIELD,
  parseActivationEvent,
  usageRank,
  UsageTally,
} from "./lib/core/catalog/skill_usage.ts";
export type {
  ActivationEvent,
  ActivationTrigger,
  SkillActivation,
  SkillUsage,
  UsageOptions,
} from "./lib/core/catalog/skill_usage.ts";
export {
  MAX_MODES_FILE_BYTES,
  parseSkillModes,
  SKILL_MODES,
  skillMode,
  SkillModeError,
} from "./lib/core/catalog/skill_modes.ts";
export type {
  ModedSkill,
  SkillMode,
  SkillModeCode,
  SkillModes,
} from "./lib/core/catalog/skill_modes.ts";
export {
  compileNameGlob,
  compilePathGlob,
  globProblem,
  MAX_GLOB_LENGTH,
} from "./lib/core/catalog/skill_glob.ts";
export type { SkillGlob } from "./lib/core/catalog/skill_glob.ts";
export {
  MAX_PROFILES_FILE_BYTES,
  parseSkillProfiles,
  resolveSkillProfile,
  SkillProfileError,
  skillProfilesFromJson,
} from "./lib/core/catalog/skill_profiles.ts";
export type {
  ProfiledSkill,
  ResolvedSkillProfile,
  SkillProfile,
  SkillProfileCode,
  UnknownProfile,
} from "./lib/core/catalog/skill_profiles.ts";
export {
  HostPaths,
  MAX_SEARCH_PATH_LENGTH,
  MAX_SEARCH_PATHS,
  MAX_SKILL_PATHS,
  readSearchPaths,
  readSkillPaths,
  SkillPathsError,
} from "./lib/core/catalog/skill_paths.ts";
export type { SkillPathsCode } from "./lib/core/catalog/skill_paths.ts";
export {
  offeredToModel,
  SKILL_SURFACES,
  SKILL_TRUSTS,
  skillAccess,
  wasActivated,
} from "./lib/core/catalog/skill_access.ts";
export type {
  ActivatedSkills,
  SkillAccessState,
  SkillSurface,
  SkillTrust,
} from "./lib/core/catalog/skill_access.ts";
export {
  createSkillIndex,
  DEFAULT_SEARCH_LIMIT,
  NO_MATCH_THRESHOLD,
  searchSkills,
  SkillIndex,
} from "./lib/core/search/skill_index.ts";
export {
  CONFUSABLE_MARGIN,
  confusableSkills,
  evaluateTriggers,
  parseTriggerEvals,
} from "./lib/core/search/trigger_eval.ts";
export type {
  ConfusableInput,
  ConfusablePair,
  TriggerCase,
  TriggerOutcome,
  TriggerReport,
} from "./lib/core/search/trigger_eval.ts";
export type {
  IndexableSkill,
  SearchOptions,
  SkillIndexOptions,
  SkillIndexStatistics,
  SkillSearchResult,
} from "./lib/core/search/skill_index.ts";
export type { EmbedFunction, SkillField, SkillMatch } from "./lib/core/search/skill_index.ts";
export { STOP_WORDS, tokenize } from "./lib/core/search/tokenize.ts";
export { QUERY_STOP_WORDS, tokenizeQuery } from "./lib/core/search/tokenize.ts";
export {
  handleSkillSearchTool,
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_QUERY,
  skillSearchToolDefinition,
} from "./lib/core/activation/skill_search_tool.ts";
export type { SkillSearchInput } from "./lib/core/activation/skill_search_tool.ts";

// ── Policy ────────────────────────────────────────────────────────────────────
export {
  AllowedToolsError,
  formatAllowedTools,
  matchesAllowedTool,
  parseAllowedTools,
} from "./lib/core/policy/allowed_tools.ts";
export type { AllowedToolEntry, AllowedToolsErrorCode } from "./lib/core/policy/allowed_tools.ts";
export { PLAIN_BUILTINS, shellWords } from "./lib/core/policy/shell_words.ts";
export { OPTION_TABLES } from "./lib/core/policy/option_tables.ts";
export type { OptionStyle, OptionTableSpec } from "./lib/core/policy/option_tables.ts";
export { unapprovedOption } from "./lib/core/policy/options.ts";
export type { CompiledOptionTable, OptionTables } from "./lib/core/policy/options.ts";
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
export {
  REQUIRES_ANY_SKILLS,
  REQUIRES_SKILLS,
  SkillDependencyError,
  skillRequirements,
} from "./lib/core/catalog/skill_requirements.ts";
export type {
  DependencyGap,
  SkillDependencyCode,
  SkillRequirements,
} from "./lib/core/catalog/skill_requirements.ts";
export {
  SkillDependencies,
  skillDependencies,
  skillsWithDependencies,
} from "./lib/core/catalog/skill_dependencies.ts";
export type {
  DependencyAvailability,
  DependencyClosure,
  DependencyHiddenSkill,
  DependentSkill,
  SkillDependencyOptions,
} from "./lib/core/catalog/skill_dependencies.ts";
export type {
  HiddenSkill,
  RequiringSkill,
  SkillAvailability,
  ToolRequirements,
} from "./lib/core/policy/requirements.ts";

// ── Trust ─────────────────────────────────────────────────────────────────────
export {
  canonicalManifest,
  DIGEST_PATTERN,
  frontmatterDigest,
  isDigest,
  sha256Digest,
  skillDigest,
} from "./lib/core/trust/digest.ts";
export type { FileDigest } from "./lib/core/trust/digest.ts";
export { hashResource, manifestFromEntries, skillManifest } from "./lib/core/trust/manifest.ts";
export type {
  ManifestView,
  SkillManifest,
  SkillManifestOptions,
} from "./lib/core/trust/manifest.ts";
export { MAX_TRUST_FILE_BYTES, TrustFileError } from "./lib/core/trust/trust_file.ts";
export type { FileChange, TrustFileCode } from "./lib/core/trust/trust_file.ts";
export {
  compareLock,
  createLockfile,
  lockEntry,
  LOCKFILE_NAME,
  LOCKFILE_VERSION,
  parseLockfile,
  renderLockfile,
} from "./lib/core/trust/lockfile.ts";
export type {
  InstalledFrom,
  LockComparison,
  LockDifference,
  LockEntry,
  Lockfile,
  LockRoot,
} from "./lib/core/trust/lockfile.ts";
export type { InstallTarget } from "./lib/core/trust/installed_from.ts";
export type { EntryKind, OtherEntry } from "./lib/core/trust/entries.ts";
export { isSkillVersion, skillVersion } from "./lib/core/trust/skill_version.ts";
export {
  approvalChanges,
  approvalRecord,
  approvalRecordWithEntries,
  APPROVALS_VERSION,
  approve,
  decideApproval,
  MemoryApprovalStore,
  parseApprovals,
  renderApprovals,
} from "./lib/core/trust/approval.ts";
export type { ApprovalDecision, ApprovalRecord, ApprovalStore } from "./lib/core/trust/approval.ts";
export { pinBundle, setVerifiedCacheBytes, VERIFIED_CACHE_BYTES } from "./lib/core/trust/pin.ts";
export { handleLockedSkillTool } from "./lib/core/trust/locked_tool.ts";
export type {
  LockedSkillToolContext,
  LockedSkillToolResult,
} from "./lib/core/trust/locked_tool.ts";
export {
  MAX_SSH_KEY_CHARS,
  parseSshPrivateKey,
  parseSshPublicKey,
  renderSshPublicKey,
  SSH_ED25519,
  sshFingerprint,
  SshPrivateKey,
  SshSignatureError,
} from "./lib/core/trust/ssh_key.ts";
export type { SshPublicKey, SshSignatureCode } from "./lib/core/trust/ssh_key.ts";
export {
  MAX_ALLOWED_SIGNERS_CHARS,
  parseAllowedSigners,
} from "./lib/core/trust/allowed_signers.ts";
export type {
  AllowedSigner,
  AllowedSigners,
  IgnoredSigner,
} from "./lib/core/trust/allowed_signers.ts";
export {
  LOCK_SIGNATURE_NAMESPACE,
  parseSshSignature,
  renderSshSignature,
  signSshsig,
  verifySshsig,
} from "./lib/core/trust/sshsig.ts";
export type {
  SignatureCheck,
  SignSshsigOptions,
  SshHashAlgorithm,
  SshSignature,
  VerifySshsigOptions,
} from "./lib/core/trust/sshsig.ts";

// ── Errors ────────────────────────────────────────────────────────────────────
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
} from "./lib/core/errors.ts";
export type {
  GateOperation,
  ResourceReadCode,
  SkillFolderCode,
  SkillResolutionCode,
  SourceLocation,
} from "./lib/core/errors.ts";
