/**
 * **skillset/load** — the file-system side: Agent Skill folders, SKILL.md
 * parsing, YAML/JSON catalogs and validation. Uses `node:fs`, `node:path`
 * (Node, Deno and Bun all provide them) and the `yaml` package; `mod.ts`
 * does not import it, so the pure core stays importable by URL.
 *
 * ```ts
 * import { loadCatalog, loadSkillFolder } from "./load.ts";
 * import { activateSkill, resolveTools } from "../mod.ts";
 * import { assert } from "./core/_assert.ts";
 *
 * const catalog = loadCatalog(new URL("../examples/catalog.yaml", import.meta.url).pathname);
 * const tools = resolveTools(catalog.skills.get("local/pdf-tools")!, catalog.skills);
 * assert.ok(tools.has("mcp:github/create_issue"));
 * const pdf = loadSkillFolder(new URL("../examples/skills/pdf", import.meta.url).pathname);
 * assert.equal(activateSkill(pdf).resources.references.length, 1);
 * ```
 *
 * @module
 */
export {
  findSkillMd,
  isSkillFolder,
  loadSkillFolder,
  MAX_SKILL_MD_BYTES,
} from "./fs/load/skill_folder.ts";
export type { LoadedSkill, LoadSkillFolderOptions, LoadWarning } from "./fs/load/skill_folder.ts";
export { MAX_ALIAS_COUNT, parseSkillMd } from "./fs/load/skill_md.ts";
export type { ParseSkillMdOptions, SkillMd } from "./fs/load/skill_md.ts";
export {
  CATALOG_EXTENSIONS,
  catalogFiles,
  isCatalogFile,
  loadCatalog,
  MAX_CATALOG_FILE_BYTES,
  parseCatalogFile,
  parseCatalogText,
} from "./fs/load/catalog.ts";
export type { Catalog, Position } from "./fs/load/catalog.ts";
export { formatDiagnostic, MAX_BODY_LINES, validatePaths } from "./fs/discovery/validate.ts";
export type { Diagnostic, ValidateOptions } from "./fs/discovery/validate.ts";
export {
  DEFAULT_CONVENTIONAL_ROOTS,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_FOLDERS,
  DEFAULT_SKIP_FOLDERS,
  discoverSkills,
  findSkillFolders,
} from "./fs/discovery/discover.ts";
export type { DiscoverOptions, SkillRoot } from "./fs/discovery/discover.ts";
export { Discovery, nodeDiscoveryFileSystem } from "./fs/discovery/discovery.ts";
export type {
  DiscoveredSkill,
  DiscoveryEntry,
  DiscoveryFileSystem,
  NameConflict,
  ShadowedSkill,
  SkillPlace,
  SkippedSkill,
} from "./fs/discovery/discovery.ts";
export { formatSkillDiagnostic } from "./fs/discovery/skill_diagnostic.ts";
export type { SkillDiagnostic, SkillDiagnosticCode } from "./fs/discovery/skill_diagnostic.ts";
export { validateFrontmatterLeniently } from "./fs/load/lenient_frontmatter.ts";
export type { FrontmatterProblem, LenientFrontmatter } from "./fs/load/lenient_frontmatter.ts";
export {
  approveSkillFolder,
  approveSkills,
  lockSkills,
  trustDiscovery,
  trustStandings,
  verifySkills,
} from "./fs/trust/trust.ts";
export {
  APPROVALS_NAME,
  FILE_ORIGIN,
  JsonFileApprovalStore,
  readLockfile,
  readTrustFile,
  recordedPath,
  writeFileAtomically,
  writeLockfile,
} from "./fs/trust/trust_files.ts";
export type { LockOptions, TrustError, TrustOptions, TrustStanding } from "./fs/trust/trust.ts";
export { DEFAULT_SCRIPT_LIMITS, runSkillScript } from "./fs/scripts/run_script.ts";
export type { RunScriptOptions, ScriptGrants, ScriptRun } from "./fs/scripts/run_script.ts";
export type { Unbounded } from "./fs/scripts/_run_limits.ts";
export type { CopiedOut } from "./fs/scripts/_copy_out.ts";
export { ScriptRunError } from "./fs/scripts/script_run_error.ts";
export { SkillSourceError } from "./fs/lifecycle/skill_source_error.ts";
export type { SkillSourceCode } from "./fs/lifecycle/skill_source_error.ts";
export type { ScriptRunCode } from "./fs/scripts/script_run_error.ts";
export type { ScriptInterpreter } from "./core/resources/script_kind.ts";
export {
  appendActivationEvent,
  MAX_USAGE_LINE_BYTES,
  readUsageLog,
  tallyUsageLog,
  UsageLogError,
  usageLogSink,
} from "./fs/usage/usage_log.ts";
export type { UsageLogCode, UsageLogSummary } from "./fs/usage/usage_log.ts";
