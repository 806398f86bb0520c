/**
 * Every fenced `ts`, `js` and `sh` block of README.md and docs/*.md runs, as
 * written, from the repository root, on the runtime running this file (Node,
 * Deno or Bun). The info string of a fence says what the block is:
 *
 * - `ts`, `js`, `sh`: runs on every runtime; `ts deno` (or `node`, `bun`, several
 *   of them) runs only there.
 * - `<lang> no-run: <reason>`: shown, not run; the reason is required.
 * - `console`: a transcript; each `$ command` runs in bash and what it prints
 *   (stdout and stderr, nonces aside) must be the lines below it, up to the
 *   next `$ `.
 * - `json` (must parse) and `text` (output, transcripts): never run.
 *
 * A ts or js block is written to the git-ignored `.tmp/` and imported: its `./x`
 * imports point at the repository, `skillset[/x]` at the package's source
 * exports, the docs' example host at the repository. A sh block runs in bash
 * (`-euo pipefail`) with `node_modules/.bin` on the PATH and `skillset` standing
 * for the CLI under this runtime. Every ts block type-checks (`deno check`, in
 * the Deno pass). The guides' links must resolve, the README
 * stays a front page, and no page cites a document users do not have.
 *
 * @module
 */
// @slow: runs every fenced example of the README and docs/, the CLI among them (left out of `npm run test:quick`)
// @every-runtime: the docs promise their examples on Node, Deno and Bun
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { cliArgv, ROOT, RUNTIME } from "./_cli.ts";

/** The runtimes a block can be marked for. */
const RUNTIMES = ["node", "deno", "bun"] as const;
type Runtime = (typeof RUNTIMES)[number];
/** Fence languages the runner knows; any other (or none) fails the page. */
const LANGS = ["ts", "js", "sh", "console", "json", "text"] as const;
type Lang = (typeof LANGS)[number];

/** One fenced block of a markdown page. */
export interface Block {
  /** The line (from 1) of the block's first code line. */
  readonly line: number;
  /** The fence's info string, as written. */
  readonly info: string;
  readonly lang: string;
  /** The runtimes it is marked for; empty means every runtime. */
  readonly runtimes: readonly string[];
  /** Why it is not run (`no-run: <reason>`), or null. */
  readonly noRun: string | null;
  readonly code: string;
}

/** The fenced blocks of a markdown text, with their info strings parsed. */
export function fencedBlocks(markdown: string): Block[] {
  const out: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```(.*)$/.exec(lines[i]!);
    if (open === null) continue;
    const info = open[1]!.trim();
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]!.trim() !== "```") end++;
    const cut = info.indexOf("no-run");
    const words = (cut === -1 ? info : info.slice(0, cut)).split(/\s+/).filter((w) => w !== "");
    const noRun = cut === -1 ? null : info.slice(cut + "no-run".length).replace(/^:/, "").trim();
    out.push({
      line: start + 1,
      info,
      lang: words[0] ?? "",
      runtimes: words.slice(1),
      noRun,
      code: lines.slice(start, end).join("\n"),
    });
    i = end;
  }
  return out;
}

/** README.md and every docs/*.md, by path relative to the repository. */
function pages(): Map<string, string> {
  const out = new Map<string, string>([[
    "README.md",
    readFileSync(join(ROOT, "README.md"), "utf8"),
  ]]);
  for (const name of readdirSync(join(ROOT, "docs")).filter((n) => n.endsWith(".md")).sort()) {
    out.set(`docs/${name}`, readFileSync(join(ROOT, "docs", name), "utf8"));
  }
  return out;
}

/** The package's exports as source files (`bun` condition), e.g. `./load` -> `./lib/load.ts`. */
const EXPORTS = new Map<string, string>(
  Object.entries(
    JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).exports as Record<
      string,
      string | { bun?: string }
    >,
  ).flatMap(([key, target]) => {
    const file = typeof target === "string" ? target : target.bun;
    return file === undefined ? [] : [[key, file]];
  }),
);

const HOST = "https://example.com/skillset/";

/** `./x`, `skillset[/x]` and example-host imports as file URLs of the repository. */
export function pointImports(code: string): string {
  const root = pathToFileURL(`${ROOT}/`).href;
  return code.replace(
    /from "(\.\.?\/[^"]+|skillset(?:\/[^"]+)?|https:\/\/example\.com\/skillset\/[^"]+)"/g,
    (whole, spec: string) => {
      if (spec.startsWith("./")) return `from "${root}${spec.slice(2)}"`;
      // "../skillset/x" is a clone beside the user's project: the repository here.
      if (spec.startsWith("../skillset/")) {
        return `from "${root}${spec.slice("../skillset/".length)}"`;
      }
      // The docs' example host stands for wherever the repository is served
      // (tests/url_import_test.ts imports it over real HTTP).
      if (spec.startsWith(HOST)) return `from "${root}${spec.slice(HOST.length)}"`;
      const target = EXPORTS.get(`.${spec.slice("skillset".length)}`);
      return target === undefined ? whole : `from "${root}${target.slice(2)}"`;
    },
  );
}

/** A folder holding a `skillset` command that runs the CLI sources under this runtime. */
function shimFolder(dir: string): string {
  const [runtime, args] = cliArgv();
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, "skillset"),
    `#!/usr/bin/env bash\nexec ${[runtime, ...args].map(quote).join(" ")} "$@"\n`,
  );
  chmodSync(join(bin, "skillset"), 0o755);
  return bin;
}

/** A fresh folder in the repository's git-ignored .tmp/ (its package.json and import map apply). */
function tempFolder(): string {
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  return mkdtempSync(join(ROOT, ".tmp", "readme-"));
}

async function runScript(page: string, block: Block): Promise<void> {
  const dir = tempFolder();
  const file = join(
    dir,
    `${page.replace(/[/.]/g, "_")}_${block.line}.${block.lang === "js" ? "mjs" : "ts"}`,
  );
  writeFileSync(file, pointImports(block.code));
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
}

/** How long one block may run before it counts as a hang (a loaded 2-core machine). */
const BLOCK_TIMEOUT_MS = 120_000;

/** Runs a bash script from the repository root (PATH: the `skillset` shim, node_modules/.bin). */
function shell(script: string): { status: number | null; stdout: string; stderr: string } {
  const dir = tempFolder();
  try {
    const path = [shimFolder(dir), join(ROOT, "node_modules", ".bin"), process.env.PATH ?? ""];
    const result = spawnSync("bash", ["-euo", "pipefail", "-c", script], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, PATH: path.join(":"), NO_COLOR: "1", FORCE_COLOR: "0" },
      maxBuffer: 64 * 1024 * 1024,
      timeout: BLOCK_TIMEOUT_MS,
      killSignal: "SIGKILL",
    });
    assert.ok(
      result.error === undefined && result.signal === null,
      `${script}: ${result.error?.message ?? `killed by ${result.signal}`}`,
    );
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runShell(block: Block): void {
  const result = shell(block.code);
  assert.equal(
    result.status,
    0,
    `exit ${result.status}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
  );
}

/** The `$ command` lines of a console transcript, each with the output shown below it. */
export function transcript(code: string): { command: string; output: string }[] {
  const out: { command: string; output: string }[] = [];
  for (const line of code.split("\n")) {
    if (line.startsWith("$ ")) out.push({ command: line.slice(2), output: "" });
    else if (out.length > 0) out[out.length - 1]!.output += `${line}\n`;
    else assert.fail(`a transcript starts with "$ ", not ${JSON.stringify(line)}`);
  }
  return out;
}

/** Nonces are new for every envelope; trailing blank lines are not output. */
function comparable(output: string): string {
  return output.replace(/nonce=[0-9a-f]{32}/g, "nonce=<nonce>").trimEnd();
}

function runTranscript(block: Block): void {
  for (const { command, output } of transcript(block.code)) {
    const result = shell(`${command} 2>&1`);
    assert.equal(comparable(result.stdout), comparable(output), `$ ${command}`);
  }
}

/** GitHub's anchor for a heading text. */
export function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

/** The anchors of a markdown page (its headings; fenced blocks left out). */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (heading) out.add(slug(heading[1]!));
  }
  return out;
}

/** Markdown link targets outside fenced blocks and code spans. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/^\s*```[\s\S]*?^\s*```$/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

const PAGES = pages();

describe("the README and docs/ example runner", () => {
  it("parses fences, their languages, runtime marks and no-run reasons", () => {
    const text =
      "a\n```ts\nx;\n```\n```sh deno bun\ny\n```\n```js no-run: needs a network\nz;\n```\n";
    assert.deepEqual(fencedBlocks(text), [
      { line: 3, info: "ts", lang: "ts", runtimes: [], noRun: null, code: "x;" },
      {
        line: 6,
        info: "sh deno bun",
        lang: "sh",
        runtimes: ["deno", "bun"],
        noRun: null,
        code: "y",
      },
      {
        line: 9,
        info: "js no-run: needs a network",
        lang: "js",
        runtimes: [],
        noRun: "needs a network",
        code: "z;",
      },
    ]);
    assert.deepEqual(transcript("$ a x\none\n\n$ b"), [
      { command: "a x", output: "one\n\n" },
      { command: "b", output: "" },
    ]);
    assert.equal(comparable("n nonce=0b6e2d8f41a9c375e1d07b4a92f6c158\n\n"), "n nonce=<nonce>");
    assert.equal(
      slug("The skill tool: using it from an agent"),
      "the-skill-tool-using-it-from-an-agent",
    );
    assert.equal(slug("The `skillset` command line"), "the-skillset-command-line");
  });

  it("finds the pages and their runnable blocks", () => {
    assert.ok(PAGES.size >= 10, `found ${PAGES.size} pages`);
    const runnable = [...PAGES.values()].flatMap(fencedBlocks).filter((b) =>
      ["ts", "js", "sh", "console"].includes(b.lang) && b.noRun === null
    );
    assert.ok(runnable.length >= 15, `found ${runnable.length} runnable blocks`);
  });

  it("keeps the README a front page of at most 250 lines, linking every guide", () => {
    const readme = PAGES.get("README.md")!;
    const count = readme.split("\n").length - (readme.endsWith("\n") ? 1 : 0);
    assert.ok(count <= 250, `README.md has ${count} lines`);
    for (const page of PAGES.keys()) {
      if (page !== "README.md") assert.ok(readme.includes(`](${page})`), `README links ${page}`);
    }
  });

  it(
    "type-checks every ts block with the repository's strict settings (in the Deno pass)",
    { skip: RUNTIME === "deno" ? false : "runs once, under Deno", timeout: BLOCK_TIMEOUT_MS },
    () => {
      const dir = tempFolder();
      try {
        const files: string[] = [];
        for (const [page, text] of PAGES) {
          for (const block of fencedBlocks(text)) {
            if (block.lang !== "ts" || block.noRun !== null) continue;
            // A block marked for other runtimes only (`ts node bun`) is not Deno's to check.
            if (block.runtimes.length > 0 && !block.runtimes.includes("deno")) continue;
            const file = join(dir, `${page.replace(/[/.]/g, "_")}_${block.line}.ts`);
            // `export {}`: each block is a module of its own, even one without imports.
            writeFileSync(file, `${pointImports(block.code)}\nexport {};\n`);
            files.push(file);
          }
        }
        const result = spawnSync(
          process.execPath,
          ["check", "--quiet", `--config=${join(ROOT, "deno.json")}`, ...files],
          { cwd: ROOT, encoding: "utf8", timeout: BLOCK_TIMEOUT_MS, killSignal: "SIGKILL" },
        );
        assert.equal(result.status, 0, `deno check: ${result.stderr}${result.stdout}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it("bench/RESULTS.md links files of the repository that exist (its plots)", () => {
    const page = join("bench", "RESULTS.md");
    const targets = links(readFileSync(join(ROOT, page), "utf8"));
    assert.ok(targets.length >= 5, `found ${targets.length} links`);
    for (const target of targets) {
      const path = join(ROOT, dirname(page), target.split("#")[0]!);
      assert.ok(!relative(ROOT, path).startsWith(".."), `${page}: ${target} leaves the repository`);
      assert.ok(existsSync(path), `${page}: ${target} (no file ${relative(ROOT, path)})`);
    }
  });

  for (const [page, text] of PAGES) {
    describe(page, () => {
      it("cites no document users do not have", () => {
        for (const [i, line] of text.split("\n").entries()) {
          assert.doesNotMatch(line, /\bSPEC\b|§|\bseed's\b/, `${page}:${i + 1}`);
        }
      });

      it("has links that resolve, to files and to headings", () => {
        for (const target of links(text)) {
          if (/^[a-z]+:/.test(target)) continue; // absolute URLs are not checked offline
          const [file, anchor] = target.split("#") as [string, string | undefined];
          const path = file === "" ? join(ROOT, page) : join(ROOT, dirname(page), file);
          // The API reference is built by `npm run docs:api` and not committed.
          if (relative(ROOT, path).startsWith(join("docs", "api"))) continue;
          assert.ok(existsSync(path), `${page}: ${target} (no file ${relative(ROOT, path)})`);
          if (anchor !== undefined) {
            const targetText = file === "" ? text : readFileSync(path, "utf8");
            assert.ok(anchors(targetText).has(anchor), `${page}: ${target} (no such heading)`);
          }
        }
      });

      for (const block of fencedBlocks(text)) {
        const where = `${page}:${block.line}`;
        if (!(LANGS as readonly string[]).includes(block.lang)) {
          it(`the fence at ${where} has a known language`, () => {
            assert.fail(`${where}: "${block.info}" is none of ${LANGS.join(", ")}`);
          });
          continue;
        }
        const lang = block.lang as Lang;
        for (const r of block.runtimes) {
          if (!(RUNTIMES as readonly string[]).includes(r)) {
            it(`the fence at ${where} names known runtimes`, () => {
              assert.fail(`${where}: "${r}" is none of ${RUNTIMES.join(", ")}`);
            });
          }
        }
        if (block.noRun !== null) {
          it(`the not-run block at ${where} says why`, () => {
            assert.ok(block.noRun !== "", `${where}: "no-run:" needs a reason`);
          });
          continue;
        }
        if (lang === "json") {
          it(`the json block at ${where} parses`, () => void JSON.parse(block.code));
          continue;
        }
        if (lang === "text") continue;
        const here = block.runtimes.length === 0 || block.runtimes.includes(RUNTIME as Runtime);
        const name = `runs the ${lang} block at ${where}`;
        if (!here) {
          it(name, { skip: `marked for ${block.runtimes.join(", ")}` }, () => {});
          continue;
        }
        it(
          name,
          { timeout: BLOCK_TIMEOUT_MS },
          lang === "sh"
            ? () => runShell(block)
            : lang === "console"
            ? () => runTranscript(block)
            : () => runScript(page, block),
        );
      }
    });
  }
});
