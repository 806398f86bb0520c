/**
 * The import rule of `lib/` (STYLE.md › Layout): one folder per audience, each
 * importing only its own folder or a lower one, and each package owned by one
 * audience. Shared by `tests/layout_test.ts` and the one-off script that grouped
 * `lib/` by audience.
 *
 * @module
 */

/** The audiences, lowest first: the folders of `lib/`. */
export const AUDIENCES = ["core", "fs", "mcp", "testing", "ai", "langchain", "cli"] as const;

/** One audience: a folder `lib/<audience>/`. */
export type Audience = typeof AUDIENCES[number];

/** The public entry point of each audience (a thin table of contents), by path from the root. */
export const ENTRIES: ReadonlyMap<string, Audience> = new Map<string, Audience>([
  ["mod.ts", "core"],
  ["lib/load.ts", "fs"],
  ["lib/mcp.ts", "mcp"],
  ["lib/testing.ts", "testing"],
  ["lib/ai.ts", "ai"],
  ["lib/langchain.ts", "langchain"],
  ["lib/cli.ts", "cli"],
]);

/**
 * The audiences each audience may import from, its own included: core imports
 * only core; the file system adds `fs`; MCP serves folders from disk; the test
 * suites need only the core; a framework adapter (`ai`, `langchain`) wraps the core's tools
 * in that framework's; the CLI uses all but the test suites and the adapters.
 */
export const MAY_IMPORT: ReadonlyMap<Audience, readonly Audience[]> = new Map<
  Audience,
  readonly Audience[]
>([
  ["core", ["core"]],
  ["fs", ["core", "fs"]],
  ["mcp", ["core", "fs", "mcp"]],
  ["testing", ["core", "testing"]],
  ["ai", ["core", "ai"]],
  ["langchain", ["core", "langchain"]],
  ["cli", ["core", "fs", "mcp", "cli"]],
]);

/**
 * The audience whose graph each package belongs to: only that audience and the
 * ones above it (by {@link MAY_IMPORT}) import it. `node:` modules belong to
 * every audience but the core.
 */
export const PACKAGE_OWNERS: ReadonlyMap<string, Audience> = new Map<string, Audience>([
  ["yaml", "fs"],
  ["@modelcontextprotocol/server", "mcp"],
  ["@modelcontextprotocol/client", "mcp"],
  ["fast-check", "testing"],
  ["gpt-tokenizer", "cli"],
  ["ai", "ai"],
  ["@langchain/core", "langchain"],
]);

/**
 * The source with its comments blanked and the insides of its strings,
 * template literals and regular expressions blanked too (each character but a
 * line break becomes a space; quotes and slashes stay), so that what is left
 * is code, at the same offsets.
 *
 * @param source TypeScript source.
 * @returns The code, as long as the source.
 */
export function codeOnly(source: string): string {
  let out = "";
  let i = 0;
  // The last significant character of code: decides whether `/` starts a regex.
  let last = "";
  const blank = (text: string): string => text.replace(/[^\n]/g, " ");
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      const stop = end === -1 ? source.length : end;
      out += blank(source.slice(i, stop));
      i = stop;
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end === -1 ? source.length : end + 2;
      out += blank(source.slice(i, stop));
      i = stop;
    } else if (c === '"' || c === "'" || c === "`") {
      const stop = endOfQuoted(source, i, c);
      out += c + blank(source.slice(i + 1, stop - 1)) + (stop - i > 1 ? source[stop - 1] : "");
      i = stop;
      last = c;
    } else if (c === "/" && (last === "" || "(,=:[!&|?{};+-*%<>~^".includes(last))) {
      const stop = endOfRegex(source, i);
      out += c + blank(source.slice(i + 1, stop - 1)) + (stop - i > 1 ? source[stop - 1] : "");
      i = stop;
      last = "/";
    } else {
      out += c;
      if (!/\s/.test(c)) last = c;
      i++;
    }
  }
  return out;
}

function endOfQuoted(source: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < source.length) {
    const c = source[i]!;
    if (c === "\\") i += 2;
    else if (c === quote) return i + 1;
    else if (c === "\n" && quote !== "`") return i;
    else i++;
  }
  return source.length;
}

function endOfRegex(source: string, start: number): number {
  let i = start + 1;
  let inClass = false;
  while (i < source.length) {
    const c = source[i]!;
    if (c === "\\") i += 2;
    else if (c === "\n") return i;
    else if (c === "[") (inClass = true), i++;
    else if (c === "]") (inClass = false), i++;
    else if (c === "/" && !inClass) return i + 1;
    else i++;
  }
  return source.length;
}

// Matched on `codeOnly(source)`, where a string is its quotes around spaces.
const STATIC_IMPORT = /^[ \t]*(?:(?:import|export)\b[^;'"`]*?\bfrom|import)\s*(["'])( *)\1/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*(["'])( *)\1\s*\)/g;

/**
 * The module specifiers a TypeScript module imports or re-exports — static,
 * type-only and dynamic `import("…")` with a literal — in order of appearance;
 * none from comments (so none from JSDoc examples).
 *
 * @param source TypeScript source.
 * @returns The specifiers, as written.
 */
export function importSpecifiers(source: string): string[] {
  const code = codeOnly(source);
  const found: { at: number; specifier: string }[] = [];
  for (const pattern of [STATIC_IMPORT, DYNAMIC_IMPORT]) {
    for (const m of code.matchAll(pattern)) {
      // The specifier's offset: the blanked string is the last quote-spaces-quote of the match.
      const end = m.index + m[0].lastIndexOf(m[1]!);
      const start = end - m[2]!.length;
      found.push({ at: start, specifier: source.slice(start, end) });
    }
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.specifier);
}

/**
 * The audience of a module of this repository, by its path from the root:
 * an entry's audience, or the folder under `lib/`; `undefined` for any other
 * path (a module directly in `lib/` that is not an entry, or outside `lib/`).
 *
 * @param path A path from the repository root, `/`-separated.
 * @returns The audience, if the path has one.
 */
export function audienceOf(path: string): Audience | undefined {
  const entry = ENTRIES.get(path);
  if (entry !== undefined) return entry;
  const folder = /^lib\/([^/]+)\//.exec(path)?.[1];
  return (AUDIENCES as readonly string[]).includes(folder ?? "") ? folder as Audience : undefined;
}

/** `a/b/../c/./d` → `a/c/d` (no leading `..` left: such a path is outside the root). */
export function joinPath(dir: string, relative: string): string {
  const parts = dir === "" ? [] : dir.split("/");
  for (const part of relative.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  return parts.join("/");
}

/** The package of a bare specifier: `@scope/name` or `name`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/**
 * What breaks the rule in one module's imports.
 *
 * @param path The module's path from the root.
 * @param source Its text.
 * @param exists Whether a path from the root is a file.
 * @returns One message per broken import, empty when the module keeps the rule.
 */
export function importProblems(
  path: string,
  source: string,
  exists: (path: string) => boolean,
): string[] {
  const audience = audienceOf(path);
  if (audience === undefined) return [`${path} is not in an audience folder (${AUDIENCES})`];
  const allowed = MAY_IMPORT.get(audience)!;
  const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
  const problems: string[] = [];
  for (const specifier of importSpecifiers(source)) {
    const say = (why: string) =>
      problems.push(`${path} (${audience}) imports "${specifier}": ${why}`);
    if (specifier.startsWith("./") || specifier.startsWith("../")) {
      const target = joinPath(dir, specifier);
      const theirs = audienceOf(target);
      if (!exists(target)) say(`no file ${target}`);
      else if (theirs === undefined) say(`${target} is not in an audience folder`);
      else if (!allowed.includes(theirs)) say(`${theirs} is not one of ${allowed.join(", ")}`);
    } else if (specifier.startsWith("node:")) {
      if (audience === "core") say("the core uses web standards only");
    } else if (/^[a-z]+:/.test(specifier)) {
      say("a URL; the code imports relative paths and packages only");
    } else {
      const owner = PACKAGE_OWNERS.get(packageOf(specifier));
      if (owner === undefined) say("a package that no audience owns (add it to PACKAGE_OWNERS)");
      else if (!allowed.includes(owner)) say(`a package of ${owner}`);
    }
  }
  return problems;
}

/**
 * The import cycles of a module graph: each strongly connected group of more
 * than one module (or a module importing itself), as a path that starts and
 * ends at the same module, following imports. Iterative (Tarjan's algorithm
 * with an explicit stack), so a long chain cannot overflow the call stack.
 *
 * @param graph Each module's imports (modules missing from the keys import nothing).
 * @returns One cycle per group, each a path `[a, b, …, a]` from the group's first module
 *   (in code-unit order), sorted.
 */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const next = (node: string) => graph.get(node) ?? [];
  for (const start of [...graph.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, index.size);
    low.set(start, index.get(start)!);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const edges = next(top.node);
      if (top.edge < edges.length) {
        const to = edges[top.edge++]!;
        if (!index.has(to)) {
          index.set(to, index.size);
          low.set(to, index.get(to)!);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) {
        low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          group.push(member);
        } while (member !== top.node);
        if (group.length > 1 || next(top.node).includes(top.node)) groups.push(group);
      }
    }
  }
  return groups.map((group) => cycleThrough(group, next)).sort((a, b) =>
    a.join(" ") < b.join(" ") ? -1 : 1
  );
}

/** A path through one strongly connected group, from its first module (sorted) back to it. */
function cycleThrough(group: string[], next: (node: string) => readonly string[]): string[] {
  const members = new Set(group);
  const start = [...group].sort()[0]!;
  // Breadth-first from start's successors inside the group, back to start: the shortest cycle.
  const from = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const to of next(node)) {
      if (!members.has(to) || (to === node && group.length > 1)) continue;
      if (to === start) {
        const path = [start];
        for (let at = node; at !== start; at = from.get(at)!) path.push(at);
        return [start, ...path.slice(1).reverse(), start];
      }
      if (!from.has(to)) {
        from.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/** The most lines a `lib/` file may have unless its module header says why it reads better whole. */
export const MAX_FILE_LINES = 600;

/** The words a module header uses to say why a file over {@link MAX_FILE_LINES} lines stays whole. */
export const WHOLE_FILE_MARKER = "One file:";

/**
 * Whether a long module keeps the size rule: at most {@link MAX_FILE_LINES}
 * lines, or a first doc comment holding {@link WHOLE_FILE_MARKER} and a reason.
 *
 * @param source The module's text.
 * @returns `undefined` when it keeps the rule, else what is wrong.
 */
export function sizeProblem(source: string): string | undefined {
  const lines = source.split("\n").length - (source.endsWith("\n") ? 1 : 0);
  if (lines <= MAX_FILE_LINES) return undefined;
  const header = /^\s*\/\*\*([\s\S]*?)\*\//.exec(source)?.[1] ?? "";
  const why = header.slice(header.indexOf(WHOLE_FILE_MARKER) + WHOLE_FILE_MARKER.length);
  if (header.includes(WHOLE_FILE_MARKER) && /\w{3}/.test(why.split("\n")[0] ?? "")) {
    return undefined;
  }
  return `${lines} lines, over ${MAX_FILE_LINES}, and its header does not say "${WHOLE_FILE_MARKER} <why>"`;
}

/** The most `.ts` files a folder of `lib/` may hold directly (STYLE.md › Folders by feature). */
export const MAX_FOLDER_FILES = 16;

/**
 * What a module's header says of its folder: the line `Folder \`lib/…/\` — <purpose>`
 * of its first doc comment.
 *
 * @param source The module's text.
 * @returns The folder named and its purpose, or `undefined` when the header has no such line.
 */
export function folderLine(source: string): { folder: string; purpose: string } | undefined {
  const header = /^\s*\/\*\*([\s\S]*?)\*\//.exec(source)?.[1] ?? "";
  const m = /^ \* Folder `(lib\/[\w/]+)\/` — (.+?)\.?$/m.exec(header);
  return m === null ? undefined : { folder: m[1]!, purpose: m[2]! };
}

/**
 * Whether the tests mirror `lib/`: each test file in a folder below `tests/`
 * (fixtures aside) stands where `lib/` has the same folder.
 *
 * @param testFiles Test files, as paths from the root (`tests/core/trust/x_test.ts`).
 * @param libFolders The folders of `lib/`, as paths from the root (`lib/core/trust`).
 * @returns One message per test file in a folder that `lib/` does not have.
 */
export function mirrorProblems(
  testFiles: readonly string[],
  libFolders: ReadonlySet<string>,
): string[] {
  return testFiles.flatMap((path) => {
    const dir = path.slice(0, path.lastIndexOf("/"));
    if (dir === "tests") return [];
    const mirrored = "lib" + dir.slice("tests".length);
    return libFolders.has(mirrored) ? [] : [`${path}: no folder ${mirrored} for it to mirror`];
  });
}
