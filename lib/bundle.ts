/**
 * A skill bundle: an Agent Skill's parsed SKILL.md and its files, as data.
 * Everything pure (activation, reads, the skill tool) works on bundles, so a
 * Deno user importing `mod.ts` by URL needs no file system; the file-system
 * loader builds the same shape lazily.
 *
 * @module
 */
import type { AgentSkillFrontmatter } from "./agent_skill.ts";
import { validateAgentSkillFrontmatter } from "./agent_skill.ts";
import { OrderedMap } from "./ordered_map.ts";
import { normalizeResourcePath } from "./resource_path.ts";

/** One file of a skill. */
export interface ResourceFile {
  /** The normalised path inside the skill folder. */
  readonly path: string;
  /** Its size in bytes. */
  readonly size: number;
  /**
   * For a symbolic link: the normalised real path inside the skill's real
   * root, used to classify it too. Absent for ordinary files.
   */
  readonly real_path?: string;
  /** True for a link whose real path leaves the skill root: never listed, never read. */
  readonly outside_root?: boolean;
  /**
   * Read up to `length` bytes starting at byte `position`; fewer at the end of
   * the file, none past it. Only this reads content.
   */
  read(position: number, length: number): Uint8Array;
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
}

/**
 * Build an in-memory bundle.
 *
 * @param input The frontmatter, the instructions and the files.
 * @returns A frozen bundle whose files are copies of the input bytes.
 * @throws {AgentSkillError} When the frontmatter breaks the Agent Skills rules.
 * @throws {InvalidResourcePathError} When a file path is invalid.
 * @throws {TypeError} When two paths normalise to the same one.
 * @example
 * ```ts
 * import { createBundle } from "./bundle.ts";
 * import { assert } from "./_assert.ts";
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
  return Object.freeze({
    name: frontmatter.name,
    frontmatter,
    instructions: input.instructions,
    files: files.freeze(),
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
  return Object.freeze({
    path,
    size: bytes.length,
    read: (position: number, length: number) =>
      bytes.subarray(Math.min(position, bytes.length), Math.min(position + length, bytes.length)),
  });
}

function isMap<V>(
  value: ReadonlyMap<string, V> | Readonly<Record<string, V>>,
): value is ReadonlyMap<string, V> {
  return typeof (value as ReadonlyMap<string, V>).entries === "function" &&
    typeof (value as ReadonlyMap<string, V>).get === "function";
}
