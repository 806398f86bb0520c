/**
 * Serving skill folders over MCP (SEP-2640) with the official SDK's skills
 * extension. The SDK's `SkillCatalog` does the wire side (`skills/list`,
 * `skills/get`, `resources/read`, `resources/directory/read`, digests,
 * paging, `reload()`); this file gives it a `SkillFiles` adapter over this
 * project's loader, so what is published is exactly what the gate lets a
 * model see.
 *
 * @module
 */
import {
  type Dir,
  existsSync,
  type FSWatcher,
  opendirSync,
  readdirSync,
  statSync,
  watch,
} from "node:fs";
import { join, resolve } from "node:path";
import { fromJsonSchema, McpServer, type RegisteredTool } from "@modelcontextprotocol/server";
import {
  SKILL_LIMITS,
  SkillCatalog,
  type SkillCatalogChanges,
  SkillCatalogError,
  type SkillFileEntry,
  type SkillFiles,
  type SkillWarning,
} from "@modelcontextprotocol/server/ext/skills";
import { openResource, type ResourceFile } from "../core/bundle.ts";
import { assertAccess, mayAccess, type SafetyFlags } from "../core/gate.ts";
import { McpSkillError } from "./_errors.ts";
import { agentSkillNameProblem } from "../core/agent_skill.ts";
import { ResourceReadError } from "../core/errors.ts";
import { effectiveClass, type ResourceClassMap } from "../core/resource_path.ts";
import { Discovery } from "../fs/discovery.ts";
import { isSkillFolder, type LoadedSkill, loadSkillFolder } from "../fs/skill_folder.ts";
import {
  handleSkillSearchTool,
  handleSkillTool,
  skillToolDefinition,
  skillTools,
} from "../core/skill_tool.ts";
import type { SkillIndex } from "../core/search/skill_index.ts";
import type { Lockfile } from "../core/trust/lockfile.ts";
import { skillManifest } from "../core/trust/manifest.ts";
import { loadLock, lockMismatch } from "../fs/trust.ts";

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
   * The most characters of the `skill` tool's description (default 8,000;
   * `Infinity` for none): descriptions are shortened, then skills are named
   * only in its enum, and `skill_search` is offered beside it to find them.
   */
  readonly toolBudget?: number | { readonly contextTokens: number; readonly share: number };
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

/** A published file and the switches its skill is served under. */
interface Published {
  readonly file: ResourceFile;
  readonly flags: SafetyFlags;
  /** The host's extra standard folders, for the class recomputed at read time. */
  readonly classes?: ResourceClassMap;
  /** SKILL.md's bytes as loaded: served as they were read, so a kept last good version stays whole. */
  readonly bytes?: Uint8Array;
}

/** A loaded skill and the files it publishes, by path inside the skill. */
interface ServedSkill {
  readonly skill: LoadedSkill;
  readonly files: ReadonlyMap<string, Published>;
}

/** The `skill` tool of one catalog version: built once, the same schema object for every server. */
interface ToolVersion {
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

/** The virtual tree the SDK walks: `<skill name>/<file path>`. */
interface Snapshot {
  readonly skills: ReadonlyMap<string, LoadedSkill>;
  /** Each skill's published files, by skill name. */
  readonly served: ReadonlyMap<string, ServedSkill>;
  /** Published files by virtual path, with the gate's switches for their skill. */
  readonly files: ReadonlyMap<string, Published>;
  /** Children by virtual folder path (`""` is the root). */
  readonly dirs: ReadonlyMap<string, ReadonlyMap<string, SkillFileEntry>>;
  /** The `skill` tool for these skills; `undefined` when there are none. */
  readonly tool?: ToolVersion;
}

/** Where the skills come from: folders loaded strictly, or discovery loaded leniently. */
type Source =
  | { readonly kind: "folders"; readonly folders: readonly string[] }
  | { readonly kind: "discovery"; readonly discover: () => Discovery };

const CHUNK = 64 * 1024;
const INSTRUCTIONS = ["SKILL.md", "skill.md"];
/** Room for the JSON-RPC envelope around a file's content in one message. */
const ENVELOPE_BYTES = 4096;
const PRUNE_AT = 1024;

/**
 * Serve skills over MCP: a `SkillCatalog` from the SDK's skills extension
 * over an adapter on this project's loader, plus the `skill` tool (SPEC §7)
 * on the same server. A skill's published files are exactly what the gate
 * lets a model see under `global_safety` and its `skill_safety`: a
 * non-standard folder is neither listed, digested, read nor shown in a
 * directory listing while the gate is closed, a link is classified by the
 * stricter of its two paths, a link out of the skill is never published, and
 * every read goes through the loader's verified read path, reading at most
 * the published size (a grown or changed file is `RESOURCE_CHANGED`). A skill
 * over the limits (512 files / 16 MiB of published files) is not published,
 * with a warning naming it. Files whose name starts with `.` are not
 * published (the SDK skips them), nor a `SKILL.md` below a skill's top level
 * (MCP would read it as another skill).
 *
 * Isolation: a skill is published at exactly one path segment, its name
 * (below the prefix, if any); a skill whose name breaks the Agent Skills name
 * rule (a `/`, `..`, empty, upper case, …) is not published, with a warning,
 * so no skill's files can land in another skill's URI space; a second skill
 * of a name already served, or a file URI already published, is refused.
 *
 * @param folders Skill folders, or folders whose direct sub-folders are skills
 *   (loaded strictly); or a discovery result (`discoverSkills`), whose winning
 *   skills are served, loaded leniently as discovery read them; or a function
 *   that discovers, called again on every reload (so `--watch` sees new skills).
 * @param options Safety, prefix, paging, limits, the transport's message limit, warnings.
 * @returns The catalog, a connected-ready server and a server factory.
 * @throws {McpSkillError} `DUPLICATE_SKILL` when two folders given as paths hold skills of the same name.
 * @throws {AgentSkillError} When a folder given as a path is missing or a skill breaks the Agent Skills rules.
 * @throws {McpSkillError} `CATALOG_REFUSED` when the SDK cannot list or read a published
 *   file. A skill the SDK's frontmatter reader refuses (it is stricter than this project's:
 *   no anchors, no multi-line quoted values, descriptions of at most 1,024 characters) is not
 *   an error: it is not published, with a warning naming it, and the other skills serve.
 * @example
 * ```ts
 * import { serveSkills } from "../mcp.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const served = await serveSkills([new URL("../../examples/skills", import.meta.url).pathname]);
 * assert.ok(served.catalog.entries.some((e) => e.uri === "skill://pdf/SKILL.md"));
 * assert.ok(served.skills.has("pdf"));
 * ```
 */
export async function serveSkills(
  folders: readonly string[] | Discovery | (() => Discovery),
  options: ServeSkillsOptions = {},
): Promise<SkillServer> {
  const warn = options.onWarning ?? ((w: SkillWarning) => console.warn(`${w.path}: ${w.message}`));
  // A budget too small for the tool's own text is refused before anything is served.
  if (options.toolBudget !== undefined) skillToolDefinition(["x"], { budget: options.toolBudget });
  const source: Source = folders instanceof Discovery
    ? { kind: "discovery", discover: () => folders }
    : typeof folders === "function"
    ? { kind: "discovery", discover: folders }
    : { kind: "folders", folders };
  const files = new LoaderFiles(source, options, warn);
  await files.checkLock();
  files.prepare();
  // Not strict: a skill the SDK refuses is skipped with a warning naming it, the rest serve.
  const catalog = await sdkCatalog(() =>
    SkillCatalog.load(files, {
      strict: false,
      onWarning: warn,
      limits: { files: Infinity, bytes: Infinity },
      ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
      ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
    })
  );
  files.commit(catalog.entries);
  const servers = new Set<WeakRef<McpServer>>();
  let pruneAt = PRUNE_AT;
  const tools = new WeakMap<McpServer, RegisteredTool>();
  const searchTools = new WeakMap<McpServer, RegisteredTool>();
  const createServer = (): McpServer => {
    const server = new McpServer(
      options.serverInfo ?? { name: "skillset", version: "0.1.0" },
      { capabilities: { tools: { listChanged: true }, resources: { listChanged: true } } },
    );
    catalog.attach(server);
    const tool = registerSkillTool(server, files, options);
    if (tool !== undefined) tools.set(server, tool);
    syncSearchTool(server, searchTools, files);
    if (servers.size >= pruneAt) {
      // Over HTTP every request builds a server: forget the collected ones.
      for (const ref of servers) if (ref.deref() === undefined) servers.delete(ref);
      pruneAt = Math.max(PRUNE_AT, 2 * servers.size);
    }
    servers.add(new WeakRef(server));
    return server;
  };
  let queue: Promise<unknown> = Promise.resolve();
  const reload = (): Promise<SkillCatalogChanges> => {
    const run = queue.then(async () => {
      try {
        await files.checkLock();
        files.prepare();
        const changes = await sdkCatalog(() => catalog.reload());
        files.commit(catalog.entries);
        notify(servers, { skill: tools, search: searchTools }, files, changes, options);
        return changes;
      } catch (e) {
        files.abort();
        throw e;
      }
    });
    queue = run.catch(() => {});
    return run;
  };
  return Object.freeze({
    catalog,
    server: createServer(),
    get skills() {
      return files.current.skills;
    },
    createServer,
    reload,
  });
}

/**
 * Run an SDK catalog step, turning its `SkillCatalogError` (a file that
 * cannot be listed or read) into this module's typed error.
 */
async function sdkCatalog<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (e) {
    if (!(e instanceof SkillCatalogError)) throw e;
    throw new McpSkillError(
      "CATALOG_REFUSED",
      `The MCP SDK refused the skills: ${
        e.problems.map((p) => `${p.path}: ${p.message}`).join("; ")
      }`,
      undefined,
      { cause: e },
    );
  }
}

function registerSkillTool(
  server: McpServer,
  files: LoaderFiles,
  options: ServeSkillsOptions,
): RegisteredTool | undefined {
  const tool = files.current.tool;
  if (tool === undefined) return undefined;
  const context = {
    global_safety: options.global_safety !== false,
    skill_safety: (name: string) => skillSafety(options.skill_safety, name),
  };
  return server.registerTool(
    "skill",
    { description: tool.description, inputSchema: tool.inputSchema },
    (input: unknown) => {
      const result = handleSkillTool(input, { ...context, skills: files.current.skills });
      return { content: [{ type: "text", text: result.content }], isError: result.is_error };
    },
  );
}

function notify(
  servers: Set<WeakRef<McpServer>>,
  registered: {
    readonly skill: WeakMap<McpServer, RegisteredTool>;
    readonly search: WeakMap<McpServer, RegisteredTool>;
  },
  files: LoaderFiles,
  changes: SkillCatalogChanges,
  options: ServeSkillsOptions,
): void {
  const any = changes.added.length + changes.removed.length + changes.changed.length > 0;
  if (!any) return;
  const definition = files.current.tool;
  for (const ref of servers) {
    const server = ref.deref();
    if (server === undefined) {
      servers.delete(ref);
      continue;
    }
    if (!server.isConnected()) continue;
    const tool = registered.skill.get(server);
    if (tool === undefined && definition !== undefined) {
      // The first skill arrived: the tool appears (the SDK announces tools/list_changed).
      const added = registerSkillTool(server, files, options);
      if (added !== undefined) registered.skill.set(server, added);
    } else if (tool !== undefined && definition !== undefined) {
      tool.update({ description: definition.description, paramsSchema: definition.inputSchema });
    }
    syncSearchTool(server, registered.search, files);
    // The SDK already announced additions and removals; a changed file is announced here.
    if (!changes.listChanged) server.sendResourceListChanged();
  }
}

/**
 * Register `skill_search` on a server when the current catalog version
 * offers it (the `skill` tool's description left skills out), update it when
 * it stays, remove it when it no longer does. Its schema object is the
 * version's own, so the SDK compiles it once per version, not per server.
 */
function syncSearchTool(
  server: McpServer,
  registered: WeakMap<McpServer, RegisteredTool>,
  files: LoaderFiles,
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

/**
 * Why a skill name cannot be a published path segment, or `undefined` when
 * it can: it must pass the Agent Skills name rule as written (lowercase
 * letters, digits and single hyphens, 1 to 64 characters), so it is one
 * plain segment — never `/`, `.`, `..`, `%` or empty.
 *
 * @param name A loaded skill's name.
 * @returns The reason, or `undefined`.
 */
export function unservableName(name: string): string | undefined {
  if (typeof name !== "string" || name === "") return "it is empty";
  if (name.normalize("NFKC") !== name) return "it is not in its normal (NFKC) form";
  return agentSkillNameProblem(name) ?? undefined;
}

/**
 * The `SkillFiles` adapter: a virtual tree `<skill>/<path>` of the files the
 * gate lets a model see. `list("")` (the start of every walk) loads all
 * skills into a pending snapshot; `commit()` makes it current once the SDK
 * accepted it, `abort()` drops it.
 */
class LoaderFiles implements SkillFiles {
  readonly #source: Source;
  readonly #options: ServeSkillsOptions;
  readonly #warn: (warning: SkillWarning) => void;
  #current: Snapshot = { skills: new Map(), served: new Map(), files: new Map(), dirs: new Map() };
  #pending: Snapshot | undefined;
  #prepared: Snapshot | undefined;
  /** Skill folders the lock keeps out (issue 20). */
  #refused = new Set<string>();

  constructor(source: Source, options: ServeSkillsOptions, warn: (warning: SkillWarning) => void) {
    this.#source = source.kind === "folders"
      ? { kind: "folders", folders: source.folders.map((f) => resolve(f)) }
      : source;
    this.#options = options;
    this.#warn = warn;
  }

  get current(): Snapshot {
    return this.#current;
  }

  /**
   * With a lock: hash every skill folder and keep out (or only warn about)
   * each one that differs from its lock entry or has none. A discovered
   * skill that cannot be loaded is left to the load, which reports it.
   */
  async checkLock(): Promise<void> {
    if (this.#options.lock === undefined) return;
    const lock = loadLock(this.#options.lock, this.#options.lockBase);
    const refused = new Set<string>();
    const lenient = this.#source.kind === "discovery";
    const folders = this.#source.kind === "folders"
      ? skillFolders(this.#source.folders)
      : this.#source.discover().skills.map((s) => resolve(s.path));
    for (const folder of folders) {
      let skill: LoadedSkill;
      try {
        skill = loadSkillFolder(folder, { lenient, ...this.#classes() });
      } catch (e) {
        if (lenient) continue;
        throw e;
      }
      const mismatch = await lockMismatch(lock, folder, await skillManifest(skill));
      if (mismatch === null) continue;
      const enforce = this.#options.lockMode !== "warn";
      this.#warn({ path: folder, message: `${mismatch.message}${enforce ? "; not served" : ""}` });
      if (enforce) refused.add(folder);
    }
    this.#refused = refused;
  }

  /** Load the skills now, so the loader's own errors reach the caller unwrapped. */
  prepare(): void {
    this.#prepared = this.#load();
  }

  /**
   * Make the pending snapshot current, keeping only the skills the SDK
   * published (it skips, with a warning, a skill it refuses), so the `skill`
   * tool serves exactly what `skills/list` does; the tool's definition and
   * schema are built here, once per catalog version.
   */
  commit(entries: readonly { readonly frontmatter: { readonly name: unknown } }[]): void {
    if (this.#pending !== undefined) {
      const kept = published(this.#pending, new Set(entries.map((e) => e.frontmatter.name)));
      this.#current = { ...kept, ...toolOf(kept.skills, this.#options.toolBudget) };
    }
    this.#pending = undefined;
  }

  abort(): void {
    this.#pending = undefined;
    this.#prepared = undefined;
  }

  list(dir: string): Promise<SkillFileEntry[]> {
    if (dir === "") {
      this.#pending = this.#prepared ?? this.#load();
      this.#prepared = undefined;
    }
    const children = (this.#pending ?? this.#current).dirs.get(dir);
    if (children === undefined) return Promise.reject(new Error(`No such folder "${dir}"`));
    return Promise.resolve([...children.values()]);
  }

  read(path: string): Promise<Uint8Array> {
    const published = this.#pending?.files.get(path) ?? this.#current.files.get(path);
    if (published === undefined) return Promise.reject(new Error(`No such file "${path}"`));
    try {
      return Promise.resolve(published.bytes ?? readPublished(published));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  #load(): Snapshot {
    const served = new Map<string, ServedSkill>();
    const files = new Map<string, Published>();
    if (this.#source.kind === "folders") {
      for (const folder of skillFolders(this.#source.folders)) {
        if (this.#refused.has(folder)) continue;
        const skill = loadSkillFolder(folder, this.#classes());
        const previous = served.get(skill.name);
        if (previous !== undefined) {
          throw new McpSkillError(
            "DUPLICATE_SKILL",
            `Two folders hold the skill ${JSON.stringify(skill.name)}: ${
              JSON.stringify(previous.skill.location)
            } and ${JSON.stringify(skill.location)}`,
          );
        }
        this.#add(skill, served, files);
      }
    } else {
      this.#discover(served, files);
    }
    return snapshotOf(served, files);
  }

  /**
   * Discovery's winners, each loaded leniently; a skill that no longer loads
   * keeps its last good version when its folder is still there.
   */
  #discover(served: Map<string, ServedSkill>, files: Map<string, Published>): void {
    const discovery = this.#source.kind === "discovery" ? this.#source.discover() : undefined;
    if (discovery === undefined) return;
    const last = this.#current.served;
    const keep = (name: string, folder: string, reason: string): void => {
      const good = last.get(name);
      if (good === undefined || good.skill.location !== resolve(folder) || served.has(name)) {
        this.#warn({ path: folder, message: `not served: ${reason}` });
        return;
      }
      this.#warn({
        path: folder,
        message: `skill ${
          JSON.stringify(name)
        } no longer loads (${reason}); still serving its last good version`,
      });
      // The last good version keeps the files still as they were published (SKILL.md as loaded).
      const kept = new Map<string, Published>();
      for (const [path, file] of good.files) {
        if (file.bytes === undefined && !unchanged(good.skill.location, file)) {
          this.#warn({
            path: `${folder}/${path}`,
            message: "changed since the last good version; left out of it",
          });
          continue;
        }
        kept.set(path, file);
        files.set(`${name}/${path}`, file);
      }
      served.set(name, { skill: good.skill, files: kept });
    };
    for (const found of discovery.skills) {
      if (this.#refused.has(resolve(found.path))) continue;
      let skill: LoadedSkill;
      try {
        skill = loadSkillFolder(found.path, { lenient: true, ...this.#classes() });
      } catch (e) {
        keep(found.name, found.path, e instanceof Error ? e.message : String(e));
        continue;
      }
      if (skill.name !== found.name) {
        keep(found.name, found.path, `its name is now ${JSON.stringify(skill.name)}`);
        continue;
      }
      this.#add(skill, served, files);
    }
    const byFolder = new Map([...last.values()].map((s) => [s.skill.location, s.skill.name]));
    for (const skipped of discovery.skipped) {
      const name = byFolder.get(resolve(skipped.path));
      if (name === undefined || served.has(name)) continue;
      const reason = skipped.diagnostics.map((d) => d.message).join("; ") || "it cannot be read";
      keep(name, skipped.path, reason);
    }
  }

  /** Publish one loaded skill under its name, unless its name or one of its URIs is not its own. */
  #add(skill: LoadedSkill, served: Map<string, ServedSkill>, files: Map<string, Published>): void {
    const problem = unservableName(skill.name);
    if (problem !== undefined) {
      this.#warn({
        path: skill.location,
        message: `Skill ${
          JSON.stringify(skill.name)
        } is not published: its name is not one plain path segment (${problem})`,
      });
      return;
    }
    if (served.has(skill.name)) {
      this.#warn({
        path: skill.location,
        message: `Skill ${JSON.stringify(skill.name)} is not published: ${
          JSON.stringify(served.get(skill.name)!.skill.location)
        } already serves that name`,
      });
      return;
    }
    const flags = this.#flags(skill.name);
    const own = this.#published(skill, flags);
    if (own === undefined) return;
    const taken = [...own.keys()].find((path) => files.has(`${skill.name}/${path}`));
    if (taken !== undefined) {
      this.#warn({
        path: skill.location,
        message: `Skill ${JSON.stringify(skill.name)} is not published: the URI of ${
          JSON.stringify(taken)
        } is already published`,
      });
      return;
    }
    served.set(skill.name, { skill, files: own });
    for (const [path, file] of own) files.set(`${skill.name}/${path}`, file);
  }

  #classes(): { resourceClasses?: ResourceClassMap } {
    const classes = this.#options.resourceClasses;
    return classes === undefined ? {} : { resourceClasses: classes };
  }

  #flags(name: string): SafetyFlags {
    return {
      global_safety: this.#options.global_safety !== false,
      skill_safety: skillSafety(this.#options.skill_safety, name),
    };
  }

  /** The files of `skill` a model may see, by the path they are served under; `undefined` over the limits. */
  #published(skill: LoadedSkill, flags: SafetyFlags): Map<string, Published> | undefined {
    const published = new Map<string, Published>();
    const instructions = INSTRUCTIONS.find((n) => skill.files.has(n))!;
    const maxMessage = this.#options.maxMessageBytes;
    let bytes = 0;
    for (const file of skill.files.values()) {
      if (file.outside_root === true) continue;
      if (INSTRUCTIONS.includes(file.path) && file.path !== instructions) continue;
      const classes = skill.resource_classes;
      if (!mayAccess(effectiveClass(file.path, file.real_path, classes), flags)) continue;
      const served = file.path === instructions ? "SKILL.md" : file.path;
      if (served.split("/").some((segment) => segment.startsWith("."))) continue;
      if (served !== "SKILL.md" && served.endsWith("/SKILL.md")) {
        this.#warn({
          path: `${skill.location}/${served}`,
          message: "a SKILL.md below the top level of a skill is not published",
        });
        continue;
      }
      const base: Published = classes === undefined ? { file, flags } : { file, flags, classes };
      const entry: Published = served === "SKILL.md"
        ? { ...base, bytes: readPublished(base) }
        : base;
      if (maxMessage !== undefined && !fitsOneMessage(entry, maxMessage)) {
        this.#warn({
          path: `${skill.location}/${served}`,
          message:
            `not published: reading it would take a message over this transport's limit of ${maxMessage} bytes`,
        });
        continue;
      }
      published.set(served, entry);
      bytes += file.size;
    }
    const maxFiles = this.#options.limits?.files ?? SKILL_LIMITS.files;
    const maxBytes = this.#options.limits?.bytes ?? SKILL_LIMITS.bytes;
    if (published.size > maxFiles || bytes > maxBytes) {
      this.#warn({
        path: skill.location,
        message: `Skill ${
          JSON.stringify(skill.name)
        } is not published: ${published.size} files / ${bytes} bytes exceed the limit of ${maxFiles} files / ${maxBytes} bytes`,
      });
      return undefined;
    }
    return published;
  }
}

/** Whether a published file still has its published size (a cheap look: one `stat`). */
function unchanged(location: string, { file }: Published): boolean {
  try {
    return statSync(join(location, file.path)).size === file.size;
  } catch {
    return false;
  }
}

/**
 * The tools of a catalog version, built once: the `skill` tool within the
 * budget, and `skill_search` with its index when the budget left skills out.
 */
function toolOf(
  skills: ReadonlyMap<string, LoadedSkill>,
  budget: ServeSkillsOptions["toolBudget"],
): { tool?: ToolVersion } {
  if (skills.size === 0) return {};
  const set = skillTools(skills.values(), budget === undefined ? {} : { budget });
  const schema = (definition: { readonly input_schema: unknown }) =>
    fromJsonSchema(definition.input_schema as Record<string, unknown>);
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
 * Whether reading the file fits in one message of `max` bytes: its content as
 * JSON text (at most 6 bytes a byte) or base64 (4 per 3), plus the envelope.
 * Only a file that might not fit is read to tell exactly.
 */
function fitsOneMessage(entry: Published, max: number): boolean {
  if (entry.file.size * 6 + ENVELOPE_BYTES <= max) return true;
  if (Math.ceil(entry.file.size / 3) * 4 + ENVELOPE_BYTES > max) {
    if (entry.file.size + ENVELOPE_BYTES > max) return false;
  }
  const bytes = entry.bytes ?? readPublished(entry);
  let text: string | undefined;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    text = undefined;
  }
  const encoded = text === undefined
    ? Math.ceil(bytes.length / 3) * 4
    : new TextEncoder().encode(JSON.stringify(text)).length;
  return encoded + ENVELOPE_BYTES <= max;
}

function snapshotOf(served: Map<string, ServedSkill>, files: Map<string, Published>): Snapshot {
  const dirs = new Map<string, Map<string, SkillFileEntry>>([["", new Map()]]);
  for (const virtual of files.keys()) addToTree(dirs, virtual);
  const skills = new Map([...served].map(([name, s]) => [name, s.skill]));
  return { skills, served, files, dirs };
}

/** `snapshot` without the skills not in `names`. */
function published(snapshot: Snapshot, names: ReadonlySet<unknown>): Snapshot {
  if ([...snapshot.skills.keys()].every((name) => names.has(name))) return snapshot;
  const served = new Map([...snapshot.served].filter(([name]) => names.has(name)));
  const files = new Map<string, Published>();
  for (const [virtual, file] of snapshot.files) {
    if (served.has(virtual.slice(0, virtual.indexOf("/")))) files.set(virtual, file);
  }
  return snapshotOf(served, files);
}

function addToTree(dirs: Map<string, Map<string, SkillFileEntry>>, path: string): void {
  const segments = path.split("/");
  let dir = "";
  segments.forEach((name, i) => {
    const kind = i < segments.length - 1 ? "directory" : "file";
    let children = dirs.get(dir);
    if (children === undefined) dirs.set(dir, children = new Map());
    if (!children.has(name)) children.set(name, { name, kind });
    dir = dir === "" ? name : `${dir}/${name}`;
  });
}

/**
 * A published file's bytes through one verified handle (SPEC §4: opened once,
 * regular file, real path inside the skill after the open), refused when the
 * class of the real path found at read time is one the gate closes. At most
 * the published size is read: a file whose size is no longer the published
 * one is `RESOURCE_CHANGED` before any byte is read, so a file that grew
 * never costs more than its published size.
 */
function readPublished({ file, flags, classes }: Published): Uint8Array {
  const handle = openResource(file);
  try {
    assertAccess(file.path, effectiveClass(file.path, handle.real_path, classes), flags, "read");
    if (handle.size !== file.size) {
      throw new ResourceReadError(
        "RESOURCE_CHANGED",
        file.path,
        `it is now ${handle.size} bytes, not the ${file.size} it was published with`,
      );
    }
    // One read is the answer as it is, not copied again.
    if (file.size <= CHUNK) return handle.read(0, file.size);
    const out = new Uint8Array(file.size);
    let total = 0;
    while (total < file.size) {
      const chunk = handle.read(total, Math.min(CHUNK, file.size - total));
      if (chunk.length === 0) break;
      out.set(chunk, total);
      total += chunk.length;
    }
    return total === file.size ? out : out.subarray(0, total);
  } finally {
    handle.close();
  }
}

/** Each argument is a skill folder, or a folder whose direct sub-folders are skills (sorted). */
function skillFolders(folders: readonly string[]): string[] {
  const out: string[] = [];
  for (const folder of folders) {
    if (isSkillFolder(folder)) {
      out.push(folder);
      continue;
    }
    let names: string[];
    try {
      names = readdirSync(folder, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !e.name.startsWith("."))
        .map((e) => e.name)
        .sort();
    } catch {
      // Not a readable folder: loaded as a skill, for the loader's clear error.
      out.push(folder);
      continue;
    }
    // A folder without skills serves none (yet: --watch picks up skills added later).
    out.push(...names.map((n) => join(folder, n)).filter(isSkillFolder));
  }
  return out;
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

/** Options of {@linkcode watchSkills}. */
export interface WatchOptions {
  /** How often a tick runs; default 500 ms. */
  readonly intervalMs?: number;
  /** Entries (files and folders) looked at per tick at most; default 2,000. */
  readonly entriesPerTick?: number;
  /** Time one tick may take at most, in milliseconds; default 4. */
  readonly tickMs?: number;
  /** Entries one sweep looks at at most (the rest are not watched); default 200,000. */
  readonly maxEntries?: number;
  /**
   * File-system events as well as the poll, where the runtime has them
   * (`fs.watch`): one watch per folder the sweep looks at, so a change is
   * seen at once instead of at the end of a sweep; default true. They are
   * not used when a sweep finds more than `maxWatchedFolders` folders, nor
   * after a watch fails (the poll carries on alone).
   */
  readonly events?: boolean;
  /** Folders watched for events at most; default 4,096. */
  readonly maxWatchedFolders?: number;
  /** Called after each successful reload that changed something. */
  readonly onReload?: (changes: SdkSkillCatalogChanges) => void;
  /** Called when a reload fails (the previous catalog keeps serving). */
  readonly onError?: (error: unknown) => void;
}

/**
 * Reload a served catalog whenever the folders change. Change detection is a
 * poll bounded in work and time, the same on every runtime and file system:
 * each tick (every `intervalMs`) looks at up to `entriesPerTick` entries
 * (one `stat` each) and stops after `tickMs`, carrying on where it stopped at
 * the next tick; a sweep over the whole tree sums each entry's path, size,
 * modification time and inode, and a sum that differs from the previous
 * sweep's reloads. A 10,000-file tree is swept in 5 ticks (about 2.5 s at the
 * defaults) and no tick holds request handling for more than a few
 * milliseconds. Folders named `.git` and `node_modules` are not entered, nor
 * links to folders. Where the runtime has file-system events, each folder a
 * sweep looked at is also watched (up to `maxWatchedFolders`), and an event
 * reloads within about 50 ms; the poll stays, for what events miss (a change
 * in a folder not watched yet): a change an event reloaded for is reloaded
 * once more when the poll's sweep sees it.
 *
 * @param served From {@linkcode serveSkills}.
 * @param folders The folders it serves.
 * @param options Bounds and callbacks.
 * @returns A handle whose `close()` stops watching.
 * @example
 * ```ts
 * import { serveSkills, watchSkills } from "../mcp.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const folder = new URL("../../examples/skills", import.meta.url).pathname;
 * const served = await serveSkills([folder]);
 * const watcher = watchSkills(served, [folder], { intervalMs: 50 });
 * watcher.close();
 * assert.ok(served.skills.has("pdf"));
 * ```
 */
export function watchSkills(
  served: SkillServer,
  folders: readonly string[],
  options: WatchOptions = {},
): { close(): void } {
  const maxWatched = options.events === false ? 0 : options.maxWatchedFolders ?? 4096;
  const sweeper = new Sweeper(
    folders.map((f) => resolve(f)),
    options.maxEntries ?? 200_000,
    maxWatched,
  );
  // The first sweep runs now, whole: the baseline is the tree as it is served.
  let last = sweeper.sweep(Infinity, Infinity);
  while (last === undefined) last = sweeper.sweep(Infinity, Infinity);
  let busy = false;
  /** An event came while a reload ran: reload once more after it. */
  let again = false;
  let closed = false;
  const perTick = options.entriesPerTick ?? 2000;
  const tickMs = options.tickMs ?? 4;
  const reload = (then: () => void = () => {}): void => {
    busy = true;
    served.reload().then(
      (changes) => {
        then();
        const any = changes.added.length + changes.removed.length + changes.changed.length;
        if (any > 0) options.onReload?.(changes);
      },
      (error) => {
        then();
        options.onError?.(error);
      },
    ).finally(() => {
      busy = false;
      if (again && !closed) {
        again = false;
        changed();
      }
    });
  };
  // An event reloads at once. The poll keeps its baseline: a change the events miss (in a
  // folder not watched yet, say) still differs from it, so the poll reloads again for it.
  let soon: ReturnType<typeof setTimeout> | undefined;
  const changed = (): void => {
    soon ??= setTimeout(() => {
      soon = undefined;
      if (closed) return;
      if (busy) {
        again = true;
        return;
      }
      reload();
    }, 50);
  };
  const events = options.events === false ? undefined : new FolderEvents(maxWatched, changed);
  events?.watch(sweeper.folders);
  const timer = setInterval(() => {
    if (busy) return;
    const now = sweeper.sweep(perTick, tickMs);
    if (now === undefined) return;
    events?.watch(sweeper.folders);
    if (now === last) return;
    reload(() => (last = now));
  }, options.intervalMs ?? 500);
  return {
    close: () => {
      closed = true;
      clearInterval(timer);
      if (soon !== undefined) clearTimeout(soon);
      events?.close();
      sweeper.close();
    },
  };
}

/**
 * File-system events for a set of folders: one non-recursive `fs.watch`
 * each (so `.git`, `node_modules` and anything else the sweep skips are not
 * watched), replaced when the set changes. More folders than `max`, or a
 * watch that fails, and events stop for good: the poll carries on alone.
 */
class FolderEvents {
  readonly #max: number;
  readonly #onChange: () => void;
  #watchers = new Map<string, FSWatcher>();
  #off = false;

  constructor(max: number, onChange: () => void) {
    this.#max = max;
    this.#onChange = onChange;
  }

  /** Watch exactly `folders` (the last whole sweep's; `null`: too many), unless events are off. */
  watch(folders: ReadonlySet<string> | null): void {
    if (this.#off) return;
    if (folders === null || folders.size > this.#max) return this.close();
    for (const [folder, watcher] of this.#watchers) {
      if (folders.has(folder)) continue;
      watcher.close();
      this.#watchers.delete(folder);
    }
    for (const folder of folders) {
      if (this.#watchers.has(folder)) continue;
      let watcher: FSWatcher;
      try {
        watcher = watch(folder, { persistent: false }, () => this.#onChange());
      } catch {
        return this.close();
      }
      // A removed folder only reports a rename; a watch that fails stops events for good.
      watcher.on("error", () => this.close());
      this.#watchers.set(folder, watcher);
    }
  }

  close(): void {
    this.#off = true;
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }
}

/** An incremental walk of the watched folders: a few entries per call, resumed where it stopped. */
class Sweeper {
  readonly #roots: readonly string[];
  readonly #max: number;
  #stack: string[] = [];
  #dir: { readonly path: string; readonly handle: Dir } | undefined;
  #sum = [0, 0];
  #count = 0;
  readonly #keep: number;
  /** Folders the sweep under way has opened so far; `null` past `keep` of them. */
  #opened: Set<string> | null = new Set();
  /** Folders the last whole sweep opened; `null` when there were more than `keep`. */
  folders: ReadonlySet<string> | null = new Set();

  /**
   * @param roots The folders to sweep.
   * @param max Entries a sweep looks at at most.
   * @param keep Folders a sweep remembers at most (for events).
   */
  constructor(roots: readonly string[], max: number, keep: number) {
    this.#roots = roots;
    this.#max = max;
    this.#keep = keep;
    this.#start();
  }

  #start(): void {
    this.#stack = [...this.#roots].reverse();
    this.#sum = [0, 0];
    this.#count = 0;
    this.#opened = new Set();
    for (const root of this.#roots) this.#add(root, existsSync(root) ? "root" : "missing");
  }

  /** Drop the sweep under way and start a new one. */
  #restart(): void {
    this.close();
    this.#start();
  }

  /**
   * Look at up to `entries` entries for at most `ms` milliseconds.
   *
   * @returns The sweep's fingerprint when this call finished a sweep, else `undefined`.
   */
  sweep(entries: number, ms: number): string | undefined {
    const until = performance.now() + ms;
    for (let done = 0; done < entries; done++) {
      if (done > 0 && (done & 31) === 0 && performance.now() > until) return undefined;
      if (this.#dir === undefined) {
        const next = this.#stack.pop();
        if (next === undefined || this.#count >= this.#max) {
          const fingerprint = `${this.#count}:${this.#sum[0]}:${this.#sum[1]}`;
          this.folders = this.#opened;
          this.#restart();
          return fingerprint;
        }
        try {
          this.#dir = { path: next, handle: opendirSync(next) };
          if (this.#opened !== null && this.#opened.size >= this.#keep) this.#opened = null;
          this.#opened?.add(next);
        } catch {
          this.#add(next, "unreadable");
        }
        continue;
      }
      let entry;
      try {
        entry = this.#dir.handle.readSync();
      } catch {
        entry = null;
      }
      if (entry === null) {
        this.close();
        continue;
      }
      const full = join(this.#dir.path, entry.name);
      if (entry.isDirectory() && entry.name !== ".git" && entry.name !== "node_modules") {
        this.#stack.push(full);
      }
      const stat = statSync(full, { throwIfNoEntry: false });
      this.#add(full, stat === undefined ? "gone" : `${stat.size}:${stat.mtimeMs}:${stat.ino}`);
    }
    return undefined;
  }

  /** Add an entry to the sweep's order-independent sums. */
  #add(path: string, state: string): void {
    const text = `${path}\0${state}`;
    let a = 0x811c9dc5, b = 0x01000193;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
    }
    this.#sum = [
      (this.#sum[0]! + (a >>> 0)) % 0x100000000,
      (this.#sum[1]! + (b >>> 0)) % 0x100000000,
    ];
    this.#count++;
  }

  close(): void {
    try {
      this.#dir?.handle.closeSync();
    } catch {
      // Already closed.
    }
    this.#dir = undefined;
  }
}
