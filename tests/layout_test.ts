import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  audienceOf,
  AUDIENCES,
  codeOnly,
  ENTRIES,
  folderLine,
  importCycles,
  importProblems,
  importSpecifiers,
  joinPath,
  MAX_FILE_LINES,
  MAX_FOLDER_FILES,
  mirrorProblems,
  sizeProblem,
} from "./_layout.ts";
import { fc, runs } from "./_fc.ts";

const ROOT = resolve(import.meta.dirname ?? ".", "..");

/** Every file under a folder whose name passes `keep`, as paths from the root, sorted. */
function filesUnder(top: string, keep: (name: string) => boolean): string[] {
  const files: string[] = [];
  const stack = [top];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    for (const name of readdirSync(join(ROOT, dir))) {
      const path = `${dir}/${name}`;
      if (statSync(join(ROOT, path)).isDirectory()) stack.push(path);
      else if (keep(name)) files.push(path);
    }
  }
  return files.sort();
}

/** Every `.ts` file under `lib/`, as paths from the root, sorted. */
const libFiles = (): string[] => filesUnder("lib", (name) => name.endsWith(".ts"));

/** Every test file under `tests/` but its fixtures, as paths from the root, sorted. */
const testFiles = (): string[] =>
  filesUnder("tests", (name) => name.endsWith("_test.ts")).filter((path) =>
    !path.startsWith("tests/fixtures/")
  );

/** The folder of a path from the root. */
const folderOf = (path: string): string => path.slice(0, path.lastIndexOf("/"));

const isFile = (path: string): boolean =>
  existsSync(join(ROOT, path)) && statSync(join(ROOT, path)).isFile();

describe("lib/ grouped by audience", () => {
  it("holds the five entry points and otherwise only audience folders", () => {
    const files = libFiles();
    const loose = files.filter((f) => audienceOf(f) === undefined);
    assert.deepEqual(loose, []);
    for (const entry of ENTRIES.keys()) assert.ok(isFile(entry), entry);
    const folders = readdirSync(join(ROOT, "lib")).filter((n) =>
      statSync(join(ROOT, "lib", n)).isDirectory()
    );
    assert.deepEqual(folders.filter((f) => !(AUDIENCES as readonly string[]).includes(f)), []);
  });

  it("each module imports only its own audience or a lower one, and the core no node: or package", () => {
    const problems = ["mod.ts", ...libFiles()].flatMap((path) =>
      importProblems(path, readFileSync(join(ROOT, path), "utf8"), isFile)
    );
    assert.deepEqual(problems, []);
  });
});

describe("lib/ has walls", () => {
  it("no import cycle among lib/ files, type imports included", () => {
    const graph = new Map<string, string[]>();
    for (const path of ["mod.ts", ...libFiles()]) {
      const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
      graph.set(
        path,
        importSpecifiers(readFileSync(join(ROOT, path), "utf8"))
          .filter((s) => s.startsWith("./") || s.startsWith("../"))
          .map((s) => joinPath(dir, s)),
      );
    }
    assert.deepEqual(importCycles(graph).map((cycle) => cycle.join(" -> ")), []);
  });

  it(`no lib/ file over ${MAX_FILE_LINES} lines unless its header says why it reads better whole`, () => {
    const problems = libFiles().flatMap((path) => {
      const problem = sizeProblem(readFileSync(join(ROOT, path), "utf8"));
      return problem === undefined ? [] : [`${path}: ${problem}`];
    });
    assert.deepEqual(problems, []);
  });
});

describe("folders by feature, and tests that mirror them", () => {
  it(`no folder of lib/ holds more than ${MAX_FOLDER_FILES} .ts files directly`, () => {
    const counts = new Map<string, number>();
    for (const path of libFiles()) {
      counts.set(folderOf(path), (counts.get(folderOf(path)) ?? 0) + 1);
    }
    const crowded = [...counts].filter(([, n]) => n > MAX_FOLDER_FILES).map(([f, n]) =>
      `${f}: ${n}`
    );
    assert.deepEqual(crowded, []);
  });

  it("each file of an audience folder says in its header what its folder is for, as its neighbours do", () => {
    const purposes = new Map<string, Set<string>>();
    const problems: string[] = [];
    for (const path of libFiles().filter((p) => !ENTRIES.has(p))) {
      const line = folderLine(readFileSync(join(ROOT, path), "utf8"));
      if (line === undefined) problems.push(`${path}: no "Folder \`${folderOf(path)}/\` — …" line`);
      else if (line.folder !== folderOf(path)) problems.push(`${path}: names ${line.folder}`);
      else purposes.set(line.folder, (purposes.get(line.folder) ?? new Set()).add(line.purpose));
    }
    for (const [folder, said] of purposes) {
      if (said.size > 1) problems.push(`${folder}: ${said.size} different purposes`);
    }
    assert.deepEqual(problems, []);
  });

  it("tests/ mirrors lib/: every test folder names a lib/ folder, and 80 % of test files stand in one", () => {
    const folders = new Set(libFiles().map(folderOf));
    const tests = testFiles();
    assert.deepEqual(mirrorProblems(tests, folders), []);
    const mirrored = tests.filter((path) => folderOf(path) !== "tests").length;
    assert.ok(mirrored >= 0.8 * tests.length, `${mirrored} of ${tests.length} in mirrored folders`);
  });

  it("mirrorProblems names a test folder that lib/ does not have", () => {
    const folders = new Set(["lib/core", "lib/core/trust"]);
    assert.deepEqual(
      mirrorProblems(
        ["tests/a_test.ts", "tests/core/trust/x_test.ts", "tests/core/gone/y_test.ts"],
        folders,
      ),
      ["tests/core/gone/y_test.ts: no folder lib/core/gone for it to mirror"],
    );
  });

  it("tests/README.md lists every lib/ file under its folder, with that folder's purpose, and only tests that exist", () => {
    const text = readFileSync(join(ROOT, "tests/README.md"), "utf8");
    const sections = new Map<string, string>();
    for (const part of text.split(/^## /m).slice(1)) {
      const heading = /^(lib\/[\w/]+) — (.+)$/m.exec(part);
      if (heading !== null) sections.set(heading[1]!, part);
    }
    const problems: string[] = [];
    for (const path of libFiles()) {
      if (ENTRIES.has(path)) continue;
      const folder = folderOf(path);
      const section = sections.get(folder);
      const purpose = folderLine(readFileSync(join(ROOT, path), "utf8"))?.purpose;
      if (section === undefined) problems.push(`no section for ${folder}`);
      else if (!section.includes(`\`${path.slice(folder.length + 1)}\``)) {
        problems.push(`${path} unlisted`);
      } else if (purpose !== undefined && !section.startsWith(`${folder} — ${purpose}`)) {
        problems.push(`${folder}: the heading is not the purpose its files give`);
      }
    }
    assert.deepEqual([...new Set(problems)], []);
    const named = [...text.matchAll(/`([\w/]+_test\.ts)`/g)].map((m) => m[1]!);
    assert.ok(named.length > 40);
    assert.deepEqual(named.filter((name) => !isFile(`tests/${name}`)), []);
    const unnamed = testFiles().filter((path) => !named.includes(path.slice("tests/".length)));
    assert.deepEqual(unnamed, []);
  });
});

describe("mod.ts is a table of contents", () => {
  it("its module doc names the export groups, in the order the export blocks stand", () => {
    const source = readFileSync(join(ROOT, "mod.ts"), "utf8");
    const doc = /^\/\*\*([\s\S]*?)\*\//.exec(source)![1]!;
    const inDoc = [...doc.matchAll(/^ \* - \*\*([^*]+)\*\*:/gm)].map((m) => m[1]!);
    const blocks = [...source.matchAll(/^\/\/ ── (.+?) ─+$/gm)].map((m) => m[1]!);
    assert.ok(inDoc.length >= 7, `only ${inDoc.length} groups`);
    assert.deepEqual(blocks, inDoc);
  });

  it("holds only its module doc, group headings and re-exports of lib/core files", () => {
    const source = readFileSync(join(ROOT, "mod.ts"), "utf8");
    const code = source.replace(/^\/\*\*[\s\S]*?\*\/\n/, "").replace(/^\/\/ ── .*\n/gm, "");
    const statements = code.split(/;\n/).map((s) => s.trim()).filter((s) => s !== "");
    for (const statement of statements) {
      assert.match(statement, /^export (type )?\{[\s\w,]+\} from "\.\/lib\/core\/[\w/]+\.ts"$/);
    }
  });
});

describe("importCycles and sizeProblem", () => {
  it("finds each cycle once, as a path whose ends agree, and none in a tree", () => {
    const graph = new Map([
      ["a", ["b", "d"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["e"]],
      ["e", []],
      ["f", ["f"]],
    ]);
    assert.deepEqual(importCycles(graph), [["a", "b", "c", "a"], ["f", "f"]]);
    assert.deepEqual(importCycles(new Map([["a", ["b"]], ["b", ["c"]]])), []);
  });

  it("agrees with a reachability reference on random graphs, and every reported path is a cycle", () => {
    const nodes = ["a", "b", "c", "d", "e", "f"];
    const graphs = fc.array(fc.tuple(fc.constantFrom(...nodes), fc.constantFrom(...nodes)), {
      maxLength: 14,
    }).map((edges) => {
      const graph = new Map<string, string[]>(nodes.map((n) => [n, []]));
      for (const [from, to] of edges) graph.get(from)!.push(to);
      return graph;
    });
    fc.assert(
      fc.property(graphs, (graph) => {
        const reaches = (from: string, to: string): boolean => {
          const seen = new Set<string>();
          const todo = [...graph.get(from)!];
          while (todo.length > 0) {
            const n = todo.pop()!;
            if (n === to) return true;
            if (seen.has(n)) continue;
            seen.add(n);
            todo.push(...graph.get(n)!);
          }
          return false;
        };
        const cycles = importCycles(graph);
        const cyclic = nodes.filter((n) => reaches(n, n));
        const together = (a: string, b: string) => a === b || (reaches(a, b) && reaches(b, a));
        // One cycle per strongly connected group, starting at the group's first node.
        const firsts = cyclic.filter((n) => cyclic.every((m) => !together(n, m) || n <= m));
        assert.deepEqual(cycles.map((c) => c[0]), firsts);
        for (const cycle of cycles) {
          assert.equal(cycle[0], cycle[cycle.length - 1]);
          for (let i = 0; i + 1 < cycle.length; i++) {
            assert.ok(graph.get(cycle[i]!)!.includes(cycle[i + 1]!));
          }
        }
      }),
      runs(300),
    );
  });

  it("lets a long file pass only with a reason in its header", () => {
    const body = "const x = 1;\n".repeat(MAX_FILE_LINES);
    assert.equal(
      sizeProblem("/** A. */\n" + "const x = 1;\n".repeat(MAX_FILE_LINES - 1)),
      undefined,
    );
    assert.match(sizeProblem("/** A. */\n" + body)!, /^601 lines, over 600/);
    assert.match(sizeProblem("/**\n * A.\n * One file:\n */\n" + body)!, /over 600/);
    assert.equal(
      sizeProblem("/**\n * A.\n *\n * One file: the grammar reads as one table.\n */\n" + body),
      undefined,
    );
  });
});

describe("the rule's checks", () => {
  const exists = (path: string) => ["lib/core/a.ts", "lib/fs/b.ts", "lib/cli/c.ts"].includes(path);

  it("refuses a core module that imports node:, a package or a higher folder", () => {
    const source = 'import { a } from "./a.ts";\nimport { readFileSync } from "node:fs";\n' +
      'import { parse } from "yaml";\nexport { b } from "../fs/b.ts";\n';
    assert.deepEqual(importProblems("lib/core/x.ts", source, exists), [
      'lib/core/x.ts (core) imports "node:fs": the core uses web standards only',
      'lib/core/x.ts (core) imports "yaml": a package of fs',
      'lib/core/x.ts (core) imports "../fs/b.ts": fs is not one of core',
    ]);
  });

  it("refuses fs importing the CLI, a missing file, an unowned package and a loose module", () => {
    const source = 'const c = await import("../cli/c.ts");\nimport "../core/gone.ts";\n' +
      'import x from "left-pad";\nimport y from "../z.ts";\n';
    assert.deepEqual(importProblems("lib/fs/x.ts", source, exists), [
      'lib/fs/x.ts (fs) imports "../cli/c.ts": cli is not one of core, fs',
      'lib/fs/x.ts (fs) imports "../core/gone.ts": no file lib/core/gone.ts',
      'lib/fs/x.ts (fs) imports "left-pad": a package that no audience owns (add it to PACKAGE_OWNERS)',
      'lib/fs/x.ts (fs) imports "../z.ts": no file lib/z.ts',
    ]);
    assert.deepEqual(importProblems("lib/x.ts", "", exists), [
      "lib/x.ts is not in an audience folder (core,fs,mcp,testing,ai,langchain,cli)",
    ]);
  });

  it("accepts the CLI importing every folder but testing, and the MCP SDK", () => {
    const source = 'import "../core/a.ts";\nimport "../fs/b.ts";\n' +
      'import { Client } from "@modelcontextprotocol/client/stdio";\nimport process from "node:process";\n';
    assert.deepEqual(importProblems("lib/cli/x.ts", source, exists), []);
  });
});

describe("importSpecifiers", () => {
  it("finds multi-line, type-only, side-effect, re-export and dynamic imports, none in comments", () => {
    const source = [
      "/**",
      " * ```ts",
      ' * import { assert } from "./_assert.ts";',
      " * ```",
      " */",
      "import {",
      "  a,",
      "  type B,",
      '} from "./a.ts";',
      'import type { C } from "./c.ts";',
      'import "./side.ts";',
      '// import { d } from "./commented.ts";',
      'export * from "./star.ts";',
      "const re = /[\"'/]/; // a quote in a regex",
      'const s = "import x from \\"./in_string.ts\\"";',
      'const m = await import("./dynamic.ts"); /* import("./block.ts") */',
      'export { e } from "./e.ts";',
    ].join("\n");
    assert.deepEqual(importSpecifiers(source), [
      "./a.ts",
      "./c.ts",
      "./side.ts",
      "./star.ts",
      "./dynamic.ts",
      "./e.ts",
    ]);
  });

  it("finds exactly the imports of code interleaved with comments and strings", () => {
    const name = fc.stringMatching(/^[a-z_]{1,8}$/);
    const line = fc.oneof(
      name.map((n) => ({ text: `import { ${n} } from "./${n}.ts";`, spec: `./${n}.ts` })),
      name.map((n) => ({
        text: `import type {\n  ${n},\n} from "../${n}.ts";`,
        spec: `../${n}.ts`,
      })),
      name.map((n) => ({ text: `const ${n} = await import("./${n}.ts");`, spec: `./${n}.ts` })),
      name.map((n) => ({ text: `// import { ${n} } from "./${n}.ts";`, spec: undefined })),
      name.map((n) => ({
        text: `/**\n * import { ${n} } from "./${n}.ts";\n */`,
        spec: undefined,
      })),
      name.map((n) => ({ text: `const ${n} = 'from "./${n}.ts"' + "/* x";`, spec: undefined })),
      name.map((n) => ({
        text: `const ${n} = /\\/\\/["']/.test("x"); // a regex`,
        spec: undefined,
      })),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        const source = lines.map((l) => l.text).join("\n");
        assert.deepEqual(
          importSpecifiers(source),
          lines.flatMap((l) => l.spec === undefined ? [] : [l.spec]),
        );
        assert.equal(codeOnly(source).length, source.length);
      }),
      runs(200),
    );
  });
});
