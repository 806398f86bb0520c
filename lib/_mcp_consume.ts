/**
 * Consuming the skills an MCP server serves (SEP-2640) as this project's
 * `SkillBundle`s, through the SDK's `SkillsClient` (digest-verified reads).
 *
 * The pure core is synchronous (`ResourceFile.read(position, length)`) and
 * MCP is not. So the listing is fetched up front (`skills/list`: names,
 * frontmatter, every file's URI, size and digest — no file content), and
 * bytes are fetched on first need by the async helpers (`load`, `activate`,
 * `read`, `handleSkillTool`), verified, kept, and only then handed to the
 * synchronous core. Reading a file synchronously before it was fetched is a
 * typed error (`NOT_LOADED`), never a silent empty read.
 *
 * @module
 */
import type { Client } from "@modelcontextprotocol/client";
import {
  type Skill,
  SkillsClient,
  SkillVerificationError,
} from "@modelcontextprotocol/client/ext/skills";
import { type ActivateOptions, activateSkill, type Activation } from "./activate.ts";
import { type AgentSkillFrontmatter, validateAgentSkillFrontmatter } from "./agent_skill.ts";
import type { ResourceFile, SkillBundle } from "./bundle.ts";
import { mayAccess } from "./gate.ts";
import { McpSkillError } from "./_mcp_errors.ts";
import { type ReadOptions, readResource, type ResourceRead } from "./read.ts";
import { classifyResource, normalizeResourcePath } from "./resource_path.ts";

/**
 * A connected MCP client of the SDK (`Client` of `@modelcontextprotocol/client`).
 *
 * @internal
 */
type SdkClient = Client;
import {
  handleSkillTool,
  parseSkillToolInput,
  type SkillToolContext,
  type SkillToolResult,
} from "./skill_tool.ts";

/** Options of {@linkcode mcpSkillBundles}. */
export interface McpSkillBundlesOptions {
  /**
   * The server's origin: a short label the host chooses (`docs`, `github`),
   * unique among the servers it connects to. Skill names become
   * `<origin>:<skill-path>`.
   */
  readonly origin: string;
}

/** A skill an MCP server serves, as a bundle. */
export interface McpSkillBundle extends SkillBundle {
  /** `<origin>:<skill-path>`: never equal to a local skill's name, nor to another origin's. */
  readonly name: string;
  /** The entry's `SKILL.md` URI. */
  readonly uri: string;
  /** The origin it came from. */
  readonly origin: string;
  /** Whether SKILL.md was fetched (so `instructions` can be read). */
  readonly loaded: boolean;
}

/** A `skills/list` entry that was not turned into a bundle, and why. */
export interface McpSkillWarning {
  /** The entry's `SKILL.md` URI. */
  readonly uri: string;
  /** Why it was left out. */
  readonly message: string;
}

const ORIGIN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * List the skills an MCP server serves and wrap each as a lazy
 * {@linkcode McpSkillBundle}, named `<origin>:<skill-path>` (for example
 * `docs:refunds`, or `docs:acme/refunds` under a prefix). A local Agent Skill
 * name never holds `:`, so an MCP skill never shadows a local folder's, and
 * two servers with different origins never shadow each other. Entries whose
 * frontmatter breaks the Agent Skills rules are left out, with a warning.
 *
 * @param client A connected SDK client.
 * @param options The origin label.
 * @returns The skills, with async helpers that fetch and verify on need.
 * @throws {TypeError} When `origin` is not a short label (`[A-Za-z0-9][A-Za-z0-9._-]*`).
 * @throws {SdkError} (from the SDK) When the server's listing is invalid.
 * @example
 * ```ts
 * import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
 * import { mcpSkillBundles, serveSkills } from "./mcp.ts";
 * import { assert } from "./_assert.ts";
 *
 * const served = await serveSkills([new URL("../examples/skills", import.meta.url).pathname]);
 * const [here, there] = InMemoryTransport.createLinkedPair();
 * await served.server.connect(there);
 * const client = new Client({ name: "host", version: "1.0.0" });
 * await client.connect(here);
 * const skills = await mcpSkillBundles(client, { origin: "examples" });
 * const activation = await skills.activate("examples:pdf");
 * assert.equal(activation.skill, "examples:pdf");
 * await client.close();
 * ```
 */
export async function mcpSkillBundles(
  client: SdkClient,
  options: McpSkillBundlesOptions,
): Promise<McpSkills> {
  if (typeof options?.origin !== "string" || !ORIGIN.test(options.origin)) {
    throw new TypeError(
      `Invalid origin ${
        JSON.stringify(options?.origin)
      }: use a short label of letters, digits, ".", "_" and "-"`,
    );
  }
  const skillsClient = new SkillsClient(client);
  const listing = await skillsClient.list();
  return new McpSkills(skillsClient, options.origin, listing.skills);
}

/**
 * The skills of one MCP server as bundles. `bundles` is usable at once by
 * everything that only lists (`skillToolDefinition`, a prompt's skill list);
 * `load`, `activate`, `read` and `handleSkillTool` fetch what they need first.
 *
 * | operation | requests |
 * |---|---|
 * | `bundles`, `get` | none |
 * | `load(name)` | `resources/read` of SKILL.md, once |
 * | `read(name, path)` | SKILL.md and the file, each once |
 * | `refresh(name)` | `skills/get` |
 *
 * @example
 * ```ts
 * import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
 * import { McpSkills, mcpSkillBundles, serveSkills } from "./mcp.ts";
 * import { assert } from "./_assert.ts";
 *
 * const served = await serveSkills([new URL("../examples/skills", import.meta.url).pathname]);
 * const [here, there] = InMemoryTransport.createLinkedPair();
 * await served.server.connect(there);
 * const client = new Client({ name: "host", version: "1.0.0" });
 * await client.connect(here);
 * const skills = await mcpSkillBundles(client, { origin: "ex" });
 * assert.ok(skills instanceof McpSkills);
 * assert.equal(skills.get("ex:pdf")?.loaded, false);
 * const result = await skills.handleSkillTool({ skill: "ex:pdf", resource: "assets/template.txt" });
 * assert.equal(result.is_error, false);
 * await client.close();
 * ```
 */
export class McpSkills {
  /** The origin label. */
  readonly origin: string;
  readonly #client: SkillsClient;
  readonly #bundles = new Map<string, LazyBundle>();
  readonly #warnings: McpSkillWarning[] = [];

  /**
   * Wrap a server's listed entries; {@linkcode mcpSkillBundles} is the usual way in.
   *
   * @param client The SDK's skills client.
   * @param origin The origin label.
   * @param entries The server's entries.
   */
  constructor(client: SkillsClient, origin: string, entries: readonly Skill[]) {
    this.#client = client;
    this.origin = origin;
    for (const entry of entries) this.#add(entry);
  }

  /** The bundles by name (`<origin>:<skill-path>`). */
  get bundles(): ReadonlyMap<string, McpSkillBundle> {
    return this.#bundles;
  }

  /** Entries left out, and why. */
  get warnings(): readonly McpSkillWarning[] {
    return this.#warnings;
  }

  /**
   * One bundle by name.
   *
   * @param name A bundle name.
   * @returns The bundle, or `undefined`.
   */
  get(name: string): McpSkillBundle | undefined {
    return this.#bundles.get(name);
  }

  /**
   * Fetch and verify SKILL.md (once) and, when given, one file (once).
   *
   * @param name A bundle name.
   * @param path A file of the skill to fetch too.
   * @returns The bundle, ready for the synchronous core.
   * @throws {McpSkillError} `UNKNOWN_SKILL`, `UNLISTED_FILE`, or `VERIFICATION_FAILED`
   *   (recover with {@linkcode McpSkills.refresh}).
   */
  async load(name: string, path?: string): Promise<McpSkillBundle> {
    const bundle = this.#require(name);
    if (!bundle.loaded) {
      const file = await this.#fetch(bundle, "SKILL.md");
      bundle.setInstructions(file.body ?? "");
    }
    if (path !== undefined) {
      const normal = normalizeResourcePath(path);
      if (!bundle.has(normal)) {
        throw new McpSkillError(
          "UNLISTED_FILE",
          `File ${JSON.stringify(normal)} is not listed by skill ${JSON.stringify(name)}`,
        );
      }
      if (!bundle.fetched(normal)) await this.#fetch(bundle, normal);
    }
    return bundle;
  }

  /**
   * Activate a skill: fetch its SKILL.md, then {@linkcode activateSkill}.
   *
   * @param name A bundle name.
   * @param options The host's safety switches (and the manifest's page).
   * @returns The activation.
   * @throws {McpSkillError} As {@linkcode McpSkills.load}.
   */
  async activate(name: string, options: ActivateOptions = {}): Promise<Activation> {
    return activateSkill(await this.load(name), options);
  }

  /**
   * Read one page of a file: the gate first (a refused file is never
   * fetched), then fetch and verify, then {@linkcode readResource}.
   *
   * @param name A bundle name.
   * @param path The file's path inside the skill.
   * @param options Safety switches and the page.
   * @returns The page.
   * @throws {ExecutionError} When the gate refuses.
   * @throws {McpSkillError} As {@linkcode McpSkills.load}.
   */
  async read(name: string, path: string, options: ReadOptions = {}): Promise<ResourceRead> {
    const bundle = this.#require(name);
    const normal = normalizeResourcePath(path);
    if (mayAccess(classifyResource(normal), options)) await this.load(name, normal);
    return readResource(bundle, normal, options);
  }

  /**
   * The `skill` tool's handler over these skills: fetches what the call
   * needs (never a file the gate refuses), then {@linkcode handleSkillTool}.
   * Never throws: a failed verification comes back as error text.
   *
   * @param input What the model sent.
   * @param context The host's safety switches (the skills are these bundles).
   * @returns The tool result.
   */
  async handleSkillTool(
    input: unknown,
    context: Omit<SkillToolContext, "skills"> = {},
  ): Promise<SkillToolResult> {
    const full: SkillToolContext = { ...context, skills: this.#bundles };
    let request;
    try {
      request = parseSkillToolInput(input);
    } catch {
      return handleSkillTool(input, full); // the handler words the input error
    }
    const bundle = this.#bundles.get(request.skill);
    if (bundle === undefined) return handleSkillTool(input, full);
    try {
      await this.load(request.skill);
      const resource = request.resource === undefined ? undefined : safeNormalize(request.resource);
      if (resource !== undefined && bundle.has(resource)) {
        const flags = {
          global_safety: context.global_safety !== false,
          skill_safety: safety(context, request.skill),
        };
        if (mayAccess(classifyResource(resource), flags)) await this.load(request.skill, resource);
      }
    } catch (e) {
      // A failed fetch or verification: the model gets the reason, the loop goes on.
      return Object.freeze({
        content: e instanceof Error ? e.message : `Unexpected error: ${String(e)}`,
        is_error: true,
      });
    }
    return handleSkillTool(input, full);
  }

  /**
   * Recover from a failed verification: fetch the skill's entry again with
   * `skills/get` and drop every fetched byte, so the next read verifies
   * against the new digests. The bundle object is replaced.
   *
   * @param name A bundle name.
   * @returns The new bundle.
   * @throws {McpSkillError} `UNKNOWN_SKILL`, or `VERIFICATION_FAILED` when the new entry is unusable.
   */
  async refresh(name: string): Promise<McpSkillBundle> {
    const bundle = this.#require(name);
    const { skill } = await this.#client.get(bundle.uri);
    const next = this.#make(skill);
    if (typeof next === "string" || next.name !== name) {
      throw new McpSkillError(
        "VERIFICATION_FAILED",
        `The entry of skill ${JSON.stringify(name)} is no longer usable: ${
          typeof next === "string" ? next : `it is now ${JSON.stringify(next.name)}`
        }`,
        bundle.uri,
      );
    }
    this.#bundles.set(name, next);
    return next;
  }

  #require(name: string): LazyBundle {
    const bundle = this.#bundles.get(name);
    if (bundle === undefined) {
      throw new McpSkillError(
        "UNKNOWN_SKILL",
        `Unknown skill ${JSON.stringify(name)} from origin ${JSON.stringify(this.origin)}`,
      );
    }
    return bundle;
  }

  async #fetch(bundle: LazyBundle, path: string): Promise<{ body?: string }> {
    const uri = bundle.uriOf(path);
    try {
      const file = await this.#client.read(bundle.entry, uri);
      bundle.setBytes(path, file.bytes);
      return file.body === undefined ? {} : { body: file.body };
    } catch (e) {
      if (e instanceof SkillVerificationError) {
        throw new McpSkillError(
          e.reason === "unlisted" ? "UNLISTED_FILE" : "VERIFICATION_FAILED",
          `${JSON.stringify(path)} of skill ${JSON.stringify(bundle.name)} failed verification (${
            e.reason === "unlisted" ? "not listed" : e.reason
          }); call refresh(${JSON.stringify(bundle.name)}) to fetch the entry again`,
          uri,
          { cause: e },
        );
      }
      throw e;
    }
  }

  #add(entry: Skill): void {
    const made = this.#make(entry);
    if (typeof made === "string") this.#warnings.push({ uri: entry.uri, message: made });
    else this.#bundles.set(made.name, made);
  }

  #make(entry: Skill): LazyBundle | string {
    const root = entry.uri.slice(0, -"SKILL.md".length);
    const scheme = root.indexOf("://");
    let segments: string[];
    try {
      segments = root.slice(scheme < 0 ? 0 : scheme + 3).split("/").filter((s) => s !== "")
        .map((s) => decodeURIComponent(s));
    } catch {
      return `Skill URI ${JSON.stringify(entry.uri)} cannot be decoded`;
    }
    if (typeof entry.resources === "string") {
      return `Skill ${
        JSON.stringify(entry.uri)
      } lists its files as "dynamic", so they cannot be verified; left out`;
    }
    let frontmatter: AgentSkillFrontmatter;
    try {
      frontmatter = validateAgentSkillFrontmatter(entry.frontmatter, segments.at(-1));
    } catch (e) {
      return (e as Error).message;
    }
    const files = new Map<string, { uri: string; size: number }>();
    for (const resource of entry.resources) {
      if (!resource.uri.startsWith(root)) continue;
      try {
        const path = normalizeResourcePath(
          resource.uri.slice(root.length).split("/").map((s: string) => decodeURIComponent(s)).join(
            "/",
          ),
        );
        files.set(path, { uri: resource.uri, size: resource.size });
      } catch {
        this.#warnings.push({
          uri: resource.uri,
          message: "not a valid resource path; left out",
        });
      }
    }
    return new LazyBundle(
      `${this.origin}:${segments.join("/")}`,
      this.origin,
      entry,
      frontmatter,
      files,
    );
  }
}

/** A bundle whose instructions and file bytes arrive when fetched. */
class LazyBundle implements McpSkillBundle {
  readonly name: string;
  readonly origin: string;
  readonly uri: string;
  readonly entry: Skill;
  readonly frontmatter: AgentSkillFrontmatter;
  readonly files: ReadonlyMap<string, ResourceFile>;
  readonly #uris: ReadonlyMap<string, string>;
  readonly #bytes = new Map<string, Uint8Array>();
  #instructions: string | undefined;

  constructor(
    name: string,
    origin: string,
    entry: Skill,
    frontmatter: AgentSkillFrontmatter,
    listed: ReadonlyMap<string, { uri: string; size: number }>,
  ) {
    this.name = name;
    this.origin = origin;
    this.uri = entry.uri;
    this.entry = entry;
    this.frontmatter = frontmatter;
    const files = new Map<string, ResourceFile>();
    const uris = new Map<string, string>();
    for (const [path, { uri, size }] of listed) {
      uris.set(path, uri);
      files.set(
        path,
        Object.freeze({ path, size, read: (p: number, l: number) => this.#read(path, p, l) }),
      );
    }
    this.files = files;
    this.#uris = uris;
  }

  get loaded(): boolean {
    return this.#instructions !== undefined;
  }

  get instructions(): string {
    if (this.#instructions === undefined) {
      throw new McpSkillError(
        "NOT_LOADED",
        `Skill ${JSON.stringify(this.name)} is not loaded yet: await load(${
          JSON.stringify(this.name)
        }) first`,
        this.uri,
      );
    }
    return this.#instructions;
  }

  has(path: string): boolean {
    return this.#uris.has(path);
  }

  fetched(path: string): boolean {
    return this.#bytes.has(path);
  }

  uriOf(path: string): string {
    return this.#uris.get(path) ?? this.uri;
  }

  setInstructions(text: string): void {
    this.#instructions = text;
  }

  setBytes(path: string, bytes: Uint8Array): void {
    this.#bytes.set(path, bytes);
  }

  #read(path: string, position: number, length: number): Uint8Array {
    const bytes = this.#bytes.get(path);
    if (bytes === undefined) {
      throw new McpSkillError(
        "NOT_LOADED",
        `File ${JSON.stringify(path)} of skill ${JSON.stringify(this.name)} is not fetched yet: ` +
          `await load(${JSON.stringify(this.name)}, ${JSON.stringify(path)}) first`,
        this.#uris.get(path),
      );
    }
    return bytes.subarray(
      Math.min(position, bytes.length),
      Math.min(position + length, bytes.length),
    );
  }
}

function safeNormalize(path: string): string | undefined {
  try {
    return normalizeResourcePath(path);
  } catch {
    return undefined;
  }
}

function safety(context: Omit<SkillToolContext, "skills">, name: string): boolean {
  const table = context.skill_safety;
  if (table === undefined) return true;
  const value = typeof table === "function"
    ? table(name)
    : typeof (table as ReadonlyMap<string, boolean>).get === "function"
    ? (table as ReadonlyMap<string, boolean>).get(name)
    : Object.hasOwn(table, name)
    ? (table as Readonly<Record<string, boolean>>)[name]
    : undefined;
  return value !== false;
}
