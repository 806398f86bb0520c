/**
 * Serving skill folders over MCP (SEP-2640) with the official SDK's skills
 * extension. The SDK's `SkillCatalog` does the wire side (`skills/list`,
 * `skills/get`, `resources/read`, `resources/directory/read`, digests,
 * paging, `reload()`); this file builds it over the `SkillFiles` adapter of
 * `_publish.ts`, so what is published is exactly what the gate lets a model
 * see, and keeps the servers it made in step on reload. The parts are steps
 * of their own: publishing, with the lock check of each load (`_serve_lock.ts`),
 * (`_publish.ts`), reads (`_serve_reads.ts`), the tools (`_serve_tools.ts`);
 * watching folders is `_watch.ts`.
 *
 * Folder `lib/mcp/` — skills over MCP behind `lib/mcp.ts`: serve, consume, watch, HTTP, remote trust.
 *
 * @module
 */
import { capBody } from "../core/activation/body_budget.ts";
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/server";
import {
  SkillCatalog,
  type SkillCatalogChanges,
  SkillCatalogError,
  type SkillWarning,
} from "@modelcontextprotocol/server/ext/skills";
import { skillToolDefinition } from "../core/activation/skill_tool_definition.ts";
import type { Discovery } from "../fs/discovery/discovery.ts";
import { McpSkillError } from "./_errors.ts";
import { LoaderFiles } from "./_publish.ts";
import { checkCacheHint, type ServeSkillsOptions, type SkillServer } from "./_serve_options.ts";
import { sourceOf } from "./_serve_source.ts";
import { registerSkillTool, syncSearchTool } from "./_serve_tools.ts";
import { registerRunTool } from "./_run_tool.ts";

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
 * @throws {RangeError} When `cacheHint` is out of range (see {@linkcode ServeSkillsOptions}), or
 *   `maxBodyTokens` is not a whole number of at least 1.
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
  // So is a body budget that is not a whole number of at least 1.
  if (options.maxBodyTokens !== undefined) capBody("", options.maxBodyTokens);
  const cacheHint = options.cacheHint === undefined ? undefined : checkCacheHint(options.cacheHint);
  const source = sourceOf(folders);
  const files = new LoaderFiles(source, options, warn);
  // One load: checked against the lock, pinned, then published (and the same on each reload).
  await files.prepare();
  // Not strict: a skill the SDK refuses is skipped with a warning naming it, the rest serve.
  const catalog = await sdkCatalog(() =>
    SkillCatalog.load(files, {
      strict: false,
      onWarning: warn,
      limits: { files: Infinity, bytes: Infinity },
      ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
      ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
      ...(cacheHint === undefined ? {} : { cacheHint: { ...cacheHint } }),
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
    registerRunTool(server, files, options);
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
        await files.prepare();
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
