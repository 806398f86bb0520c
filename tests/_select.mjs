#!/usr/bin/env node
/**
 * Runs the test files under Node (through tsx): every `*_test.ts` below
 * `tests/` but its fixtures, or those below the paths given.
 *
 * `node tests/_select.mjs [--quick] [PATH…]`
 *
 * `--quick` is the inner loop (`npm run test:quick`): fast-check properties at
 * 20 runs (unless `FC_RUNS` is set), two files at a time, and only the files
 * that do not say near their top `// @slow: <why>` — those spawn sandboxes, git,
 * other runtimes, packaging, servers or the CLI as a subprocess. `npm test`
 * runs every file.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import process from "node:process";

const ROOT = resolve(import.meta.dirname ?? ".", "..");
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const roots = args.filter((a) => a !== "--quick");

function testFiles(top) {
  const found = [];
  const stack = [top];
  while (stack.length > 0) {
    const path = stack.pop();
    if (statSync(path).isFile()) {
      if (path.endsWith("_test.ts")) found.push(path);
      continue;
    }
    for (const name of readdirSync(path)) {
      if (path === join(ROOT, "tests") && name === "fixtures") continue;
      stack.push(join(path, name));
    }
  }
  return found;
}

/** Whether a test file says near its top `// @slow: <why>` (or ` * @slow: <why>` in its doc). */
const isSlow = (path) => /^(?:\/\/| \*) @slow: \S/m.test(readFileSync(path, "utf8").slice(0, 3000));

const files = [
  ...new Set((roots.length > 0 ? roots : ["tests"]).flatMap((r) => testFiles(resolve(r)))),
]
  .map((f) => relative(process.cwd(), f))
  .sort()
  .filter((f) => !quick || !isSlow(f));
if (files.length === 0) {
  console.error(`No test files under ${roots.join(", ") || "tests"}${quick ? " (quick)" : ""}`);
  process.exit(2);
}
const env = quick && process.env.FC_RUNS === undefined
  ? { ...process.env, FC_RUNS: "20" }
  : process.env;
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", ...(quick ? ["--test-concurrency=2"] : []), ...files],
  { stdio: "inherit", env },
);
process.exit(result.status ?? 1);
