/**
 * Path-conditional skills: a SKILL.md's `paths` (a list of gitignore-style
 * globs relative to the project root, as Claude Code, Cursor, Qwen Code and
 * Grok CLI read it) keeps the skill out of the listing until the host says a
 * matching file is in play. The skill is still activated by explicit name.
 * {@linkcode HostPaths} holds the host's paths and answers each glob once,
 * so a catalog of many skills sharing globs costs one match per glob.
 *
 * | operation | cost |
 * |---|---|
 * | `new HostPaths(paths)` | O(paths) |
 * | `matches(globs)` | O(globs) for globs seen before; else O(paths × path length) per new glob, most refused by their literal tail |
 *
 * Folder `lib/core/catalog/` — the prompt catalog: budget, modes, usage ranking, requirements, dependencies.
 *
 * @module
 */
import { quoteShort } from "../_text.ts";
import { SkillsetError } from "../errors.ts";
import { compilePathGlob, globProblem } from "./skill_glob.ts";

/** The most globs a skill's `paths` may hold. */
export const MAX_SKILL_PATHS = 256;
/** The most paths one `skill_search` call may pass (its `paths` argument). */
export const MAX_SEARCH_PATHS = 100;
/** The longest path a `skill_search` call may pass, in UTF-16 units. */
export const MAX_SEARCH_PATH_LENGTH = 1024;

/** Why paths a caller passed cannot be used. */
export type SkillPathsCode = "INVALID_PATHS" | "TOO_MANY_PATHS" | "PATH_TOO_LONG";

/**
 * Paths passed by a caller that cannot be used (a `skill_search` call's
 * `paths`): not a list of strings, too many, or one too long.
 *
 * @example
 * ```ts
 * import { readSearchPaths, SkillPathsError } from "./skill_paths.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.deepEqual(readSearchPaths(["src/App.tsx"]), ["src/App.tsx"]);
 * assert.throws(() => readSearchPaths("src/App.tsx"), {
 *   name: "SkillPathsError",
 *   message: 'Invalid input: "paths" must be a list of paths (strings)',
 * });
 * ```
 */
export class SkillPathsError extends SkillsetError {
  /** Always `"SkillPathsError"`. */
  override readonly name = "SkillPathsError";
  /** Which condition failed. */
  readonly code: SkillPathsCode;

  /**
   * Describe paths that cannot be used.
   *
   * @param code Which condition failed.
   * @param message What is wrong (capitalised, no final period).
   */
  constructor(code: SkillPathsCode, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * The paths a caller passes to `skill_search` (the host's or the model's
 * files in play), checked before any is matched: a list of at most
 * {@linkcode MAX_SEARCH_PATHS} strings of at most
 * {@linkcode MAX_SEARCH_PATH_LENGTH} characters each, so one call costs at
 * most that many characters per glob matched.
 *
 * @param value The `paths` argument as received.
 * @returns The paths, frozen.
 * @throws {SkillPathsError} `INVALID_PATHS`, `TOO_MANY_PATHS` or `PATH_TOO_LONG`.
 */
export function readSearchPaths(value: unknown): readonly string[] {
  if (!Array.isArray(value)) {
    throw new SkillPathsError(
      "INVALID_PATHS",
      'Invalid input: "paths" must be a list of paths (strings)',
    );
  }
  if (value.length > MAX_SEARCH_PATHS) {
    throw new SkillPathsError(
      "TOO_MANY_PATHS",
      `Invalid input: "paths" must hold at most ${MAX_SEARCH_PATHS} paths, got ${value.length}`,
    );
  }
  const out: string[] = [];
  for (let i = 0; i < value.length; i++) {
    const p: unknown = value[i];
    if (typeof p !== "string") {
      throw new SkillPathsError(
        "INVALID_PATHS",
        'Invalid input: "paths" must be a list of paths (strings)',
      );
    }
    if (p.length > MAX_SEARCH_PATH_LENGTH) {
      throw new SkillPathsError(
        "PATH_TOO_LONG",
        `Invalid input: "paths"[${i}] is longer than ${MAX_SEARCH_PATH_LENGTH} characters`,
      );
    }
    out.push(p);
  }
  return Object.freeze(out);
}

/**
 * A skill's `paths` frontmatter, checked: a list of globs (a single string is one glob).
 *
 * @param value The frontmatter's `paths` value (`undefined` when absent).
 * @returns The globs, `undefined` when absent, or the problem as a string.
 * @example
 * ```ts
 * import { readSkillPaths } from "./skill_paths.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.deepEqual(readSkillPaths(["**\/*.tsx"]), { globs: ["**\/*.tsx"] });
 * assert.deepEqual(readSkillPaths(undefined), { globs: undefined });
 * assert.deepEqual(readSkillPaths([3]), { problem: '"paths" must be a list of globs (strings)' });
 * ```
 */
export function readSkillPaths(
  value: unknown,
): { readonly globs: readonly string[] | undefined } | { readonly problem: string } {
  if (value === undefined || value === null) return { globs: undefined };
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.some((g) => typeof g !== "string")) {
    return { problem: '"paths" must be a list of globs (strings)' };
  }
  if (list.length > MAX_SKILL_PATHS) {
    return { problem: `Invalid input: "paths" must hold at most ${MAX_SKILL_PATHS} globs` };
  }
  for (const g of list as string[]) {
    const problem = globProblem(g);
    if (problem !== undefined) return { problem: `"paths": ${quoteShort(g)}: ${problem}` };
  }
  return { globs: Object.freeze([...(list as string[])]) };
}

/**
 * The paths a host says are in play (open files, files the task touches),
 * relative to the project root with `/` separators; each glob is matched
 * against them once.
 *
 * @example
 * ```ts
 * import { HostPaths } from "./skill_paths.ts";
 * import { assert } from "../_assert.ts";
 *
 * const host = new HostPaths(["src/App.tsx", "./README.md"]);
 * assert.equal(host.matches(["**\/*.tsx"]), true);
 * assert.equal(host.matches(["docs/**"]), false);
 * assert.equal(host.matches(["README.md"]), true);
 * ```
 */
export class HostPaths {
  readonly #paths: readonly string[];
  readonly #answers = new Map<string, boolean>();
  /** The paths in code-unit order, sorted when a glob is first matched: those sharing a glob's literal head are one run. */
  #sorted: readonly string[] | undefined;

  /**
   * Take the host's paths (a leading `./` or `/` is dropped, `\` read as `/`).
   *
   * @param paths The paths.
   */
  constructor(paths: Iterable<string>) {
    const out: string[] = [];
    for (const p of paths) {
      if (typeof p !== "string") throw new TypeError("Each host path must be a string");
      let path = p.replaceAll("\\", "/");
      while (path.startsWith("./")) path = path.slice(2);
      while (path.startsWith("/")) path = path.slice(1);
      if (path !== "") out.push(path);
    }
    this.#paths = out;
  }

  /** How many paths the host gave. */
  get size(): number {
    return this.#paths.length;
  }

  /**
   * Whether any of the globs matches any of the host's paths (a glob that
   * cannot be compiled matches nothing).
   *
   * @param globs A skill's `paths`.
   * @returns True when one matches.
   */
  matches(globs: readonly string[]): boolean {
    for (const g of globs) {
      let answer = this.#answers.get(g);
      if (answer === undefined) {
        answer = false;
        if (globProblem(g) === undefined) {
          const glob = compilePathGlob(g);
          // Only the paths that start with the glob's literal head can match: one sorted run.
          const sorted = this.#sorted ??= [...this.#paths].sort();
          const head = glob.head;
          for (let i = firstAtLeast(sorted, head); i < sorted.length; i++) {
            const p = sorted[i]!;
            if (!p.startsWith(head)) break;
            if (glob.matches(p)) {
              answer = true;
              break;
            }
          }
        }
        this.#answers.set(g, answer);
      }
      if (answer) return true;
    }
    return false;
  }
}

/** The index of the first of `sorted` (in code-unit order) that is not below `key`: a binary search. */
function firstAtLeast(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
