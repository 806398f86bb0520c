/**
 * Globs over paths and skill names, written once for profiles (`include`,
 * `exclude`, `pinned`) and a skill's `paths`: gitignore-style, matched by
 * simulating the pattern's automaton one character at a time — linear in
 * the text's length (times the pattern's), never a backtracking regular
 * expression, never a regular expression built from user data.
 *
 * - `*` is any run of characters but `/`; `?` one character but `/`.
 * - `**` between slashes (or at either end) is any number of whole folders:
 *   `a/**\/b` matches `a/b` and `a/x/y/b`; a trailing `/**` everything below.
 * - `\` makes the next character literal.
 * - With {@linkcode compilePathGlob} (gitignore): a pattern without a `/`
 *   (but a trailing one) matches at any depth (`*.tsx` is `**\/*.tsx`); a
 *   leading `/` anchors it at the root; a trailing `/` matches only below
 *   that folder; and a pattern that matches a folder matches everything in
 *   it (`src` matches `src/App.tsx`).
 *
 * | operation | cost |
 * |---|---|
 * | compile | O(pattern) |
 * | `matches(text)` | O(text × pattern) worst case; a literal prefix or suffix the text lacks is refused in O(that literal) |
 *
 * Folder `lib/core/catalog/` — the prompt catalog: budget, modes, usage ranking, requirements, dependencies.
 *
 * @module
 */

/** A compiled glob. */
export interface SkillGlob {
  /** The pattern as given. */
  readonly source: string;
  /** The literal text every matching text starts with (`""` when the pattern starts with a wildcard). */
  readonly head: string;
  /** Whether `text` matches. */
  matches(text: string): boolean;
}

/** The longest glob taken, in UTF-16 units. */
export const MAX_GLOB_LENGTH = 1024;

/** What a pattern can be wrong in: an empty pattern, one over the limit, or one ending in a lone `\`. */
export function globProblem(pattern: string): string | undefined {
  if (typeof pattern !== "string") return "a glob must be a string";
  if (pattern === "" || pattern === "/") return "a glob must not be empty";
  if (pattern.length > MAX_GLOB_LENGTH) {
    return `a glob must be at most ${MAX_GLOB_LENGTH} characters`;
  }
  let i = 0;
  while (i < pattern.length) i += pattern[i] === "\\" ? 2 : 1;
  if (i > pattern.length) return "a glob must not end with a lone backslash";
  return undefined;
}

/** The steps of the automaton. */
const Op = Object.freeze({
  /** One given character. */
  Char: 0,
  /** One character but `/`. */
  One: 1,
  /** Any run of characters but `/` (a loop on itself). */
  Star: 2,
  /** Zero or more whole folders (`**\/`): skip, or any run ending in `/`. */
  Folders: 3,
  /** Anything at all (a trailing `**`). */
  All: 4,
});
type Op = typeof Op[keyof typeof Op];

interface Step {
  readonly op: Op;
  readonly char?: string;
}

/**
 * Compile a glob over skill names and origins (`code-*`, `mcp:docs/**`): no
 * gitignore rules, the whole text must match.
 *
 * @param pattern The glob.
 * @returns Its matcher.
 * @throws {RangeError} For an empty pattern, one over {@linkcode MAX_GLOB_LENGTH}, or a trailing lone `\`.
 * @example
 * ```ts
 * import { compileNameGlob } from "./skill_glob.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(compileNameGlob("code-*").matches("code-review"), true);
 * assert.equal(compileNameGlob("*-experimental").matches("code-review"), false);
 * assert.equal(compileNameGlob("mcp:docs/**").matches("mcp:docs/acme/ledger"), true);
 * ```
 */
export function compileNameGlob(pattern: string): SkillGlob {
  const problem = globProblem(pattern);
  if (problem !== undefined) throw new RangeError(`Glob ${JSON.stringify(pattern)}: ${problem}`);
  const steps = parse(pattern);
  return machine(pattern, steps, "whole");
}

/**
 * Compile a gitignore-style glob over `/`-separated paths relative to the project root.
 *
 * @param pattern The glob.
 * @returns Its matcher (a path is given without a leading `./` or `/`).
 * @throws {RangeError} As {@linkcode compileNameGlob}.
 * @example
 * ```ts
 * import { compilePathGlob } from "./skill_glob.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(compilePathGlob("**\/*.tsx").matches("src/App.tsx"), true);
 * assert.equal(compilePathGlob("*.tsx").matches("src/App.tsx"), true);
 * assert.equal(compilePathGlob("/*.tsx").matches("src/App.tsx"), false);
 * assert.equal(compilePathGlob("docs/").matches("docs/a/b.md"), true);
 * assert.equal(compilePathGlob("src").matches("src/App.tsx"), true);
 * ```
 */
export function compilePathGlob(pattern: string): SkillGlob {
  const problem = globProblem(pattern);
  if (problem !== undefined) throw new RangeError(`Glob ${JSON.stringify(pattern)}: ${problem}`);
  let body = pattern;
  const folderOnly = body.endsWith("/") && !body.endsWith("\\/");
  if (folderOnly) body = body.slice(0, -1);
  const anchored = body.startsWith("/") || hasInnerSlash(body);
  if (body.startsWith("/")) body = body.slice(1);
  if (!anchored) body = `**/${body}`;
  // A folder-only pattern matches what is below it, never a file of that name.
  return machine(pattern, parse(body), folderOnly ? "below" : "prefixes");
}

/** Whether a pattern has a `/` that is not escaped (its trailing one was cut). */
function hasInnerSlash(body: string): boolean {
  for (let i = 0; i < body.length; i++) {
    if (body[i] === "\\") i++;
    else if (body[i] === "/") return true;
  }
  return false;
}

/** The pattern as steps: runs of `*` are one, `**` as a whole segment is folders or all. */
function parse(pattern: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === "\\") {
      steps.push({ op: Op.Char, char: pattern[i + 1]! });
      i += 2;
    } else if (c === "?") {
      steps.push({ op: Op.One });
      i++;
    } else if (c === "*") {
      let j = i;
      while (pattern[j] === "*") j++;
      const segmentStart = i === 0 || pattern[i - 1] === "/";
      const segmentEnd = j === pattern.length || pattern[j] === "/";
      if (j - i >= 2 && segmentStart && segmentEnd) {
        if (j === pattern.length) {
          // `a/**`: everything below a/ — the `/` before it is already a step.
          steps.push({ op: Op.All });
          i = j;
        } else {
          steps.push({ op: Op.Folders });
          i = j + 1; // the `/` is part of the step
        }
      } else {
        if (steps.at(-1)?.op !== Op.Star) steps.push({ op: Op.Star });
        i = j;
      }
    } else {
      steps.push({ op: Op.Char, char: c });
      i++;
    }
  }
  return steps;
}

/**
 * The automaton: state k is "steps before k matched". A `Folders` step owns
 * two states: k (before it) and an inner one (in a run that must end in `/`).
 */
function machine(
  source: string,
  steps: readonly Step[],
  folders: "whole" | "prefixes" | "below",
): SkillGlob {
  // "prefixes": a match of a leading run of folders counts; "below": only such a match.
  const prefixes = folders !== "whole";
  const n = steps.length;
  // Inner states of Folders steps are numbered n + 1 + k.
  const size = 2 * n + 2;
  const accept = n;
  // Literal text every match starts and ends with: a cheap refusal first.
  let head = "";
  for (const s of steps) {
    if (s.op !== Op.Char) break;
    head += s.char;
  }
  let tail = "";
  for (let k = n - 1; k >= 0 && steps[k]!.op === Op.Char; k--) tail = steps[k]!.char + tail;
  const allLiteral = head.length === n;
  const tailFolder = `${tail}/`;
  // A name glob of literal runs and single `*`s, on a text without `/` (where `*` is any run):
  // its runs in order, each found leftmost — exact then, and without the automaton.
  const pieces =
    !prefixes && !allLiteral && steps.every((s) => s.op === Op.Char || s.op === Op.Star)
      ? literalRuns(steps)
      : null;
  let current = new Uint8Array(size);
  let next = new Uint8Array(size);
  /** Add state k and what it reaches without reading (skips are forward only). */
  const close = (set: Uint8Array): void => {
    for (let k = 0; k < n; k++) {
      if (set[k] === 0) continue;
      const op = steps[k]!.op;
      if (op === Op.Star || op === Op.Folders || op === Op.All) set[k + 1] = 1;
    }
  };
  const matches = (text: string): boolean => {
    if (typeof text !== "string") return false;
    if (allLiteral) {
      return (folders !== "below" && text === head) || (prefixes && text.startsWith(head + "/"));
    }
    if (!text.startsWith(head)) return false;
    if (!prefixes && !text.endsWith(tail)) return false;
    if (pieces !== null && text.indexOf("/") < 0) return runsInOrder(pieces, text);
    // A match ends at the end, or (a folder) at a `/`: either way the literal tail is there.
    if (prefixes && tail !== "" && !text.endsWith(tail) && !text.includes(tailFolder)) {
      return false;
    }
    current.fill(0);
    current[0] = 1;
    close(current);
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      // A pattern that matched a folder matches everything in it.
      if (prefixes && c === "/" && current[accept] === 1) return true;
      next.fill(0);
      let any = false;
      for (let k = 0; k < n; k++) {
        const step = steps[k]!;
        if (current[k] === 1) {
          switch (step.op) {
            case Op.Char:
              if (c === step.char) next[k + 1] = 1, any = true;
              break;
            case Op.One:
              if (c !== "/") next[k + 1] = 1, any = true;
              break;
            case Op.Star:
              if (c !== "/") next[k] = 1, any = true;
              break;
            case Op.All:
              next[k] = 1, any = true;
              break;
            case Op.Folders:
              // A run that ends at this `/` (then the rest), or goes on past it.
              if (c === "/") next[k + 1] = 1;
              next[n + 1 + k] = 1;
              any = true;
              break;
          }
        }
        if (step.op === Op.Folders && current[n + 1 + k] === 1) {
          if (c === "/") next[k + 1] = 1;
          next[n + 1 + k] = 1;
          any = true;
        }
      }
      if (!any) return false;
      close(next);
      [current, next] = [next, current];
    }
    return folders !== "below" && current[accept] === 1;
  };
  return Object.freeze({ source, head, matches });
}

/** The literal runs of steps that are only characters and `*`s: before the first `*`, between, after the last. */
function literalRuns(steps: readonly Step[]): string[] {
  const runs: string[] = [];
  let run = "";
  for (const s of steps) {
    if (s.op === Op.Star) {
      runs.push(run);
      run = "";
    } else {
      run += s.char ?? "";
    }
  }
  runs.push(run);
  return runs;
}

/**
 * Whether `text` (without `/`) is the runs with any text between them: the
 * first at the start, the last at the end, the others in order between,
 * each found leftmost (which leaves the most room to the rest).
 */
function runsInOrder(runs: readonly string[], text: string): boolean {
  const first = runs[0]!;
  const last = runs[runs.length - 1]!;
  const end = text.length - last.length;
  if (end < first.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  for (let k = 1; k < runs.length - 1; k++) {
    const run = runs[k]!;
    if (run === "") continue;
    const found = text.indexOf(run, at);
    if (found < 0 || found + run.length > end) return false;
    at = found + run.length;
  }
  return true;
}
