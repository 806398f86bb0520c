/**
 * The tool policy with 50 active skills and 2,000 resolved tools: deciding
 * 1,000 tool calls on a compiled policy against a floor of one `Set.has` and
 * one prefix test per call, and compiling the policy against building a `Set`
 * of the same names, in the same process. A compiled policy keeps the
 * resolved sets (immutable `OrderedMap`s) and asks them when it first meets a
 * name, so compiling is O(skills + allowed-tools entries), not O(tools).
 * Run: `npm run bench -- tool_policy`.
 *
 * @module
 */
import { compileToolPolicy } from "../mod.ts";
import {
  active,
  CALLS,
  calls,
  input,
  known,
  policy,
  resolved,
  SKILLS,
  subjects,
  TOOLS_PER_SKILL,
} from "./_tool_policy_workload.ts";
import { timeGroup } from "./_harness.ts";
import {
  POLICY_COMPILE_CASE,
  POLICY_COMPILE_FLOOR,
  POLICY_COMPILE_WORKLOAD,
  POLICY_DECIDE_CASE,
  POLICY_DECIDE_FLOOR,
  POLICY_DECIDE_WORKLOAD,
} from "./_report.ts";

/**
 * Each timed run repeats its work, so a run takes milliseconds and the cases are
 * timed in interleaved rounds: on a loaded machine, load drifts alike for both.
 */
const DECIDE_REPEAT = 300;
const COMPILE_REPEAT = 100;

await timeGroup("tool_policy", POLICY_DECIDE_WORKLOAD, CALLS, [
  {
    name: POLICY_DECIDE_FLOOR,
    fn: () => {
      let n = 0;
      for (let r = 0; r < DECIDE_REPEAT; r++) {
        for (let k = 0; k < calls.length; k++) {
          if (known.has(calls[k]!.name)) n++;
          if (subjects[k]!.startsWith("git ")) n++;
        }
      }
      return n;
    },
    baseline: true,
  },
  {
    name: POLICY_DECIDE_CASE,
    fn: () => {
      let n = 0;
      for (let r = 0; r < DECIDE_REPEAT; r++) {
        for (let k = 0; k < calls.length; k++) {
          if (policy.decide(calls[k]!).verdict === "allow") n++;
        }
      }
      return n;
    },
  },
], { interleave: true });

await timeGroup("tool_policy", POLICY_COMPILE_WORKLOAD, SKILLS * TOOLS_PER_SKILL, [
  {
    name: POLICY_COMPILE_FLOOR,
    fn: () => {
      let sets = 0;
      for (let r = 0; r < COMPILE_REPEAT; r++) {
        const names = new Set<string>();
        for (const s of active) {
          for (const k of resolved.get(s.name)!.keys()) names.add(k);
          for (const t of s.allowed_tools.split(/[\s,]+/)) names.add(t);
        }
        sets += names.size;
      }
      return sets;
    },
    baseline: true,
  },
  {
    name: POLICY_COMPILE_CASE,
    fn: () => {
      let policies = 0;
      for (let r = 0; r < COMPILE_REPEAT; r++) policies += compileToolPolicy(input).skills.length;
      return policies;
    },
  },
], { interleave: true });
