/**
 * A bundle pinned to the manifest it was checked at (approved or locked):
 * only the files of the manifest are listed, and every open of one hashes
 * it (once per version of the opened file) and refuses content that is not
 * the checked content — as SEP-2640 asks a host to verify each read against
 * the digests it approved. A file up to 8 MiB is read once, hashed, and the
 * very bytes hashed are what its reads return; they are kept in a cache
 * shared by all pinned bundles (least recently used out past 64 MiB), which
 * serves a later open only while the opened file's version is the one
 * verified — so a server of pinned skills reads each file from disk once.
 *
 * Folder `lib/core/trust/` — trust as data: digests, manifests, lockfiles, approvals, pins, SSH signatures.
 *
 * @module
 */
import {
  handleFile,
  openResource,
  type ResourceFile,
  type ResourceHandle,
  type SkillBundle,
} from "../resources/bundle.ts";
import { ResourceReadError } from "../errors.ts";
import type { FileDigest } from "./digest.ts";
import { hexDigest } from "./digest.ts";
import {
  HASH_PAGE_BYTES,
  manifestHolding,
  type SkillManifest,
  type SkillManifestOptions,
} from "./manifest.ts";
import { Sha256 } from "./_sha256.ts";

/**
 * Pin a bundle to a manifest of it: its files are the manifest's (a file
 * added since is not there), and opening one verifies its bytes against the
 * manifest's digest before any read (a `ResourceReadError` with code
 * `RESOURCE_CHANGED` when they differ), again whenever the opened file's
 * version changes.
 *
 * @param bundle A plain bundle (a loaded skill folder, a bundle made in code).
 * @param manifest Its manifest, as checked.
 * @returns A frozen copy of the bundle with pinned files.
 * @example
 * ```ts
 * import { pinBundle } from "./pin.ts";
 * import { skillManifest } from "./manifest.ts";
 * import { createBundle } from "../resources/bundle.ts";
 * import { readResource } from "../resources/read.ts";
 * import { assert } from "../_assert.ts";
 *
 * const bundle = createBundle({ frontmatter: { name: "x", description: "x" }, instructions: "", files: { "a.md": "a" } });
 * const pinned = pinBundle(bundle, await skillManifest(bundle));
 * assert.equal(readResource(pinned, "a.md").content, "a");
 * const other = createBundle({ frontmatter: { name: "x", description: "x" }, instructions: "", files: { "a.md": "b" } });
 * const wrong = pinBundle(other, await skillManifest(bundle));
 * assert.throws(() => readResource(wrong, "a.md"), {
 *   name: "ResourceReadError",
 *   message: 'Cannot read "a.md": it is not the content that was approved or locked',
 * });
 * ```
 */
export function pinBundle<B extends SkillBundle>(bundle: B, manifest: SkillManifest): B {
  return pinHeld(bundle, manifest, new Map());
}

/**
 * Hash a bundle and pin it in one pass: the bytes each file was hashed from
 * (up to 8 MiB a file) seed the verified-bytes cache, so the first read of a
 * checked file serves the very bytes the check hashed, without reading the
 * disk again (while the opened file's version is the one hashed).
 *
 * @param bundle A plain bundle.
 * @param options The gate's switches for the manifest's `visible` view.
 * @returns The manifest and the pinned bundle.
 * @throws {ResourceReadError} As {@linkcode skillManifest}.
 * @example
 * ```ts
 * import { hashAndPin } from "./pin.ts";
 * import { createBundle } from "../resources/bundle.ts";
 * import { readResource } from "../resources/read.ts";
 * import { assert } from "../_assert.ts";
 *
 * const bundle = createBundle({ frontmatter: { name: "x", description: "x" }, instructions: "", files: { "a.md": "a" } });
 * const { manifest, pinned } = await hashAndPin(bundle);
 * assert.equal(manifest.files.length, 1);
 * assert.equal(readResource(pinned, "a.md").content, "a");
 * ```
 */
export async function hashAndPin<B extends SkillBundle>(
  bundle: B,
  options: SkillManifestOptions = {},
): Promise<{ readonly manifest: SkillManifest; readonly pinned: B }> {
  const held = new Map<string, { version: string; bytes: Uint8Array }>();
  let budget = VERIFIED_BUDGET_PER_CHECK;
  const manifest = await manifestHolding(bundle, options, (path, handle, bytes) => {
    if (bytes.length > HOLD_BYTES || bytes.length > budget || racy(handle)) return;
    if (handle.version === "") return; // content that cannot change needs no cache
    budget -= bytes.length;
    held.set(path, { version: handle.version, bytes });
  });
  return Object.freeze({ manifest, pinned: pinHeld(bundle, manifest, held) });
}

function pinHeld<B extends SkillBundle>(
  bundle: B,
  manifest: SkillManifest,
  held: ReadonlyMap<string, { version: string; bytes: Uint8Array }>,
): B {
  const files = new Map<string, ResourceFile>();
  for (const entry of manifest.files) {
    const file = bundle.files.get(entry.path);
    if (file !== undefined) files.set(entry.path, pinnedFile(file, entry, held.get(entry.path)));
  }
  return Object.freeze({ ...bundle, files });
}

/** The most bytes one check hands to the cache (the cache's own budget bounds the rest). */
const VERIFIED_BUDGET_PER_CHECK = 16 * 1024 * 1024;

function pinnedFile(
  file: ResourceFile,
  entry: FileDigest,
  held: { version: string; bytes: Uint8Array } | undefined,
): ResourceFile {
  let verified: { version: string; pages: readonly string[] } | null = null;
  const key = {};
  // The bytes the check hashed (to the entry's digest), for the version they were read at.
  if (held !== undefined && held.bytes.length === entry.size) {
    VERIFIED.set(key, held.version, held.bytes);
  }
  const open = (): ResourceHandle => {
    const handle = openResource(file);
    try {
      if (handle.size !== entry.size) throw differs(entry.path);
      const held = VERIFIED.get(key, handle.version);
      if (held !== undefined) return servedFrom(handle, held);
      if (handle.size <= HOLD_BYTES) {
        // Read once, hash, compare, then serve these very bytes (and keep them, by version).
        const bytes = new Uint8Array(handle.size);
        for (let at = 0; at < handle.size;) {
          const page = handle.read(at, Math.min(HASH_PAGE_BYTES, handle.size - at));
          if (page.length === 0) throw differs(entry.path);
          bytes.set(page, at);
          at += page.length;
        }
        const hash = new Sha256();
        hash.update(bytes);
        const now = typeof handle.versionNow === "function" ? handle.versionNow() : handle.version;
        if (hexDigest(hash.digest()) !== entry.digest || now !== handle.version) {
          throw differs(entry.path);
        }
        // Content that cannot change (version "") is held by its bundle already.
        if (!racy(handle) && handle.version !== "") VERIFIED.set(key, handle.version, bytes);
        return servedFrom(handle, bytes);
      }
      if (verified === null || verified.version !== handle.version) {
        // One pass: the whole file's digest, and one digest per page of it.
        const hash = new Sha256();
        const pages: string[] = [];
        for (let at = 0; at < handle.size;) {
          const page = handle.read(at, Math.min(HASH_PAGE_BYTES, handle.size - at));
          if (page.length === 0) throw differs(entry.path);
          hash.update(page);
          for (let p = 0; p < page.length; p += CHECK_PAGE_BYTES) {
            pages.push(sha256Hex(page.subarray(p, p + CHECK_PAGE_BYTES)));
          }
          at += page.length;
        }
        const now = typeof handle.versionNow === "function" ? handle.versionNow() : handle.version;
        if (hexDigest(hash.digest()) !== entry.digest || now !== handle.version) {
          throw differs(entry.path);
        }
        // Git's "racy clean" rule: a file modified within the clock's granularity of this
        // check could be rewritten with the same size and timestamps, so it is hashed again.
        verified = racy(handle) ? null : { version: handle.version, pages };
        return checkedPages(handle, pages, entry.path);
      }
      return checkedPages(handle, verified.pages, entry.path);
    } catch (e) {
      handle.close();
      throw e;
    }
  };
  return handleFile(file.path, entry.size, file.real_path, open);
}

/** A handle whose reads are served from verified bytes; it keeps the opened file for its version. */
function servedFrom(handle: ResourceHandle, bytes: Uint8Array): ResourceHandle {
  return Object.freeze({
    size: handle.size,
    version: handle.version,
    ...(handle.real_path === undefined ? {} : { real_path: handle.real_path }),
    ...(handle.mtime_ms === undefined ? {} : { mtime_ms: handle.mtime_ms }),
    read: (position: number, length: number): Uint8Array =>
      bytes.subarray(Math.min(position, bytes.length), Math.min(position + length, bytes.length)),
    ...(typeof handle.versionNow === "function" ? { versionNow: () => handle.versionNow!() } : {}),
    close: () => handle.close(),
  });
}

/**
 * A handle over a file too large to hold, whose reads go to the disk: each
 * page a read touches is read whole and hashed against the digest that page
 * had in the pass that matched the entry, so the bytes served are bytes that
 * were checked even when the file is rewritten after the open (in place, in
 * the same clock tick).
 */
function checkedPages(
  handle: ResourceHandle,
  pages: readonly string[],
  path: string,
): ResourceHandle {
  return Object.freeze({
    size: handle.size,
    version: handle.version,
    ...(handle.real_path === undefined ? {} : { real_path: handle.real_path }),
    ...(handle.mtime_ms === undefined ? {} : { mtime_ms: handle.mtime_ms }),
    read: (position: number, length: number): Uint8Array => {
      const start = Math.min(Math.max(0, position), handle.size);
      const end = Math.min(start + Math.max(0, length), handle.size);
      if (end <= start) return new Uint8Array(0);
      const first = Math.floor(start / CHECK_PAGE_BYTES);
      const last = Math.floor((end - 1) / CHECK_PAGE_BYTES);
      const from = first * CHECK_PAGE_BYTES;
      const to = Math.min((last + 1) * CHECK_PAGE_BYTES, handle.size);
      const bytes = new Uint8Array(to - from);
      for (let at = 0; at < bytes.length;) {
        const page = handle.read(from + at, bytes.length - at);
        if (page.length === 0) throw differs(path);
        bytes.set(page, at);
        at += page.length;
      }
      for (let p = first; p <= last; p++) {
        const off = (p - first) * CHECK_PAGE_BYTES;
        if (sha256Hex(bytes.subarray(off, off + CHECK_PAGE_BYTES)) !== pages[p]) {
          throw differs(path);
        }
      }
      return bytes.subarray(start - from, end - from);
    },
    ...(typeof handle.versionNow === "function" ? { versionNow: () => handle.versionNow!() } : {}),
    close: () => handle.close(),
  });
}

/** The page a large file's reads are checked by (its digest taken in the verifying pass). */
const CHECK_PAGE_BYTES = 256 * 1024;

function sha256Hex(bytes: Uint8Array): string {
  const hash = new Sha256();
  hash.update(bytes);
  return hexDigest(hash.digest());
}

/** Files up to this size are held whole once verified: the bytes served are the bytes hashed. */
const HOLD_BYTES = 8 * 1024 * 1024;

/** The default budget of the verified-bytes cache: 64 MiB. */
export const VERIFIED_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Verified bytes of pinned files, least recently used first out, at most a
 * budget of bytes in all; an entry serves only the version of the opened file
 * it was verified at (every open still opens and checks the file, and a new
 * version is hashed again).
 */
class VerifiedCache {
  #budget = VERIFIED_CACHE_BYTES;
  #bytes = 0;
  readonly #entries = new Map<object, { version: string; bytes: Uint8Array }>();

  get(key: object, version: string): Uint8Array | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.version !== version) {
      this.#bytes -= entry.bytes.length;
      return undefined;
    }
    this.#entries.set(key, entry);
    return entry.bytes;
  }

  set(key: object, version: string, bytes: Uint8Array): void {
    const old = this.#entries.get(key);
    if (old !== undefined) {
      this.#entries.delete(key);
      this.#bytes -= old.bytes.length;
    }
    if (bytes.length > this.#budget) return;
    this.#entries.set(key, { version, bytes });
    this.#bytes += bytes.length;
    this.#evict();
  }

  budget(bytes: number): void {
    this.#budget = bytes;
    this.#evict();
  }

  get size(): number {
    return this.#bytes;
  }

  #evict(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.#budget) break;
      this.#entries.delete(key);
      this.#bytes -= entry.bytes.length;
    }
  }
}

const VERIFIED = new VerifiedCache();

/**
 * Set the budget of the verified-bytes cache shared by every pinned bundle
 * (default {@linkcode VERIFIED_CACHE_BYTES}); 0 keeps nothing.
 *
 * @param bytes The most bytes held.
 * @returns The bytes held now.
 * @throws {RangeError} When `bytes` is not a whole number >= 0.
 * @example
 * ```ts
 * import { setVerifiedCacheBytes, VERIFIED_CACHE_BYTES } from "./pin.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(setVerifiedCacheBytes(0), 0);
 * setVerifiedCacheBytes(VERIFIED_CACHE_BYTES);
 * ```
 */
export function setVerifiedCacheBytes(bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new RangeError(`The cache budget must be a whole number >= 0, got ${String(bytes)}`);
  }
  VERIFIED.budget(bytes);
  return VERIFIED.size;
}

function differs(path: string): ResourceReadError {
  return new ResourceReadError(
    "RESOURCE_CHANGED",
    path,
    "it is not the content that was approved or locked",
  );
}

/** How close to a check a modification time must be for the check not to be cached. */
const RACY_MS = 2000;

function racy(handle: ResourceHandle): boolean {
  return handle.mtime_ms !== undefined && Date.now() - handle.mtime_ms < RACY_MS;
}
