/// <reference types="node" preserve="true" />
// The MCP SDK's declarations name Node's `Buffer`: a TypeScript 7 consumer (no `types` in scope by
// default) gets Node's types with this entry point, without `"types": ["node"]`.
/**
 * **skillset/mcp** — skills over MCP (SEP-2640, `io.modelcontextprotocol/skills`),
 * both ways, built on the official SDK (`@modelcontextprotocol/server` and
 * `@modelcontextprotocol/client`, the only entry point that depends on them):
 *
 * - serve skill folders with the gate ({@linkcode serveSkills},
 *   {@linkcode watchSkills}, {@linkcode listenHttp});
 * - consume a server's skills as bundles ({@linkcode mcpSkillBundles}).
 *
 * ```ts
 * import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
 * import { mcpSkillBundles, serveSkills } from "./mcp.ts";
 * import { assert } from "./core/_assert.ts";
 *
 * const served = await serveSkills([new URL("../examples/skills", import.meta.url).pathname]);
 * const [here, there] = InMemoryTransport.createLinkedPair();
 * await served.server.connect(there);
 * const client = new Client({ name: "host", version: "1.0.0" });
 * await client.connect(here);
 * const skills = await mcpSkillBundles(client, { origin: "examples" });
 * const page = await skills.read("examples:pdf", "references/forms.md");
 * assert.equal(page.class, "references");
 * await client.close();
 * ```
 *
 * @module
 */
export { McpSkillError } from "./mcp/_errors.ts";
export type { McpSkillErrorCode } from "./mcp/_errors.ts";
export { serveSkills } from "./mcp/_serve.ts";
export { MAX_TTL_MS, STDIO_MESSAGE_BYTES } from "./mcp/_serve_options.ts";
export type {
  CacheHint,
  ServeSkillsOptions,
  SkillSafety,
  SkillServer,
} from "./mcp/_serve_options.ts";
export { watchSkills } from "./mcp/_watch.ts";
export type { WatchOptions } from "./mcp/_watch.ts";
export { mcpSkillBundles, McpSkills } from "./mcp/_consume.ts";
export type { McpSkillBundlesOptions, McpSkillWarning } from "./mcp/_consume.ts";
export type { McpSkillBundle } from "./mcp/_remote_bundle.ts";
export { cappedFetch, RESPONSE_BYTES } from "./mcp/_capped_fetch.ts";
export { HTTP_DEFAULTS, isLoopbackHost, listenHttp } from "./mcp/_http.ts";
export type { HttpListener, ListenHttpOptions } from "./mcp/_http.ts";
// Types that the signatures above name, re-exported so users (and `deno doc`) can see them.
// (The SDK's own types, `Client`, `McpServer` and the skills extension's, come from the SDK.)
export type {
  ActivateOptions,
  Activation,
  ManifestEntry,
  ManifestOmissions,
  ResourceManifest,
  RunnableScript,
} from "./core/activation/activate.ts";
export type { ScriptInterpreter } from "./core/resources/script_kind.ts";
export type { RunScriptOptions } from "./fs/scripts/run_script.ts";
export type { AgentSkillFrontmatter } from "./core/activation/agent_skill.ts";
export type { Discovery } from "./fs/discovery/discovery.ts";
export type { ResourceFile, ResourceHandle, SkillBundle } from "./core/resources/bundle.ts";
export type { SafetyFlags } from "./core/resources/gate.ts";
export type { ReadOptions, ResourceRead } from "./core/resources/read.ts";
export type { ResourceClass } from "./core/resources/resource_path.ts";
export type { LoadedSkill, LoadWarning } from "./fs/load/skill_folder.ts";
export type { SkillToolContext } from "./core/activation/skill_tool.ts";
export type { SkillToolResult } from "./core/activation/tool_format.ts";
export { mcpSkillManifest, TrustedMcpSkills, trustedMcpSkills } from "./mcp/_trust.ts";
export type { McpSkillStanding, TrustedMcpSkillsOptions } from "./mcp/_trust.ts";
export type { ApprovalDecision, ApprovalRecord, ApprovalStore } from "./core/trust/approval.ts";
export type { LockEntry, Lockfile } from "./core/trust/lockfile.ts";
export type { ManifestView, SkillManifest } from "./core/trust/manifest.ts";
export type { FileDigest } from "./core/trust/digest.ts";
