/**
 * Approvals bound to a skill's content, as SEP-2640 asks of hosts: an
 * approval records the skill digest (over every file's path and digest, and
 * for a folder over its other entries too: links, pipes, files no reader
 * serves) at the moment of approval, and any later difference — a file
 * rotated, added or removed, a link added — means the skill needs approval
 * again.
 *
 * Folder `lib/core/trust/` — trust as data: digests, manifests, lockfiles, approvals, pins, SSH signatures.
 *
 * @module
 */
import { compareCodeUnits, type FileDigest } from "./digest.ts";
import { diffEntries, fullSkillDigest, type OtherEntry, sortEntries } from "./entries.ts";
import type { SkillManifest } from "./manifest.ts";
import {
  describeChanges,
  diffFiles,
  FieldReader,
  type FileChange,
  renderFiles,
  renderOtherEntries,
} from "./trust_file.ts";

/** One recorded approval. */
export interface ApprovalRecord {
  /** Where the skill comes from: `file` for a folder, the host's server label for MCP. */
  readonly origin: string;
  /** Which skill of that origin: its folder, or its `SKILL.md` URI. */
  readonly path: string;
  /** The skill's name when it was approved. */
  readonly name: string;
  /** The skill digest that was approved (over `files`, and `entries` when there are any). */
  readonly digest: string;
  /** The frontmatter digest that was approved. */
  readonly frontmatter_digest: string;
  /** The files that were approved (so what changed since can be told). */
  readonly files: readonly FileDigest[];
  /** A folder's other entries when it was approved, sorted; absent when none. */
  readonly entries?: readonly OtherEntry[];
}

/**
 * Where approvals are kept, keyed by origin and skill path; a record holds
 * the approved skill digest. Methods may answer at once or with a promise.
 */
export interface ApprovalStore {
  /**
   * The approval recorded for a skill, if any.
   *
   * @param origin `file` or a server label.
   * @param path The skill's folder or URI.
   */
  get(
    origin: string,
    path: string,
  ): ApprovalRecord | undefined | Promise<ApprovalRecord | undefined>;
  /**
   * Record an approval, replacing any earlier one of the same skill.
   *
   * @param record The approval.
   */
  put(record: ApprovalRecord): void | Promise<void>;
}

/**
 * Approvals in memory (for one process, or tests).
 *
 * | operation | cost |
 * |---|---|
 * | `get`, `put` | O(1) |
 *
 * @example
 * ```ts
 * import { MemoryApprovalStore } from "./approval.ts";
 * import { assert } from "../_assert.ts";
 *
 * const store = new MemoryApprovalStore();
 * const d = `sha256:${"0".repeat(64)}`;
 * store.put({ origin: "file", path: "/skills/pdf", name: "pdf", digest: d, frontmatter_digest: d, files: [] });
 * assert.equal(store.get("file", "/skills/pdf")?.digest, d);
 * assert.equal(store.get("docs", "/skills/pdf"), undefined);
 * ```
 */
export class MemoryApprovalStore implements ApprovalStore {
  readonly #records = new Map<string, ApprovalRecord>();

  /**
   * A store holding the given approvals.
   *
   * @param records Approvals to start with.
   */
  constructor(records: Iterable<ApprovalRecord> = []) {
    for (const record of records) this.put(record);
  }

  /**
   * The approval recorded for a skill.
   *
   * @param origin `file` or a server label.
   * @param path The skill's folder or URI.
   * @returns The approval, or `undefined`.
   */
  get(origin: string, path: string): ApprovalRecord | undefined {
    return this.#records.get(approvalKey(origin, path));
  }

  /**
   * Record an approval, replacing any earlier one of the same skill.
   *
   * @param record The approval (a frozen copy is kept).
   */
  put(record: ApprovalRecord): void {
    this.#records.set(approvalKey(record.origin, record.path), freezeRecord(record));
  }

  /** Every approval, in order of origin then path. */
  records(): readonly ApprovalRecord[] {
    return Object.freeze(
      [...this.#records.entries()].sort((a, b) => compareCodeUnits(a[0], b[0])).map(([, r]) => r),
    );
  }
}

function approvalKey(origin: string, path: string): string {
  return `${origin}\u0000${path}`;
}

function freezeRecord(record: ApprovalRecord): ApprovalRecord {
  return Object.freeze({
    origin: record.origin,
    path: record.path,
    name: record.name,
    digest: record.digest,
    frontmatter_digest: record.frontmatter_digest,
    files: Object.freeze(
      record.files.map((f) => Object.freeze({ path: f.path, size: f.size, digest: f.digest }))
        .sort((a, b) => compareCodeUnits(a.path, b.path)),
    ),
    ...record.entries === undefined || record.entries.length === 0
      ? {}
      : { entries: Object.freeze(sortEntries(record.entries).map((e) => Object.freeze({ ...e }))) },
  });
}

/**
 * The approval record of a skill as it is now.
 *
 * @param origin `file` or a server label.
 * @param path The skill's folder or URI.
 * @param manifest Its manifest (the full view is approved).
 * @returns The frozen record.
 */
export function approvalRecord(
  origin: string,
  path: string,
  manifest: SkillManifest,
): ApprovalRecord {
  return freezeRecord({
    origin,
    path,
    name: manifest.name,
    digest: manifest.digest,
    frontmatter_digest: manifest.frontmatter_digest,
    files: manifest.files,
  });
}

/**
 * The approval record of a folder's skill as it is now, with the folder's
 * other entries: its digest then covers them ({@linkcode fullSkillDigest}),
 * as a lock entry's does.
 *
 * @param origin `file`.
 * @param path The skill's folder.
 * @param manifest Its manifest.
 * @param others The folder's other entries (links, pipes, files no reader serves).
 * @returns The frozen record (the same as {@linkcode approvalRecord}'s when there are none).
 */
export async function approvalRecordWithEntries(
  origin: string,
  path: string,
  manifest: SkillManifest,
  others: readonly OtherEntry[],
): Promise<ApprovalRecord> {
  const record = approvalRecord(origin, path, manifest);
  if (others.length === 0) return record;
  const entries = sortEntries(others);
  return freezeRecord({
    ...record,
    digest: await fullSkillDigest(manifest.files, entries),
    entries,
  });
}

/** Whether a skill may be shown, and what changed since it was approved. */
export interface ApprovalDecision {
  /**
   * `approved`: its digest is the approved one. `needs_approval`: it was
   * never approved. `changed_since_approval`: it was, but differs now.
   */
  readonly status: "approved" | "needs_approval" | "changed_since_approval";
  /** For `changed_since_approval`: the files that differ from the approved ones. */
  readonly changes: readonly FileChange[];
  /** For `changed_since_approval`: whether the frontmatter differs. */
  readonly frontmatter_changed: boolean;
  /** For `changed_since_approval`: the folder's other entries that differ (`(link) added`, …). */
  readonly entry_changes: readonly { readonly path: string; readonly change: string }[];
}

/**
 * What changed since a skill was approved, for a message: its files, its
 * other entries, its frontmatter.
 *
 * @param decision A `changed_since_approval` decision.
 * @returns The changes, e.g. `"SKILL.md" changed, "scripts/x.py" (link) added`.
 */
export function approvalChanges(decision: ApprovalDecision): string {
  return describeChanges(
    [...decision.changes, ...decision.entry_changes],
    decision.frontmatter_changed,
  );
}

/**
 * Decide whether a skill is approved: it is exactly when the store holds an
 * approval of that origin and path with the same skill digest — for a
 * folder, over its served files and its other regular files — and, for a
 * folder, the same other entries (links, pipes, devices: kind, and a link's
 * target), so a link added after approval lapses it.
 *
 * @param store The approvals.
 * @param origin `file` or a server label.
 * @param path The skill's folder or URI.
 * @param manifest The skill as it is now.
 * @param others For a folder: its other entries as they are now (links, pipes,
 *   files no reader serves). Default none.
 * @returns The decision.
 * @example
 * ```ts
 * import { approve, decideApproval, manifestFromEntries, MemoryApprovalStore } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
 *
 * const d = (c: string) => `sha256:${c.repeat(64)}`;
 * const v1 = await manifestFromEntries("pdf", { name: "pdf" }, [{ path: "SKILL.md", size: 1, digest: d("1") }]);
 * const v2 = await manifestFromEntries("pdf", { name: "pdf" }, [{ path: "SKILL.md", size: 1, digest: d("2") }]);
 * const store = new MemoryApprovalStore();
 * assert.equal((await decideApproval(store, "file", "pdf", v1)).status, "needs_approval");
 * await approve(store, "file", "pdf", v1);
 * assert.equal((await decideApproval(store, "file", "pdf", v1)).status, "approved");
 * const later = await decideApproval(store, "file", "pdf", v2);
 * assert.deepEqual([later.status, later.changes], ["changed_since_approval", [{ path: "SKILL.md", change: "changed" }]]);
 * ```
 */
export async function decideApproval(
  store: ApprovalStore,
  origin: string,
  path: string,
  manifest: SkillManifest,
  others: readonly OtherEntry[] = [],
): Promise<ApprovalDecision> {
  const none = Object.freeze([]);
  const record = await store.get(origin, path);
  if (record === undefined) {
    return Object.freeze({
      status: "needs_approval",
      changes: none,
      frontmatter_changed: false,
      entry_changes: none,
    });
  }
  const entries = sortEntries(others);
  // The digest covers every regular file; links, pipes and the like are compared as entries.
  const digest = entries.length === 0
    ? manifest.digest
    : await fullSkillDigest(manifest.files, entries);
  const entryChanges = diffEntries(record.entries ?? [], entries);
  if (
    record.digest === digest && record.frontmatter_digest === manifest.frontmatter_digest &&
    entryChanges.length === 0
  ) {
    return Object.freeze({
      status: "approved",
      changes: none,
      frontmatter_changed: false,
      entry_changes: none,
    });
  }
  return Object.freeze({
    status: "changed_since_approval",
    changes: diffFiles(record.files, manifest.files),
    frontmatter_changed: record.frontmatter_digest !== manifest.frontmatter_digest,
    entry_changes: entryChanges,
  });
}

/**
 * Approve a skill as it is now: record its current digest.
 *
 * @param store The approvals.
 * @param origin `file` or a server label.
 * @param path The skill's folder or URI.
 * @param manifest The skill as it is now.
 * @param others For a folder: its other entries (default none).
 * @returns The record stored.
 */
export async function approve(
  store: ApprovalStore,
  origin: string,
  path: string,
  manifest: SkillManifest,
  others: readonly OtherEntry[] = [],
): Promise<ApprovalRecord> {
  const record = await approvalRecordWithEntries(origin, path, manifest, others);
  await store.put(record);
  return record;
}

/**
 * The newest approval file format this library writes and reads: version 2
 * adds a folder's other entries (`entries`); version 1 (none) is still read,
 * and written when no approval has any.
 */
export const APPROVALS_VERSION = 2;

/**
 * An approval file's text: `{ "version": 1, "approvals": [...] }`, sorted by
 * origin then path, one file entry per line; version 2 when an approval
 * records a folder's other entries.
 *
 * @param records The approvals.
 * @returns The JSON text, ending with a line feed.
 * @example
 * ```ts
 * import { parseApprovals, renderApprovals } from "./approval.ts";
 * import { assert } from "../_assert.ts";
 *
 * const d = `sha256:${"0".repeat(64)}`;
 * const records = [{ origin: "file", path: "pdf", name: "pdf", digest: d, frontmatter_digest: d, files: [] }];
 * assert.deepEqual(parseApprovals(renderApprovals(records), "approvals.json"), records);
 * ```
 */
export function renderApprovals(records: readonly ApprovalRecord[]): string {
  const sorted = new MemoryApprovalStore(records).records();
  const items = sorted.map((r) =>
    [
      `      "origin": ${JSON.stringify(r.origin)}`,
      `      "path": ${JSON.stringify(r.path)}`,
      `      "name": ${JSON.stringify(r.name)}`,
      `      "digest": ${JSON.stringify(r.digest)}`,
      `      "frontmatter_digest": ${JSON.stringify(r.frontmatter_digest)}`,
      `      "files": ${renderFiles(r.files, "      ")}`,
      ...r.entries === undefined
        ? []
        : [`      "entries": ${renderOtherEntries(r.entries, "      ")}`],
    ].join(",\n")
  ).map((body) => `    {\n${body}\n    }`);
  const body = items.length === 0 ? "[]" : `[\n${items.join(",\n")}\n  ]`;
  const version = sorted.some((r) => r.entries !== undefined) ? 2 : 1;
  return `{\n  "version": ${version},\n  "approvals": ${body}\n}\n`;
}

/**
 * Parse an approval file. Anything unexpected is a {@linkcode TrustFileError}
 * naming the file, line and column — never read as "everything approved".
 *
 * @param text The text.
 * @param file The file's name, for errors.
 * @returns The approvals, in order of origin then path.
 * @throws {TrustFileError} As {@linkcode parseLockfile}.
 * @example
 * ```ts
 * import { parseApprovals } from "./approval.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.throws(() => parseApprovals('{ "version": 1, "approvals": [{ "origin": "file" }] }', "a.json"), {
 *   name: "TrustFileError",
 *   message: 'a.json:1:31: Missing field "path" in an approval',
 * });
 * ```
 */
export function parseApprovals(text: string, file: string): readonly ApprovalRecord[] {
  const r = new FieldReader(text, file);
  const root = r.object(r.root(), "the approval file", ["version", "approvals"]);
  const version = r.version(root, [1, 2]);
  const records: ApprovalRecord[] = [];
  const seen = new Set<string>();
  for (const item of r.array(root, "approvals", "the approval file")) {
    const o = r.object(item, "an approval", [
      "origin",
      "path",
      "name",
      "digest",
      "frontmatter_digest",
      "files",
      "entries",
    ]);
    if (version === 1 && o.entries.has("entries")) {
      throw r.error(
        "INVALID_FIELD",
        o.entries.get("entries")!.keyOffset,
        'Field "entries" needs version 2',
      );
    }
    const origin = r.string(o, "origin", "an approval")!.value;
    const path = r.string(o, "path", "an approval")!.value;
    const what = `the approval of ${JSON.stringify(path)}`;
    const key = approvalKey(origin, path);
    if (seen.has(key)) {
      throw r.error(
        "DUPLICATE_ENTRY",
        o.offset,
        `Skill ${JSON.stringify(path)} of origin ${JSON.stringify(origin)} is approved twice`,
      );
    }
    seen.add(key);
    records.push(freezeRecord({
      origin,
      path,
      name: r.string(o, "name", what)!.value,
      digest: r.digest(o, "digest", what),
      frontmatter_digest: r.digest(o, "frontmatter_digest", what),
      files: r.files(o, what),
      ...o.entries.has("entries") ? { entries: r.otherEntries(o, what) } : {},
    }));
  }
  return new MemoryApprovalStore(records).records();
}
