/**
 * The benchmark runner: every `bench/*_bench.ts` (or those whose name
 * contains an argument) under Node (tsx), Deno and Bun, one process per file
 * and runtime; rows collected into `bench/results/<runtime>.json`; then
 * `bench/RESULTS.md` and the SVG plots written from all three.
 *
 * Run: `npm run bench` (full: 10^3…10^6 declared tools), `npm run bench --
 * --quick` (smaller sizes and budgets; written under `bench/results/quick/`),
 * `npm run bench -- resolve` (one bench, merged into the existing results).
 *
 * @module
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, release, tmpdir, totalmem, type } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { Row } from "./_harness.ts";
import { type ResultsFile, type Runtime, RUNTIMES, writeReport } from "./_report.ts";

const root = join(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const filters = args.filter((a) => !a.startsWith("--"));
const runtimeArg = args.find((a) => a.startsWith("--runtime="))?.slice("--runtime=".length);
const runtimes = runtimeArg === undefined
  ? RUNTIMES
  : RUNTIMES.filter((r) => runtimeArg.split(",").includes(r));
const outDir = join(root, "bench", "results", ...(quick ? ["quick"] : []));
const bin = join(root, "node_modules", ".bin");

const benches = readdirSync(join(root, "bench"))
  .filter((f) => f.endsWith("_bench.ts"))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

function command(runtime: Runtime, file: string): [string, string[]] {
  switch (runtime) {
    case "node":
      return [join(bin, "tsx"), [file]];
    case "deno":
      return [join(bin, "deno"), ["run", "-A", "--v8-flags=--expose-gc", file]];
    case "bun":
      return [join(bin, "bun"), [file]];
  }
}

function version(runtime: Runtime): string {
  if (runtime === "node") return process.version;
  const [cmd, flag] = runtime === "deno" ? [join(bin, "deno"), "--version"] : [
    join(bin, "bun"),
    "--version",
  ];
  return execFileSync(cmd, [flag], { encoding: "utf8" }).split("\n")[0]!.trim();
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${
  (totalmem() / 2 ** 30).toFixed(0)
} GiB, ${type()} ${release()}`;
mkdirSync(outDir, { recursive: true });
const started = Date.now();

for (const runtime of runtimes) {
  const file = join(outDir, `${runtime}.json`);
  const previous: ResultsFile | undefined = existsSync(file)
    ? JSON.parse(readFileSync(file, "utf8"))
    : undefined;
  const names = benches.map((b) => b.replace(/_bench\.ts$/, ""));
  // Rows of benches not run this time are kept.
  const rows: Row[] = (previous?.rows ?? []).filter((r) => !names.includes(r.bench));
  for (const bench of benches) {
    const out = join(tmpdir(), `skillset-bench-${process.pid}-${runtime}-${bench}.jsonl`);
    rmSync(out, { force: true });
    const [cmd, cmdArgs] = command(runtime, join("bench", bench));
    console.log(`=== ${bench}: ${runtime}`);
    const t0 = Date.now();
    const result = spawnSync(cmd, cmdArgs, {
      cwd: root,
      stdio: "inherit",
      env: {
        ...process.env,
        BENCH_OUT: out,
        BENCH_QUICK: quick ? "1" : "0",
        NODE_OPTIONS: `${process.env["NODE_OPTIONS"] ?? ""} --expose-gc`.trim(),
      },
    });
    console.log(`=== ${bench}: ${runtime} took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    if (result.status !== 0) {
      throw new Error(`${bench} failed on ${runtime} (exit ${result.status})`);
    }
    if (existsSync(out)) {
      for (const line of readFileSync(out, "utf8").split("\n")) {
        if (line !== "") rows.push(JSON.parse(line) as Row);
      }
      rmSync(out);
    }
  }
  const results: ResultsFile = {
    runtime,
    version: version(runtime),
    date: new Date().toISOString(),
    machine,
    quick,
    rows,
  };
  writeFileSync(file, JSON.stringify(results, null, 2) + "\n");
}

const files = RUNTIMES.map((r) => join(outDir, `${r}.json`)).filter((f) => existsSync(f));
const all = files.map((f) => JSON.parse(readFileSync(f, "utf8")) as ResultsFile);
const elapsed = (Date.now() - started) / 1000;
const report = quick ? join(outDir, "RESULTS.md") : join(root, "bench", "RESULTS.md");
writeReport(all, report, join(outDir, "plots"), {
  quick,
  elapsedSeconds: elapsed,
  only: filters,
});
// Written the way `deno fmt` (part of `npm test`) wants them.
execFileSync(join(bin, "deno"), ["fmt", "--quiet", report, join(outDir, "plots"), ...files], {
  stdio: "inherit",
});
console.log(`Wrote ${files.length} results files, ${report} and plots (${elapsed.toFixed(0)} s)`);
