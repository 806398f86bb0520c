/**
 * Every fenced `ts` snippet of the README runs, as written, from the
 * repository root: its `./` imports are pointed at the repository, the
 * working folder is the repository root, and the snippet is imported.
 *
 * @module
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { ROOT } from "./_cli.ts";

/** The fenced ` ```ts ` blocks of a markdown text, with the line each starts on. */
export function tsSnippets(markdown: string): { line: number; code: string }[] {
  const out: { line: number; code: string }[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== "```ts") continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]!.trim() !== "```") end++;
    out.push({ line: start + 1, code: lines.slice(start, end).join("\n") });
    i = end;
  }
  return out;
}

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const EXPORTS: Record<string, string> = JSON.parse(
  readFileSync(join(ROOT, "deno.json"), "utf8"),
).exports;

const HOST = "https://example.com/skillset/";

/** `./x`, `skillset[/x]` and example-host imports as file URLs of the repository (by deno.json `exports`). */
function pointImports(code: string): string {
  const root = pathToFileURL(`${ROOT}/`).href;
  return code.replace(
    /from "(\.\/[^"]+|skillset(?:\/[^"]+)?|https:\/\/example\.com\/skillset\/[^"]+)"/g,
    (whole, spec: string) => {
      if (spec.startsWith("./")) return `from "${root}${spec.slice(2)}"`;
      // The README's example host stands for wherever the repository is served
      // (tests/url_import_test.ts imports it over real HTTP).
      if (spec.startsWith(HOST)) return `from "${root}${spec.slice(HOST.length)}"`;
      const target = EXPORTS[`.${spec.slice("skillset".length)}`];
      return target === undefined ? whole : `from "${root}${target.slice(2)}"`;
    },
  );
}
const snippets = tsSnippets(README);

describe("README", () => {
  it("has ts snippets, found by the extractor", () => {
    assert.ok(snippets.length >= 3, `found ${snippets.length}`);
    assert.deepEqual(tsSnippets("a\n```ts\nx;\n```\n```sh\ny\n```\n```ts\nz;\n```\n"), [
      { line: 3, code: "x;" },
      { line: 9, code: "z;" },
    ]);
  });

  for (const { line, code } of snippets) {
    it(`runs the ts snippet at README.md:${line}`, async () => {
      // Inside the repository (its package.json, node_modules and import map apply), in the
      // git-ignored .tmp/; "./x" imports point at the repository, "skillset/x" at its exports.
      mkdirSync(join(ROOT, ".tmp"), { recursive: true });
      const dir = mkdtempSync(join(ROOT, ".tmp", "readme-"));
      const file = join(dir, `snippet_${line}.ts`);
      writeFileSync(file, pointImports(code));
      const cwd = process.cwd();
      const log = console.log;
      process.chdir(ROOT);
      console.log = () => {};
      try {
        await import(pathToFileURL(file).href);
      } finally {
        console.log = log;
        process.chdir(cwd);
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
