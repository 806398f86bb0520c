/**
 * Memory of resolving the 10^6 random DAG: the heap in use when resolveTools
 * returns (a full collection forced just before the call, none after — so it
 * holds the result and every transient still uncollected; a collection during
 * the call can only make it smaller than the true peak) and the heap the
 * result retains, against holding the same entries in a native Map.
 * Run: `npm run bench -- resolve_memory`.
 *
 * @module
 */
import { memoryUsage } from "node:process";
import { resolveTools } from "../mod.ts";
import { floorResolve } from "./_baselines.ts";
import { generate } from "./_graphs.ts";
import { collectGarbage, QUICK, recordValue } from "./_harness.ts";
import { MEMORY_BASELINE, MEMORY_CASE, MEMORY_WORKLOAD } from "./_report.ts";

const SIZE = QUICK ? 1e5 : 1e6;
const w = generate("random-dag", SIZE);

function heap(): number {
  return memoryUsage().heapUsed;
}

/**
 * Heap growth when `f` returns, and what its result retains after a
 * collection. Measured once per case: in a loop, an optimized frame may keep
 * the previous run's result alive in a stale slot and hide the next one.
 */
function measureHeap(
  f: () => { size: number },
): { atReturn: number; retained: number; keys: number } {
  collectGarbage();
  collectGarbage();
  const before = heap();
  let result: { size: number } | null = f();
  const atReturn = heap() - before;
  collectGarbage();
  const retained = heap() - before;
  const keys = result.size;
  result = null;
  return { atReturn, retained, keys };
}

const map = measureHeap(() => floorResolve(w.root, w.catalog));
const ours = measureHeap(() => resolveTools(w.root, w.catalog));
if (map.keys !== ours.keys) throw new Error("both should hold the same keys");

const row = (name: string, value: number, note: string) =>
  recordValue({
    bench: "resolve_memory",
    workload: MEMORY_WORKLOAD,
    size: SIZE,
    case: name,
    median: null,
    p75: null,
    p99: null,
    samples: 3,
    baseline: MEMORY_BASELINE,
    ratio: value / map.retained,
    value,
    note,
  });
row(MEMORY_BASELINE, map.retained, `${map.keys} entries, held after a collection`);
// Bun's heapUsed moves only at a collection: there the held size stands in for the peak.
if (ours.atReturn > 0) {
  row(MEMORY_CASE, ours.atReturn, "heap in use at return, no collection after the call");
} else {
  row(MEMORY_CASE, ours.retained, "heapUsed does not move between collections here: held size");
}
row("resolveTools (held)", ours.retained, "the result, held after a collection");
