/**
 * A bundle pinned to the manifest it was checked at (approved or locked):
 * only the files of the manifest are listed, and every open of one hashes
 * it (once per version of the opened file) and refuses content that is not
 * the checked content — as SEP-2640 asks a host to verify each read against
 * the digests it approved.
 *
 * @module
 */
import {
  handleFile,
  openResource,
  type ResourceFile,
  type ResourceHandle,
  type SkillBundle,
} from "../bundle.ts";
import { ResourceReadError } from "../errors.ts";
import type { FileDigest } from "./digest.ts";
import { hexDigest } from "./digest.ts";
import { HASH_PAGE_BYTES, type SkillManifest } from "./manifest.ts";
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
 * import { createBundle } from "../bundle.ts";
 * import { readResource } from "../read.ts";
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
  const files = new Map<string, ResourceFile>();
  for (const entry of manifest.files) {
    const file = bundle.files.get(entry.path);
    if (file !== undefined) files.set(entry.path, pinnedFile(file, entry));
  }
  return Object.freeze({ ...bundle, files });
}

function pinnedFile(file: ResourceFile, entry: FileDigest): ResourceFile {
  let verified: string | null = null;
  const open = (): ResourceHandle => {
    const handle = openResource(file);
    try {
      if (handle.size !== entry.size) throw differs(entry.path);
      if (verified === null || verified !== handle.version) {
        const hash = new Sha256();
        for (let at = 0; at < handle.size;) {
          const page = handle.read(at, Math.min(HASH_PAGE_BYTES, handle.size - at));
          if (page.length === 0) throw differs(entry.path);
          hash.update(page);
          at += page.length;
        }
        const now = typeof handle.versionNow === "function" ? handle.versionNow() : handle.version;
        if (hexDigest(hash.digest()) !== entry.digest || now !== handle.version) {
          throw differs(entry.path);
        }
        // Git's "racy clean" rule: a file modified within the clock's granularity of this
        // check could be rewritten with the same size and timestamps, so it is hashed again.
        verified = racy(handle) ? null : handle.version;
      }
      return handle;
    } catch (e) {
      handle.close();
      throw e;
    }
  };
  return handleFile(file.path, entry.size, file.real_path, open);
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
