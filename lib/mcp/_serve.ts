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
import { readdirSync, type Stats, statSync } from "node:fs";
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
import { effectiveClass } from "../core/resource_path.ts";
import { Discovery } from "../fs/discover.ts";
import { isSkillFolder, type LoadedSkill, loadSkillFolder } from "../fs/skill_folder.ts";
import {
  handleSkillSearchTool,
  handleSkillTool,
  skillToolDefinition,
  type SkillTools,
  skillTools,
} from "../core/skill_tool.ts";
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
  /** Entries per `skills/list` and directory page; default 100. */
  readonly pageSize?: number;
  /** Publication limits per skill; default 512 files and 16 MiB (SEP-2640). */
  readonly limits?: { readonly files?: number; readonly bytes?: number };
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
   * Load every folder again and swap the catalog in at once; all or nothing:
   * on failure the previous catalog keeps serving and the error is thrown.
   * Sends `resources/list_changed` to connected servers when anything changed.
   */
  reload(): Promise<SdkSkillCatalogChanges>;
}

/** A published file and the switches its skill is served under. */
interface Published {
  readonly file: ResourceFile;
  readonly flags: SafetyFlags;
}

/** The virtual tree the SDK walks: `<skill name>/<file path>`. */
interface Snapshot {
  readonly skills: ReadonlyMap<string, LoadedSkill>;
  /** Published files by virtual path, with the gate's switches for their skill. */
  readonly files: ReadonlyMap<string, Published>;
  /** Children by virtual folder path (`""` is the root). */
  readonly dirs: ReadonlyMap<string, ReadonlyMap<string, SkillFileEntry>>;
}

const CHUNK = 64 * 1024;
const INSTRUCTIONS = ["SKILL.md", "skill.md"];

/**
 * Serve skill folders over MCP: a `SkillCatalog` from the SDK's skills
 * extension over an adapter on this project's loader, plus the `skill` tool
 * (SPEC §7) on the same server. A skill's published files are exactly what
 * the gate lets a model see under `global_safety` and its `skill_safety`: a
 * non-standard folder is neither listed, digested, read nor shown in a
 * directory listing while the gate is closed, a link is classified by the
 * stricter of its two paths, a link out of the skill is never published, and
 * every read goes through the loader's verified read path. A skill over the
 * limits (512 files / 16 MiB of published files) is not published, with a
 * warning naming it. Files whose name starts with `.` are not published (the
 * SDK skips them), nor a `SKILL.md` below a skill's top level (MCP would read
 * it as another skill).
 *
 * @param folders Skill folders, or folders whose direct sub-folders are skills;
 *   or a discovery result (`discoverSkills`), whose winning skills are served,
 *   loaded leniently as discovery read them.
 * @param options Safety, prefix, paging, limits, warnings.
 * @returns The catalog, a connected-ready server and a server factory.
 * @throws {McpSkillError} `DUPLICATE_SKILL` when two folders hold skills of the same name.
 * @throws {AgentSkillError} When a folder is missing or a skill breaks the Agent Skills rules.
 * @throws {McpSkillError} `CATALOG_REFUSED` when the SDK cannot list or read a published
 *   file. A skill the SDK's frontmatter reader refuses (it is stricter than this project's:
 *   no anchors, no multi-line quoted values) is not an error: it is not published, with a
 *   warning naming it, and the other skills serve.
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
  folders: readonly string[] | Discovery,
  options: ServeSkillsOptions = {},
): Promise<SkillServer> {
  const warn = options.onWarning ?? ((w: SkillWarning) => console.warn(`${w.path}: ${w.message}`));
  // A budget too small for the tool's own text is refused before anything is served.
  if (options.toolBudget !== undefined) skillToolDefinition(["x"], { budget: options.toolBudget });
  const discovered = folders instanceof Discovery;
  const paths = discovered ? folders.skills.map((s) => s.path) : folders;
  const files = new LoaderFiles(paths, options, warn, discovered);
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
  const tools = new WeakMap<McpServer, RegisteredTool>();
  const searchTools = new WeakMap<McpServer, RegisteredTool>();
  const createServer = (): McpServer => {
    const server = new McpServer(
      options.serverInfo ?? { name: "skillset", version: "0.1.0" },
      { capabilities: { tools: { listChanged: true }, resources: { listChanged: true } } },
    );
    catalog.attach(server);
    const tool = registerSkillTool(server, () => files.current.skills, options);
    if (tool !== undefined) tools.set(server, tool);
    syncSearchTool(server, searchTools, () => files.current.skills, options);
    if (servers.size >= 1024) {
      // Over HTTP every request builds a server: forget the collected ones.
      for (const ref of servers) if (ref.deref() === undefined) servers.delete(ref);
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
        notify(servers, tools, files.current.skills, changes, options, searchTools);
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
  skills: () => ReadonlyMap<string, LoadedSkill>,
  options: ServeSkillsOptions,
): RegisteredTool | undefined {
  if (skills().size === 0) return undefined;
  const definition = toolsOf(skills(), options).skill;
  return server.registerTool(
    "skill",
    {
      description: definition.description,
      inputSchema: fromJsonSchema(definition.input_schema as Record<string, unknown>),
    },
    (input: unknown) => {
      const result = handleSkillTool(input, {
        skills: skills(),
        global_safety: options.global_safety !== false,
        skill_safety: (name) => skillSafety(options.skill_safety, name),
      });
      return { content: [{ type: "text", text: result.content }], isError: result.is_error };
    },
  );
}

function notify(
  servers: Set<WeakRef<McpServer>>,
  tools: WeakMap<McpServer, RegisteredTool>,
  skills: ReadonlyMap<string, LoadedSkill>,
  changes: SkillCatalogChanges,
  options: ServeSkillsOptions,
  searchTools: WeakMap<McpServer, RegisteredTool>,
): void {
  const any = changes.added.length + changes.removed.length + changes.changed.length > 0;
  if (!any) return;
  const definition = skills.size === 0 ? undefined : toolsOf(skills, options).skill;
  for (const ref of servers) {
    const server = ref.deref();
    if (server === undefined) {
      servers.delete(ref);
      continue;
    }
    if (!server.isConnected()) continue;
    const tool = tools.get(server);
    if (tool === undefined && definition !== undefined) {
      // The first skill arrived: the tool appears (the SDK announces tools/list_changed).
      const added = registerSkillTool(server, () => skills, options);
      if (added !== undefined) tools.set(server, added);
    } else if (tool !== undefined && definition !== undefined) {
      tool.update({
        description: definition.description,
        paramsSchema: fromJsonSchema(definition.input_schema as Record<string, unknown>),
      });
    }
    syncSearchTool(server, searchTools, () => skills, options);
    // The SDK already announced additions and removals; a changed file is announced here.
    if (!changes.listChanged) server.sendResourceListChanged();
  }
}

/** The tools of one catalog version (its skills map), built once: the budgeted `skill` tool, and `skill_search` when it left skills out. */
const TOOL_SETS = new WeakMap<ReadonlyMap<string, LoadedSkill>, SkillTools>();

function toolsOf(
  skills: ReadonlyMap<string, LoadedSkill>,
  options: ServeSkillsOptions,
): SkillTools {
  let set = TOOL_SETS.get(skills);
  if (set === undefined) {
    set = skillTools(
      skills.values(),
      options.toolBudget === undefined ? {} : { budget: options.toolBudget },
    );
    TOOL_SETS.set(skills, set);
  }
  return set;
}

/** Register `skill_search` on a server when the catalog needs it, remove it when it no longer does. */
function syncSearchTool(
  server: McpServer,
  searchTools: WeakMap<McpServer, RegisteredTool>,
  skills: () => ReadonlyMap<string, LoadedSkill>,
  options: ServeSkillsOptions,
): void {
  const wanted = skills().size > 0 && toolsOf(skills(), options).skill_search !== undefined;
  const registered = searchTools.get(server);
  if (wanted && registered === undefined) {
    const definition = toolsOf(skills(), options).skill_search!;
    searchTools.set(
      server,
      server.registerTool(
        definition.name,
        {
          description: definition.description,
          inputSchema: fromJsonSchema(definition.input_schema as Record<string, unknown>),
        },
        (input: unknown) => {
          const index = toolsOf(skills(), options).search_index;
          const result = index === undefined
            ? { content: "skill_search is not offered for these skills", is_error: true }
            : handleSkillSearchTool(input, index);
          return { content: [{ type: "text", text: result.content }], isError: result.is_error };
        },
      ),
    );
  } else if (!wanted && registered !== undefined) {
    registered.remove();
    searchTools.delete(server);
  }
}

/**
 * The `SkillFiles` adapter: a virtual tree `<skill>/<path>` of the files the
 * gate lets a model see. `list("")` (the start of every walk) loads all
 * folders into a pending snapshot; `commit()` makes it current once the SDK
 * accepted it, `abort()` drops it.
 */
class LoaderFiles implements SkillFiles {
  readonly #folders: readonly string[];
  readonly #options: ServeSkillsOptions;
  readonly #warn: (warning: SkillWarning) => void;
  readonly #lenient: boolean;
  #current: Snapshot = { skills: new Map(), files: new Map(), dirs: new Map() };
  #pending: Snapshot | undefined;
  #prepared: Snapshot | undefined;
  /** Skill folders the lock keeps out (issue 20). */
  #refused = new Set<string>();

  constructor(
    folders: readonly string[],
    options: ServeSkillsOptions,
    warn: (warning: SkillWarning) => void,
    lenient: boolean,
  ) {
    this.#folders = folders.map((f) => resolve(f));
    this.#options = options;
    this.#warn = warn;
    this.#lenient = lenient;
  }

  get current(): Snapshot {
    return this.#current;
  }

  /**
   * With a lock: hash every skill folder and keep out (or only warn about)
   * each one that differs from its lock entry or has none.
   */
  async checkLock(): Promise<void> {
    if (this.#options.lock === undefined) return;
    const lock = loadLock(this.#options.lock, this.#options.lockBase);
    const refused = new Set<string>();
    for (const folder of skillFolders(this.#folders)) {
      const manifest = await skillManifest(loadSkillFolder(folder, { lenient: this.#lenient }));
      const mismatch = await lockMismatch(lock, folder, manifest);
      if (mismatch === null) continue;
      const enforce = this.#options.lockMode !== "warn";
      this.#warn({ path: folder, message: `${mismatch.message}${enforce ? "; not served" : ""}` });
      if (enforce) refused.add(folder);
    }
    this.#refused = refused;
  }

  /** Load the folders now, so the loader's own errors reach the caller unwrapped. */
  prepare(): void {
    this.#prepared = this.#load();
  }

  /**
   * Make the pending snapshot current, keeping only the skills the SDK
   * published (it skips, with a warning, a skill it refuses), so the `skill`
   * tool serves exactly what `skills/list` does.
   */
  commit(entries: readonly { readonly frontmatter: { readonly name: unknown } }[]): void {
    if (this.#pending !== undefined) {
      this.#current = published(this.#pending, new Set(entries.map((e) => e.frontmatter.name)));
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
      return Promise.resolve(readWhole(published));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  #load(): Snapshot {
    const skills = new Map<string, LoadedSkill>();
    const files = new Map<string, Published>();
    const dirs = new Map<string, Map<string, SkillFileEntry>>([["", new Map()]]);
    for (const folder of skillFolders(this.#folders)) {
      if (this.#refused.has(folder)) continue;
      const skill = loadSkillFolder(folder, { lenient: this.#lenient });
      const previous = skills.get(skill.name);
      if (previous !== undefined) {
        throw new McpSkillError(
          "DUPLICATE_SKILL",
          `Two folders hold the skill ${JSON.stringify(skill.name)}: ${
            JSON.stringify(previous.location)
          } and ${JSON.stringify(skill.location)}`,
        );
      }
      const flags = this.#flags(skill.name);
      const published = this.#published(skill, flags);
      if (published === undefined) continue;
      skills.set(skill.name, skill);
      for (const [path, file] of published) {
        const virtual = `${skill.name}/${path}`;
        files.set(virtual, { file, flags });
        addToTree(dirs, virtual);
      }
    }
    return { skills, files, dirs };
  }

  /** The files of `skill` a model may see, by the path they are served under; `undefined` over the limits. */
  #flags(name: string): SafetyFlags {
    return {
      global_safety: this.#options.global_safety !== false,
      skill_safety: skillSafety(this.#options.skill_safety, name),
    };
  }

  #published(skill: LoadedSkill, flags: SafetyFlags): Map<string, ResourceFile> | undefined {
    const published = new Map<string, ResourceFile>();
    const instructions = INSTRUCTIONS.find((n) => skill.files.has(n))!;
    let bytes = 0;
    for (const file of skill.files.values()) {
      if (file.outside_root === true) continue;
      if (INSTRUCTIONS.includes(file.path) && file.path !== instructions) continue;
      if (!mayAccess(effectiveClass(file.path, file.real_path), flags)) continue;
      const served = file.path === instructions ? "SKILL.md" : file.path;
      if (served.split("/").some((segment) => segment.startsWith("."))) continue;
      if (served !== "SKILL.md" && served.endsWith("/SKILL.md")) {
        this.#warn({
          path: `${skill.location}/${served}`,
          message: "a SKILL.md below the top level of a skill is not published",
        });
        continue;
      }
      published.set(served, file);
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

/** `snapshot` without the skills not in `names`. */
function published(snapshot: Snapshot, names: ReadonlySet<unknown>): Snapshot {
  if ([...snapshot.skills.keys()].every((name) => names.has(name))) return snapshot;
  const skills = new Map([...snapshot.skills].filter(([name]) => names.has(name)));
  const files = new Map<string, Published>();
  const dirs = new Map<string, Map<string, SkillFileEntry>>([["", new Map()]]);
  for (const [virtual, file] of snapshot.files) {
    if (!skills.has(virtual.slice(0, virtual.indexOf("/")))) continue;
    files.set(virtual, file);
    addToTree(dirs, virtual);
  }
  return { skills, files, dirs };
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
 * Every byte of a file through one verified handle (SPEC §4: opened once,
 * regular file, real path inside the skill after the open), refused when the
 * class of the real path found at read time is one the gate closes; one
 * byte past the opened size shows growth (the SDK then refuses the digest).
 */
function readWhole({ file, flags }: Published): Uint8Array {
  const handle = openResource(file);
  try {
    assertAccess(file.path, effectiveClass(file.path, handle.real_path), flags, "read");
    const chunks: Uint8Array[] = [];
    let total = 0;
    while (total <= handle.size) {
      const chunk = handle.read(total, Math.min(CHUNK, handle.size + 1 - total));
      if (chunk.length === 0) break;
      chunks.push(chunk.slice());
      total += chunk.length;
    }
    if (chunks.length === 1) return chunks[0]!;
    const out = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
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

/**
 * A cheap fingerprint of the folders (paths, sizes, modification times), to
 * tell when a reload is worth doing.
 *
 * @param folders The served folders.
 * @returns A string that changes when any file under them does.
 */
export function fingerprint(folders: readonly string[]): string {
  const parts: string[] = [];
  const stack = folders.map((f) => resolve(f));
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      parts.push(`${dir}:?`);
      continue;
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        stack.push(full);
        continue;
      }
      let stat: Stats | undefined;
      try {
        stat = statSync(full);
      } catch {
        stat = undefined;
      }
      parts.push(`${full}:${stat?.size}:${stat?.mtimeMs}:${stat?.ino}`);
    }
  }
  return parts.sort().join("\n");
}

/** Options of {@linkcode watchSkills}. */
export interface WatchOptions {
  /** How often to look for changes; default 500 ms. */
  readonly intervalMs?: number;
  /** Called after each successful reload that changed something. */
  readonly onReload?: (changes: SdkSkillCatalogChanges) => void;
  /** Called when a reload fails (the previous catalog keeps serving). */
  readonly onError?: (error: unknown) => void;
}

/**
 * Reload a served catalog whenever the folders change (polled: a
 * fingerprint of paths, sizes and modification times, so it works the same
 * on every runtime and file system). All or nothing: a broken edit keeps the
 * previous catalog serving and reports the error to `onError`.
 *
 * @param served From {@linkcode serveSkills}.
 * @param folders The folders it serves.
 * @param options Interval and callbacks.
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
  let last = fingerprint(folders);
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    const now = fingerprint(folders);
    if (now === last) return;
    busy = true;
    served.reload().then(
      (changes) => {
        last = now;
        const any = changes.added.length + changes.removed.length + changes.changed.length;
        if (any > 0) options.onReload?.(changes);
      },
      (error) => {
        last = now;
        options.onError?.(error);
      },
    ).finally(() => {
      busy = false;
    });
  }, options.intervalMs ?? 500);
  return { close: () => clearInterval(timer) };
}
