/**
 * The decide target of `tool_policy_bench.ts` in CPU time, for a machine
 * other processes load (where wall time charges their time to whichever case
 * runs): the floor and `decide` of the same 1,000 calls in 25 alternating
 * rounds, each timed with `process.cpuUsage()`; prints the median ratio.
 * Run: `npx tsx bench/_tool_policy_cpu.ts`, `npx deno run -A bench/_tool_policy_cpu.ts`,
 * `npx bun bench/_tool_policy_cpu.ts`.
 *
 * @module
 */
import process from "node:process";
import { CALLS, calls, known, policy, subjects } from "./_tool_policy_workload.ts";

const REPEAT = 300;
const ROUNDS = 25;

function floor(): number {
  let n = 0;
  for (let r = 0; r < REPEAT; r++) {
    for (let k = 0; k < calls.length; k++) {
      if (known.has(calls[k]!.name)) n++;
      if (subjects[k]!.startsWith("git ")) n++;
    }
  }
  return n;
}

function decide(): number {
  let n = 0;
  for (let r = 0; r < REPEAT; r++) {
    for (let k = 0; k < calls.length; k++) if (policy.decide(calls[k]!).verdict === "allow") n++;
  }
  return n;
}

/** CPU time of one run, in µs. */
function cpu(run: () => number): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

const floors: number[] = [];
const decides: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  if (i % 2 === 0) {
    floors.push(cpu(floor));
    decides.push(cpu(decide));
  } else {
    decides.push(cpu(decide));
    floors.push(cpu(floor));
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const f = median(floors), d = median(decides);
console.log(
  `decide ${CALLS} calls ÷ floor, CPU time: ${(d / f).toFixed(2)}× (floor ${
    (f / 1000).toFixed(1)
  } ms, decide ${(d / 1000).toFixed(1)} ms for ${REPEAT} × ${CALLS} calls; ${
    (d * 1000 / REPEAT / CALLS).toFixed(0)
  } ns a call)`,
);
