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
 * This file lists and fetches ({@linkcode mcpSkillBundles},
 * {@linkcode McpSkills}); an entry becomes a bundle in `_remote_bundle.ts`,
 * and the HTTP response cap is `_capped_fetch.ts`.
 *
 * Folder `lib/mcp/` — skills over MCP behind `lib/mcp.ts`: serve, consume, watch, HTTP, remote trust.
 *
 * @module
 */
import { type Client, ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import {
  type Skill,
  SKILL_LIMITS,
  SkillsClient,
  SkillVerificationError,
} from "@modelcontextprotocol/client/ext/skills";
import {
  type ActivateOptions,
  activateSkill,
  type Activation,
} from "../core/activation/activate.ts";
import { mayAccess } from "../core/resources/gate.ts";
import { McpSkillError } from "./_errors.ts";
import { MAX_TTL_MS } from "./_serve_options.ts";
import { quoteShort } from "../core/_text.ts";
import { type ReadOptions, readResource, type ResourceRead } from "../core/resources/read.ts";
import { classifyResource, normalizeResourcePath } from "../core/resources/resource_path.ts";
import { handleSkillTool, type SkillToolContext } from "../core/activation/skill_tool.ts";
import { parseSkillToolInput } from "../core/activation/skill_tool_input.ts";
import { type SkillToolResult } from "../core/activation/tool_format.ts";
import { type LazyBundle, type McpSkillBundle, printable, remoteBundle } from "./_remote_bundle.ts";

/**
 * A connected MCP client of the SDK (`Client` of `@modelcontextprotocol/client`).
 *
 * @internal
 */
type SdkClient = Client;

/** Options of {@linkcode mcpSkillBundles}. */
export interface McpSkillBundlesOptions {
  /**
   * The server's origin: a short label the host chooses (`docs`, `github`),
   * unique among the servers it connects to. Skill names become
   * `<origin>:<skill-path>`.
   */
  readonly origin: string;
  /**
   * Entries listing more files or bytes than this are left out, with a
   * warning, so a lying size never makes the host fetch more; default 512
   * files and 16 MiB (SEP-2640's limits, which hosts must accept).
   */
  readonly limits?: { readonly files?: number; readonly bytes?: number };
  /**
   * How long one request may wait for the server's answer before it fails
   * with the SDK's `REQUEST_TIMEOUT` (a listing walks at most 64 pages); by
   * default the SDK's 60 s.
   */
  readonly timeoutMs?: number;
  /**
   * The largest message the transport carries, in bytes (the SDK's stdio
   * transport: 10 MiB). A file whose answer cannot fit is refused as
   * `FILE_TOO_LARGE` ("file too large for this transport") before it is
   * asked for, or when the transport closes while it is read. Default: no limit.
   */
  readonly maxMessageBytes?: number;
}

/** The skills extension's identifier (SEP-2640). */
const SKILLS_EXTENSION = "the skills extension (io.modelcontextprotocol/skills)";

/** Room for the JSON-RPC envelope around a file's content in one message. */
const ENVELOPE_BYTES = 4096;

/**
 * A `skills/list` entry that was not turned into a bundle, and why. Both
 * fields come from the server: control and bidirectional characters are
 * escaped (`\u001b`), so printing them cannot drive a terminal.
 */
export interface McpSkillWarning {
  /** The entry's `SKILL.md` URI. */
  readonly uri: string;
  /** Why it was left out. */
  readonly message: string;
}

/** An origin label: letters, digits, `.`, `_` and `-`, starting with a letter or digit. */
export const ORIGIN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * List the skills an MCP server serves and wrap each as a lazy
 * {@linkcode McpSkillBundle}, named `<origin>:<skill-path>` (for example
 * `docs:refunds`, or `docs:acme/refunds` under a prefix). A local Agent Skill
 * name never holds `:`, so an MCP skill never shadows a local folder's, and
 * two servers with different origins never shadow each other. Left out, with
 * a warning in `warnings` (the other entries are served): an entry the SDK
 * finds invalid (a digest of the wrong shape, a file outside the skill, …),
 * one whose frontmatter breaks the Agent Skills rules, one whose skill path
 * is not plain names (`[A-Za-z0-9][A-Za-z0-9._-]*` per segment), one over the
 * limits, a `"dynamic"` one, and every entry of a name listed twice (never a
 * silent shadow).
 *
 * @param client A connected SDK client.
 * @param options The origin label, the limits and the request timeout.
 * @returns The skills, with async helpers that fetch and verify on need.
 * @throws {TypeError} When `origin` is not a short label (`[A-Za-z0-9][A-Za-z0-9._-]*`).
 * @throws {SdkError} (from the SDK) When the server's listing is invalid.
 * @example
 * ```ts
 * import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
 * import { mcpSkillBundles, serveSkills } from "../mcp.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const served = await serveSkills([new URL("../../examples/skills", import.meta.url).pathname]);
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
  const skillsClient = new SkillsClient(client, { skipInvalid: true });
  const request = options.timeoutMs === undefined ? undefined : { timeout: options.timeoutMs };
  // The SDK would log its own note about a server without the extension to stdout, which is
  // the output of a command (`to-prompt --json`): the warning below says it instead.
  const offered = skillsClient.supported;
  const listing = offered ? await skillsClient.list({}, request) : { skills: [], invalid: [] };
  const skills = new McpSkills(
    skillsClient,
    options.origin,
    listing.skills,
    options.limits,
    request,
    options.maxMessageBytes,
    listing,
  );
  if (!offered) skills.warn(options.origin, `the server does not offer ${SKILLS_EXTENSION}`);
  for (const entry of listing.invalid) {
    skills.warn(entry.uri ?? `#${entry.index}`, `invalid entry, left out: ${entry.reason}`);
  }
  return skills;
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
 * The listing is what it was when made; `ttlMs` and `listedAt` say how long
 * the server lets it be kept ({@linkcode TrustedMcpSkills.refresh} lists
 * again only after that). Fetched files are kept, verified, for the life of
 * the object (a `refresh(name)` drops that skill's).
 *
 * @example
 * ```ts
 * import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
 * import { McpSkills, mcpSkillBundles, serveSkills } from "../mcp.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const served = await serveSkills([new URL("../../examples/skills", import.meta.url).pathname]);
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
  readonly #limits: { readonly files: number; readonly bytes: number };
  readonly #request: { readonly timeout: number } | undefined;
  readonly #maxMessage: number | undefined;
  /**
   * How long the server lets this listing be kept (its `ttlMs` on 2026-07-28 connections, at
   * most 24 hours; 0 on 2025-era ones, or when the server says nothing), from `listedAt`.
   */
  readonly ttlMs: number;
  /** When the listing was received (`Date.now()`). */
  readonly listedAt: number;

  /**
   * Wrap a server's listed entries; {@linkcode mcpSkillBundles} is the usual way in.
   *
   * @param client The SDK's skills client.
   * @param origin The origin label.
   * @param entries The server's entries.
   * @param limits Entries over these are left out (default SEP-2640's 512 files, 16 MiB).
   * @param request The SDK's options for each request (its timeout).
   * @param maxMessageBytes The transport's message limit (see {@linkcode McpSkillBundlesOptions}).
   * @param cache The listing's cache hint (`ttlMs`; none means 0).
   */
  constructor(
    client: SkillsClient,
    origin: string,
    entries: readonly Skill[],
    limits: McpSkillBundlesOptions["limits"] = {},
    request?: { readonly timeout: number },
    maxMessageBytes?: number,
    cache: { readonly ttlMs?: number } = {},
  ) {
    this.#client = client;
    this.listedAt = Date.now();
    const ttl = cache.ttlMs;
    // The server's word, bounded: a hostile hint never keeps a listing for more than a day.
    this.ttlMs = typeof ttl === "number" && Number.isSafeInteger(ttl) && ttl > 0
      ? Math.min(ttl, MAX_TTL_MS)
      : 0;
    this.#maxMessage = maxMessageBytes;
    this.#request = request;
    this.origin = origin;
    this.#limits = {
      files: limits.files ?? SKILL_LIMITS.files,
      bytes: limits.bytes ?? SKILL_LIMITS.bytes,
    };
    const made = new Map<string, LazyBundle[]>();
    for (const entry of entries) {
      const bundle = this.#make(entry);
      if (typeof bundle === "string") this.warn(entry.uri, bundle);
      else made.set(bundle.name, [...made.get(bundle.name) ?? [], bundle]);
    }
    for (const [name, bundles] of made) {
      if (bundles.length === 1) this.#bundles.set(name, bundles[0]!);
      else {
        for (const b of bundles) {
          this.warn(b.uri, `another entry is also named ${JSON.stringify(name)}; both left out`);
        }
      }
    }
  }

  /**
   * Record a warning about an entry (escaped: see {@linkcode McpSkillWarning}).
   *
   * @param uri The entry's URI.
   * @param message Why it was left out.
   */
  warn(uri: string, message: string): void {
    this.#warnings.push({ uri: printable(uri), message: printable(message) });
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
      // A failed fetch or verification: the model gets the reason, the loop goes on; text
      // that is not this module's own is quoted, escaped and cut.
      return Object.freeze({
        content: e instanceof McpSkillError
          ? e.message
          : `Unexpected error: ${
            quoteShort(printable(e instanceof Error ? e.message : String(e)))
          }`,
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
   * @throws {McpSkillError} `UNKNOWN_SKILL` (also when the server no longer serves it), or
   *   `VERIFICATION_FAILED` when the new entry is invalid, another skill's, or unusable.
   */
  async refresh(name: string): Promise<McpSkillBundle> {
    const bundle = this.#require(name);
    let skill: Skill;
    try {
      ({ skill } = await this.#client.get(bundle.uri, this.#request));
    } catch (e) {
      if (e instanceof ProtocolError && e.code === -32602) {
        throw new McpSkillError(
          "UNKNOWN_SKILL",
          `The server no longer serves skill ${JSON.stringify(name)}`,
          bundle.uri,
          { cause: e },
        );
      }
      throw invalidResult(
        e,
        `The entry of skill ${JSON.stringify(name)} is not usable`,
        bundle.uri,
      );
    }
    const next = this.#make(skill);
    if (typeof next === "string" || next.name !== name) {
      throw new McpSkillError(
        "VERIFICATION_FAILED",
        `The entry of skill ${JSON.stringify(name)} is no longer usable: ${
          printable(typeof next === "string" ? next : `it is now ${JSON.stringify(next.name)}`)
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
    const size = bundle.files.get(path)?.size ?? 0;
    const max = this.#maxMessage;
    const tooLarge = () =>
      new McpSkillError(
        "FILE_TOO_LARGE",
        `${JSON.stringify(path)} of skill ${
          JSON.stringify(bundle.name)
        } is a file too large for this transport (${size} bytes; one message holds at most ${max})`,
        uri,
      );
    if (max !== undefined && size + ENVELOPE_BYTES > max) throw tooLarge();
    try {
      const file = await this.#client.read(bundle.entry, uri, this.#request);
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
      if (
        max !== undefined && e instanceof SdkError && e.code === SdkErrorCode.ConnectionClosed &&
        size * 6 + ENVELOPE_BYTES > max
      ) {
        throw tooLarge();
      }
      if (e instanceof ProtocolError) {
        throw new McpSkillError(
          "SERVER_ERROR",
          `The server could not give ${JSON.stringify(path)} of skill ${
            JSON.stringify(bundle.name)
          }: ${quoteShort(printable(e.message))}`,
          uri,
          { cause: e },
        );
      }
      throw invalidResult(
        e,
        `${JSON.stringify(path)} of skill ${
          JSON.stringify(bundle.name)
        } failed verification (the server's answer is invalid)`,
        uri,
      );
    }
  }

  #make(entry: Skill): LazyBundle | string {
    return remoteBundle(
      entry,
      this.origin,
      this.#limits,
      (uri, message) => this.warn(uri, message),
    );
  }
}

/** An SDK error saying the server's answer was invalid, as this module's typed error. */
function invalidResult(e: unknown, message: string, uri: string): unknown {
  if (!(e instanceof SdkError) || e.code !== SdkErrorCode.InvalidResult) return e;
  return new McpSkillError(
    "VERIFICATION_FAILED",
    `${message}: ${quoteShort(printable(e.message))}`,
    uri,
    {
      cause: e,
    },
  );
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
