/**
 * The search evaluation on user-phrased requests (`requests.json`): recall@1,
 * recall@5 and MRR of `searchSkills` (name, description, headings and body),
 * of the ranker before issue 30 (names and descriptions, frozen in
 * `_old_ranker/`) and of a substring baseline, per split, per collection and
 * per class of request. Each collection is its own library.
 *
 * The collections are read from the folder in `SKILLSET_SEARCH_EVAL` (or the
 * first argument), one `OWNER+NAME.json` each, made by `prepare.ts`.
 *
 * Run: `SKILLSET_SEARCH_EVAL=DIR node --import tsx bench/search_eval/evaluate.ts [--split tune|eval] [--misses]`
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createSkillIndex, searchSkills, tokenize } from "../../mod.ts";
import {
  createSkillIndex as createOldIndex,
  searchSkills as searchOld,
} from "./_old_ranker/skill_index.ts";

/** One request of the evaluation. */
export interface EvalRequest {
  readonly query: string;
  /** `nomatch`: no skill of the collection serves it (`accept` is empty). */
  readonly class: "plain" | "language" | "typo" | "nomatch";
  readonly collection: string;
  readonly accept: readonly string[];
  readonly split: "tune" | "eval";
  /** Who wrote it, when not the ranker's author (such requests are all in the eval split). */
  readonly author?: string;
}

/** One skill of a collection file. */
export interface EvalSkill {
  readonly name: string;
  readonly description: string;
  readonly metadata?: Record<string, string>;
  readonly body: string;
}

/** Recall@1, recall@5 and MRR over some requests. */
export interface Quality {
  readonly n: number;
  readonly recall1: number;
  readonly recall5: number;
  readonly mrr: number;
}

const here = import.meta.dirname ?? new URL(".", import.meta.url).pathname;

/** The committed requests and collection list. */
export function loadRequests(): {
  collections: { source: string; commit: string; skills: number }[];
  requests: EvalRequest[];
} {
  return JSON.parse(readFileSync(join(here, "requests.json"), "utf8"));
}

/** The collections' skills by source, or undefined when the folder is not there. */
export function loadCollections(
  dir: string | undefined,
  sources: readonly string[],
): Map<string, EvalSkill[]> | undefined {
  if (dir === undefined || dir === "") return undefined;
  const out = new Map<string, EvalSkill[]>();
  for (const source of sources) {
    const file = join(dir, `${source.replace("/", "+")}.json`);
    if (!existsSync(file)) return undefined;
    out.set(source, JSON.parse(readFileSync(file, "utf8")).skills as EvalSkill[]);
  }
  return out;
}

/** A ranking: the best names first. */
export type Ranking = (query: string) => readonly string[];

/** The rankers compared, each built for one collection. */
export const RANKERS: readonly [string, (skills: readonly EvalSkill[]) => Ranking][] = [
  ["searchSkills (bodies)", (skills) => {
    const index = createSkillIndex(skills);
    return (q) => searchSkills(index, q).map((r) => r.name);
  }],
  ["searchSkills (bodies, no threshold)", (skills) => {
    const index = createSkillIndex(skills);
    return (q) => searchSkills(index, q, { threshold: false }).map((r) => r.name);
  }],
  ["searchSkills (no bodies)", (skills) => {
    const index = createSkillIndex(skills.map(({ name, description, metadata }) => ({
      name,
      description,
      ...(metadata === undefined ? {} : { metadata }),
    })));
    return (q) => searchSkills(index, q).map((r) => r.name);
  }],
  ["old ranker", (skills) => {
    const index = createOldIndex(skills);
    return (q) => searchOld(index, q).map((r) => r.name);
  }],
  ["substring baseline", substringRanking],
];

/** Skills ranked by how many query words occur as substrings of name + description. */
export function substringRanking(skills: readonly EvalSkill[]): Ranking {
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

/** The rank (0-based) of the first acceptable skill, or -1. */
export function firstHit(ranked: readonly string[], accept: readonly string[]): number {
  return ranked.findIndex((n) => accept.includes(n));
}

/** Recall@1, recall@5 and MRR of the ranks (-1: not found). */
export function quality(ranks: readonly number[]): Quality {
  let r1 = 0, r5 = 0, rr = 0;
  for (const at of ranks) {
    if (at === 0) r1++;
    if (at >= 0 && at < 5) r5++;
    if (at >= 0) rr += 1 / (at + 1);
  }
  const n = Math.max(ranks.length, 1);
  return { n: ranks.length, recall1: r1 / n, recall5: r5 / n, mrr: rr / n };
}

/**
 * Per ranker, per request: the rank of its first acceptable skill (-1: not
 * found), or for a `nomatch` request -2 when the ranker returned nothing and
 * -1 when it returned something.
 */
export function evaluate(
  requests: readonly EvalRequest[],
  collections: ReadonlyMap<string, readonly EvalSkill[]>,
): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const [name, build] of RANKERS) {
    const rankings = new Map<string, Ranking>();
    for (const [source, skills] of collections) rankings.set(source, build(skills));
    out.set(
      name,
      requests.map((r) => {
        const ranked = rankings.get(r.collection)!(r.query);
        if (r.class === "nomatch") return ranked.length === 0 ? -2 : -1;
        return ranked.length === 0 ? -3 : firstHit(ranked, r.accept);
      }),
    );
  }
  return out;
}

/**
 * Per ranker: how it answers requests no skill serves. `said none` is the
 * share of `nomatch` requests answered with nothing (no-match recall);
 * `precision` the share of its empty answers that were `nomatch` requests;
 * `lost` the share of servable requests answered with nothing.
 */
export function noMatchTable(
  requests: readonly EvalRequest[],
  ranks: ReadonlyMap<string, readonly number[]>,
): string {
  const rows = [
    "| ranker | no-match requests | said none | no-match precision | servable requests lost |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const [name, all] of ranks) {
    let none = 0, said = 0, servable = 0, lost = 0;
    requests.forEach((r, i) => {
      if (r.class === "nomatch") {
        none++;
        if (all[i] === -2) said++;
      } else {
        servable++;
        if (all[i] === -3) lost++;
      }
    });
    const precision = said + lost === 0 ? 1 : said / (said + lost);
    rows.push(
      `| ${name} | ${none} | ${(said / Math.max(none, 1)).toFixed(2)} | ${precision.toFixed(2)} | ${
        (lost / Math.max(servable, 1)).toFixed(2)
      } |`,
    );
  }
  return rows.join("\n");
}

/** A Markdown table: per group of requests, each ranker's recall@1, recall@5 and MRR. */
export function table(
  requests: readonly EvalRequest[],
  ranks: ReadonlyMap<string, readonly number[]>,
  groupOf: (r: EvalRequest) => string,
  title: string,
): string {
  const groups = [...new Set(requests.map(groupOf))];
  const rows = [
    `| ${title} | n | ranker | recall@1 | recall@5 | MRR |`,
    "| --- | --- | --- | --- | --- | --- |",
  ];
  for (const g of groups) {
    const at = requests.map((r, i) => (groupOf(r) === g && r.class !== "nomatch" ? i : -1))
      .filter((i) => i >= 0);
    if (at.length === 0) continue;
    for (const [name, all] of ranks) {
      const q = quality(at.map((i) => all[i]!));
      rows.push(
        `| ${g} | ${q.n} | ${name} | ${q.recall1.toFixed(2)} | ${q.recall5.toFixed(2)} | ${
          q.mrr.toFixed(3)
        } |`,
      );
    }
  }
  return rows.join("\n");
}

if (process.argv[1]?.endsWith("evaluate.ts")) {
  const args = process.argv.slice(2);
  const dir = process.env["SKILLSET_SEARCH_EVAL"] ?? args.find((a) => !a.startsWith("--"));
  const split = args.includes("--split") ? args[args.indexOf("--split") + 1] : undefined;
  const { collections, requests } = loadRequests();
  const skills = loadCollections(dir, collections.map((c) => c.source));
  if (skills === undefined) {
    console.error("Set SKILLSET_SEARCH_EVAL to the folder prepare.ts wrote (see prepare.ts)");
    process.exit(2);
  }
  for (const s of split === undefined ? ["eval", "tune"] : [split]) {
    const chosen = requests.filter((r) => r.split === s);
    const ranks = evaluate(chosen, skills);
    console.log(`\n### ${s} split (${chosen.length} requests)\n`);
    console.log(table(chosen, ranks, () => "all", "requests"));
    console.log();
    console.log(table(chosen, ranks, (r) => r.collection, "collection"));
    console.log();
    console.log(table(chosen, ranks, (r) => r.class, "class"));
    console.log();
    console.log(table(chosen, ranks, (r) => r.author ?? "the ranker's author", "written by"));
    console.log();
    console.log(noMatchTable(chosen, ranks));
    if (args.includes("--misses") && s === "tune") {
      const mine = ranks.get(RANKERS[0]![0])!;
      const build = new Map([...skills].map(([src, list]) => [src, RANKERS[0]![1](list)]));
      chosen.forEach((r, i) => {
        if (mine[i]! >= 0 && mine[i]! < 1) return;
        console.log(
          `MISS@${mine[i]} [${r.class}] ${r.query} -> want ${r.accept.join(",")}; got ${
            build.get(r.collection)!(r.query).slice(0, 5).join(", ")
          }`,
        );
      });
    }
  }
}
