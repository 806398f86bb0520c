/**
 * Trust on disk: the lockfile (`skills.lock.json`) and the JSON approval
 * file, read through one bounded, non-blocking open and written whole to a
 * temporary file that is then renamed over the old one (so no reader ever
 * sees half a file); locking, verifying and approving discovered skills;
 * and a discovery narrowed to the skills that match their lock and are
 * approved.
 *
 * @module
 */
import {
  closeSync,
  fstatSync,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import {
  type ApprovalDecision,
  type ApprovalRecord,
  approvalRecord,
  type ApprovalStore,
  decideApproval,
  MemoryApprovalStore,
  parseApprovals,
  renderApprovals,
} from "../core/trust/approval.ts";
import {
  compareLock,
  createLockfile,
  type LockComparison,
  type LockEntry,
  lockEntry,
  type Lockfile,
  lockKey,
  parseLockfile,
  renderLockfile,
} from "../core/trust/lockfile.ts";
import { type SkillManifest, skillManifest } from "../core/trust/manifest.ts";
import { describeChanges, MAX_TRUST_FILE_BYTES, TrustFileError } from "../core/trust/trust_file.ts";
import { READ_FLAGS, readFully } from "./_safe_open.ts";
import type { DiscoveredSkill, Discovery } from "./discovery.ts";
import { Discovery as DiscoveryClass } from "./discovery.ts";
import { diagnostic, type SkillDiagnostic } from "./skill_diagnostic.ts";
import type { LoadedSkill } from "./skill_folder.ts";
import { pinBundle } from "../core/trust/pin.ts";

/** The origin of skills found on disk, in approvals. */
export const FILE_ORIGIN = "file";

/** The conventional approval file name. */
export const APPROVALS_NAME = "skills.approvals.json";

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Read a lockfile or approval file: one open that never blocks (a named
 * pipe is refused, not waited on), a regular file only, at most 16 MiB.
 *
 * @param path The file.
 * @returns Its text, or `null` when there is no such file.
 * @throws {TrustFileError} `TOO_LARGE`; `UNREADABLE` when it is not a regular
 *   file, cannot be read or grew while read; `INVALID_JSON` when it is not UTF-8.
 */
export function readTrustFile(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === "ENOENT") return null;
    throw new TrustFileError(
      "UNREADABLE",
      path,
      `The file cannot be read${typeof code === "string" ? ` (${code})` : ""}`,
    );
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new TrustFileError("UNREADABLE", path, "Not a regular file");
    const tooLarge = () =>
      new TrustFileError("TOO_LARGE", path, `The file is over ${MAX_TRUST_FILE_BYTES} bytes`);
    if (stat.size > MAX_TRUST_FILE_BYTES) throw tooLarge();
    const buffer = new Uint8Array(Math.min(stat.size, MAX_TRUST_FILE_BYTES) + 1);
    const filled = readFully(fd, buffer);
    if (filled > stat.size) {
      throw new TrustFileError("UNREADABLE", path, "The file grew while it was being read");
    }
    if (filled > MAX_TRUST_FILE_BYTES) throw tooLarge();
    let text: string;
    try {
      text = STRICT_UTF8.decode(buffer.subarray(0, filled));
    } catch {
      throw new TrustFileError("INVALID_JSON", path, "The file is not valid UTF-8");
    }
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } finally {
    closeSync(fd);
  }
}

/**
 * Write a file whole: to a new temporary file beside it (created
 * exclusively), flushed, then renamed over `path`. A reader sees the old
 * file or the new one, never part of either; of concurrent writers, the
 * last rename wins.
 *
 * @param path The file.
 * @param text Its new text.
 * @throws {Error} The file system's error when the folder cannot be written.
 */
export function writeFileAtomically(path: string, text: string): void {
  const random = crypto.getRandomValues(new Uint8Array(6));
  const tag = Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("");
  const temp = `${path}.${tag}.tmp`;
  const fd = openSync(temp, "wx", 0o644);
  let done = false;
  try {
    const bytes = new TextEncoder().encode(text);
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, path);
    done = true;
  } finally {
    if (!done) {
      try {
        closeSync(fd);
      } catch {
        // Already closed.
      }
      try {
        unlinkSync(temp);
      } catch {
        // Already gone.
      }
    }
  }
}

/**
 * Read and check a lockfile.
 *
 * @param path The lockfile.
 * @returns The lockfile.
 * @throws {TrustFileError} `NOT_FOUND` when there is none, or as {@linkcode parseLockfile}.
 */
export function readLockfile(path: string): Lockfile {
  const text = readTrustFile(path);
  if (text === null) {
    throw new TrustFileError("NOT_FOUND", path, "No lockfile here: run `skillset lock` first");
  }
  return parseLockfile(text, path);
}

/**
 * Write a lockfile atomically (see {@linkcode writeFileAtomically}).
 *
 * @param path The lockfile.
 * @param lock Its content.
 */
export function writeLockfile(path: string, lock: Lockfile): void {
  writeFileAtomically(path, renderLockfile(lock));
}

/** A skill folder's path as a lockfile or approval file beside `base` records it: relative, `/`-separated. */
export function recordedPath(base: string, folder: string): string {
  const rel = relative(resolve(base), resolve(folder));
  const path = rel === "" ? "." : rel;
  return sep === "/" ? path : path.split(sep).join("/");
}

/**
 * Approvals in a JSON file (`{ "version": 1, "approvals": [...] }`). Folders
 * are recorded relative to the file's folder, so the file can be kept with
 * a project. The file is read when the store is made (a missing file is no
 * approval, a malformed one a {@linkcode TrustFileError}); each `put` reads
 * it again, merges, and writes it atomically.
 *
 * | operation | cost |
 * |---|---|
 * | `get` | O(1) |
 * | `put` | one read and one atomic write of the file |
 */
export class JsonFileApprovalStore implements ApprovalStore {
  /** The file. */
  readonly path: string;
  #store: MemoryApprovalStore;

  /**
   * Open an approval file (reading it now).
   *
   * @param path The approval file (created by the first `put`).
   * @throws {TrustFileError} When the file exists but is malformed, too large or unreadable.
   */
  constructor(path: string) {
    this.path = resolve(path);
    this.#store = this.#read();
  }

  /**
   * The approval recorded for a skill.
   *
   * @param origin `file` or a server label.
   * @param path The skill's folder (absolute, or relative to the working folder) or URI.
   * @returns The approval, or `undefined`.
   */
  get(origin: string, path: string): ApprovalRecord | undefined {
    return this.#store.get(origin, this.#key(origin, path));
  }

  /**
   * Record an approval: read the file again, merge, write it atomically.
   *
   * @param record The approval.
   * @throws {TrustFileError} When the file became malformed since.
   */
  put(record: ApprovalRecord): void {
    const store = this.#read();
    store.put({ ...record, path: this.#key(record.origin, record.path) });
    writeFileAtomically(this.path, renderApprovals(store.records()));
    this.#store = store;
  }

  /** Every approval, as recorded in the file (folders relative to it). */
  records(): readonly ApprovalRecord[] {
    return this.#store.records();
  }

  #key(origin: string, path: string): string {
    return origin === FILE_ORIGIN && (isAbsolute(path) || !path.includes("://"))
      ? recordedPath(dirname(this.path), path)
      : path;
  }

  #read(): MemoryApprovalStore {
    const text = readTrustFile(this.path);
    return new MemoryApprovalStore(text === null ? [] : parseApprovals(text, this.path));
  }
}

/** Options of {@linkcode lockSkills} and {@linkcode verifySkills}. */
export interface LockOptions {
  /** The folder source paths are recorded relative to (the lockfile's). Default: the working folder. */
  readonly base?: string;
}

/** A skill that could not be hashed, and why. */
export interface TrustError {
  /** Its identity ({@linkcode lockKey}). */
  readonly key: string;
  /** Its name. */
  readonly name: string;
  /** Why. */
  readonly message: string;
}

/** The lock entry of one discovered skill, or why there is none. */
async function entryOf(
  discovery: Discovery,
  skill: DiscoveredSkill,
  base: string,
): Promise<{ entry: LockEntry; manifest: SkillManifest; bundle: LoadedSkill } | TrustError> {
  const source = recordedPath(base, skill.path);
  try {
    // Loaded now, hashed, then used: never a bundle read before this check.
    const bundle = discovery.loadBundle(skill.name)!;
    const manifest = await skillManifest(bundle);
    return { entry: lockEntry(manifest, { scope: skill.scope, source }), manifest, bundle };
  } catch (e) {
    return Object.freeze({
      key: lockKey({ source }),
      name: skill.name,
      message: e instanceof Error ? e.message : String(e),
    });
  }
}

/**
 * Lock the skills a discovery uses (its winners): each skill's full file
 * list, digests and source.
 *
 * @param discovery What {@linkcode discoverSkills} found.
 * @param options Where source paths are relative to.
 * @returns The lockfile, and the skills that could not be hashed.
 */
export async function lockSkills(
  discovery: Discovery,
  options: LockOptions = {},
): Promise<{ readonly lock: Lockfile; readonly errors: readonly TrustError[] }> {
  const base = options.base ?? ".";
  const entries: LockEntry[] = [];
  const errors: TrustError[] = [];
  for (const skill of discovery.skills) {
    const got = await entryOf(discovery, skill, base);
    if ("entry" in got) entries.push(got.entry);
    else errors.push(got);
  }
  return Object.freeze({ lock: createLockfile(entries), errors: Object.freeze(errors) });
}

/**
 * Recompute every discovered skill and compare with a lockfile.
 *
 * @param discovery What {@linkcode discoverSkills} found.
 * @param lock The lockfile.
 * @param options Where source paths are relative to; `frozen: true` also
 *   fails on skills that are not locked.
 * @returns The comparison, and the skills that could not be hashed (each a failure).
 */
export async function verifySkills(
  discovery: Discovery,
  lock: Lockfile,
  options: LockOptions & { readonly frozen?: boolean } = {},
): Promise<LockComparison & { readonly errors: readonly TrustError[] }> {
  const { lock: now, errors } = await lockSkills(discovery, options);
  const failed = new Set(errors.map((e) => e.key));
  // A skill that cannot be hashed is neither "removed" nor "changed": it is an error.
  const comparison = await compareLock(
    createLockfile(lock.skills.filter((s) => !failed.has(lockKey(s)))),
    now.skills,
    options,
  );
  return Object.freeze({ ...comparison, ok: comparison.ok && errors.length === 0, errors });
}

/** Options of {@linkcode trustDiscovery}. */
export interface TrustOptions {
  /** A lockfile (or its path): a skill that differs from its entry, or has none, is not loaded. */
  readonly lock?: Lockfile | string;
  /** `"enforce"` (the default) keeps a mismatching skill out; `"warn"` loads it with a warning. */
  readonly lockMode?: "enforce" | "warn";
  /** Where the lockfile's source paths are relative to; default the lockfile's folder (or the working folder). */
  readonly lockBase?: string;
  /** Approvals: a skill not approved at its current digest is not loaded (`NEEDS_APPROVAL`). */
  readonly approvals?: ApprovalStore;
}

/** One skill's standing against a lock and approvals. */
export interface TrustStanding {
  /** The skill. */
  readonly skill: DiscoveredSkill;
  /** Its manifest, when it could be hashed. */
  readonly manifest: SkillManifest | null;
  /** The bundle that was hashed, pinned to `manifest` (see {@linkcode pinBundle}), when it could be. */
  readonly bundle: LoadedSkill | null;
  /** The approval decision, when `approvals` was given and it could be hashed. */
  readonly approval: ApprovalDecision | null;
  /** What keeps it out or warns about it. */
  readonly diagnostics: readonly SkillDiagnostic[];
  /** Whether it is loaded. */
  readonly loaded: boolean;
}

/** A lockfile ready to compare folders with: its entries by key, and the folder its sources are relative to. */
export interface LoadedLock {
  /** The entries by {@linkcode lockKey}. */
  readonly entries: ReadonlyMap<string, LockEntry>;
  /** The folder the entries' sources are relative to. */
  readonly base: string;
}

/**
 * Read a lock option: a lockfile's path (its folder is the base) or a lockfile.
 *
 * @param lock The option.
 * @param base Where sources are relative to, when not the lockfile's folder.
 * @returns The entries by key and the base.
 * @throws {TrustFileError} When the path names a missing or malformed lockfile.
 */
export function loadLock(lock: Lockfile | string, base?: string): LoadedLock {
  const file = typeof lock === "string" ? readLockfile(lock) : lock;
  return Object.freeze({
    entries: new Map(file.skills.map((s) => [lockKey(s), s])),
    base: base ?? (typeof lock === "string" ? dirname(resolve(lock)) : "."),
  });
}

/**
 * How a skill folder compares with a lock: `null` when it matches its entry,
 * else the diagnostic code and a message naming the files that differ.
 *
 * @param lock The lock.
 * @param folder The skill folder.
 * @param manifest Its manifest now.
 * @returns `null`, or why it does not match.
 */
export async function lockMismatch(
  lock: LoadedLock,
  folder: string,
  manifest: SkillManifest,
): Promise<{ readonly code: "LOCK_MISMATCH" | "NOT_LOCKED"; readonly message: string } | null> {
  const source = recordedPath(lock.base, folder);
  const entry = lock.entries.get(lockKey({ source }));
  if (entry === undefined) {
    return { code: "NOT_LOCKED", message: `Skill "${manifest.name}" is not in the lockfile` };
  }
  const now = lockEntry(manifest, { scope: entry.scope ?? "", source });
  const { differences } = await compareLock(createLockfile([entry]), [now]);
  const d = differences[0];
  if (d === undefined) return null;
  return {
    code: "LOCK_MISMATCH",
    message: `Skill "${manifest.name}" differs from its lockfile entry: ${
      describeChanges(d.files, d.frontmatter_changed)
    }`,
  };
}

/**
 * Each discovered skill's standing: its manifest, how it compares with its
 * lock entry, and its approval.
 *
 * @param discovery What {@linkcode discoverSkills} found.
 * @param options The lock, its mode, the approvals.
 * @returns One standing per winning skill, in discovery order.
 * @throws {TrustFileError} When `lock` is a path to a missing or malformed lockfile.
 */
export async function trustStandings(
  discovery: Discovery,
  options: TrustOptions,
): Promise<readonly TrustStanding[]> {
  const lock = options.lock === undefined ? undefined : loadLock(options.lock, options.lockBase);
  const base = lock?.base ?? ".";
  const warnOnly = options.lockMode === "warn";
  const out: TrustStanding[] = [];
  for (const skill of discovery.skills) {
    const got = await entryOf(discovery, skill, base);
    const diagnostics: SkillDiagnostic[] = [];
    if (!("entry" in got)) {
      diagnostics.push(
        diagnostic(
          "error",
          "LOCK_MISMATCH",
          skill.path,
          `Skill "${skill.name}" could not be hashed: ${got.message}`,
        ),
      );
      out.push(
        Object.freeze({
          skill,
          manifest: null,
          bundle: null,
          approval: null,
          diagnostics: Object.freeze(diagnostics),
          loaded: false,
        }),
      );
      continue;
    }
    let loaded = true;
    if (lock !== undefined) {
      const mismatch = await lockMismatch(lock, skill.path, got.manifest);
      if (mismatch !== null) {
        diagnostics.push(
          diagnostic(warnOnly ? "warning" : "error", mismatch.code, skill.path, mismatch.message),
        );
        if (!warnOnly) loaded = false;
      }
    }
    let approval: ApprovalDecision | null = null;
    if (options.approvals !== undefined) {
      approval = await decideApproval(options.approvals, FILE_ORIGIN, skill.path, got.manifest);
      if (approval.status !== "approved") {
        diagnostics.push(diagnostic(
          "error",
          "NEEDS_APPROVAL",
          skill.path,
          approval.status === "needs_approval"
            ? `Skill "${skill.name}" needs approval`
            : `Skill "${skill.name}" changed since it was approved: ${
              describeChanges(approval.changes, approval.frontmatter_changed)
            }`,
        ));
        loaded = false;
      }
    }
    out.push(
      Object.freeze({
        skill,
        manifest: got.manifest,
        bundle: pinBundle(got.bundle, got.manifest),
        approval,
        diagnostics: Object.freeze(diagnostics),
        loaded,
      }),
    );
  }
  return Object.freeze(out);
}

/**
 * A discovery narrowed by a lock and approvals: a skill that differs from
 * its lock entry (or has none) is moved to `skipped` with a `LOCK_MISMATCH`
 * (`NOT_LOCKED`) diagnostic naming the files — or kept with the diagnostic
 * as a warning under `lockMode: "warn"` — and a skill not approved at its
 * current digest is moved to `skipped` with `NEEDS_APPROVAL`, saying what
 * changed since its last approval. So it is in no catalog, prompt block or
 * tool enum built from the result, and the skill tool cannot activate it.
 * The skills kept are pinned to what was checked ({@linkcode pinBundle}):
 * their bundles list only the files that were hashed, and a read of a file
 * that changed since is refused (`RESOURCE_CHANGED`). Without a lock and
 * approvals, the discovery is returned as it is.
 *
 * @param discovery What {@linkcode discoverSkills} found.
 * @param options The lock, its mode, the approvals.
 * @returns The narrowed discovery.
 * @throws {TrustFileError} When `lock` is a path to a missing or malformed lockfile.
 */
export async function trustDiscovery(
  discovery: Discovery,
  options: TrustOptions,
): Promise<Discovery> {
  if (options.lock === undefined && options.approvals === undefined) return discovery;
  const standings = await trustStandings(discovery, options);
  const skills: DiscoveredSkill[] = [];
  const bundles = new Map<string, LoadedSkill>();
  const skipped = [...discovery.skipped];
  for (const s of standings) {
    if (s.loaded && s.bundle !== null) {
      bundles.set(s.skill.name, s.bundle);
      // The description a model sees comes from the bytes that were checked,
      // not from what discovery read before the check.
      skills.push(Object.freeze({
        ...s.skill,
        description: s.bundle.frontmatter.description,
        frontmatter: s.bundle.frontmatter,
        diagnostics: s.diagnostics.length === 0
          ? s.skill.diagnostics
          : Object.freeze([...s.skill.diagnostics, ...s.diagnostics]),
      }));
    } else {
      skipped.push(Object.freeze({
        scope: s.skill.scope,
        path: s.skill.path,
        real_path: s.skill.real_path,
        skill_md: s.skill.skill_md,
        nested: s.skill.nested,
        parent: s.skill.parent,
        alias: s.skill.alias,
        diagnostics: Object.freeze([...s.diagnostics]),
      }));
    }
  }
  return new DiscoveryClass(
    {
      skills,
      shadowed: discovery.shadowed,
      conflicts: discovery.conflicts,
      skipped,
      diagnostics: discovery.diagnostics,
      unavailable: discovery.unavailable,
    },
    undefined,
    { bundles },
  );
}

/**
 * Approve discovered skills as they are now.
 *
 * @param discovery What {@linkcode discoverSkills} found.
 * @param store The approvals.
 * @param names The skills to approve (by name), or `"all"`.
 * @returns The records stored.
 * @throws {RangeError} When a name is not a discovered skill.
 * @throws {ResourceReadError} When a skill's file cannot be hashed.
 */
export async function approveSkills(
  discovery: Discovery,
  store: ApprovalStore,
  names: readonly string[] | "all",
): Promise<readonly ApprovalRecord[]> {
  const chosen = names === "all" ? discovery.skills : names.map((name) => {
    const skill = discovery.skill(name);
    if (skill === undefined) {
      throw new RangeError(`No skill named ${JSON.stringify(name)} was found`);
    }
    return skill;
  });
  const out: ApprovalRecord[] = [];
  for (const skill of chosen) {
    const manifest = await skillManifest(discovery.loadBundle(skill.name)!);
    const record = approvalRecord(FILE_ORIGIN, skill.path, manifest);
    await store.put(record);
    out.push(record);
  }
  return Object.freeze(out);
}
