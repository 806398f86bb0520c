/**
 * The skill author's kit (issue 43) at the size of a large library: 1,000
 * skills on disk, each with a SKILL.md body of about 2 KB and an
 * `evals/trigger-eval.json` of 20 queries (10 that should trigger it, 10 that
 * should not).
 *
 * - `skillset eval` of the folder (in process, as `main` runs it: discovery,
 *   the index with bodies, 20,000 routed queries, the confusable pairs, the
 *   JSON report) against a floor in the same run: discovery, the index and
 *   one `searchSkills` per query, nothing else. The claim is the absolute
 *   time (at most 10 s on Node); the ratio says what the report adds.
 * - The index of the discovered skills, whose bodies are read lazily from
 *   disk while it is built (`createSkillIndex(discovery.skills)`), against
 *   tokenizing the same names, descriptions and bodies already in memory.
 *   Each round discovers afresh (untimed), so every body is read from the
 *   file in the timed part. Wall time and CPU time are both recorded, and so is
 *   the CPU time of one `eval` run: the claims are on CPU time, which a
 *   shared machine's other tenants do not inflate (both are single-threaded,
 *   so on an idle core the wall time is the CPU time).
 *
 * Run: `npm run bench -- author_kit`.
 *
 * @module
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createSkillIndex, searchSkills, tokenize } from "../mod.ts";
import { discoverSkills } from "../lib/load.ts";
import { main } from "../lib/cli/main.ts";
import { collectGarbage, QUICK, recordValue, timeRounds } from "./_harness.ts";
import {
  EVAL_CASE,
  EVAL_CPU_CASE,
  EVAL_FLOOR,
  EVAL_WORKLOAD,
  LAZY_BUILD_CASE,
  LAZY_BUILD_CPU_CASE,
  LAZY_BUILD_CPU_FLOOR,
  LAZY_BUILD_FLOOR,
  LAZY_BUILD_WORKLOAD,
} from "./_report.ts";

const BENCH = "author_kit";
const SKILLS = QUICK ? 200 : 1000;
const QUERIES = 20;
const root = join(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");

// Real descriptions, recombined (as search_bench does): the four public collections' fixtures.
const fixtures = join(root, "tests", "fixtures", "skill_collections");
const descriptions: string[] = [];
for (const folder of readdirSync(fixtures).sort()) {
  if (folder.endsWith(".md")) continue;
  for (const s of JSON.parse(readFileSync(join(fixtures, folder, "skills.json"), "utf8"))) {
    descriptions.push((s as { description: string }).description.replace(/\s+/g, " ").trim());
  }
}
const pick = (i: number): string => descriptions[i % descriptions.length]!;
/** A query: five words of a description, from word `at`. */
const words = (text: string, at: number): string => {
  const list = text.split(" ").filter((w) => /^[\p{L}\p{N}-]+$/u.test(w));
  return list.slice(at % Math.max(1, list.length - 5)).slice(0, 5).join(" ") || text;
};

const temp = mkdtempSync(join(tmpdir(), "skillset-author-kit-"));
const folder = join(temp, "skills");
const texts: { name: string; description: string; body: string }[] = [];
const queries: string[] = [];
for (let i = 0; i < SKILLS; i++) {
  const name = `skill-${i}`;
  const description = `${pick(i)} ${pick(i * 7 + 3).slice(0, 120)}`.replace(/:/g, " -").trim()
    .slice(0, 1000);
  const lines: string[] = [];
  for (let j = 0; j < 10; j++) {
    if (j % 5 === 0) lines.push(`## ${words(pick(i * 31 + j * 17 + 5), j)}`);
    lines.push(pick(i * 31 + j * 17 + 5));
  }
  const body = `${lines.join("\n")}\n`;
  texts.push({ name, description, body });
  const cases = [];
  for (let k = 0; k < QUERIES; k++) {
    const mine = k < QUERIES / 2;
    const query = mine ? words(description, k * 3) : words(pick(i * 13 + k * 101 + 1), k);
    cases.push({ query, should_trigger: mine });
    queries.push(query);
  }
  mkdirSync(join(folder, name, "evals"), { recursive: true });
  writeFileSync(
    join(folder, name, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n${body}`,
  );
  writeFileSync(join(folder, name, "evals", "trigger-eval.json"), JSON.stringify(cases));
}

const quiet = { stdout: () => {}, stderr: () => {}, color: false };
const runEval = (): number => main(["eval", folder, "--json"], quiet, false);
const floorEval = (): number => {
  const found = discoverSkills([{ scope: "bench", path: folder }]);
  const index = createSkillIndex(found.skills);
  let n = 0;
  for (const q of queries) n += searchSkills(index, q).length;
  return n;
};
if (runEval() !== 0 && runEval() !== 1) throw new Error("skillset eval did not run");
await timeRounds(
  BENCH,
  EVAL_WORKLOAD,
  SKILLS,
  [{ name: EVAL_FLOOR, fn: floorEval }, { name: EVAL_CASE, fn: runEval }],
  QUICK ? 1 : 3,
);
// On a loaded machine wall time measures the load too: the CPU time of one run beside it.
{
  collectGarbage();
  const before = process.cpuUsage();
  runEval();
  const used = process.cpuUsage(before);
  recordValue({
    bench: BENCH,
    workload: EVAL_WORKLOAD,
    size: SKILLS,
    case: EVAL_CPU_CASE,
    median: null,
    p75: null,
    p99: null,
    samples: 1,
    baseline: null,
    ratio: null,
    value: (used.user + used.system) / 1e6,
    note: "seconds of CPU (user + system) of one run",
  });
}

// ---- the index with lazily read bodies ------------------------------------------------------

const tokenizeAll = (): number => {
  let n = 0;
  for (const s of texts) {
    n += tokenize(s.name).length + tokenize(s.description).length + tokenize(s.body).length;
  }
  return n;
};
const ROUNDS = QUICK ? 3 : 11;
// Wall time and CPU time of each run: on a shared machine the wall time of the case that reads
// 1,000 files measures the other tenants too (each read can lose the core); CPU time does not.
const times: [number[], number[]] = [[], []];
const cpu: [number[], number[]] = [[], []];
for (let round = -2; round < ROUNDS; round++) {
  const found = discoverSkills([{ scope: "bench", path: folder }]); // untimed: bodies read below
  const cases = [tokenizeAll, () => createSkillIndex(found.skills)];
  for (const k of round % 2 === 0 ? [0, 1] : [1, 0]) {
    collectGarbage();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    cases[k]!();
    const wall = (performance.now() - t0) * 1e6;
    const used = process.cpuUsage(c0);
    if (round >= 0) {
      times[k]!.push(wall);
      cpu[k]!.push((used.user + used.system) * 1e3);
    }
  }
}
const stats = (ts: readonly number[]) => {
  const s = [...ts].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.round(p * (s.length - 1)))]!;
  return { median: q(0.5), p75: q(0.75), p99: q(0.99), samples: s.length };
};
for (
  const [floorCase, ourCase, ts] of [
    [LAZY_BUILD_FLOOR, LAZY_BUILD_CASE, times],
    [LAZY_BUILD_CPU_FLOOR, LAZY_BUILD_CPU_CASE, cpu],
  ] as const
) {
  const floor = stats(ts[0]);
  const ours = stats(ts[1]);
  recordValue({
    bench: BENCH,
    workload: LAZY_BUILD_WORKLOAD,
    size: SKILLS,
    case: floorCase,
    ...floor,
    baseline: floorCase,
    ratio: 1,
  });
  recordValue({
    bench: BENCH,
    workload: LAZY_BUILD_WORKLOAD,
    size: SKILLS,
    case: ourCase,
    ...ours,
    baseline: floorCase,
    ratio: ours.median / floor.median,
  });
}

rmSync(temp, { recursive: true, force: true });
process.exitCode = 0;
