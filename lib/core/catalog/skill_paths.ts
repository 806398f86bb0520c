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
import { compilePathGlob, globProblem } from "./skill_glob.ts";

/** The most globs a skill's `paths` may hold. */
export const MAX_SKILL_PATHS = 256;

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
    return { problem: `"paths" must hold at most ${MAX_SKILL_PATHS} globs` };
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
          for (const p of this.#paths) {
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
