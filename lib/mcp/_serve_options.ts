/**
 * What {@linkcode serveSkills} takes and gives: its options (safety, prefix,
 * paging, limits, the transport's message limit, the tool budget, the lock),
 * each skill's safety, and the {@linkcode SkillServer} it returns. Kept apart
 * from `serveSkills` so the files that publish, register tools and watch
 * folders can name them without importing the server (no import cycle).
 *
 * Folder `lib/mcp/` — skills over MCP behind `lib/mcp.ts`: serve, consume, watch, HTTP, remote trust.
 *
 * @module
 */
import type { McpServer } from "@modelcontextprotocol/server";
import type {
  SkillCatalog,
  SkillCatalogChanges,
  SkillWarning,
} from "@modelcontextprotocol/server/ext/skills";
import type { TokenCounter } from "../core/activation/body_budget.ts";
import type { ResourceClassMap } from "../core/resources/resource_path.ts";
import type { SkillActivation } from "../core/catalog/skill_usage.ts";
import type { SkillModes } from "../core/catalog/skill_modes.ts";
import type { ActivatedSkills } from "../core/catalog/skill_access.ts";
import type { ResolvedSkillProfile } from "../core/catalog/skill_profiles.ts";
import type { HostPaths } from "../core/catalog/skill_paths.ts";
import type { ApprovalStore } from "../core/trust/approval.ts";
import type { Lockfile } from "../core/trust/lockfile.ts";
import type { RunScriptOptions } from "../fs/scripts/run_script.ts";
import type { LoadedSkill } from "../fs/load/skill_folder.ts";

/**
 * An MCP server of the SDK (`McpServer` of `@modelcontextprotocol/server`).
 *
 * @internal
 */
type SdkMcpServer = McpServer;

/**
 * The SDK's skills catalog (`SkillCatalog` of `@modelcontextprotocol/server/ext/skills`).
 *
 * @internal
 */
type SdkSkillCatalog = SkillCatalog;

/**
 * What a catalog reload changed (`SkillCatalogChanges` of the SDK's skills extension).
 *
 * @internal
 */
type SdkSkillCatalogChanges = SkillCatalogChanges;

/**
 * A warning of the SDK's skills extension (`SkillWarning`).
 *
 * @internal
 */
type SdkSkillWarning = SkillWarning;

/** Each skill's safety: one value for all, or by skill name (absent means true). */
export type SkillSafety =
  | boolean
  | ReadonlyMap<string, boolean>
  | ((name: string) => boolean | undefined);

/** Options of {@linkcode serveSkills}. */
export interface ServeSkillsOptions {
  /** The server's global safety; default true. */
  readonly global_safety?: boolean;
  /** Each skill's safety; default true. */
  readonly skill_safety?: SkillSafety;
  /** Organisational prefix: `"acme"` serves `skill://acme/<skill>/…`. */
  readonly prefix?: string;
  /**
   * Extra top-level folders mapped to a standard class for every skill
   * (`resourceClassMap`), applied when listing and again, from the real
   * path, at read time; default none.
   */
  readonly resourceClasses?: ResourceClassMap;
  /** Entries per `skills/list` and directory page; default 100. */
  readonly pageSize?: number;
  /** Publication limits per skill; default 512 files and 16 MiB (SEP-2640). */
  readonly limits?: { readonly files?: number; readonly bytes?: number };
  /**
   * The largest message the transport carries, in bytes: the official SDK's
   * stdio transport refuses one over 10 MiB ({@linkcode STDIO_MESSAGE_BYTES}).
   * A file whose `resources/read` answer would not fit in one message is not
   * published, with a warning naming it. Default: no limit (HTTP).
   */
  readonly maxMessageBytes?: number;
  /** Where warnings go; default `console.warn` (stderr). */
  readonly onWarning?: (warning: SdkSkillWarning) => void;
  /** The server's name and version in the MCP handshake. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /**
   * The most characters of the `skill` tool's definition as sent — name,
   * description and input schema (default 8,000; `Infinity` for none):
   * descriptions are shortened, then skills are left out of the description
   * and its enum gives way to a plain string, and `skill_search` is offered
   * beside it to find them.
   */
  readonly toolBudget?: number | { readonly contextTokens: number; readonly share: number };
  /**
   * The most tokens of a SKILL.md body the `skill` tool's activation shows (`activateSkill`'s
   * `max_body_tokens`): a longer body is cut, with a pointer to the paged read of the rest.
   * The published `SKILL.md` resource stays whole. Default: no cap.
   */
  readonly maxBodyTokens?: number;
  /** How tokens are counted for `maxBodyTokens`; default characters ÷ 4, rounded up. */
  readonly countTokens?: TokenCounter;
  /**
   * Per-skill modes (see `skillMode`; a SKILL.md's `disable-model-invocation:
   * true` is `manual`): `pinned` and `name-only` shape the `skill` tool's
   * description; a `manual` skill is neither described nor in its enum, and
   * the tool refuses to activate it (it stays a resource, for the host to
   * activate when the user names it); a `disabled` skill is not served.
   */
  readonly modes?: SkillModes;
  /**
   * The skills the user or the host activated (see `skillAccess`): only these of the
   * `manual` skills have their files read through the `skill` tool, their scripts run by
   * `run_skill_script`, or satisfy another skill's dependency. Default: none (a server
   * hears no user, so a manual skill's files and scripts stay closed to the model). The
   * served tool's enum still names only the skills offered to the model.
   */
  readonly activated?: ActivatedSkills;
  /**
   * A resolved profile (`resolveSkillProfile`): only its skills are offered in the `skill`
   * tool and found by `skill_search` (its modes and pins apply); the others stay resources
   * for the host, and the model's call of one is answered as for an unknown skill.
   */
  readonly profile?: ResolvedSkillProfile;
  /**
   * The paths in play: a skill whose SKILL.md has `paths` is offered in the tool only when
   * one of its globs matches one of them (it stays a resource for the host).
   */
  readonly paths?: Iterable<string> | HostPaths;
  /**
   * A lockfile (or its path): a skill folder that differs from its entry, or
   * has none, is not served (a warning names the files), checked at start
   * and at each reload.
   */
  readonly lock?: Lockfile | string;
  /** `"warn"`: serve a skill that differs from its lock entry anyway, with the warning. Default `"enforce"`. */
  readonly lockMode?: "enforce" | "warn";
  /** Where the lockfile's sources are relative to; default the lockfile's folder (or the working folder). */
  readonly lockBase?: string;
  /**
   * Offer the `run_skill_script` tool, which runs a served skill's script in
   * a sandbox with these grants and limits (the server's safety switches and
   * lock apply), and list runnable scripts in activations. Default: not
   * offered; nothing served is ever run.
   */
  readonly scripts?: RunScriptOptions;
  /**
   * Approvals (origin `file`, keyed by folder): a skill not approved at its
   * digest is not served (a warning names it), checked in the same load as
   * the lock, at start and at each reload.
   */
  readonly approvals?: ApprovalStore;
  /**
   * Called once for each activation the `skill` tool returns (trigger `model`): the place for a
   * usage log (`usageLogSink` in `skillset/load`). What it throws is ignored.
   */
  readonly onActivate?: (activation: SkillActivation) => void;
  /**
   * The cache hints sent with `skills/list`, `skills/get`, directory reads and
   * skill files on 2026-07-28 connections (2025-era answers carry none): how
   * long a client may keep an answer (`ttlMs`, a non-negative integer of
   * milliseconds, at most 24 hours) and whether a shared cache may hold it
   * (`cacheScope`). Default the SDK's `ttlMs: 0`, `cacheScope: "private"`.
   */
  readonly cacheHint?: CacheHint;
}

/** The cache hints of a served answer (MCP 2026-07-28, SEP-2549). */
export interface CacheHint {
  /** How long a client may keep the answer, in milliseconds; default 0. */
  readonly ttlMs?: number;
  /** `"public"`: a shared cache may hold it; default `"private"`. */
  readonly cacheScope?: "public" | "private";
}

/** The longest `ttlMs` served or honoured: 24 hours (the SDK's cap). */
export const MAX_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Check a cache hint before anything is served.
 *
 * @param hint The hint.
 * @returns The hint, with only the fields given.
 * @throws {RangeError} When `ttlMs` is not an integer from 0 to 24 hours, or `cacheScope` is
 *   neither `"public"` nor `"private"`.
 */
export function checkCacheHint(hint: CacheHint): CacheHint {
  const { ttlMs, cacheScope } = hint;
  if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && ttlMs >= 0 && ttlMs <= MAX_TTL_MS)) {
    throw new RangeError(
      `Invalid ttlMs ${JSON.stringify(ttlMs)}: use an integer from 0 to ${MAX_TTL_MS}`,
    );
  }
  if (cacheScope !== undefined && cacheScope !== "public" && cacheScope !== "private") {
    throw new RangeError(
      `Invalid cacheScope ${JSON.stringify(cacheScope)}: use "public" or "private"`,
    );
  }
  return Object.freeze({
    ...(ttlMs === undefined ? {} : { ttlMs }),
    ...(cacheScope === undefined ? {} : { cacheScope }),
  });
}

/**
 * The official SDK's stdio message limit (10 MiB): pass it as
 * `maxMessageBytes` when serving (or consuming) over stdio.
 *
 * @example
 * ```ts
 * import { serveSkills, STDIO_MESSAGE_BYTES } from "../mcp.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const served = await serveSkills([new URL("../../examples/skills", import.meta.url).pathname], {
 *   maxMessageBytes: STDIO_MESSAGE_BYTES,
 * });
 * assert.equal(STDIO_MESSAGE_BYTES, 10 * 1024 * 1024);
 * assert.ok(served.skills.has("pdf"));
 * ```
 */
export const STDIO_MESSAGE_BYTES: number = 10 * 1024 * 1024;

/** What {@linkcode serveSkills} returns. */
export interface SkillServer {
  /** The SDK catalog: attach it to more servers, or read its published `entries`. */
  readonly catalog: SdkSkillCatalog;
  /** One server with the skills extension and the `skill` tool, ready to connect. */
  readonly server: SdkMcpServer;
  /** The published skills by name (after the last successful load). */
  readonly skills: ReadonlyMap<string, LoadedSkill>;
  /**
   * A fresh server over the same catalog: a factory for `serveStdio` and
   * `createMcpHandler`, which build one server per connection or request.
   */
  createServer(): SdkMcpServer;
  /**
   * Load again and swap the catalog in at once. For skill folders given as
   * paths, all or nothing: on failure the previous catalog keeps serving and
   * the error is thrown. For a discovery (or a function that discovers),
   * skill by skill: discovery runs again, a skill that no longer loads keeps
   * being served in its last good version (with a warning), one whose folder
   * is gone is dropped, and the others are unaffected. Sends
   * `resources/list_changed` to connected servers when anything changed.
   */
  reload(): Promise<SdkSkillCatalogChanges>;
}

/**
 * @param table The skill safety option.
 * @param name A skill name.
 * @returns The skill's safety (absent means true).
 */
export function skillSafety(table: SkillSafety | undefined, name: string): boolean {
  if (table === undefined) return true;
  if (typeof table === "boolean") return table;
  const value = typeof table === "function" ? table(name) : table.get(name);
  return value !== false;
}
