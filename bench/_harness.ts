/**
 * The measuring side of every `bench/*_bench.ts`: cases grouped by workload
 * and size, each group timed in one process and one way — mitata's `measure`
 * when every case is fast, interleaved rounds with a collection before each
 * run when any case is slow (allocation-heavy) — ratios against the group's
 * baseline, rows appended to the file named by
 * `BENCH_OUT` (the runner, `bench/run.ts`, collects them). `BENCH_QUICK=1`
 * shrinks the time budget; each bench file shrinks its sizes.
 *
 * @module
 */
import { do_not_optimize, measure } from "mitata";
import { appendFileSync } from "node:fs";
import process from "node:process";

/** One measured (or skipped) case. */
export interface Row {
  readonly bench: string;
  readonly workload: string;
  /** The size on the workload's x axis (declared tools, files, bytes…). */
  readonly size: number;
  readonly case: string;
  /** Nanoseconds; `null` when skipped. */
  readonly median: number | null;
  readonly p75: number | null;
  readonly p99: number | null;
  readonly samples: number;
  /** The case this one is compared with, in the same group. */
  readonly baseline: string | null;
  /** median / the baseline's median. */
  readonly ratio: number | null;
  /** Why the case was not measured, or a note (e.g. bytes of heap). */
  readonly note?: string;
  /** Extra numbers (heap bytes…). */
  readonly value?: number;
}

/** A case of a group. */
export interface Case {
  readonly name: string;
  readonly fn: () => unknown;
  /** The group's baseline (exactly one per group). */
  readonly baseline?: boolean;
  /** When set, the case is not run and this says why. */
  readonly skip?: string;
}

/** True under `--quick`. */
export const QUICK: boolean = process.env["BENCH_QUICK"] === "1";

const OUT = process.env["BENCH_OUT"];

/**
 * Time each case of a group (one after another, same process) and record rows.
 *
 * @param bench The bench file's short name.
 * @param workload The workload (group) name.
 * @param size Its size.
 * @param cases The cases; one is the baseline.
 * @param options `interleave`: time every case in interleaved rounds with a
 *   collection before each run (for cases whose garbage would land on the next);
 *   `samples`: at least this many interleaved runs of each case (for ratios of
 *   cases of a tenth of a second, whose few default samples swing the median).
 * @returns The rows written.
 */
export async function timeGroup(
  bench: string,
  workload: string,
  size: number,
  cases: readonly Case[],
  options: { readonly interleave?: boolean; readonly samples?: number } = {},
): Promise<Row[]> {
  const base = cases.find((c) => c.baseline === true);
  const medians = new Map<string, { median: number; p75: number; p99: number; samples: number }>();
  const run = cases.filter((c) => c.skip === undefined);
  // One untimed run each: warms the JIT and sizes the budget.
  const once = new Map<Case, number>();
  for (const c of run) {
    collectGarbage();
    const t0 = performance.now();
    do_not_optimize(c.fn());
    let ms = performance.now() - t0;
    if (ms < 5 * SLOW_MS) {
      // A cold first run is slow for reasons of its own: size the budget on a second.
      const t1 = performance.now();
      do_not_optimize(c.fn());
      ms = performance.now() - t1;
    }
    once.set(c, ms);
  }
  // One method for the whole group, so a ratio never compares two ways of timing:
  // mitata's loop when every case is fast, interleaved rounds when any is slow.
  const interleave = options.interleave === true || options.samples !== undefined ||
    run.some((c) => once.get(c)! >= SLOW_MS);
  if (!interleave) {
    for (const c of run) {
      const stats = await measure(() => do_not_optimize(c.fn()), {
        min_samples: QUICK ? 5 : 9,
        min_cpu_time: (QUICK ? 30 : 250) * 1e6,
      });
      medians.set(c.name, {
        median: stats.p50,
        p75: stats.p75,
        p99: stats.p99,
        samples: stats.samples.length,
      });
    }
  } else {
    for (const [c, ts] of interleavedRounds(run, once, QUICK ? undefined : options.samples)) {
      ts.sort((a, b) => a - b);
      medians.set(c.name, {
        median: quantile(ts, 0.5),
        p75: quantile(ts, 0.75),
        p99: quantile(ts, 0.99),
        samples: ts.length,
      });
    }
  }
  const baseMedian = base === undefined ? undefined : medians.get(base.name)?.median;
  const rows: Row[] = cases.map((c) => {
    const m = medians.get(c.name);
    if (m === undefined) {
      return {
        bench,
        workload,
        size,
        case: c.name,
        median: null,
        p75: null,
        p99: null,
        samples: 0,
        baseline: base?.name ?? null,
        ratio: null,
        note: c.skip ?? "not run",
      };
    }
    return {
      bench,
      workload,
      size,
      case: c.name,
      ...m,
      baseline: base?.name ?? null,
      ratio: baseMedian === undefined ? null : m.median / baseMedian,
    };
  });
  for (const row of rows) print(row);
  record(rows);
  return rows;
}

/**
 * Record a row that is not a timing (a memory figure, a count).
 *
 * @param row The row.
 */
export function recordValue(row: Row): void {
  print(row);
  record([row]);
}

/**
 * Time asynchronous cases (a whole command each: seconds, not microseconds)
 * in interleaved rounds, the order alternating, after one warm-up run of
 * each (the page cache and the JIT); record each case's median against the
 * first case, the baseline.
 *
 * @param bench The bench's name (its results group).
 * @param workload The workload's name.
 * @param size Its size.
 * @param cases The cases, the baseline first.
 * @param rounds How many rounds.
 */
export async function timeRounds(
  bench: string,
  workload: string,
  size: number,
  cases: readonly { readonly name: string; readonly fn: () => unknown }[],
  rounds: number,
): Promise<void> {
  for (const c of cases) await c.fn();
  const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const c of round % 2 === 0 ? cases : [...cases].reverse()) {
      collectGarbage();
      const t0 = performance.now();
      await c.fn();
      times.get(c.name)!.push((performance.now() - t0) * 1e6);
    }
  }
  const stats = (ts: number[]) => {
    const s = [...ts].sort((a, b) => a - b);
    const q = (p: number) => {
      const at = p * (s.length - 1), lo = Math.floor(at), hi = Math.ceil(at);
      return s[lo]! + (s[hi]! - s[lo]!) * (at - lo);
    };
    return { median: q(0.5), p75: q(0.75), p99: q(0.99), samples: s.length };
  };
  const baseline = cases[0]!.name;
  const base = stats(times.get(baseline)!).median;
  for (const c of cases) {
    const m = stats(times.get(c.name)!);
    recordValue({ bench, workload, size, case: c.name, ...m, baseline, ratio: m.median / base });
  }
}

/** Cases slower than this (one run, in ms) are timed in interleaved rounds. */
const SLOW_MS = 10;

/** Time each case may take in a group (ms): it sets how many samples a case gets. */
const BUDGET_MS = QUICK ? 300 : 1000;
const MIN_SAMPLES = 3;
const MAX_SAMPLES = QUICK ? 7 : 21;

/**
 * Slow cases (allocation-heavy, GC-bound): rounds in which every case still
 * short of its samples runs once, a collection before each run, the order
 * alternating — so neither machine load nor another case's garbage is charged
 * to one case more than to another. A case gets as many samples as fit its
 * budget (3…21); past a second a run, JIT warm-up is noise, so it gets two
 * and its untimed run counts as a third.
 *
 * @returns Each case's times in nanoseconds.
 */
function interleavedRounds(
  run: readonly Case[],
  once: ReadonlyMap<Case, number>,
  least = MIN_SAMPLES,
): Map<Case, number[]> {
  // How many samples each case gets in all; past a second, the untimed run is the first of three.
  const wanted = new Map<Case, number>();
  const times = new Map<Case, number[]>();
  for (const c of run) {
    const ms = once.get(c)!;
    const n = Math.round(BUDGET_MS / Math.max(ms, 1e-3));
    wanted.set(c, Math.max(least, ms > 1000 ? 3 : Math.min(MAX_SAMPLES, Math.max(MIN_SAMPLES, n))));
    times.set(c, ms > 1000 ? [ms * 1e6] : []);
  }
  for (let round = 0;; round++) {
    const due = run.filter((c) => times.get(c)!.length < wanted.get(c)!);
    if (due.length === 0) return times;
    for (const c of round % 2 === 0 ? due : due.reverse()) {
      collectGarbage();
      const t0 = performance.now();
      do_not_optimize(c.fn());
      times.get(c)!.push((performance.now() - t0) * 1e6);
    }
  }
}

function quantile(sorted: readonly number[], q: number): number {
  // The median of an even count is the mean of the middle two.
  const at = q * (sorted.length - 1);
  const lo = Math.floor(at), hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

/** A full collection where the runtime offers one (Node and Deno with --expose-gc, Bun). */
export function collectGarbage(): void {
  const g = globalThis as { gc?: () => void; Bun?: { gc(force: boolean): void } };
  if (g.Bun !== undefined) g.Bun.gc(true);
  else g.gc?.();
}

function record(rows: readonly Row[]): void {
  if (OUT === undefined) return;
  appendFileSync(OUT, rows.map((r) => JSON.stringify(r) + "\n").join(""));
}

/** Human-readable time. */
export function formatTime(ns: number): string {
  if (ns < 1e3) return `${ns.toFixed(0)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(1)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toFixed(1)} ms`;
  return `${(ns / 1e9).toFixed(2)} s`;
}

function print(row: Row): void {
  const what = `${row.workload} @ ${row.size}: ${row.case}`;
  if (row.value !== undefined) {
    console.log(`${what}: ${row.value}${row.note === undefined ? "" : ` (${row.note})`}`);
  } else if (row.median === null) {
    console.log(`${what}: skipped — ${row.note}`);
  } else {
    const ratio = row.ratio === null ? "" : ` = ${row.ratio.toFixed(2)}x ${row.baseline}`;
    console.log(`${what}: ${formatTime(row.median)}${ratio} (${row.samples} samples)`);
  }
}
