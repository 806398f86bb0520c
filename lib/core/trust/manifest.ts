/**
 * A skill's manifest: every file as a SEP-2640 entry `{ path, size, digest }`
 * in code-unit order, the skill digest over them, and the frontmatter's
 * digest, computed through the same opened handles as reads.
 *
 * Folder `lib/core/trust/` — trust as data: digests, manifests, lockfiles, approvals, pins, SSH signatures.
 *
 * @module
 */
import {
  openResource,
  type ResourceFile,
  type ResourceHandle,
  type SkillBundle,
} from "../resources/bundle.ts";
import { ResourceReadError } from "../errors.ts";
import { mayAccess, type SafetyFlags } from "../resources/gate.ts";
import { effectiveClass } from "../resources/resource_path.ts";
import {
  compareCodeUnits,
  type FileDigest,
  frontmatterDigest,
  hexDigest,
  sha256Digest,
  skillDigest,
} from "./digest.ts";
import { Sha256 } from "./_sha256.ts";

/** A list of files and the skill digest over it. */
export interface ManifestView {
  /** The files, in code-unit order of path. */
  readonly files: readonly FileDigest[];
  /** The skill digest over `files` (see {@linkcode skillDigest}). */
  readonly digest: string;
}

/** What {@linkcode skillManifest} returns. */
export interface SkillManifest extends ManifestView {
  /** The skill's name. */
  readonly name: string;
  /** The digest of the frontmatter (see {@linkcode frontmatterDigest}). */
  readonly frontmatter_digest: string;
  /**
   * The files the gate lets a model see under the given switches (what
   * `serveSkills` publishes under the same switches), and their digest.
   */
  readonly visible: ManifestView;
}

/** Options of {@linkcode skillManifest}: the gate's switches for the `visible` view. */
export interface SkillManifestOptions extends SafetyFlags {
  /** How many files are hashed at once (reads stay in order); default 4. */
  readonly concurrency?: number;
}

/** Bytes read per call from a handle. */
export const HASH_PAGE_BYTES = 8 * 1024 * 1024;

/**
 * Files up to this size are read whole and hashed by `crypto.subtle` (which
 * takes one buffer, off the main thread where the runtime can); larger ones
 * are hashed page by page in constant memory.
 */
export const HASH_WHOLE_BYTES = 64 * 1024 * 1024;

let wholeBytes = HASH_WHOLE_BYTES;

/**
 * For this module's tests: hash files larger than `bytes` page by page.
 *
 * @param bytes The size above which a file is streamed.
 * @returns A function that restores the default.
 * @example
 * ```ts
 * import { _setHashWholeBytes, hashResource } from "./manifest.ts";
 * import { memoryFile } from "../resources/bundle.ts";
 * import { assert } from "../_assert.ts";
 *
 * const file = memoryFile("a", new TextEncoder().encode("abc"));
 * const whole = await hashResource(file);
 * const restore = _setHashWholeBytes(1);
 * try {
 *   assert.deepEqual(await hashResource(file), whole);
 * } finally {
 *   restore();
 * }
 * ```
 */
export function _setHashWholeBytes(bytes: number): () => void {
  wholeBytes = bytes;
  return () => {
    wholeBytes = HASH_WHOLE_BYTES;
  };
}

/**
 * Hash one file through one opened handle, reading it in pages of
 * {@linkcode HASH_PAGE_BYTES}: on disk the open is the verified one reads
 * use (a regular file inside the skill, same device and inode). A file
 * that is shorter or longer than when it was opened, or whose handle's
 * version moved while it was read, is `RESOURCE_CHANGED`.
 *
 * @param file A file of a bundle.
 * @returns Its entry.
 * @throws {ResourceReadError} When it cannot be opened, or it changed while it was hashed.
 * @example
 * ```ts
 * import { hashResource } from "./manifest.ts";
 * import { memoryFile } from "../resources/bundle.ts";
 * import { assert } from "../_assert.ts";
 *
 * const entry = await hashResource(memoryFile("a.txt", new TextEncoder().encode("abc")));
 * assert.deepEqual(entry, {
 *   path: "a.txt",
 *   size: 3,
 *   digest: "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
 * });
 * ```
 */
export async function hashResource(file: ResourceFile): Promise<FileDigest> {
  const { size, digest } = readAndHash(file);
  return Object.freeze({ path: file.path, size, digest: await digest });
}

/**
 * Every byte of a file through one handle: its size, the class its real
 * path gives, and its digest (pending while `crypto.subtle` works).
 */
function readAndHash(
  file: ResourceFile,
  hold?: HoldBytes,
): { size: number; realPath: string | undefined; digest: Promise<string> } {
  const handle = openResource(file);
  try {
    const size = handle.size;
    let digest: Promise<string>;
    let held: Uint8Array | undefined;
    if (size <= wholeBytes) {
      let bytes: Uint8Array;
      if (size <= HASH_PAGE_BYTES) {
        bytes = handle.read(0, size);
        if (bytes.length !== size) throw changedWhileHashed(file.path);
      } else {
        bytes = new Uint8Array(size);
        for (let filled = 0; filled < size;) {
          const page = handle.read(filled, Math.min(HASH_PAGE_BYTES, size - filled));
          if (page.length === 0) throw changedWhileHashed(file.path);
          bytes.set(page, filled);
          filled += page.length;
        }
      }
      digest = sha256Digest(bytes);
      held = bytes;
    } else {
      const hash = new Sha256();
      for (let filled = 0; filled < size;) {
        const page = handle.read(filled, Math.min(HASH_PAGE_BYTES, size - filled));
        if (page.length === 0) throw changedWhileHashed(file.path);
        hash.update(page);
        filled += page.length;
      }
      digest = Promise.resolve(hexDigest(hash.digest()));
    }
    if (handle.read(size, 1).length !== 0) throw changedWhileHashed(file.path);
    if (typeof handle.versionNow === "function" && handle.versionNow() !== handle.version) {
      throw changedWhileHashed(file.path);
    }
    if (hold !== undefined && held !== undefined) hold(file.path, handle, held);
    return { size, realPath: handle.real_path ?? file.real_path, digest };
  } finally {
    handle.close();
  }
}

function changedWhileHashed(path: string): ResourceReadError {
  return new ResourceReadError("RESOURCE_CHANGED", path, "it changed while it was being hashed");
}

/**
 * The manifest of a loaded skill: every file (`files`, the full view, the
 * links that lead out of the skill left out: they are never read) and the
 * files the gate lets a model see under `options` (`visible`, each classed
 * by the stricter of its requested and real paths, as reads are), each as
 * `{ path, size, digest: "sha256:<hex>" }` in code-unit order (classed with
 * the bundle's `resource_classes` mapping, as reads are); the skill
 * digest of each view; the frontmatter's digest. Every file is opened once
 * and read through that handle in pages; a file that changes while it is
 * hashed is `RESOURCE_CHANGED`, never a silently wrong digest.
 *
 * @param skill A bundle (on disk: a loaded skill folder).
 * @param options The gate's switches for `visible` (both default true: closed).
 * @returns The frozen manifest.
 * @throws {ResourceReadError} When a file cannot be opened or changed while it was hashed.
 * @example
 * ```ts
 * import { skillManifest } from "./manifest.ts";
 * import { createBundle } from "../resources/bundle.ts";
 * import { assert } from "../_assert.ts";
 *
 * const skill = createBundle({
 *   frontmatter: { name: "pdf", description: "PDF" },
 *   instructions: "",
 *   files: { "SKILL.md": "---\nname: pdf\ndescription: PDF\n---\n", "drafts/a.md": "a" },
 * });
 * const closed = await skillManifest(skill);
 * assert.deepEqual(closed.files.map((f) => f.path), ["SKILL.md", "drafts/a.md"]);
 * assert.deepEqual(closed.visible.files.map((f) => f.path), ["SKILL.md"]);
 * const open = await skillManifest(skill, { global_safety: false, skill_safety: false });
 * assert.equal(open.visible.digest, closed.digest);
 * ```
 */
export function skillManifest(
  skill: SkillBundle,
  options: SkillManifestOptions = {},
): Promise<SkillManifest> {
  return manifestHolding(skill, options);
}

/**
 * Told each file's bytes as hashed, with the handle they were read through
 * (for `pin.ts`: the bytes a check hashed are the bytes its reads serve).
 *
 * @internal
 */
export type HoldBytes = (path: string, handle: ResourceHandle, bytes: Uint8Array) => void;

/**
 * {@linkcode skillManifest}, telling `hold` the bytes of each file read whole.
 *
 * @param skill A bundle.
 * @param options The gate's switches.
 * @param hold Told each file's bytes.
 * @returns The manifest.
 * @internal
 */
export async function manifestHolding(
  skill: SkillBundle,
  options: SkillManifestOptions = {},
  hold?: HoldBytes,
): Promise<SkillManifest> {
  const concurrency = options.concurrency ?? 4;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a whole number >= 1, got ${String(concurrency)}`);
  }
  const paths = [...skill.files.keys()].sort(compareCodeUnits);
  const files: FileDigest[] = [];
  const visible: FileDigest[] = [];
  const pending: Promise<void>[] = [];
  for (const path of paths) {
    const file = skill.files.get(path)!;
    if (file.outside_root === true) continue;
    // Read in order, on this thread; hash up to `concurrency` files at once.
    const { size, realPath, digest } = readAndHash(file, hold);
    const shown = mayAccess(effectiveClass(path, realPath, skill.resource_classes), options);
    const slot = files.length;
    files.push(undefined as unknown as FileDigest);
    const at = shown ? visible.length : -1;
    if (shown) visible.push(undefined as unknown as FileDigest);
    pending.push(digest.then((hex) => {
      const entry = Object.freeze({ path, size, digest: hex });
      files[slot] = entry;
      if (at >= 0) visible[at] = entry;
    }));
    if (pending.length >= concurrency) await pending.shift();
  }
  await Promise.all(pending);
  return manifestOf(skill.name, skill.frontmatter, files, visible);
}

/**
 * A manifest from file entries already known (a SEP-2640 listing's
 * `resources`, a lockfile's entries): nothing is read.
 *
 * @param name The skill's name.
 * @param frontmatter Its frontmatter as JSON data.
 * @param files Its files (any order); `visible` is the same list.
 * @returns The frozen manifest.
 * @throws {TypeError} When a digest is not `sha256:<hex>` or a path is listed twice.
 * @example
 * ```ts
 * import { manifestFromEntries } from "./manifest.ts";
 * import { assert } from "../_assert.ts";
 *
 * const d = `sha256:${"0".repeat(64)}`;
 * const m = await manifestFromEntries("pdf", { name: "pdf" }, [{ path: "SKILL.md", size: 1, digest: d }]);
 * assert.equal(m.visible.digest, m.digest);
 * ```
 */
export function manifestFromEntries(
  name: string,
  frontmatter: unknown,
  files: readonly FileDigest[],
): Promise<SkillManifest> {
  const sorted = files.map((f) => Object.freeze({ path: f.path, size: f.size, digest: f.digest }))
    .sort((a, b) => compareCodeUnits(a.path, b.path));
  return manifestOf(name, frontmatter, sorted, sorted);
}

async function manifestOf(
  name: string,
  frontmatter: unknown,
  files: FileDigest[],
  visible: FileDigest[],
): Promise<SkillManifest> {
  const [digest, shownDigest, fmDigest] = await Promise.all([
    skillDigest(files),
    visible.length === files.length ? null : skillDigest(visible),
    frontmatterDigest(frontmatter),
  ]);
  const frozenFiles = Object.freeze(files);
  return Object.freeze({
    name,
    files: frozenFiles,
    digest,
    frontmatter_digest: fmDigest,
    visible: Object.freeze({
      files: visible.length === files.length ? frozenFiles : Object.freeze(visible),
      digest: shownDigest ?? digest,
    }),
  });
}
