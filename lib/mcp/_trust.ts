/**
 * Trust for skills consumed over MCP (SEP-2640's host duties): a skill's
 * manifest straight from its listing entry (nothing fetched), a view of a
 * server's skills that keeps out every skill not approved at its current
 * digest (or differing from its lock entry), and re-checks on each change of
 * the listing. Content is verified against the approved digests when it is
 * fetched (the SDK's `SkillsClient.read`, which also compares SKILL.md's
 * frontmatter field by field with the entry's), so approved and used bytes
 * are the same.
 *
 * @module
 */
import type { Client } from "@modelcontextprotocol/client";

/**
 * A connected MCP client of the SDK (`Client` of `@modelcontextprotocol/client`).
 *
 * @internal
 */
type SdkClient = Client;
import type { Skill } from "@modelcontextprotocol/client/ext/skills";
import type { ActivateOptions, Activation } from "../core/activate.ts";
import { handleSkillTool, type SkillToolContext } from "../core/skill_tool.ts";
import { type SkillToolResult } from "../core/tool_format.ts";
import type { ReadOptions, ResourceRead } from "../core/read.ts";
import { normalizeResourcePath } from "../core/resource_path.ts";
import {
  type ApprovalDecision,
  type ApprovalRecord,
  type ApprovalStore,
  approve,
  decideApproval,
} from "../core/trust/approval.ts";
import type { FileDigest } from "../core/trust/digest.ts";
import {
  compareLock,
  createLockfile,
  type LockEntry,
  lockEntry,
  type Lockfile,
  lockKey,
} from "../core/trust/lockfile.ts";
import { manifestFromEntries, type SkillManifest } from "../core/trust/manifest.ts";
import { McpSkillError } from "./_errors.ts";
import { mcpSkillBundles, type McpSkillBundlesOptions, type McpSkills } from "./_consume.ts";
import type { McpSkillBundle } from "./_remote_bundle.ts";

/**
 * The manifest of a skill an MCP server lists, from its entry's `resources`
 * (each URI made a path inside the skill, as the bundle names its files):
 * nothing is fetched. For the same folder and the same gate switches it
 * equals `skillManifest` of the folder on disk, byte for byte.
 *
 * @param bundle A bundle of {@linkcode mcpSkillBundles}.
 * @returns The manifest (its `visible` view is its whole file list).
 * @throws {McpSkillError} `VERIFICATION_FAILED` when the bundle carries no entry.
 */
export function mcpSkillManifest(bundle: McpSkillBundle): Promise<SkillManifest> {
  const entry = (bundle as McpSkillBundle & { readonly entry?: Skill }).entry;
  if (entry === undefined || typeof entry.resources === "string") {
    throw new McpSkillError(
      "VERIFICATION_FAILED",
      `Skill ${JSON.stringify(bundle.name)} has no file list to digest`,
      bundle.uri,
    );
  }
  const root = new URL(entry.uri).href.slice(0, -"SKILL.md".length);
  const files: FileDigest[] = [];
  for (const resource of entry.resources) {
    const uri = new URL(resource.uri).href;
    if (!uri.startsWith(root)) continue;
    let path: string;
    try {
      path = normalizeResourcePath(
        uri.slice(root.length).split("/").map((s) => decodeURIComponent(s)).join("/"),
      );
    } catch {
      continue; // the bundle left it out too
    }
    if (!bundle.files.has(path)) continue;
    files.push({ path, size: resource.size, digest: resource.digest });
  }
  return manifestFromEntries(bundle.name, entry.frontmatter, files);
}

/** Options of {@linkcode trustedMcpSkills}. */
export interface TrustedMcpSkillsOptions extends McpSkillBundlesOptions {
  /** Approvals (keyed by the origin and the skill's `SKILL.md` URI): an unapproved skill is kept out. */
  readonly approvals?: ApprovalStore;
  /** A lockfile: a skill whose entry (`origin` + `uri`) differs, or is missing, is kept out. */
  readonly lock?: Lockfile;
  /** `"warn"` keeps a skill that differs from its lock entry (reported in `standings`). Default `"enforce"`. */
  readonly lockMode?: "enforce" | "warn";
  /**
   * Re-list and re-check on each `notifications/resources/list_changed`
   * from the server (this replaces any handler the client has for it). Default false:
   * call {@linkcode TrustedMcpSkills.refresh} yourself.
   */
  readonly watch?: boolean;
}

/** One listed skill's standing. */
export interface McpSkillStanding {
  /** Its manifest from the listing. */
  readonly manifest: SkillManifest;
  /** Its approval, when approvals are used. */
  readonly approval: ApprovalDecision | null;
  /** How it differs from its lock entry (`"not_locked"`, `"changed"`), when a lock is used. */
  readonly lock: "locked" | "not_locked" | "changed" | null;
  /** Whether it is in `bundles`. */
  readonly shown: boolean;
}

/**
 * A server's skills narrowed to those approved at their current digest and
 * matching the lock: `bundles`, the skill tool, `activate` and `read` see
 * only those. Defaults unchanged: with neither approvals nor a lock, every
 * listed skill is shown.
 *
 * | operation | requests |
 * |---|---|
 * | `refresh()` | `skills/list` (every page) |
 * | `approve(name)` | none |
 * | `activate`, `read`, `handleSkillTool` | as {@linkcode McpSkills} |
 */
export class TrustedMcpSkills {
  readonly #client: SdkClient;
  readonly #options: TrustedMcpSkillsOptions;
  #skills!: McpSkills;
  #standings = new Map<string, McpSkillStanding>();
  #shown = new Map<string, McpSkillBundle>();

  private constructor(client: SdkClient, options: TrustedMcpSkillsOptions) {
    this.#client = client;
    this.#options = options;
  }

  /**
   * List a server's skills and check each.
   *
   * @param client A connected SDK client.
   * @param options The origin label, approvals, lock and watch.
   * @returns The narrowed skills.
   */
  static async open(
    client: SdkClient,
    options: TrustedMcpSkillsOptions,
  ): Promise<TrustedMcpSkills> {
    const trusted = new TrustedMcpSkills(client, options);
    await trusted.refresh();
    if (options.watch === true) {
      client.setNotificationHandler(
        "notifications/resources/list_changed",
        () => trusted.refresh().then(() => {}, () => {}),
      );
    }
    return trusted;
  }

  /** The origin label. */
  get origin(): string {
    return this.#options.origin;
  }

  /** The skills shown: approved at their current digest and matching the lock. */
  get bundles(): ReadonlyMap<string, McpSkillBundle> {
    return this.#shown;
  }

  /** Every listed skill's standing, shown or not. */
  get standings(): ReadonlyMap<string, McpSkillStanding> {
    return this.#standings;
  }

  /** The underlying listing (every skill, with its warnings). */
  get all(): McpSkills {
    return this.#skills;
  }

  /**
   * List again (`skills/list`) and check every skill against its approval
   * and lock entry again: a skill whose file list changed is hidden until
   * it is approved again.
   */
  async refresh(): Promise<void> {
    const skills = await mcpSkillBundles(this.#client, this.#options);
    const locked = new Map((this.#options.lock?.skills ?? []).map((s) => [lockKey(s), s]));
    const standings = new Map<string, McpSkillStanding>();
    const shown = new Map<string, McpSkillBundle>();
    for (const [name, bundle] of skills.bundles) {
      const manifest = await mcpSkillManifest(bundle);
      const approval = this.#options.approvals === undefined
        ? null
        : await decideApproval(this.#options.approvals, this.origin, bundle.uri, manifest);
      let lock: McpSkillStanding["lock"] = null;
      if (this.#options.lock !== undefined) {
        const now = this.#entry(manifest, bundle);
        const was = locked.get(lockKey(now));
        lock = was === undefined
          ? "not_locked"
          : (await compareLock(createLockfile([was]), [now])).ok
          ? "locked"
          : "changed";
      }
      const lockOk = lock === null || lock === "locked" || this.#options.lockMode === "warn";
      const ok = lockOk && (approval === null || approval.status === "approved");
      standings.set(name, Object.freeze({ manifest, approval, lock, shown: ok }));
      if (ok) shown.set(name, bundle);
    }
    this.#skills = skills;
    this.#standings = standings;
    this.#shown = shown;
  }

  /**
   * Approve a listed skill as the listing shows it now (its digest over
   * every file's URI and digest), and show it.
   *
   * @param name A listed skill's name.
   * @returns The record stored.
   * @throws {McpSkillError} `UNKNOWN_SKILL` for a name not listed.
   * @throws {TypeError} When no approval store was given.
   */
  async approve(name: string): Promise<ApprovalRecord> {
    const store = this.#options.approvals;
    if (store === undefined) throw new TypeError("No approval store was given");
    const standing = this.#standings.get(name);
    const bundle = this.#skills.get(name);
    if (standing === undefined || bundle === undefined) {
      throw new McpSkillError(
        "UNKNOWN_SKILL",
        `Unknown skill ${JSON.stringify(name)} from origin ${JSON.stringify(this.origin)}`,
      );
    }
    const record = await approve(store, this.origin, bundle.uri, standing.manifest);
    const approval: ApprovalDecision = Object.freeze({
      status: "approved",
      changes: Object.freeze([]),
      frontmatter_changed: false,
    });
    const lockOk = standing.lock === null || standing.lock === "locked" ||
      this.#options.lockMode === "warn";
    this.#standings.set(name, Object.freeze({ ...standing, approval, shown: lockOk }));
    if (lockOk) this.#shown.set(name, bundle);
    return record;
  }

  /**
   * The lock entries of every listed skill (for a lockfile).
   *
   * @returns One entry per listed skill.
   */
  lockEntries(): readonly LockEntry[] {
    return [...this.#standings.entries()].map(([name, s]) =>
      this.#entry(s.manifest, this.#skills.get(name)!)
    );
  }

  /**
   * Activate a shown skill.
   *
   * @param name A shown skill's name.
   * @param options The host's switches.
   * @returns The activation.
   * @throws {McpSkillError} `UNKNOWN_SKILL` for a skill not shown (unapproved too).
   */
  async activate(name: string, options: ActivateOptions = {}): Promise<Activation> {
    this.#require(name);
    return await this.#skills.activate(name, options);
  }

  /**
   * Read a page of a shown skill's file.
   *
   * @param name A shown skill's name.
   * @param path The file.
   * @param options Switches and the page.
   * @returns The page.
   * @throws {McpSkillError} `UNKNOWN_SKILL` for a skill not shown.
   */
  async read(name: string, path: string, options: ReadOptions = {}): Promise<ResourceRead> {
    this.#require(name);
    return await this.#skills.read(name, path, options);
  }

  /**
   * The skill tool over the shown skills only: a call naming any other
   * skill gets the unknown-skill answer, and nothing of it is fetched.
   *
   * @param input What the model sent.
   * @param context The host's switches.
   * @returns The tool result.
   */
  handleSkillTool(
    input: unknown,
    context: Omit<SkillToolContext, "skills"> = {},
  ): Promise<SkillToolResult> {
    const name = (input as { skill?: unknown } | null)?.skill;
    if (typeof name === "string" && this.#shown.has(name)) {
      return this.#skills.handleSkillTool(input, context);
    }
    return Promise.resolve(handleSkillTool(input, { ...context, skills: this.#shown }));
  }

  #require(name: string): void {
    if (!this.#shown.has(name)) {
      throw new McpSkillError(
        "UNKNOWN_SKILL",
        `Skill ${JSON.stringify(name)} from origin ${
          JSON.stringify(this.origin)
        } is not approved or not listed`,
      );
    }
  }

  #entry(manifest: SkillManifest, bundle: McpSkillBundle): LockEntry {
    return lockEntry(manifest, { origin: this.origin, uri: bundle.uri });
  }
}

/**
 * A server's skills, narrowed by approvals and a lock (see {@linkcode TrustedMcpSkills}).
 *
 * @param client A connected SDK client.
 * @param options The origin label, approvals, lock, watch.
 * @returns The narrowed skills.
 * @example
 * ```ts
 * import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
 * import { serveSkills, trustedMcpSkills } from "../mcp.ts";
 * import { MemoryApprovalStore } from "../../mod.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const served = await serveSkills([new URL("../../examples/skills", import.meta.url).pathname]);
 * const [here, there] = InMemoryTransport.createLinkedPair();
 * await served.server.connect(there);
 * const client = new Client({ name: "host", version: "1.0.0" });
 * await client.connect(here);
 * const skills = await trustedMcpSkills(client, { origin: "ex", approvals: new MemoryApprovalStore() });
 * assert.equal(skills.bundles.size, 0);
 * await skills.approve("ex:pdf");
 * assert.deepEqual([...skills.bundles.keys()], ["ex:pdf"]);
 * await client.close();
 * ```
 */
export function trustedMcpSkills(
  client: SdkClient,
  options: TrustedMcpSkillsOptions,
): Promise<TrustedMcpSkills> {
  return TrustedMcpSkills.open(client, options);
}
