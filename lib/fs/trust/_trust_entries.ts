/**
 * Every entry of a skill folder for the lockfile (split from `trust.ts`):
 * one walk of the folder's real path, names read as bytes, each entry
 * `lstat`ed without following a link. The entries the loader serves are
 * the bundle's files (hashed by the manifest); every other one — a link
 * that is not served, a named pipe, a socket, a device, a regular file
 * whose name the loader passes over — is returned by kind and escaped name,
 * a regular file with its size and digest, a link with the digest of its
 * target's text. Folders are walked, not listed.
 *
 * Folder `lib/fs/trust/` — trust on disk: lock, verify, approve, and the trust files.
 *
 * @module
 */
import {
  closeSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  type Stats,
} from "node:fs";
import { Buffer } from "node:buffer";
import type { SkillBundle } from "../../core/resources/bundle.ts";
import {
  type EntryKind,
  escapeName,
  type OtherEntry,
  sortEntries,
} from "../../core/trust/entries.ts";
import { hexDigest } from "../../core/trust/digest.ts";
import { HASH_PAGE_BYTES } from "../../core/trust/manifest.ts";
import { normalizeResourcePath } from "../../core/resources/resource_path.ts";
import { Sha256 } from "../../core/trust/_sha256.ts";
import { O_NOFOLLOW, READ_FLAGS, realpath } from "../_safe_open.ts";

const STRICT = new TextDecoder("utf-8", { fatal: true });
const SLASH = Buffer.from("/");

/**
 * The entries of a loaded skill's folder that its bundle does not serve.
 *
 * @param bundle The skill as loaded (its `location` is walked).
 * @returns The entries, sorted by escaped path.
 */
export function otherEntries(
  bundle: SkillBundle & { readonly location: string },
): readonly OtherEntry[] {
  const root = Buffer.from(realpath(bundle.location));
  const out: OtherEntry[] = [];
  const stack: { dir: Buffer; rel: Buffer | null }[] = [{ dir: root, rel: null }];
  while (stack.length > 0) {
    const { dir, rel } = stack.pop()!;
    let names: Buffer[];
    try {
      names = readdirSync(dir, { encoding: "buffer" });
    } catch {
      if (rel !== null) out.push({ path: escapeName(rel), kind: "unreadable" });
      continue;
    }
    for (const name of names) {
      const path = rel === null ? name : Buffer.concat([rel, SLASH, name]);
      const full = Buffer.concat([dir, SLASH, name]);
      let stat: Stats;
      try {
        stat = lstatSync(full);
      } catch {
        out.push({ path: escapeName(path), kind: "unreadable" });
        continue;
      }
      if (stat.isDirectory()) {
        stack.push({ dir: full, rel: path });
        continue;
      }
      if (served(bundle, path)) continue;
      const escaped = escapeName(path);
      if (stat.isFile()) out.push(hashed(full, escaped));
      else if (stat.isSymbolicLink()) {
        let target: Buffer;
        try {
          target = readlinkSync(full, { encoding: "buffer" });
        } catch {
          out.push({ path: escaped, kind: "unreadable" });
          continue;
        }
        const hash = new Sha256();
        hash.update(target);
        out.push({ path: escaped, kind: "link", digest: hexDigest(hash.digest()) });
      } else out.push({ path: escaped, kind: kindOf(stat) });
    }
  }
  return sortEntries(out);
}

/** Whether the bundle serves the file at these path bytes (a regular file or a link kept inside). */
function served(bundle: SkillBundle, path: Buffer): boolean {
  let text: string;
  try {
    text = STRICT.decode(path);
  } catch {
    return false;
  }
  let file = bundle.files.get(text);
  if (file === undefined) {
    try {
      file = bundle.files.get(normalizeResourcePath(text));
    } catch {
      return false;
    }
  }
  return file !== undefined && file.outside_root !== true;
}

/** A regular file no reader serves: opened without following a link or blocking, hashed. */
function hashed(full: Buffer, path: string): OtherEntry {
  let fd: number;
  try {
    fd = openSync(full, READ_FLAGS | O_NOFOLLOW);
  } catch {
    return { path, kind: "unreadable" };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { path, kind: kindOf(stat) };
    const hash = new Sha256();
    const page = new Uint8Array(Math.min(HASH_PAGE_BYTES, Math.max(stat.size, 1)));
    let size = 0;
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, page, 0, page.length, null);
      } catch {
        return { path, kind: "unreadable" };
      }
      if (n === 0) break;
      hash.update(page.subarray(0, n));
      size += n;
    }
    return { path, kind: "file", size, digest: hexDigest(hash.digest()) };
  } finally {
    closeSync(fd);
  }
}

function kindOf(stat: Stats): EntryKind {
  if (stat.isFIFO()) return "fifo";
  if (stat.isSocket()) return "socket";
  if (stat.isCharacterDevice()) return "char-device";
  if (stat.isBlockDevice()) return "block-device";
  if (stat.isDirectory()) return "folder";
  if (stat.isSymbolicLink()) return "link";
  if (stat.isFile()) return "file";
  return "unreadable";
}
