/**
 * resolveTools on every graph family at 10^3…10^6 declared tools, against, in
 * the same process: floor (a) (walk each reachable skill once, one plain entry
 * per declared tool in a native Map), floor (b) (no walk: the reachable
 * skills' declared tools into a Map), the same algorithm on Immutable.js
 * OrderedMap, and the naive reference (the seed's recursion) where it can
 * finish. Small extra ladders show the naive reference's blow-up.
 * Run: `npm run bench -- resolve`.
 *
 * @module
 */
import { resolveTools } from "../mod.ts";
import { referenceResolve } from "../lib/testing.ts";
import { floorDeclared, floorResolve, immutableResolve } from "./_baselines.ts";
import { FAMILIES, generate, includeDepth, naiveWrites, type Workload } from "./_graphs.ts";
import { type Case, QUICK, timeGroup } from "./_harness.ts";

const SIZES = QUICK ? [1e3, 1e4] : [1e3, 1e4, 1e5, 1e6];
/** Ladders small enough for the naive reference: 2^depth paths at depth 6…14. */
const NAIVE_LADDERS = QUICK ? [120, 200] : [120, 200, 280];
/** The most writes (or depth² path copying) the naive reference is given. */
const NAIVE_BUDGET = QUICK ? 3e6 : 2e7;

/** Why the naive reference is left out here, or `undefined` if it can run. */
function naiveSkip(w: Workload): string | undefined {
  const depth = includeDepth(w);
  if (depth > 2000) {
    return `recursion ${depth} skills deep: overflows the stack and copies paths in O(depth^2)`;
  }
  const writes = naiveWrites(w);
  if (writes + depth * depth > NAIVE_BUDGET) {
    return `would make ${
      writes === Infinity ? "over 2^53" : writes.toExponential(1)
    } writes (the budget is ${NAIVE_BUDGET.toExponential(0)})`;
  }
  return undefined;
}

function cases(w: Workload): Case[] {
  const lookup = (name: string) => w.catalog.get(name);
  const skip = naiveSkip(w);
  // Immutable.js takes about 8 s a run at 10^6 (27 s a family with its three runs and
  // collections): left out there, it keeps the full run under 20 minutes.
  const immutableSkip = w.size >= 1e6
    ? "left out at 10^6 (8 s a run), to keep the full run under 20 minutes; its ratio is at 10^3…10^5"
    : undefined;
  return [
    { name: "floor (a)", fn: () => floorResolve(w.root, w.catalog), baseline: true },
    { name: "floor (b)", fn: () => floorDeclared(w.reachable) },
    { name: "resolveTools", fn: () => resolveTools(w.root, w.catalog) },
    {
      name: "Immutable.js",
      fn: () => immutableResolve(w.root, w.catalog),
      ...(immutableSkip === undefined ? {} : { skip: immutableSkip }),
    },
    {
      name: "naive reference",
      fn: () => referenceResolve(w.root, lookup),
      ...(skip === undefined ? {} : { skip }),
    },
  ];
}

for (const size of NAIVE_LADDERS) {
  await timeGroup("resolve", "ladder", size, cases(generate("ladder", size)));
}
for (const family of FAMILIES) {
  for (const size of SIZES) {
    await timeGroup("resolve", family, size, cases(generate(family, size)));
  }
}
