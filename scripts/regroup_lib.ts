/**
 * One move: groups `lib/` by audience (STYLE.md › Layout) on a clean tree.
 *
 *     node --import tsx scripts/regroup_lib.ts
 *
 * 1. Reads the import graph of `mod.ts` and `lib/*.ts` and gives each module
 *    the lowest audience whose entry reaches it (core < fs < mcp < testing <
 *    cli); a module no entry's code reaches (`_assert.ts`, used by examples)
 *    goes with the lowest module that names it. Stops, changing nothing, when
 *    the result breaks the import rule of `scripts/_layout.ts`.
 * 2. `git mv`s each module to `lib/<audience>/`, dropping the audience from its
 *    name (`_mcp_serve.ts` → `mcp/_serve.ts`). The entry points stay; one that
 *    holds code (`lib/cli.ts`) moves to `lib/<audience>/main.ts` and is
 *    rewritten as a table of contents of the same exports.
 * 3. Rewrites every relative specifier that reached a moved file — imports,
 *    re-exports, dynamic imports, `new URL(…, import.meta.url)`, in code and in
 *    JSDoc examples — and every `lib/<name>.ts` path in any tracked text file.
 * 4. Adds `tests/layout_test.ts` (the rule, kept), a README line on the
 *    layout, removes itself, runs `deno fmt` and stages everything.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, posix, resolve } from "node:path";
import process from "node:process";
import {
  type Audience,
  AUDIENCES,
  ENTRIES,
  importProblems,
  importSpecifiers,
  joinPath,
} from "./_layout.ts";

const ROOT = resolve(import.meta.dirname ?? ".", "..");
const SELF = ["scripts/regroup_lib.ts", "scripts/_layout.ts", "scripts/layout_test.ts"];

function git(...args: string[]): string {
  return execFileSync("git", args, { cwd: ROOT, encoding: "utf8" });
}

function fail(message: string): never {
  process.stderr.write(`regroup_lib: ${message}\n`);
  process.exit(1);
}

function read(path: string): string {
  return readFileSync(join(ROOT, path), "utf8");
}

function write(path: string, text: string): void {
  writeFileSync(join(ROOT, path), text);
}

const dirOf = (path: string): string => path.includes("/") ? posix.dirname(path) : "";

/** `from` → `to` as a specifier: `./x.ts`, `../core/x.ts`. */
function specifier(fromDir: string, to: string): string {
  const relative = posix.relative(fromDir === "" ? "." : fromDir, to);
  return relative.startsWith("../") || relative === ".." ? relative : `./${relative}`;
}

// ---- 0. A clean tree, not grouped yet ----

if (git("status", "--porcelain") !== "") fail("the work tree is not clean (commit or stash first)");
const tracked = git("ls-files", "-z").split("\0").filter((f) => f !== "");
const libModules = tracked.filter((f) => /^lib\/[^/]+\.ts$/.test(f)).sort();
const nested = tracked.filter((f) => /^lib\/[^/]+\//.test(f));
if (nested.length > 0) fail(`lib/ already has folders (${nested[0]}, …): nothing to do`);

// ---- 1. The graph and each module's audience ----

const modules = ["mod.ts", ...libModules];
const isModule = (path: string): boolean => modules.includes(path);
const imports = new Map<string, string[]>();
for (const path of modules) {
  imports.set(
    path,
    importSpecifiers(read(path))
      .filter((s) => s.startsWith("./") || s.startsWith("../"))
      .map((s) => joinPath(dirOf(path), s))
      .filter(isModule),
  );
}

const audience = new Map<string, Audience>();
for (const level of AUDIENCES) {
  const entry = [...ENTRIES].find(([, a]) => a === level)![0];
  const stack = [entry];
  while (stack.length > 0) {
    const path = stack.pop()!;
    if (audience.has(path) && path !== entry) continue;
    if (!audience.has(path)) audience.set(path, level);
    for (const next of imports.get(path) ?? []) if (!audience.has(next)) stack.push(next);
  }
}
for (const [entry, level] of ENTRIES) audience.set(entry, level);

// Modules no entry's code reaches: with the lowest module whose text names them.
for (const path of modules.filter((p) => !audience.has(p))) {
  const name = posix.basename(path);
  const namers = modules.filter((m) => audience.has(m) && read(m).includes(name));
  const level = AUDIENCES.find((a) => namers.some((m) => audience.get(m) === a));
  if (level === undefined) {
    fail(`no entry reaches ${path} and no module names it: place it by hand`);
  }
  audience.set(path, level);
}

// ---- 2. New paths ----

/** `_mcp_serve` in mcp → `_serve`; `_cli_args` in cli → `_args`; `_mcp_cli` in cli → `_mcp`. */
function newName(base: string, level: Audience): string {
  const underscore = base.startsWith("_") ? "_" : "";
  let stem = base.slice(underscore.length, -".ts".length);
  if (stem.startsWith(`${level}_`)) stem = stem.slice(level.length + 1);
  else if (stem.endsWith(`_${level}`)) stem = stem.slice(0, -(level.length + 1));
  return `${underscore}${stem}.ts`;
}

/** Where each moved module goes (entries with code included: their code moves). */
const moves = new Map<string, string>();
/** What a specifier that reached an old path must reach now: the entries stay. */
const targets = new Map<string, string>();
/** Whether an entry holds only comments and `import`/`export … from` lines. */
const isToc = (source: string): boolean =>
  withoutImportsAndComments(source.replace(/^#!.*\n/, "")).trim() === "";

function withoutImportsAndComments(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "")
    .replace(/^(?:import|export)\b[^;'"`]*?\bfrom\s*(["'])[^"'\n]+\1\s*;/gm, "");
}

for (const path of libModules) {
  const level = audience.get(path)!;
  if (ENTRIES.has(path)) {
    if (isToc(read(path))) continue;
    moves.set(path, `lib/${level}/main.ts`);
    continue;
  }
  const to = `lib/${level}/${newName(posix.basename(path), level)}`;
  moves.set(path, to);
  targets.set(path, to);
}
const clash = [...moves.values()].find((to, i, all) => all.indexOf(to) !== i);
if (clash !== undefined) fail(`two modules would move to ${clash}`);

// ---- Rewriting ----

/** A specifier written in a file once at `oldDir`, for the file now at `newDir`; unchanged when it reached nothing that moved. */
function rewriteOne(spec: string, oldDir: string, newDir: string): string {
  const old = joinPath(oldDir, spec);
  const exists = old === "" || tracked.includes(old) ||
    tracked.some((f) => f.startsWith(`${old}/`));
  if (!exists) return spec;
  const target = targets.get(old) ?? old;
  if (target === old && oldDir === newDir) return spec;
  const trailing = spec.endsWith("/") ? "/" : "";
  const rewritten = specifier(newDir, target) + trailing;
  return joinPath(newDir, rewritten) === joinPath(newDir, spec) ? spec : rewritten;
}

const SPECIFIER_CONTEXTS = [
  /(\bfrom\s*)(["'])(\.\.?\/[^"'\n]*)\2/g,
  /(\bimport\s*\(?\s*)(["'])(\.\.?\/[^"'\n]*)\2/g,
  /(\bnew URL\(\s*)(["'])(\.\.?(?:\/[^"'\n]*)?)\2(?=\s*,\s*import\.meta\.url)/g,
];

/** Every relative specifier of a module (code and JSDoc examples) for its new place. */
function rewriteSpecifiers(source: string, oldDir: string, newDir: string): string {
  let text = source;
  for (const context of SPECIFIER_CONTEXTS) {
    text = text.replace(
      context,
      (_, lead: string, quote: string, spec: string) =>
        `${lead}${quote}${rewriteOne(spec, oldDir, newDir)}${quote}`,
    );
  }
  return text;
}

/** `lib/x.ts` (also as `.js`/`.d.ts` under `dist/`) and `"lib", "x.ts"` wherever they name a moved module. */
function rewritePaths(text: string): string {
  return text
    .replace(
      /(?<![\w.@-])lib\/([\w-]+)\.(d\.ts|ts|js)\b/g,
      (whole, stem: string, ext: string) => {
        const to = targets.get(`lib/${stem}.ts`);
        return to === undefined ? whole : `${to.slice(0, -".ts".length)}.${ext}`;
      },
    )
    .replace(/(["'])lib\1(\s*,\s*)(["'])([\w-]+\.ts)\3/g, (whole, q, comma, q2, name: string) => {
      const to = targets.get(`lib/${name}`);
      if (to === undefined) return whole;
      const parts = to.split("/").slice(1);
      return `${q}lib${q}${comma}${parts.map((p) => `${q2}${p}${q2}`).join(", ")}`;
    });
}

// The rule, checked on the planned tree before anything changes.
const planned = new Set([...modules.map((m) => targets.get(m) ?? m), ...moves.values()]);
const problems: string[] = [];
for (const path of modules) {
  const to = moves.get(path) ?? path;
  const source = rewriteSpecifiers(read(path), dirOf(path), dirOf(to));
  problems.push(...importProblems(to, source, (p) => planned.has(p)));
}
if (problems.length > 0) fail(`the grouping breaks the import rule:\n  ${problems.join("\n  ")}`);

// ---- 3. Move ----

const modes = new Map([...moves.keys()].map((p) => [p, statSync(join(ROOT, p)).mode & 0o777]));
for (const [from, to] of moves) {
  mkdirSync(join(ROOT, dirname(to)), { recursive: true });
  git("mv", from, to);
}

const TEXT = /\.(ts|mts|mjs|js|json|jsonc|md|sh|yaml|yml)$|^\.ci\//;
const newPathOf = (path: string): string => moves.get(path) ?? path;
for (const old of tracked) {
  if (SELF.includes(old) || old === "package-lock.json" || !TEXT.test(old)) continue;
  const path = newPathOf(old);
  if (!existsSync(join(ROOT, path)) || !statSync(join(ROOT, path)).isFile()) continue;
  const source = read(path);
  let text = source;
  if (/\.(ts|mts|mjs|js|md)$/.test(path)) text = rewriteSpecifiers(text, dirOf(old), dirOf(path));
  text = rewritePaths(text);
  if (text !== source) write(path, text);
}

// ---- Entries that held code: a table of contents of the same exports ----

for (const [entry, to] of moves) {
  if (!ENTRIES.has(entry)) continue;
  let code = read(to);
  const doc = /^(?:#!.*\n)?(\/\*\*[\s\S]*?\*\/)\n/.exec(code)?.[1];
  if (doc === undefined) fail(`${entry} has no module doc block to keep`);
  const shebang = code.startsWith("#!") ? code.slice(0, code.indexOf("\n") + 1) : "";
  code = code.slice(shebang.length);
  const lines: string[] = [];
  const runner = "runIfMain";
  if (code.includes("import.meta.url")) {
    // The code runs itself when it is the program: it must now ask about the entry's URL.
    const isMain = "function isMain(): boolean {";
    const check = "realpathSync(fileURLToPath(import.meta.url))";
    const start = code.indexOf("\nif (isMain()) {\n");
    if (!code.includes(isMain) || !code.includes(check) || start === -1 || !code.endsWith("}\n")) {
      fail(`${entry}: the "run when it is the program" block changed; move it by hand`);
    }
    const body = code.slice(start + "\nif (isMain()) {\n".length, code.length - "}\n".length);
    code = code.slice(0, start) + `
/**
 * Run the CLI on this process's arguments if \`entry\` is the program being run
 * (the \`import.meta.url\` of \`${entry}\`, or of the bundle built from it).
 *
 * @param entry The URL of the module that calls this.
 * @returns Whether it ran (and then the exit code goes to \`process.exitCode\`).
 * @throws Never.
 * @example Imported, not run
 * \`\`\`ts
 * import { assert } from "${specifier(dirOf(to), targets.get("lib/_assert.ts")!)}";
 * import { ${runner} } from "./${posix.basename(to)}";
 *
 * assert.equal(${runner}("file:///not/the/program.ts"), false);
 * \`\`\`
 */
export function ${runner}(entry: string): boolean {
  if (!isMain(entry)) return false;
${body}  return true;
}
`;
    code = code.replace(isMain, "function isMain(entry: string): boolean {")
      .replace(check, "realpathSync(fileURLToPath(entry))");
    lines.push(`import { ${runner} } from "./${posix.relative(dirOf(entry), to)}";`, "");
  }
  write(to, code);
  const values: string[] = [];
  const types: string[] = [];
  for (const m of code.matchAll(/^export\s+(?:declare\s+)?(?:async\s+)?(\w+)\s+(\w+)/gm)) {
    const [, kind, name] = m as unknown as [string, string, string];
    if (name === runner) continue;
    (kind === "interface" || kind === "type" ? types : values).push(name);
  }
  if (/^export\s+(?:type\s*)?(?:\{|\*|default)/m.test(code)) {
    fail(`${to}: export lists are not handled`);
  }
  const sorted = (names: string[]) =>
    names.sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
  const from = `./${posix.relative(dirOf(entry), to)}`;
  if (values.length > 0) lines.push(`export { ${sorted(values).join(", ")} } from "${from}";`);
  if (types.length > 0) lines.push(`export type { ${sorted(types).join(", ")} } from "${from}";`);
  if (lines[0]?.startsWith("import")) lines.push("", `${runner}(import.meta.url);`);
  write(entry, `${shebang}${doc}\n${lines.join("\n")}\n`);
  // The entry keeps its mode (executable, for the shebang); the moved code is not a program.
  chmodSync(join(ROOT, entry), modes.get(entry)!);
  chmodSync(join(ROOT, to), modes.get(entry)! & ~0o111);
  git("add", entry);
}

// ---- 4. The rule as a test, the README, fmt ----

git("mv", "scripts/_layout.ts", "tests/_layout.ts");
git("mv", "scripts/layout_test.ts", "tests/layout_test.ts");

const LAYOUT_NOTE = "- `lib/` is grouped by audience, one folder per entry point:";
const readme = read("README.md");
if (!readme.includes(LAYOUT_NOTE)) {
  const anchor = "## Development\n\n";
  if (!readme.includes(anchor)) fail('README.md has no "## Development" section');
  const note = `${LAYOUT_NOTE} \`lib/core/\` (what \`mod.ts\`
  reaches: web standards only), \`lib/fs/\` (adds \`node:fs\` and \`yaml\`; \`lib/load.ts\`),
  \`lib/mcp/\` (adds the MCP SDK; \`lib/mcp.ts\`), \`lib/testing/\` (adds \`fast-check\`;
  \`lib/testing.ts\`) and \`lib/cli/\` (\`lib/cli.ts\`). A folder imports only its own and lower ones
  (core < fs < mcp < cli; testing uses the core only) and each package belongs to one folder;
  \`tests/layout_test.ts\` keeps it so.
`;
  write("README.md", readme.replace(anchor, anchor + note));
}

git("rm", "-q", "scripts/regroup_lib.ts");

// Every module keeps the rule and every relative import of the tree reaches a file.
const after = git("ls-files", "-z", "--cached").split("\0").filter((f) => f !== "");
const exists = (p: string): boolean =>
  existsSync(join(ROOT, p)) && statSync(join(ROOT, p)).isFile();
const broken = ["mod.ts", ...after.filter((f) => /^lib\/.*\.ts$/.test(f))]
  .filter(exists)
  .flatMap((p) => importProblems(p, read(p), exists));
for (const p of after.filter((f) => /^(tests|bench|examples)\/.*\.ts$/.test(f) && exists(f))) {
  for (const s of importSpecifiers(read(p))) {
    if (/^\.\.?\//.test(s) && !exists(joinPath(dirOf(p), s))) {
      broken.push(`${p}: no file for "${s}"`);
    }
  }
}
if (broken.length > 0) fail(`after the move:\n  ${broken.join("\n  ")}`);

execFileSync("npx", ["deno", "fmt", "--quiet"], { cwd: ROOT, stdio: "inherit" });
git("add", "-A");

process.stdout.write("| old | new |\n| --- | --- |\n");
for (const [from, to] of moves) process.stdout.write(`| \`${from}\` | \`${to}\` |\n`);
process.stdout.write(
  '\nNext: npm test, then git commit -m "lib/ grouped by audience: core, fs, mcp, testing, cli"\n',
);
