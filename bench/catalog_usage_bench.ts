/**
 * Usage ranking's cost on a large catalog: the `<available_skills>` block of
 * 10,000 skills in a 16,000-character budget, ranked by a usage log of
 * 100,000 activations (Zipf-like over the skills, spread over 90 days),
 * against the block as rendered today (given order, no rank), in the same
 * process. Cases: the rank precomputed (the catalog's own cost of a rank),
 * the rank tallied from the events in memory, and the rank read from the log
 * file (streamed, parsed, tallied). A second group reads the log alone: the
 * streamed, capped, checked tally against a floor that reads the whole file
 * and `JSON.parse`s each line. Run: `npm run bench -- catalog_usage`.
 *
 * @module
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ActivationEvent,
  activationEvent,
  fitSkillCatalog,
  formatActivationEvent,
  usageRank,
} from "../mod.ts";
import { tallyUsageLog } from "../lib/load.ts";
import { QUICK, timeGroup } from "./_harness.ts";

const SKILLS = QUICK ? 2_000 : 10_000;
const EVENTS = QUICK ? 20_000 : 100_000;
const BUDGET = 16_000;
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 1);

/** A small deterministic generator (mulberry32), so every run measures the same catalog. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const next = random(34);
const WORDS = [
  "fill",
  "PDF",
  "forms",
  "clean",
  "join",
  "CSV",
  "files",
  "write",
  "commit",
  "messages",
  "review",
  "changes",
  "deploy",
  "service",
  "query",
  "database",
  "render",
  "charts",
  "from",
  "data",
  "when",
  "the",
  "user",
  "asks",
  "to",
  "check",
  "every",
  "field",
  "and",
  "result",
];
const skills = Array.from({ length: SKILLS }, (_, i) => ({
  name: `skill-${i}`,
  description: Array.from(
    { length: 15 + Math.floor(next() * 25) },
    () => WORDS[Math.floor(next() * WORDS.length)]!,
  ).join(" "),
  location: `/srv/skills/skill-${i}/SKILL.md`,
}));
// Zipf-like: skill k is used in proportion to 1/(k+1), in a shuffled order of skills.
const shuffled = skills.map((s) => s.name).sort(() => next() - 0.5);
const weights = shuffled.map((_, k) => 1 / (k + 1));
const total = weights.reduce((a, b) => a + b, 0);
const cumulative: number[] = [];
weights.reduce((sum, w, k) => (cumulative[k] = sum + w / total), 0);
function pick(): string {
  const u = next();
  let low = 0, high = cumulative.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (cumulative[mid]! < u) low = mid + 1;
    else high = mid;
  }
  return shuffled[low]!;
}
const events: ActivationEvent[] = Array.from({ length: EVENTS }, () =>
  activationEvent(
    { name: pick(), origin: "local", trigger: next() < 0.9 ? "model" : "user" },
    NOW - Math.floor(next() * 90 * DAY),
  ));
const log = join(mkdtempSync(join(tmpdir(), "skillset-bench-usage-")), "usage.jsonl");
writeFileSync(log, events.map(formatActivationEvent).join(""));
const rank = usageRank(events, { now: NOW });

await timeGroup("catalog_usage", "catalog of 10,000 skills, 16,000-character budget", SKILLS, [
  {
    name: "today (given order)",
    baseline: true,
    fn: () => fitSkillCatalog(skills, { budget: BUDGET }),
  },
  { name: "usage rank, precomputed", fn: () => fitSkillCatalog(skills, { budget: BUDGET, rank }) },
  {
    name: "usage rank from 100,000 events in memory",
    fn: () => fitSkillCatalog(skills, { budget: BUDGET, rank: usageRank(events, { now: NOW }) }),
  },
  {
    name: "usage rank from the 100,000-line log file",
    fn: () =>
      fitSkillCatalog(skills, {
        budget: BUDGET,
        rank: tallyUsageLog(log, { now: NOW }).tally.rank(),
      }),
  },
], { interleave: true });

await timeGroup("catalog_usage", "reading a 100,000-line usage log", EVENTS, [
  {
    name: "floor: read whole, JSON.parse each line",
    baseline: true,
    fn: () => {
      let n = 0;
      for (const l of readFileSync(log, "utf8").split("\n")) {
        if (l !== "") {
          n += JSON.parse(l) ? 1 : 0;
        }
      }
      return n;
    },
  },
  { name: "tallyUsageLog", fn: () => tallyUsageLog(log, { now: NOW }).tally.events },
], { interleave: true });
