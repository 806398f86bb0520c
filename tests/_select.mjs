#!/usr/bin/env node
/**
 * Runs the test files: every `*_test.ts` below `tests/` but its fixtures, or
 * those below the paths given, two files at a time.
 *
 * `node tests/_select.mjs [--quick | --runtime deno|bun] [PATH…]`
 *
 * - Without a flag (`npm test`'s Node pass): every file under Node (through tsx).
 * - `--quick` is the inner loop (`npm run test:quick`): fast-check properties at
 *   20 runs (unless `FC_RUNS` is set) and only the files that do not say near
 *   their top `// @slow: <why>` — those spawn sandboxes, git, other runtimes,
 *   packaging, servers or the CLI as a subprocess.
 * - `--runtime deno|bun` (`npm test`'s Deno and Bun passes): the files that are
 *   not slow, and the slow files that also say `// @every-runtime: <why>` —
 *   what they check differs between runtimes (spawning, file races, stdio and
 *   HTTP servers, WebCrypto). The other slow files check the same code against
 *   an oracle (bash, strace, git, ssh-keygen) or drive the CLI at length: Node
 *   runs them once, and CI stays within its time.
 */
import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, relative, resolve } from "node:path";
import process from "node:process";

const ROOT = resolve(import.meta.dirname ?? ".", "..");
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const at = args.indexOf("--runtime");
const runtime = at === -1 ? "node" : args[at + 1];
if (runtime !== "node" && runtime !== "deno" && runtime !== "bun") {
  console.error(`--runtime takes deno or bun, not ${JSON.stringify(runtime ?? "")}`);
  process.exit(2);
}
const roots = args.filter((a, i) => a !== "--quick" && (at === -1 || (i !== at && i !== at + 1)));

function testFiles(top, suffix = "_test.ts") {
  const found = [];
  const stack = [top];
  while (stack.length > 0) {
    const path = stack.pop();
    if (statSync(path).isFile()) {
      if (path.endsWith(suffix)) found.push(path);
      continue;
    }
    for (const name of readdirSync(path)) {
      if (path === join(ROOT, "tests") && name === "fixtures") continue;
      stack.push(join(path, name));
    }
  }
  return found;
}

/** Whether a test file says near its top `// @<tag>: <why>` (or ` * @<tag>: <why>` in its doc). */
const says = (path, tag) =>
  new RegExp(`^(?://| \\*) @${tag}: \\S`, "m").test(readFileSync(path, "utf8").slice(0, 3000));
const wanted = (path) =>
  quick
    ? !says(path, "slow")
    : runtime === "node" || !says(path, "slow") || says(path, "every-runtime");

const files = [
  ...new Set((roots.length > 0 ? roots : ["tests"]).flatMap((r) => testFiles(resolve(r)))),
]
  .map((f) => relative(process.cwd(), f))
  .sort()
  .filter(wanted);
if (files.length === 0) {
  console.error(`No test files under ${roots.join(", ") || "tests"}${quick ? " (quick)" : ""}`);
  process.exit(2);
}
const env = quick && process.env.FC_RUNS === undefined
  ? { ...process.env, FC_RUNS: "20" }
  : { ...process.env };

/**
 * Under Node, the tests that spawn the CLI run it from JavaScript compiled
 * here once per run, file by file (esbuild, inline source maps: coverage maps
 * back to each lib/ file line for line, as with tsx); tsx would cost each
 * spawn about a second of start-up. Relative `.ts` imports become `.js` (same
 * length: the maps stay right). The copy sits in the git-ignored `.tmp/` and
 * goes when the run ends; nothing in lib/ looks for files beside itself but
 * the config schema, which it finds in any folder above.
 */
let compiled;
if (runtime === "node" && env.SKILLSET_TEST_CLI === undefined) {
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  compiled = mkdtempSync(join(ROOT, ".tmp", "js-"));
  env.SKILLSET_TEST_CLI = await compile(compiled);
}

/** Compile lib/ into `out`; the path of the CLI's entry. */
async function compile(out) {
  const { build } = await import("esbuild");
  const sources = testFiles(join(ROOT, "lib"), ".ts");
  await build({
    entryPoints: sources,
    outdir: join(out, "lib"),
    outbase: join(ROOT, "lib"),
    bundle: false,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: "inline",
    logLevel: "warning",
  });
  const specifier = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s*)(["'])(\.{1,2}\/[^"'\n]*?)\.ts\2/g;
  for (const file of testFiles(join(out, "lib"), ".js")) {
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace(specifier, (_, lead, q, path) => `${lead}${q}${path}.js${q}`));
  }
  return join(out, "lib", "cli.js");
}

const bin = (name) => join(ROOT, "node_modules", ".bin", name);
const [command, commandArgs] = runtime === "deno"
  ? [bin("deno"), ["test", "-A", "--doc", "mod.ts", "lib/", ...files]]
  : runtime === "bun"
  ? [bin("bun"), ["test", "--timeout", "300000", ...files.map((f) => `./${f}`)]]
  : [process.execPath, ["--import", "tsx", "--test", "--test-concurrency=2", ...files]];
const result = spawnSync(command, commandArgs, { stdio: "inherit", env });
if (result.error !== undefined) console.error(`${command}: ${result.error.message}`);
if (compiled !== undefined) rmSync(compiled, { recursive: true, force: true });
process.exit(result.status ?? 1);
