/**
 * Skill search: the quality of `searchSkills` on real collections, and its
 * cost on 10,000 skills against floors measured in the same run.
 *
 * - Evaluation: the 929 skills of the four collections in
 *   `tests/fixtures/skill_collections` (names and descriptions), 100 held-out
 *   queries (`bench/search_queries.json`, split "eval"; the 30 of split
 *   "tune" decide parameters such as stemming), one expected skill each:
 *   recall@1, recall@5 and MRR for the BM25 index (stemming on, the
 *   default), for the same index without stemming, and for a naive substring
 *   baseline.
 * - User-phrased requests (`search_eval/requests.json`), when the collections
 *   are in the folder `SKILLSET_SEARCH_EVAL` names (see `search_eval/prepare.ts`):
 *   recall@1, recall@5 and MRR per split, collection and class of request, for
 *   `searchSkills` with and without bodies, the ranker before issue 30 and the
 *   substring baseline.
 * - Cost: building the index of 10,000 skills with bodies (about 5 KB each,
 *   headings included) against tokenizing the same texts (the floor); a query's
 *   p99 against a floor that only walks the
 *   posting lists of the query's terms and sums their counts. Each query (the
 *   130 of `search_queries.json` and every user-phrased request) is timed in 25 interleaved rounds (batches of 20 runs, ours then
 *   the floor's), after one forced collection and none between rounds; a
 *   query's time is its median over the rounds, and the p99
 *   is over the queries (the p99 of every sample is in the note: on a loaded
 *   machine it measures the machine's pauses).
 *
 * Run: `npm run bench -- search`.
 *
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createSkillIndex, searchSkills, type SkillIndex, tokenize } from "../mod.ts";
import {
  evaluate,
  loadCollections,
  loadRequests,
  quality as userQuality,
  RANKERS,
} from "./search_eval/evaluate.ts";
import { collectGarbage, QUICK, recordValue, type Row } from "./_harness.ts";
import {
  SEARCH_BUILD_CASE,
  SEARCH_BUILD_FLOOR,
  SEARCH_EVAL_WORKLOAD,
  SEARCH_NOMATCH_WORKLOAD,
  SEARCH_QUERY_CASE,
  SEARCH_QUERY_FLOOR,
  SEARCH_QUERY_WORKLOAD,
  SEARCH_SCALE_WORKLOAD,
  SEARCH_USER_WORKLOAD,
} from "./_report.ts";

const root = join(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const BENCH = "search";

interface Skill {
  readonly name: string;
  readonly description: string;
}
interface Query {
  readonly query: string;
  readonly expected: string;
}

// ---- the evaluation ------------------------------------------------------------------------

const fixtures = join(root, "tests", "fixtures", "skill_collections");
const library: Skill[] = [];
const seen = new Set<string>();
for (const folder of readdirSync(fixtures).sort()) {
  if (folder.endsWith(".md")) continue;
  const skills = JSON.parse(readFileSync(join(fixtures, folder, "skills.json"), "utf8")) as Skill[];
  for (const s of skills) {
    if (seen.has(s.name)) continue;
    seen.add(s.name);
    library.push(s);
  }
}
const queries = JSON.parse(readFileSync(join(root, "bench", "search_queries.json"), "utf8")) as {
  tune: Query[];
  eval: Query[];
};

/** The naive baseline: skills ranked by how many query terms occur as substrings of name + description. */
function substringRanking(skills: readonly Skill[]): (query: string) => string[] {
  const texts = skills.map((s) => `${s.name} ${s.description}`.toLowerCase());
  return (query) => {
    const words = [...new Set(tokenize(query))];
    const scored: { name: string; hits: number }[] = [];
    skills.forEach((s, i) => {
      let hits = 0;
      for (const w of words) if (texts[i]!.includes(w)) hits++;
      if (hits > 0) scored.push({ name: s.name, hits });
    });
    scored.sort((a, b) => b.hits - a.hits || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return scored.slice(0, 10).map((s) => s.name);
  };
}

interface Quality {
  readonly recall1: number;
  readonly recall5: number;
  readonly mrr: number;
}

function quality(ranking: (query: string) => string[], set: readonly Query[]): Quality {
  let r1 = 0, r5 = 0, rr = 0;
  for (const q of set) {
    const at = ranking(q.query).indexOf(q.expected);
    if (at === 0) r1++;
    if (at >= 0 && at < 5) r5++;
    if (at >= 0) rr += 1 / (at + 1);
  }
  return { recall1: r1 / set.length, recall5: r5 / set.length, mrr: rr / set.length };
}

const stemmed = createSkillIndex(library);
const unstemmed = createSkillIndex(library, { stem: false });
const rankers: [string, (query: string) => string[]][] = [
  ["BM25 (searchSkills)", (q) => searchSkills(stemmed, q).map((r) => r.name)],
  ["BM25, no stemming", (q) => searchSkills(unstemmed, q).map((r) => r.name)],
  ["substring baseline", substringRanking(library)],
];
for (const [split, set] of [["eval", queries.eval], ["tune", queries.tune]] as const) {
  for (const [name, ranking] of rankers) {
    const q = quality(ranking, set);
    for (
      const [metric, value] of [["recall@1", q.recall1], ["recall@5", q.recall5], [
        "MRR",
        q.mrr,
      ]] as const
    ) {
      recordValue(
        valueRow(SEARCH_EVAL_WORKLOAD, set.length, `${name} ${metric} (${split})`, value),
      );
    }
  }
}

// ---- the user-phrased requests, when their collections are here ----------------------------

const userSet = loadRequests();
const collections = loadCollections(
  process.env["SKILLSET_SEARCH_EVAL"],
  userSet.collections.map((c) => c.source),
);
if (collections === undefined) {
  console.log(
    "(user-phrased evaluation skipped: set SKILLSET_SEARCH_EVAL, see search_eval/prepare.ts)",
  );
} else {
  for (const split of ["eval", "tune"] as const) {
    const chosen = userSet.requests.filter((r) => r.split === split);
    const ranks = evaluate(chosen, collections);
    const groups: [string, (r: (typeof chosen)[number]) => boolean][] = [
      ["all", () => true],
      ...userSet.collections.map((c) =>
        [c.source, (r: (typeof chosen)[number]) => r.collection === c.source] as [
          string,
          (r: (typeof chosen)[number]) => boolean,
        ]
      ),
      ...["plain", "language", "typo"].map((k) =>
        [k, (r: (typeof chosen)[number]) => r.class === k] as [
          string,
          (r: (typeof chosen)[number]) => boolean,
        ]
      ),
    ];
    for (const [group, inGroup] of groups) {
      // Recall and MRR are over requests some skill serves; the others are counted below.
      const at = chosen.map((r, i) => (inGroup(r) && r.class !== "nomatch" ? i : -1))
        .filter((i) => i >= 0);
      for (const [ranker] of RANKERS) {
        const q = userQuality(at.map((i) => ranks.get(ranker)![i]!));
        for (
          const [metric, value] of [["recall@1", q.recall1], ["recall@5", q.recall5], [
            "MRR",
            q.mrr,
          ]] as const
        ) {
          recordValue(
            valueRow(SEARCH_USER_WORKLOAD, q.n, `${ranker} ${metric} (${split}, ${group})`, value),
          );
        }
      }
    }
    // Requests no skill serves: the share answered with nothing, the share of empty answers
    // that were such requests (no-match precision), the share of servable ones answered empty.
    const none = chosen.filter((r) => r.class === "nomatch").length;
    for (const [ranker] of RANKERS) {
      const all = ranks.get(ranker)!;
      let said = 0, lost = 0;
      chosen.forEach((r, i) => {
        if (r.class === "nomatch") {
          if (all[i] === -2) said++;
        } else if (all[i] === -3) lost++;
      });
      for (
        const [metric, value] of [
          ["said none", said / Math.max(none, 1)],
          ["no-match precision", said + lost === 0 ? 1 : said / (said + lost)],
          ["servable lost", lost / Math.max(chosen.length - none, 1)],
        ] as const
      ) {
        recordValue(
          valueRow(SEARCH_NOMATCH_WORKLOAD, none, `${ranker} ${metric} (${split})`, value),
        );
      }
    }
  }
}

// ---- the cost, on 10,000 skills -------------------------------------------------------------

const SKILLS = QUICK ? 2000 : 10_000;
/**
 * Real descriptions, recombined: each synthetic skill joins two library descriptions, and its
 * body is 24 more under a heading every sixth (about 5 KB, as a SKILL.md body).
 */
const big: (Skill & { body: string })[] = [];
for (let i = 0; i < SKILLS; i++) {
  const a = library[i % library.length]!;
  const b = library[(i * 7 + 3) % library.length]!;
  const lines: string[] = [];
  for (let j = 0; j < 24; j++) {
    const c = library[(i * 31 + j * 17 + 5) % library.length]!;
    if (j % 6 === 0) lines.push(`## ${c.name.replace(/-/g, " ")}`);
    lines.push(c.description);
  }
  big.push({
    name: `${a.name}-${i}`,
    description: `${a.description} ${b.description.slice(0, 120)}`,
    body: lines.join("\n"),
  });
}

const tokenizeAll = (): number => {
  let n = 0;
  for (const s of big) {
    n += tokenize(s.name).length + tokenize(s.description).length + tokenize(s.body).length;
  }
  return n;
};
// Warm both up first: a run takes about a second, and the harness counts the first
// run of so slow a case as a sample, which on a JIT that tiers up late is a cold one.
for (let i = 0; i < 3; i++) {
  tokenizeAll();
  createSkillIndex(big);
}
// Interleaved rounds (a collection before each run, the order alternating), more of them
// than the harness gives a case this slow, so that a loaded machine's pauses fall on both.
const BUILD_ROUNDS = QUICK ? 3 : 11;
const buildTimes: [number[], number[]] = [[], []];
for (let round = 0; round < BUILD_ROUNDS; round++) {
  const cases = [tokenizeAll, () => createSkillIndex(big)];
  for (const k of round % 2 === 0 ? [0, 1] : [1, 0]) {
    collectGarbage();
    const t0 = performance.now();
    cases[k]!();
    buildTimes[k]!.push((performance.now() - t0) * 1e6);
  }
}
const buildStats = (ts: readonly number[]) => ({
  median: quantileOf(ts, 0.5),
  p75: quantileOf(ts, 0.75),
  p99: quantileOf(ts, 0.99),
  samples: ts.length,
});
const floorBuild = buildStats(buildTimes[0]);
const ourBuild = buildStats(buildTimes[1]);
recordValue({
  bench: BENCH,
  workload: SEARCH_SCALE_WORKLOAD,
  size: SKILLS,
  case: SEARCH_BUILD_FLOOR,
  ...floorBuild,
  baseline: SEARCH_BUILD_FLOOR,
  ratio: 1,
});
recordValue({
  bench: BENCH,
  workload: SEARCH_SCALE_WORKLOAD,
  size: SKILLS,
  case: SEARCH_BUILD_CASE,
  ...ourBuild,
  baseline: SEARCH_BUILD_FLOOR,
  ratio: ourBuild.median / floorBuild.median,
});

const index: SkillIndex = createSkillIndex(big);
const texts = [
  ...[...queries.tune, ...queries.eval].map((q) => q.query),
  ...userSet.requests.map((r) => r.query),
];
/**
 * Per query, the time of one run (a batch of `REPEAT`, divided), sampled in
 * interleaved rounds: ours and the floor alternate, so load is shared.
 */
const REPEAT = 20;
const ROUNDS = QUICK ? 5 : 25;
/** Per query, its times over the rounds (ns per run). */
const ours: number[][] = texts.map(() => []);
const floor: number[][] = texts.map(() => []);
let sink = 0;
for (let warm = 0; warm < 3; warm++) {
  for (const q of texts) {
    sink += searchSkills(index, q).length;
    sink += index.walkPostings(q);
  }
}
// One collection before the rounds, none between them: on Bun the queries right after a forced
// full collection run several times slower than the same queries a moment later (p99 ÷ floor 8.4
// with a collection before each round, 2.9 without, one quiet run each), which measures Bun's
// recovery from an event no host causes, not search.
collectGarbage();
for (let round = 0; round < ROUNDS; round++) {
  texts.forEach((q, i) => {
    let t0 = performance.now();
    for (let k = 0; k < REPEAT; k++) sink += searchSkills(index, q).length;
    const a = (performance.now() - t0) / REPEAT;
    t0 = performance.now();
    for (let k = 0; k < REPEAT; k++) sink += index.walkPostings(q);
    const b = (performance.now() - t0) / REPEAT;
    ours[i]!.push(a * 1e6);
    floor[i]!.push(b * 1e6);
  });
}
if (sink === 0) console.log("(nothing matched)");
const quantile = quantileOf;
/**
 * A query's time is its median over the rounds (a pause of the machine is not the
 * query's); the p99 is over the 130 queries, and so is the median.
 */
const stats = (perQuery: readonly number[][]) => {
  const medians = perQuery.map((ts) => quantile(ts, 0.5));
  const all = perQuery.flat();
  return {
    median: quantile(medians, 0.5),
    p75: quantile(medians, 0.75),
    p99: quantile(medians, 0.99),
    samples: all.length,
    rawP99: quantile(all, 0.99),
  };
};
const { rawP99: floorRaw, ...floorStats } = stats(floor);
const { rawP99: ourRaw, ...ourStats } = stats(ours);
recordValue({
  bench: BENCH,
  workload: SEARCH_QUERY_WORKLOAD,
  size: SKILLS,
  case: SEARCH_QUERY_FLOOR,
  ...floorStats,
  baseline: SEARCH_QUERY_FLOOR,
  ratio: 1,
  note: `p99 over queries ${floorStats.p99.toFixed(0)} ns; p99 of every sample ${
    floorRaw.toFixed(0)
  } ns`,
});
recordValue({
  bench: BENCH,
  workload: SEARCH_QUERY_WORKLOAD,
  size: SKILLS,
  case: SEARCH_QUERY_CASE,
  ...ourStats,
  baseline: SEARCH_QUERY_FLOOR,
  ratio: ourStats.median / floorStats.median,
  value: ourStats.p99 / floorStats.p99,
  note: `p99 over queries ${ourStats.p99.toFixed(0)} ns vs the floor's ${
    floorStats.p99.toFixed(0)
  } ns (value = their ratio); p99 of every sample ${ourRaw.toFixed(0)} vs ${
    floorRaw.toFixed(0)
  } ns`,
});

function quantileOf(ts: readonly number[], p: number): number {
  const sorted = [...ts].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.round(p * (sorted.length - 1)))]!;
}

function valueRow(workload: string, size: number, name: string, value: number): Row {
  return {
    bench: BENCH,
    workload,
    size,
    case: name,
    median: null,
    p75: null,
    p99: null,
    samples: 0,
    baseline: null,
    ratio: null,
    value,
  };
}
