/**
 * A skill bundle: an Agent Skill's parsed SKILL.md and its files, as data.
 * Everything pure (activation, reads, the skill tool) works on bundles, so a
 * Deno user importing `mod.ts` by URL needs no file system; the file-system
 * loader builds the same shape lazily.
 *
 * Folder `lib/core/resources/` — a skill's bundled files: paths and classes, the gate, bundles, reads.
 *
 * @module
 */
import type { AgentSkillFrontmatter } from "../activation/agent_skill.ts";
import { validateAgentSkillFrontmatter } from "../activation/agent_skill.ts";
import { OrderedMap } from "../resolver/ordered_map.ts";
import { normalizeResourcePath, type ResourceClassMap, resourceClassMap } from "./resource_path.ts";

/**
 * One opened file, as it is at the moment of opening: every read of a page
 * goes through one handle, so what the gate decided on (its real path and
 * class) is what is read.
 */
export interface ResourceHandle {
  /** Bytes of the file when it was opened. */
  readonly size: number;
  /**
   * Changes whenever the content may have changed (on disk: size, change
   * time, modification time and inode of the opened file); cached indexes
   * are kept per version.
   */
  readonly version: string;
  /**
   * The normalised real path inside the skill's real root when it differs
   * from the requested path (the file was reached through a link), found
   * after opening: the gate classifies by it too.
   */
  readonly real_path?: string;
  /**
   * When the content was last modified, in milliseconds since the epoch (on
   * disk: the opened file's modification time). A check cached by `version`
   * is not kept for a file modified within a few seconds of the check: a
   * same-size rewrite in the same clock tick leaves `version` unchanged
   * (Deno reports whole milliseconds, change times in whole seconds). Absent
   * for content that cannot change.
   */
  readonly mtime_ms?: number;
  /**
   * Read up to `length` bytes from byte `position`; fewer at the end, none
   * past it.
   */
  read(position: number, length: number): Uint8Array;
  /**
   * The handle's version now (on disk: from an `fstat` of the opened file),
   * to tell whether the content moved after `version` was taken. Absent for
   * content that cannot change.
   */
  versionNow?(): string;
  /** Release the handle; reading after this is an error. */
  close(): void;
}

/** One file of a skill. */
export interface ResourceFile {
  /** The normalised path inside the skill folder. */
  readonly path: string;
  /** Its size in bytes when it was listed (a read reports the size found when it opens the file). */
  readonly size: number;
  /**
   * For a symbolic link: the normalised real path inside the skill's real
   * root when it was listed, used to classify it in the manifest. Absent
   * for ordinary files.
   */
  readonly real_path?: string;
  /** True for a link whose real path left the skill root when listed: never listed, never read. */
  readonly outside_root?: boolean;
  /**
   * Read up to `length` bytes starting at byte `position`; fewer at the end of
   * the file, none past it. On disk each call opens and checks the file like
   * {@linkcode ResourceFile.open}.
   */
  read(position: number, length: number): Uint8Array;
  /**
   * Open the file once for a sequence of reads. On disk this opens without
   * following a final link (unless a link was listed) and without blocking,
   * accepts only a regular file, resolves the real path after the open,
   * checks that it stays inside the skill folder and names the same file
   * (device + inode) as the handle. Files without `open` are read through
   * `read` (see {@linkcode openResource}).
   *
   * @throws {ResourceReadError} When the file is gone, not a regular file,
   *   outside the folder, swapped while opening, or unreadable.
   */
  open?(): ResourceHandle;
}

/**
 * Open a file of a bundle: its own `open` when it has one, otherwise a
 * handle over its `read` (a file given as data cannot change).
 *
 * @param file A file of a bundle.
 * @returns A handle; close it after use.
 * @throws {ResourceReadError} As {@linkcode ResourceFile.open}.
 * @example
 * ```ts
 * import { memoryFile, openResource } from "./bundle.ts";
 * import { assert } from "../_assert.ts";
 *
 * const handle = openResource(memoryFile("a.txt", new Uint8Array([1, 2, 3])));
 * try {
 *   assert.deepEqual([...handle.read(1, 5)], [2, 3]);
 * } finally {
 *   handle.close();
 * }
 * ```
 */
export function openResource(file: ResourceFile): ResourceHandle {
  if (typeof file.open === "function") return file.open();
  return Object.freeze({
    size: file.size,
    version: "",
    ...(file.real_path === undefined ? {} : { real_path: file.real_path }),
    read: (position: number, length: number) => file.read(position, length),
    close: () => {},
  });
}

/** An Agent Skill: its SKILL.md and its files. */
export interface SkillBundle {
  /** The skill's name (the frontmatter `name`). */
  readonly name: string;
  /** The validated SKILL.md frontmatter. */
  readonly frontmatter: AgentSkillFrontmatter;
  /** The SKILL.md body after the frontmatter. */
  readonly instructions: string;
  /** Every file by normalised path, SKILL.md included. */
  readonly files: ReadonlyMap<string, ResourceFile>;
  /** Where it was loaded from, when it came from disk. */
  readonly location?: string;
  /**
   * Extra top-level folders the host maps to a standard class (see
   * `resourceClassMap`): listing, reading and serving classify with it, from
   * the requested and from the real path. Absent: only the three standard folders.
   */
  readonly resource_classes?: ResourceClassMap;
}

/** The input of {@linkcode createBundle}. */
export interface BundleInput {
  /** Parsed SKILL.md frontmatter; validated against the Agent Skills rules. */
  readonly frontmatter: unknown;
  /** The SKILL.md body. */
  readonly instructions: string;
  /** Files by path (normalised here): bytes, or text stored as UTF-8. */
  readonly files?:
    | ReadonlyMap<string, Uint8Array | string>
    | Readonly<Record<string, Uint8Array | string>>;
  /** The folder name the frontmatter `name` must equal, when there is one. */
  readonly folder?: string;
  /** Extra top-level folders mapped to a standard class (checked by `resourceClassMap`). */
  readonly resource_classes?:
    | ReadonlyMap<string, string>
    | Iterable<readonly [string, string]>
    | Readonly<Record<string, string>>;
}

/**
 * Build an in-memory bundle.
 *
 * @param input The frontmatter, the instructions and the files.
 * @returns A frozen bundle whose files are copies of the input bytes.
 * @throws {AgentSkillError} When the frontmatter breaks the Agent Skills rules.
 * @throws {InvalidResourcePathError} When a file path is invalid.
 * @throws {TypeError} When two paths normalise to the same one.
 * @throws {RangeError} When `resource_classes` maps a name that is not one
 *   plain folder name, or a standard folder, or to another class than the three.
 * @example
 * ```ts
 * import { createBundle } from "./bundle.ts";
 * import { assert } from "../_assert.ts";
 *
 * const bundle = createBundle({
 *   frontmatter: { name: "pdf", description: "Fill PDF forms" },
 *   instructions: "Use references/forms.md.",
 *   files: { "references/forms.md": "# Forms\n", "./assets/logo.png": new Uint8Array([137, 80]) },
 * });
 * assert.deepEqual([...bundle.files.keys()], ["references/forms.md", "assets/logo.png"]);
 * ```
 */
export function createBundle(input: BundleInput): SkillBundle {
  const frontmatter = validateAgentSkillFrontmatter(input.frontmatter, input.folder);
  const files = OrderedMap.builder<string, ResourceFile>();
  const pairs = input.files === undefined
    ? []
    : isMap(input.files)
    ? input.files.entries()
    : Object.entries(input.files);
  const encoder = new TextEncoder();
  for (const [raw, content] of pairs) {
    const path = normalizeResourcePath(raw);
    if (files.has(path)) {
      throw new TypeError(`Two files normalise to the same path ${JSON.stringify(path)}`);
    }
    const bytes = typeof content === "string" ? encoder.encode(content) : content.slice();
    files.set(path, memoryFile(path, bytes));
  }
  const classes = input.resource_classes === undefined
    ? undefined
    : resourceClassMap(input.resource_classes);
  return Object.freeze({
    name: frontmatter.name,
    frontmatter,
    instructions: input.instructions,
    files: files.freeze(),
    ...(classes === undefined || classes.size === 0 ? {} : { resource_classes: classes }),
  });
}

/**
 * A file read through handles: each `read` opens one, reads, and closes it.
 *
 * @param path The normalised path.
 * @param size The size listed.
 * @param realPath The real path listed, if any.
 * @param open Opens a verified handle.
 * @returns The file.
 */
export function handleFile(
  path: string,
  size: number,
  realPath: string | undefined,
  open: () => ResourceHandle,
): ResourceFile {
  return Object.freeze({
    path,
    size,
    ...(realPath === undefined ? {} : { real_path: realPath }),
    open,
    read(position: number, length: number): Uint8Array {
      const handle = open();
      try {
        return handle.read(position, length);
      } finally {
        handle.close();
      }
    },
  });
}

/**
 * A file held in memory.
 *
 * @param path The normalised path.
 * @param bytes The content (not copied).
 * @returns A file reading from `bytes`.
 */
export function memoryFile(path: string, bytes: Uint8Array): ResourceFile {
  const read = (position: number, length: number): Uint8Array =>
    bytes.subarray(Math.min(position, bytes.length), Math.min(position + length, bytes.length));
  const handle: ResourceHandle = Object.freeze({
    size: bytes.length,
    version: "",
    read,
    close: () => {},
  });
  return Object.freeze({ path, size: bytes.length, read, open: () => handle });
}

function isMap<V>(
  value: ReadonlyMap<string, V> | Readonly<Record<string, V>>,
): value is ReadonlyMap<string, V> {
  return typeof (value as ReadonlyMap<string, V>).entries === "function" &&
    typeof (value as ReadonlyMap<string, V>).get === "function";
}
