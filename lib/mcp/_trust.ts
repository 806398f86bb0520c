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
 * Folder `lib/mcp/` — skills over MCP behind `lib/mcp.ts`: serve, consume, watch, HTTP, remote trust.
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
import type { ActivateOptions, Activation } from "../core/activation/activate.ts";
import { handleSkillTool, type SkillToolContext } from "../core/activation/skill_tool.ts";
import { contextDependencies } from "../core/catalog/skill_dependencies.ts";
import { mayBeDependency } from "../core/catalog/skill_access.ts";
import type { ModedSkill } from "../core/catalog/skill_modes.ts";
import { type SkillToolResult } from "../core/activation/tool_format.ts";
import type { ReadOptions, ResourceRead } from "../core/resources/read.ts";
import { normalizeResourcePath } from "../core/resources/resource_path.ts";
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

/** The most entries one listing may hold (every page together), by default. */
export const MAX_LISTING_ENTRIES = 10_000;

/** The most files all entries of one listing may list together, by default. */
export const MAX_LISTING_FILES = 200_000;

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
   * from the server (this replaces any handler the client has for it).
   * Notifications are merged: at most one re-listing runs, and at most one
   * more waits. Default false: call {@linkcode TrustedMcpSkills.refresh} yourself.
   */
  readonly watch?: boolean;
  /**
   * The most entries (default {@linkcode MAX_LISTING_ENTRIES}) and files of
   * all entries together (default {@linkcode MAX_LISTING_FILES}) one listing
   * may hold; a larger listing is `LISTING_TOO_LARGE` and changes nothing.
   */
  readonly maxListing?: { readonly entries?: number; readonly files?: number };
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

/** A shown skill: the very entry that was checked, and the listing that serves it. */
interface Checked {
  readonly bundle: McpSkillBundle;
  readonly listing: McpSkills;
}

/**
 * A server's skills narrowed to those approved at their current digest and
 * matching the lock: `bundles`, the skill tool, `activate` and `read` see
 * only those, and serve exactly the entry that was checked (its files and
 * digests and frontmatter): every fetched byte is verified against that
 * entry, and an entry replaced since (a new listing, `all.refresh(name)`) is
 * checked again before anything of it is served. A new listing is swapped in
 * whole once every skill of it is checked, or not at all. Defaults
 * unchanged: with neither approvals nor a lock, every listed skill is shown.
 *
 * | operation | requests |
 * |---|---|
 * | `refresh()` | `skills/list` (every page); merged with one already running |
 * | `refresh(name)` | `skills/get` |
 * | `approve(name)` | none |
 * | `activate`, `read`, `handleSkillTool` | as {@linkcode McpSkills} |
 */
export class TrustedMcpSkills {
  readonly #client: SdkClient;
  readonly #options: TrustedMcpSkillsOptions;
  #skills!: McpSkills;
  #standings = new Map<string, McpSkillStanding>();
  #shown = new Map<string, Checked>();
  #bundles = new Map<string, McpSkillBundle>();
  #running: Promise<void> | undefined;
  #waiting: Promise<void> | undefined;
  /** A `list_changed` arrived since the last listing began. */
  #stale = false;

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
        () => {
          // The server says the list changed: whatever its `ttlMs` said, list again.
          trusted.#stale = true;
          return trusted.refresh().then(() => {}, () => {});
        },
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
    return this.#bundles;
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
   * it is approved again. The new listing replaces the old one whole, once
   * every skill is checked. Calls are merged: while one listing runs, every
   * further call shares one more listing that starts when it ends. A listing
   * younger than the `ttlMs` its server sent with it (2026-07-28; at most 24
   * hours) is kept and nothing is requested, unless the server announced
   * `resources/list_changed` since (with `watch`).
   *
   * With a name: fetch that skill's entry again (`skills/get`, the recovery
   * a `VERIFICATION_FAILED` error advises) and check it the same way; it is
   * shown only when the new entry passes.
   *
   * @param name A listed skill's name, to fetch only its entry again.
   * @throws {McpSkillError} `LISTING_TOO_LARGE` when the listing is over `maxListing`;
   *   with a name, as {@linkcode McpSkills.refresh}.
   */
  refresh(name?: string): Promise<void> {
    if (name !== undefined) return this.#refreshOne(name);
    if (!this.#stale && this.#fresh()) return Promise.resolve();
    this.#stale = false;
    if (this.#running === undefined) return this.#start();
    // One listing runs: every call until it ends shares the one that follows it.
    this.#waiting ??= this.#running.then(() => {}, () => {}).then(() => {
      this.#waiting = undefined;
      return this.#start();
    });
    return this.#waiting;
  }

  /** Whether the listing is younger than the `ttlMs` its server sent with it. */
  #fresh(): boolean {
    const listing = this.#skills as McpSkills | undefined;
    return listing !== undefined && listing.ttlMs > 0 &&
      Date.now() - listing.listedAt < listing.ttlMs;
  }

  #start(): Promise<void> {
    const run = this.#relist().finally(() => {
      if (this.#running === run) this.#running = undefined;
    });
    this.#running = run;
    return run;
  }

  async #relist(): Promise<void> {
    const skills = await mcpSkillBundles(this.#client, this.#options);
    this.#checkSize(skills);
    const standings = new Map<string, McpSkillStanding>();
    const shown = new Map<string, Checked>();
    for (const [name, bundle] of skills.bundles) {
      const standing = await this.#standing(bundle);
      standings.set(name, standing);
      if (standing.shown) shown.set(name, { bundle, listing: skills });
    }
    // Swapped whole: nothing of the new listing is served before all of it is checked.
    this.#skills = skills;
    this.#standings = standings;
    this.#setShown(shown);
  }

  async #refreshOne(name: string): Promise<void> {
    const listing = this.#skills;
    const bundle = await listing.refresh(name);
    await this.#recheck(name, listing, bundle);
  }

  /** Check one entry again and show it (or hide it), unless a newer listing replaced its own. */
  async #recheck(name: string, listing: McpSkills, bundle: McpSkillBundle): Promise<boolean> {
    // An entry fetched again (`skills/get`) is held to the listing's caps too.
    this.#checkSize(listing);
    const standing = await this.#standing(bundle);
    if (this.#skills !== listing || listing.get(name) !== bundle) return false;
    const standings = new Map(this.#standings);
    standings.set(name, standing);
    this.#standings = standings;
    const shown = new Map(this.#shown);
    if (standing.shown) shown.set(name, { bundle, listing });
    else shown.delete(name);
    this.#setShown(shown);
    return standing.shown;
  }

  #setShown(shown: Map<string, Checked>): void {
    this.#shown = shown;
    this.#bundles = new Map([...shown].map(([name, c]) => [name, c.bundle]));
  }

  #checkSize(skills: McpSkills): void {
    const maxEntries = this.#options.maxListing?.entries ?? MAX_LISTING_ENTRIES;
    const maxFiles = this.#options.maxListing?.files ?? MAX_LISTING_FILES;
    const entries = skills.bundles.size + skills.warnings.length;
    let files = 0;
    for (const bundle of skills.bundles.values()) files += bundle.files.size;
    if (entries > maxEntries || files > maxFiles) {
      throw new McpSkillError(
        "LISTING_TOO_LARGE",
        `The listing of origin ${
          JSON.stringify(this.origin)
        } holds ${entries} entries and ${files} files; the limit is ${maxEntries} entries and ${maxFiles} files`,
      );
    }
  }

  async #standing(bundle: McpSkillBundle): Promise<McpSkillStanding> {
    const manifest = await mcpSkillManifest(bundle);
    const approval = this.#options.approvals === undefined
      ? null
      : await decideApproval(this.#options.approvals, this.origin, bundle.uri, manifest);
    let lock: McpSkillStanding["lock"] = null;
    if (this.#options.lock !== undefined) {
      const now = this.#entry(manifest, bundle);
      const was = this.#options.lock.skills.find((s) => lockKey(s) === lockKey(now));
      lock = was === undefined
        ? "not_locked"
        : (await compareLock(createLockfile([was]), [now])).ok
        ? "locked"
        : "changed";
    }
    const lockOk = lock === null || lock === "locked" || this.#options.lockMode === "warn";
    const ok = lockOk && (approval === null || approval.status === "approved");
    return Object.freeze({ manifest, approval, lock, shown: ok });
  }

  /**
   * Approve a listed skill as the listing shows it now (its digest over
   * every file's URI and digest), and show it — if, once the approval is
   * stored, the listing still holds that very entry (or a new one the
   * store approves); a listing that changed meanwhile is checked as it is.
   *
   * @param name A listed skill's name.
   * @returns The record stored.
   * @throws {McpSkillError} `UNKNOWN_SKILL` for a name not listed.
   * @throws {TypeError} When no approval store was given.
   */
  async approve(name: string): Promise<ApprovalRecord> {
    const store = this.#options.approvals;
    if (store === undefined) throw new TypeError("No approval store was given");
    const listing = this.#skills;
    const standing = this.#standings.get(name);
    const bundle = listing.get(name);
    if (standing === undefined || bundle === undefined) {
      throw new McpSkillError(
        "UNKNOWN_SKILL",
        `Unknown skill ${JSON.stringify(name)} from origin ${JSON.stringify(this.origin)}`,
      );
    }
    const record = await approve(store, this.origin, bundle.uri, standing.manifest);
    // Whatever the listing holds now is checked against the store as it is now.
    const current = this.#skills.get(name);
    if (current !== undefined) await this.#recheck(name, this.#skills, current);
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
    const checked = await this.#require(name);
    return await checked.listing.activate(name, options);
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
    const checked = await this.#require(name);
    return await checked.listing.read(name, path, options);
  }

  /**
   * The skill tool over the shown skills only: a call naming any other
   * skill gets the unknown-skill answer, and nothing of it is fetched; a
   * dependency resolves over the shown skills only (unless `context.dependencies`).
   *
   * @param input What the model sent.
   * @param context The host's switches.
   * @returns The tool result.
   */
  async handleSkillTool(
    input: unknown,
    context: Omit<SkillToolContext, "skills"> = {},
  ): Promise<SkillToolResult> {
    const name = (input as { skill?: unknown } | null)?.skill;
    if (typeof name === "string" && this.#shown.has(name)) {
      let checked: Checked;
      try {
        checked = await this.#require(name);
      } catch {
        return handleSkillTool(input, { ...context, skills: this.#bundles });
      }
      // Dependencies resolve over the shown skills only: an unapproved or unlocked skill of
      // the listing never satisfies one (the listing's own handler would see all of them).
      // A disabled or unactivated manual skill satisfies none either (`skillAccess`).
      const dependencies = context.dependencies ??
        contextDependencies(
          this.#bundles,
          checked.bundle,
          (s) =>
            mayBeDependency(s as ModedSkill, checked.bundle.name, context.modes, context.activated),
        );
      return await checked.listing.handleSkillTool(
        input,
        dependencies === undefined ? context : { ...context, dependencies },
      );
    }
    return handleSkillTool(input, { ...context, skills: this.#bundles });
  }

  /**
   * The checked entry of a shown skill, served through its listing. When the
   * listing's entry was replaced since the check (`all.refresh(name)`), the
   * new entry is checked first, and served only when it passes.
   */
  async #require(name: string): Promise<Checked> {
    const checked = this.#shown.get(name);
    if (checked !== undefined && checked.listing.get(name) !== checked.bundle) {
      const now = checked.listing.get(name);
      if (now !== undefined) await this.#recheck(name, checked.listing, now);
      const again = this.#shown.get(name);
      if (again !== undefined && again.listing.get(name) === again.bundle) return again;
    } else if (checked !== undefined) {
      return checked;
    }
    throw new McpSkillError(
      "UNKNOWN_SKILL",
      `Skill ${JSON.stringify(name)} from origin ${
        JSON.stringify(this.origin)
      } is not approved or not listed`,
    );
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
