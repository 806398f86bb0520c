/**
 * The lockfile (`skills.lock.json`): each skill's name, where it comes from
 * (a scope and a source folder, or an MCP origin and `SKILL.md` URI), its
 * skill digest and its files as SEP-2640 entries. Sorted and stable, one
 * file per line, so it diffs well in version control; anyone can recompute
 * every digest with `sha256sum`.
 *
 * Folder `lib/core/trust/` — trust as data: digests, manifests, lockfiles, approvals, pins, SSH signatures.
 *
 * @module
 */
import { compareCodeUnits, type FileDigest } from "./digest.ts";
import { diffEntries, fullSkillDigest, type OtherEntry, sortEntries } from "./entries.ts";
import type { SkillManifest } from "./manifest.ts";
import {
  type InstalledFrom,
  installedFromOf,
  type InstallTarget,
  renderFrom,
  renderTargets,
  targetsOf,
} from "./installed_from.ts";
import { isSkillVersion, MAX_VERSION_LENGTH } from "./skill_version.ts";
import {
  diffFiles,
  FieldReader,
  type FileChange,
  renderFiles,
  renderOtherEntries,
} from "./trust_file.ts";

/**
 * The newest lockfile format this library writes and reads: version 3 adds
 * `base`, the folder (relative to the repository root) that its roots and
 * sources are relative to, so a signed verify resolves them from the
 * repository root wherever the lockfile is read
 * (`docs/security.md#signed-root`); version 2 adds a skill's other entries
 * (`entries`), the discovery roots (`roots`), where an installed skill came
 * from (`installed_from`) and the version its SKILL.md states (`version`).
 * Versions 1 and 2 are still read (their roots and sources are relative to
 * the lockfile's own folder) and written when there is no base to record.
 */
export const LOCKFILE_VERSION = 3;

/** The conventional lockfile name. */
export const LOCKFILE_NAME = "skills.lock.json";

export type { InstalledFrom };

/** One locked skill. Exactly one of `source` (a folder) or `uri` (an MCP skill) is set. */
export interface LockEntry {
  /** The skill's name. */
  readonly name: string;
  /** The version its SKILL.md states (`metadata.version`, or a top-level `version`), when it does (version 2). */
  readonly version?: string;
  /** For a folder: the scope it was discovered in (`project`, `user`, …). */
  readonly scope?: string;
  /** For a folder: its path, `/`-separated, relative to the lockfile's folder. */
  readonly source?: string;
  /** For an MCP skill: the host's label of the server. */
  readonly origin?: string;
  /** For an MCP skill: its `SKILL.md` URI. */
  readonly uri?: string;
  /** The skill digest over `files`. */
  readonly digest: string;
  /** The digest of its frontmatter. */
  readonly frontmatter_digest: string;
  /** Every file, in code-unit order of path. */
  readonly files: readonly FileDigest[];
  /** Every other entry of its folder (links, pipes, devices, files no reader serves); absent when none. */
  readonly entries?: readonly OtherEntry[];
  /** For a folder installed by `skillset add`: where it came from (version 2). */
  readonly installed_from?: InstalledFrom;
  /** For a folder installed by `skillset add --agent`: the link or copy made for each agent (version 2). */
  readonly targets?: readonly InstallTarget[];
}

/** A discovery root a lockfile was made from. */
export interface LockRoot {
  /** Its scope. */
  readonly scope: string;
  /** Its path, `/`-separated, relative to the lockfile's folder. */
  readonly path: string;
}

/** A parsed lockfile. */
export interface Lockfile {
  /** 1; 2 when it records roots or other entries; 3 when it records its base. */
  readonly version: 1 | 2 | 3;
  /**
   * Version 3: the folder its roots and sources are relative to, `/`-separated
   * and relative to the repository root (`.` for the root itself); never
   * absolute and never with `..`. Without it, they are relative to the
   * lockfile's own folder.
   */
  readonly base?: string;
  /** The skills, in order of {@linkcode lockKey}. */
  readonly skills: readonly LockEntry[];
  /** The roots it was made from (version 2), in order. */
  readonly roots?: readonly LockRoot[];
}

/**
 * The identity of a locked skill: `file <source>` or `mcp <origin> <uri>`.
 *
 * @param entry An entry (or where a skill comes from).
 * @returns The key.
 * @example
 * ```ts
 * import { lockKey } from "./lockfile.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(lockKey({ source: "skills/pdf" }), "file skills/pdf");
 * assert.equal(lockKey({ origin: "docs", uri: "skill://pdf/SKILL.md" }), "mcp docs skill://pdf/SKILL.md");
 * ```
 */
export function lockKey(entry: Pick<LockEntry, "source" | "origin" | "uri">): string {
  return entry.source !== undefined ? `file ${entry.source}` : `mcp ${entry.origin} ${entry.uri}`;
}

/**
 * A lock entry for a skill from its manifest.
 *
 * @param manifest The skill's manifest (its full view is locked).
 * @param from Where it comes from: `{ scope, source }` or `{ origin, uri }`.
 * @returns The frozen entry.
 * @example
 * ```ts
 * import { lockEntry, manifestFromEntries } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
 *
 * const d = `sha256:${"0".repeat(64)}`;
 * const m = await manifestFromEntries("pdf", { name: "pdf" }, [{ path: "SKILL.md", size: 1, digest: d }]);
 * assert.equal(lockEntry(m, { scope: "project", source: "skills/pdf" }).digest, m.digest);
 * ```
 */
export function lockEntry(
  manifest: SkillManifest,
  from:
    | { readonly scope: string; readonly source: string }
    | { readonly origin: string; readonly uri: string },
): LockEntry {
  return Object.freeze({
    name: manifest.name,
    ..."source" in from
      ? { scope: from.scope, source: from.source }
      : { origin: from.origin, uri: from.uri },
    digest: manifest.digest,
    frontmatter_digest: manifest.frontmatter_digest,
    files: manifest.files,
  });
}

/**
 * A lock entry with every other entry of the skill's folder: its digest
 * then covers every regular file ({@linkcode fullSkillDigest}).
 *
 * @param entry An entry of {@linkcode lockEntry}.
 * @param others The folder's other entries.
 * @returns The entry (itself when there are none).
 */
export async function withEntries(
  entry: LockEntry,
  others: readonly OtherEntry[],
): Promise<LockEntry> {
  if (others.length === 0) return entry;
  const entries = sortEntries(others);
  return Object.freeze({
    ...entry,
    digest: await fullSkillDigest(entry.files, entries),
    entries,
  });
}

/**
 * Whether a recorded base is a folder inside the repository: `.` or
 * `/`-separated names, none of them empty, `.` or `..`, no backslash.
 *
 * @param base The recorded base.
 * @returns Whether it stays inside.
 * @example
 * ```ts
 * import { isLockBase } from "./lockfile.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.deepEqual(["." , "tools/ci", "../x", "/etc", "a//b", "a\\b"].map(isLockBase), [true, true, false, false, false, false]);
 * ```
 */
export function isLockBase(base: string): boolean {
  if (base === ".") return true;
  if (base.includes("\\")) return false;
  return base.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}

/**
 * A lockfile of entries: sorted by {@linkcode lockKey}, one entry per key.
 *
 * @param entries The entries (any order).
 * @param roots The discovery roots it was made from (version 2).
 * @param base The folder, relative to the repository root, that roots and sources are relative to (version 3).
 * @returns The frozen lockfile.
 * @throws {TypeError} When two entries have one key, or the base is not inside the repository.
 */
export function createLockfile(
  entries: readonly LockEntry[],
  roots?: readonly LockRoot[],
  base?: string,
): Lockfile {
  if (base !== undefined && !isLockBase(base)) {
    throw new TypeError(
      `Lockfile base ${JSON.stringify(base)} is not a folder inside the repository`,
    );
  }
  const sorted = [...entries].sort((a, b) => compareCodeUnits(lockKey(a), lockKey(b)));
  for (let i = 1; i < sorted.length; i++) {
    if (lockKey(sorted[i]!) === lockKey(sorted[i - 1]!)) {
      throw new TypeError(`Two lock entries for ${JSON.stringify(lockKey(sorted[i]!))}`);
    }
  }
  const v2 = roots !== undefined ||
    sorted.some((e) =>
      (e.entries?.length ?? 0) > 0 || e.installed_from !== undefined || e.version !== undefined ||
      (e.targets?.length ?? 0) > 0
    );
  return Object.freeze({
    version: base !== undefined ? 3 : v2 ? 2 : 1,
    ...base === undefined ? {} : { base },
    skills: Object.freeze(sorted),
    ...roots === undefined
      ? {}
      : { roots: Object.freeze(roots.map((r) => Object.freeze({ scope: r.scope, path: r.path }))) },
  });
}

/**
 * The lockfile's text: stable (the same skills give the same bytes), sorted,
 * one file entry per line, ending with a line feed.
 *
 * @param lock The lockfile.
 * @returns The JSON text.
 * @example
 * ```ts
 * import { createLockfile, parseLockfile, renderLockfile } from "./lockfile.ts";
 * import { assert } from "../_assert.ts";
 *
 * const d = `sha256:${"0".repeat(64)}`;
 * const lock = createLockfile([{ name: "pdf", scope: "project", source: "pdf", digest: d, frontmatter_digest: d, files: [{ path: "SKILL.md", size: 1, digest: d }] }]);
 * const text = renderLockfile(lock);
 * assert.deepEqual(parseLockfile(text, "skills.lock.json"), lock);
 * ```
 */
export function renderLockfile(lock: Lockfile): string {
  const made = createLockfile(lock.skills, lock.roots, lock.base);
  const skills = made.skills.map((s) => {
    const lines = [`      "name": ${JSON.stringify(s.name)}`];
    if (s.version !== undefined) lines.push(`      "version": ${JSON.stringify(s.version)}`);
    if (s.source !== undefined) {
      lines.push(
        `      "scope": ${JSON.stringify(s.scope)}`,
        `      "source": ${JSON.stringify(s.source)}`,
      );
      if (s.installed_from !== undefined) {
        lines.push(`      "installed_from": ${renderFrom(s.installed_from)}`);
      }
      if (s.targets !== undefined && s.targets.length > 0) {
        lines.push(`      "targets": ${renderTargets(s.targets)}`);
      }
    } else {
      lines.push(
        `      "origin": ${JSON.stringify(s.origin)}`,
        `      "uri": ${JSON.stringify(s.uri)}`,
      );
    }
    lines.push(
      `      "digest": ${JSON.stringify(s.digest)}`,
      `      "frontmatter_digest": ${JSON.stringify(s.frontmatter_digest)}`,
      `      "files": ${renderFiles(s.files, "      ")}`,
    );
    if (s.entries !== undefined && s.entries.length > 0) {
      lines.push(`      "entries": ${renderOtherEntries(s.entries, "      ")}`);
    }
    return `    {\n${lines.join(",\n")}\n    }`;
  });
  const body = skills.length === 0 ? "[]" : `[\n${skills.join(",\n")}\n  ]`;
  const roots = made.roots === undefined
    ? ""
    : `  "roots": ${
      made.roots.length === 0
        ? "[]"
        : `[\n${
          made.roots.map((r) =>
            `    { "scope": ${JSON.stringify(r.scope)}, "path": ${JSON.stringify(r.path)} }`
          ).join(",\n")
        }\n  ]`
    },\n`;
  const base = made.base === undefined ? "" : `  "base": ${JSON.stringify(made.base)},\n`;
  return `{\n  "version": ${made.version},\n${base}${roots}  "skills": ${body}\n}\n`;
}

/**
 * Parse a lockfile's text. Every field is checked; anything unexpected is a
 * {@linkcode TrustFileError} naming the file, line and column, never a
 * silently shorter lock.
 *
 * @param text The text.
 * @param file The file's name, for errors.
 * @returns The lockfile.
 * @throws {TrustFileError} `TOO_LARGE` (over 16 MiB), `INVALID_JSON`,
 *   `INVALID_FIELD`, `BAD_DIGEST`, `UNSUPPORTED_VERSION` or `DUPLICATE_ENTRY`.
 * @example
 * ```ts
 * import { parseLockfile } from "./lockfile.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.deepEqual(parseLockfile('{ "version": 1, "skills": [] }', "skills.lock.json").skills, []);
 * assert.throws(() => parseLockfile('{ "version": 4, "skills": [] }', "skills.lock.json"), {
 *   name: "TrustFileError",
 *   message: "skills.lock.json:1:14: Unsupported version 4: this library reads version 1, 2 and 3",
 * });
 * ```
 */
export function parseLockfile(text: string, file: string): Lockfile {
  const r = new FieldReader(text, file);
  const root = r.object(r.root(), "the lockfile", ["version", "base", "roots", "skills"]);
  const version = r.version(root, [1, 2, 3]);
  const base = r.string(root, "base", "the lockfile", version !== 3);
  if (version !== 3 && base !== undefined) {
    throw r.error(
      "INVALID_FIELD",
      root.entries.get("base")!.keyOffset,
      'Field "base" needs version 3',
    );
  }
  if (base !== undefined && !isLockBase(base.value)) {
    throw r.error(
      "INVALID_FIELD",
      base.offset,
      `Field "base" must name a folder inside the repository ("." or names separated by "/", no ".."), got ${
        JSON.stringify(base.value)
      }`,
    );
  }
  if (version === 1 && root.entries.has("roots")) {
    throw r.error(
      "INVALID_FIELD",
      root.entries.get("roots")!.keyOffset,
      'Field "roots" needs version 2',
    );
  }
  let roots: LockRoot[] | undefined;
  if (root.entries.has("roots")) {
    roots = [];
    for (const item of r.array(root, "roots", "the lockfile")) {
      const o = r.object(item, "a root", ["scope", "path"]);
      roots.push({
        scope: r.string(o, "scope", "a root")!.value,
        path: r.string(o, "path", "a root")!.value,
      });
    }
  }
  const entries: LockEntry[] = [];
  const seen = new Set<string>();
  for (const item of r.array(root, "skills", "the lockfile")) {
    const o = r.object(item, "a skill entry", [
      "name",
      "version",
      "scope",
      "source",
      "origin",
      "uri",
      "digest",
      "frontmatter_digest",
      "files",
      "entries",
      "installed_from",
      "targets",
    ]);
    for (const field of ["entries", "installed_from", "version", "targets"]) {
      if (version === 1 && o.entries.has(field)) {
        throw r.error(
          "INVALID_FIELD",
          o.entries.get(field)!.keyOffset,
          `Field "${field}" needs version 2`,
        );
      }
    }
    const name = r.string(o, "name", "a skill entry")!.value;
    const what = `skill ${JSON.stringify(name)}`;
    const stated = r.string(o, "version", what, true);
    if (stated !== undefined && !isSkillVersion(stated.value)) {
      throw r.error(
        "INVALID_FIELD",
        stated.offset,
        `Field "version" of ${what} must be 1 to ${MAX_VERSION_LENGTH} printable characters without white space at either end`,
      );
    }
    const source = r.string(o, "source", what, true);
    const uri = r.string(o, "uri", what, true);
    let from: Pick<LockEntry, "scope" | "source" | "origin" | "uri" | "installed_from">;
    if (source !== undefined) {
      if (o.entries.has("origin") || o.entries.has("uri")) {
        throw r.error(
          "INVALID_FIELD",
          o.offset,
          `The entry of ${what} has both "source" and "origin"/"uri"`,
        );
      }
      from = {
        scope: r.string(o, "scope", what)!.value,
        source: source.value,
        ...o.entries.has("installed_from") ? { installed_from: installedFromOf(r, o, what) } : {},
      };
      if (o.entries.has("targets") && !o.entries.has("installed_from")) {
        throw r.error(
          "INVALID_FIELD",
          o.entries.get("targets")!.keyOffset,
          `Field "targets" of ${what} needs "installed_from": only skillset add makes targets`,
        );
      }
    } else if (uri !== undefined) {
      const folderField = ["scope", "installed_from", "targets"].find((f) => o.entries.has(f));
      if (folderField !== undefined) {
        throw r.error(
          "INVALID_FIELD",
          o.offset,
          `The entry of ${what} has both "uri" and ${JSON.stringify(folderField)}`,
        );
      }
      from = { origin: r.string(o, "origin", what)!.value, uri: uri.value };
    } else {
      throw r.error("INVALID_FIELD", o.offset, `The entry of ${what} needs "source" or "uri"`);
    }
    const key = lockKey(from);
    if (seen.has(key)) {
      throw r.error(
        "DUPLICATE_ENTRY",
        o.offset,
        `Skill ${key.slice(key.indexOf(" ") + 1)} is locked twice`,
      );
    }
    seen.add(key);
    const { installed_from, ...place } = from;
    entries.push(Object.freeze({
      name,
      ...stated === undefined ? {} : { version: stated.value },
      ...place,
      digest: r.digest(o, "digest", what),
      frontmatter_digest: r.digest(o, "frontmatter_digest", what),
      files: r.files(o, what),
      ...o.entries.has("entries") ? { entries: r.otherEntries(o, what) } : {},
      ...installed_from === undefined ? {} : { installed_from },
      ...o.entries.has("targets") ? { targets: targetsOf(r, o, what) } : {},
    }));
  }
  return createLockfile(entries, roots, base?.value);
}

/** One difference between a lockfile and what is there now. */
export interface LockDifference {
  /**
   * `changed` (its digest or files differ), `removed` (locked, not there),
   * `added` (there, not locked: a failure only when frozen).
   */
  readonly kind: "added" | "removed" | "changed";
  /** The skill's identity ({@linkcode lockKey}). */
  readonly key: string;
  /** The skill's name. */
  readonly name: string;
  /** For `changed`: each file that differs (an empty list means only the digest or frontmatter differ). */
  readonly files: readonly FileChange[];
  /** For `changed`: each other entry (link, pipe, device, unserved file) that differs, by escaped path. */
  readonly entries: readonly { readonly path: string; readonly change: string }[];
  /** For `changed`: whether the frontmatter differs. */
  readonly frontmatter_changed: boolean;
  /** For `changed`: the locked entry's digest does not match its own files (hand-edited). */
  readonly inconsistent: boolean;
}

/** What {@linkcode compareLock} returns. */
export interface LockComparison {
  /** Every difference, in order of key. */
  readonly differences: readonly LockDifference[];
  /** True when nothing differs (when not frozen, skills not locked do not count). */
  readonly ok: boolean;
}

/**
 * Compare a lockfile with the skills there now.
 *
 * @param lock The lockfile.
 * @param current An entry for each skill there now ({@linkcode lockEntry}).
 * @param options `frozen: true` also fails on skills that are not locked.
 * @returns The differences and the verdict.
 * @example
 * ```ts
 * import { compareLock, createLockfile } from "./lockfile.ts";
 * import { assert } from "../_assert.ts";
 *
 * const d = `sha256:${"0".repeat(64)}`;
 * const entry = { name: "pdf", scope: "p", source: "pdf", digest: d, frontmatter_digest: d, files: [] };
 * const result = await compareLock(createLockfile([]), [entry]);
 * assert.deepEqual([result.ok, result.differences[0]?.kind], [true, "added"]);
 * assert.equal((await compareLock(createLockfile([]), [entry], { frozen: true })).ok, false);
 * ```
 */
export async function compareLock(
  lock: Lockfile,
  current: readonly LockEntry[],
  options: { readonly frozen?: boolean } = {},
): Promise<LockComparison> {
  const locked = new Map(lock.skills.map((s) => [lockKey(s), s]));
  const out: LockDifference[] = [];
  let ok = true;
  for (const now of current) {
    const key = lockKey(now);
    const was = locked.get(key);
    locked.delete(key);
    if (was === undefined) {
      if (options.frozen === true) ok = false;
      out.push(difference("added", key, now.name, [], false, false));
      continue;
    }
    const files = diffFiles(was.files, now.files);
    const entries = diffEntries(was.entries ?? [], now.entries ?? []);
    const inconsistent = (await fullSkillDigest(was.files, was.entries ?? [])) !== was.digest;
    const frontmatter = was.frontmatter_digest !== now.frontmatter_digest;
    if (
      files.length > 0 || entries.length > 0 || inconsistent || frontmatter ||
      was.digest !== now.digest || was.name !== now.name
    ) {
      ok = false;
      out.push(difference("changed", key, now.name, files, frontmatter, inconsistent, entries));
    }
  }
  for (const [key, was] of locked) {
    ok = false;
    out.push(difference("removed", key, was.name, [], false, false));
  }
  out.sort((a, b) => compareCodeUnits(a.key, b.key));
  return Object.freeze({ differences: Object.freeze(out), ok });
}

function difference(
  kind: LockDifference["kind"],
  key: string,
  name: string,
  files: readonly FileChange[],
  frontmatter: boolean,
  inconsistent: boolean,
  entries: LockDifference["entries"] = [],
): LockDifference {
  return Object.freeze({
    kind,
    key,
    name,
    files,
    entries,
    frontmatter_changed: frontmatter,
    inconsistent,
  });
}
