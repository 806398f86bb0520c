/**
 * FROZEN: the ranker as it was before issue 30, kept only as the "old ranker" row of the
 * search evaluation (bench/search_eval). Not part of the library.
 *
 * A BM25 index over skills (name, description and, optionally, the
 * headings of each `SKILL.md`), for finding a skill the catalog could not
 * list. Pure and in memory; no dependency.
 *
 * Scoring is BM25F: for each query term `t` and skill `d`,
 * `idf(t) · tf / (k1 + tf)` with `tf = Σ_field boost · count / (1 − b + b · length / average length)`
 * and `idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))`. The statistics are
 * global to the index: `N` (the number of skills) and each field's average
 * length in terms; `df` (the skills holding the term) belongs to the term.
 * Fix `N` and the averages with `statistics` to make scores independent of
 * what else is indexed.
 *
 * | operation        | cost                                                 |
 * | ---------------- | ---------------------------------------------------- |
 * | createSkillIndex | O(total text) + O(n log n) to order the names        |
 * | searchSkills     | O(query) + O(postings of its terms · log limit)      |
 *
 * @module
 */
import { tokenize } from "./tokenize.ts";
import { stem } from "./stem.ts";
import { localizedDescription } from "../../../lib/core/catalog/skill_catalog.ts";
import { siftDown, siftUp } from "./_top_k.ts";

/** A skill as the index reads it: plain data, or a bundle (`createBundle`, `loadSkillFolder`). */
export type IndexableSkill =
  | {
    readonly name: string;
    readonly description: string;
    /** `description-<lang>` keys are the localised descriptions. */
    readonly metadata?: Readonly<Record<string, string>> | ReadonlyMap<string, string>;
    /** The headings of its SKILL.md, read when `headings` is on. */
    readonly headings?: readonly string[];
  }
  | {
    readonly name: string;
    readonly frontmatter: {
      readonly description: string;
      readonly metadata?: Readonly<Record<string, string>>;
    };
    /** The SKILL.md body, whose Markdown headings are read when `headings` is on. */
    readonly instructions: string;
  };

/** The global statistics of BM25: fixed, they make a skill's score independent of the others. */
export interface SkillIndexStatistics {
  /** The number of skills (N). */
  readonly skills: number;
  /** The average length in terms of each field. */
  readonly average_length: {
    readonly name: number;
    readonly description: number;
    readonly headings: number;
  };
}

/** Options of {@linkcode createSkillIndex}. */
export interface SkillIndexOptions {
  /** Index the headings of each SKILL.md too. Default false. */
  readonly headings?: boolean;
  /** A BCP 47 tag: index the `description-<lang>` metadata where a skill has it. */
  readonly lang?: string;
  /** Fixed global statistics instead of those of the skills indexed. */
  readonly statistics?: SkillIndexStatistics;
  /** Stem English terms ({@linkcode stem}) in the skills and the queries. Default true. */
  readonly stem?: boolean;
}

/** Options of {@linkcode searchSkills}. */
export interface SearchOptions {
  /** The most results; default 10. */
  readonly limit?: number;
}

/** One search result. */
export interface SkillSearchResult {
  /** The skill's name. */
  readonly name: string;
  /** The description, in the index's language where the skill has one. */
  readonly description: string;
  /** The BM25 score (0 for a name match with no term in common). */
  readonly score: number;
}

const NO_SKILLS: ReadonlySet<number> = new Set();

/** The default number of results of {@linkcode searchSkills}. */
export const DEFAULT_SEARCH_LIMIT = 10;

/** Saturation of term counts. */
const K1 = 1.2;
/** Length normalisation. */
const B = 0.75;
/** Weight of a term in the name, the description and a heading. */
const BOOST_NAME = 3;
const BOOST_DESCRIPTION = 1;
const BOOST_HEADINGS = 0.5;
/** The postings of every term, contiguous: term `t`'s are `[start[t], start[t + 1])`. */
interface Postings {
  readonly start: Int32Array;
  /** The skill of each posting. */
  readonly skill: Int32Array;
  /** Its BM25 weight before idf: tf / (k1 + tf), tf the boosted, length-normalised count. */
  readonly weight: Float64Array;
  /** Its counts in the name, the description and the headings (3 per posting). */
  readonly counts: Int32Array;
}

/**
 * An index built by {@linkcode createSkillIndex}. Immutable from outside;
 * `searchSkills` reuses private scratch space, so one search runs at a time
 * (as JavaScript runs it).
 */
export class SkillIndex {
  /** The global statistics the scores use. */
  readonly statistics: SkillIndexStatistics;
  /** How many skills are indexed (first of each name). */
  readonly size: number;
  readonly #names: readonly string[];
  readonly #descriptions: readonly string[];
  /** Term id by term as the tokenizer gives it, and by stem. */
  readonly #rawIds: ReadonlyMap<string, number>;
  readonly #stemIds: ReadonlyMap<string, number> | undefined;
  readonly #postings: Postings;
  /** Per term: its idf. */
  readonly #idf: Float64Array;
  /** Per skill: its place in the names' code-unit order (ties go to the lower). */
  readonly #order: Int32Array;
  readonly #byName: ReadonlyMap<string, number>;
  readonly #byFoldedName: ReadonlyMap<string, readonly number[]>;
  /** Scratch: each skill's score in this search (0 until touched: every weight is > 0). */
  readonly #scores: Float64Array;
  readonly #touched: Int32Array;
  readonly #tier: Uint8Array;
  readonly #heapSkill: Int32Array;
  readonly #heapScore: Float64Array;
  readonly #termMark: Uint8Array;

  /** @internal Use {@linkcode createSkillIndex}. */
  constructor(
    names: readonly string[],
    descriptions: readonly string[],
    rawIds: ReadonlyMap<string, number>,
    stemIds: ReadonlyMap<string, number> | undefined,
    postings: Postings,
    statistics: SkillIndexStatistics,
  ) {
    this.#names = names;
    this.#descriptions = descriptions;
    this.#rawIds = rawIds;
    this.#stemIds = stemIds;
    this.#postings = postings;
    this.statistics = statistics;
    this.size = names.length;
    const terms = postings.start.length - 1;
    this.#idf = new Float64Array(terms);
    for (let t = 0; t < terms; t++) {
      const df = postings.start[t + 1]! - postings.start[t]!;
      this.#idf[t] = Math.log(1 + (Math.max(statistics.skills, df) - df + 0.5) / (df + 0.5));
    }
    const sorted = names.map((_, i) => i).sort((a, b) =>
      names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0
    );
    this.#order = new Int32Array(names.length);
    sorted.forEach((skill, place) => (this.#order[skill] = place));
    const byName = new Map<string, number>();
    const folded = new Map<string, number[]>();
    names.forEach((name, i) => {
      byName.set(name, i);
      const key = fold(name);
      const list = folded.get(key);
      if (list === undefined) folded.set(key, [i]);
      else list.push(i);
    });
    this.#byName = byName;
    this.#byFoldedName = folded;
    this.#scores = new Float64Array(names.length);
    this.#touched = new Int32Array(names.length);
    this.#tier = new Uint8Array(names.length);
    this.#heapSkill = new Int32Array(names.length);
    this.#heapScore = new Float64Array(names.length);
    this.#termMark = new Uint8Array(terms);
    Object.freeze(this);
  }

  /** The term id of a query term, if the index has it. */
  #termId(term: string): number | undefined {
    return this.#rawIds.get(term) ?? this.#stemIds?.get(stem(term));
  }

  /**
   * The ranked results; see {@linkcode searchSkills}.
   *
   * @param query The query.
   * @param limit The most results (a whole number of at least 1).
   * @returns The results.
   */
  search(query: string, limit: number): readonly SkillSearchResult[] {
    const scores = this.#scores, touched = this.#touched, tier = this.#tier;
    const { start, skill, weight } = this.#postings;
    let count = 0;
    // Each term once, however often the query repeats it (marks cleared below).
    const done: number[] = [];
    const mark = this.#termMark;
    for (const term of tokenize(query)) {
      const id = this.#termId(term);
      if (id === undefined || mark[id] === 1) continue;
      mark[id] = 1;
      done.push(id);
      const idf = this.#idf[id]!;
      for (let p = start[id]!, end = start[id + 1]!; p < end; p++) {
        const d = skill[p]!;
        if (scores[d] === 0) touched[count++] = d;
        scores[d] = scores[d]! + idf * weight[p]!;
      }
    }
    for (const id of done) mark[id] = 0;
    // A skill whose name is the query comes first (tier 2), then one whose name
    // is the query lower-cased and trimmed (tier 1), then the rest by score.
    const named = this.#byFoldedName.get(fold(query));
    const exact = this.#byName.get(query);
    const tiered = named === undefined && exact === undefined
      ? NO_SKILLS
      : new Set(exact === undefined ? named : [...(named ?? []), exact]);
    for (const i of named ?? []) tier[i] = 1;
    if (exact !== undefined) tier[exact] = 2;
    const tieredScores = new Map<number, number>();
    for (const i of tiered) tieredScores.set(i, 0);
    // The best `limit` of the others, in a heap whose root is the worst kept; each
    // touched score is read and cleared for the next search in the same pass.
    const order = this.#order;
    const heapSkill = this.#heapSkill, heapScore = this.#heapScore;
    const capacity = limit < count ? limit : count;
    let size = 0;
    for (let k = 0; k < count; k++) {
      const d = touched[k]!;
      const score = scores[d]!;
      scores[d] = 0;
      if (tiered.size > 0 && tier[d] !== 0) {
        tieredScores.set(d, score);
        continue;
      }
      if (size < capacity) {
        heapSkill[size] = d;
        heapScore[size] = score;
        siftUp(heapSkill, heapScore, order, size++);
      } else if (
        score > heapScore[0]! || (score === heapScore[0]! && order[d]! < order[heapSkill[0]!]!)
      ) {
        heapSkill[0] = d;
        heapScore[0] = score;
        siftDown(heapSkill, heapScore, order, size);
      }
    }
    const ranked: { skill: number; score: number; tier: number }[] = [];
    for (const [d, score] of tieredScores) ranked.push({ skill: d, score, tier: tier[d]! });
    for (let k = 0; k < size; k++) {
      ranked.push({ skill: heapSkill[k]!, score: heapScore[k]!, tier: 0 });
    }
    for (const i of tiered) tier[i] = 0;
    ranked.sort((a, b) =>
      b.tier - a.tier || b.score - a.score || order[a.skill]! - order[b.skill]!
    );
    return Object.freeze(
      ranked.slice(0, limit).map((r) =>
        Object.freeze({
          name: this.#names[r.skill]!,
          description: this.#descriptions[r.skill]!,
          score: r.score,
        })
      ),
    );
  }

  /**
   * The floor of the performance target: find the query's terms and walk
   * their posting lists, summing the term counts (no scores, no ranking).
   *
   * @param query The query.
   * @returns The sum of the counts.
   */
  walkPostings(query: string): number {
    const { start, counts } = this.#postings;
    let sum = 0;
    for (const term of tokenize(query)) {
      const id = this.#termId(term);
      if (id === undefined) continue;
      for (let p = start[id]!, end = start[id + 1]!; p < end; p++) {
        sum += counts[3 * p]! + counts[3 * p + 1]! + counts[3 * p + 2]!;
      }
    }
    return sum;
  }
}

/**
 * Build a BM25 index over skills: the name (boosted ×3), the description (in
 * the language asked for, where the skill has one) and, with `headings`, the
 * headings of its SKILL.md (×0.5). Terms come from {@linkcode tokenize}, then
 * {@linkcode stem} unless `stem: false`. The first skill of each name is
 * indexed; later ones are ignored.
 *
 * @param skills The skills: `{ name, description, metadata?, headings? }` or bundles.
 * @param options Headings, language, stemming and fixed statistics.
 * @returns The index.
 * @throws {TypeError} When a skill has no string name and description.
 * @throws {RangeError} When `lang` is not a BCP 47 tag or `statistics` is not positive numbers.
 * @example
 * ```ts
 * import { createSkillIndex, searchSkills } from "./skill_index.ts";
 * import { assert } from "../_assert.ts";
 *
 * const index = createSkillIndex([
 *   { name: "pdf", description: "Fill in PDF forms and check every field" },
 *   { name: "csv", description: "Clean, join and sort CSV tables" },
 *   { name: "xlsx", description: "Read spreadsheets; export to CSV or PDF" },
 * ]);
 * assert.deepEqual(searchSkills(index, "join two csv files").map((r) => r.name), ["csv", "xlsx"]);
 * assert.equal(searchSkills(index, "pdf")[0]!.name, "pdf");
 * ```
 */
export function createSkillIndex(
  skills: Iterable<IndexableSkill>,
  options: SkillIndexOptions = {},
): SkillIndex {
  const headingsOn = options.headings === true;
  const stemming = options.stem !== false;
  const lang = options.lang;
  // A bad tag is refused even when no skill has localised descriptions.
  localizedDescription({ description: "" }, lang);
  const names: string[] = [];
  const descriptions: string[] = [];
  const seenNames = new Set<string>();
  /** Term id by raw term (each raw term stemmed once), and by stem. */
  const rawIds = new Map<string, number>();
  const stemIds = new Map<string, number>();
  // Pass 1: every skill's terms as ids, field by field, into one stream; per term its df.
  let stream = new Int32Array(1 << 16);
  let used = 0;
  const lengths: number[] = [];
  let df = new Int32Array(1024);
  let last = new Int32Array(1024).fill(-1);
  let terms = 0;
  const idOf = (term: string): number => {
    let id = rawIds.get(term);
    if (id !== undefined) return id;
    const key = stemming ? stem(term) : term;
    id = stemIds.get(key);
    if (id === undefined) {
      id = terms++;
      stemIds.set(key, id);
      if (id >= df.length) {
        const grownDf = new Int32Array(df.length * 2);
        grownDf.set(df);
        df = grownDf;
        const grownLast = new Int32Array(last.length * 2).fill(-1);
        grownLast.set(last);
        last = grownLast;
      }
    }
    rawIds.set(term, id);
    return id;
  };
  const add = (list: readonly string[], skill: number): void => {
    if (used + list.length > stream.length) {
      const grown = new Int32Array(Math.max(stream.length * 2, used + list.length));
      grown.set(stream.subarray(0, used));
      stream = grown;
    }
    for (const term of list) {
      const id = idOf(term);
      stream[used++] = id;
      if (last[id] !== skill) {
        last[id] = skill;
        df[id]!++;
      }
    }
  };
  for (const skill of skills) {
    const { name, description, metadata, headings } = readSkill(skill, headingsOn);
    if (seenNames.has(name)) continue;
    seenNames.add(name);
    const i = names.length;
    const shown = localizedDescription({ description, ...(metadata ? { metadata } : {}) }, lang);
    names.push(name);
    descriptions.push(shown);
    const nameTerms = tokenize(name);
    const descriptionTerms = tokenize(shown);
    const headingTerms: string[] = [];
    for (const h of headings) for (const t of tokenize(h)) headingTerms.push(t);
    add(nameTerms, i);
    add(descriptionTerms, i);
    add(headingTerms, i);
    lengths.push(nameTerms.length, descriptionTerms.length, headingTerms.length);
  }
  const statistics = options.statistics === undefined
    ? measured(names.length, lengths)
    : checkStatistics(options.statistics);
  // Pass 2: the postings, term by term in one array each, filled skill by skill.
  const start = new Int32Array(terms + 1);
  for (let t = 0; t < terms; t++) start[t + 1] = start[t]! + df[t]!;
  const total = start[terms]!;
  const skill = new Int32Array(total);
  const counts = new Int32Array(3 * total);
  const cursor = start.slice(0, terms);
  const at = last; // reused: where skill d's posting of term t is, while d is filled
  at.fill(-1);
  const { name: avgName, description: avgDescription, headings: avgHeadings } =
    statistics.average_length;
  const norm = new Float64Array(3);
  const weight = new Float64Array(total);
  let read = 0;
  for (let d = 0; d < names.length; d++) {
    const first = read;
    for (let field = 0; field < 3; field++) {
      const end = read + lengths[3 * d + field]!;
      for (; read < end; read++) {
        const id = stream[read]!;
        let p = at[id]!;
        if (p < 0 || skill[p] !== d) {
          p = cursor[id]!++;
          skill[p] = d;
          at[id] = p;
        }
        counts[3 * p + field]!++;
      }
    }
    norm[0] = BOOST_NAME / (1 - B + B * lengths[3 * d]! / (avgName || 1));
    norm[1] = BOOST_DESCRIPTION / (1 - B + B * lengths[3 * d + 1]! / (avgDescription || 1));
    norm[2] = BOOST_HEADINGS / (1 - B + B * lengths[3 * d + 2]! / (avgHeadings || 1));
    // Each of this skill's postings gets its weight once.
    for (let r = first; r < read; r++) {
      const p = at[stream[r]!]!;
      if (weight[p] !== 0) continue;
      const tf = norm[0]! * counts[3 * p]! + norm[1]! * counts[3 * p + 1]! +
        norm[2]! * counts[3 * p + 2]!;
      weight[p] = tf / (K1 + tf);
    }
  }
  return new SkillIndex(
    Object.freeze(names),
    Object.freeze(descriptions),
    rawIds,
    stemming ? stemIds : undefined,
    { start, skill, weight, counts },
    statistics,
  );
}

/**
 * The skills that best match a query, best first: a skill whose name is the
 * query comes first (then one whose name is the query lower-cased and
 * trimmed); the rest by BM25 score, ties by name (code-unit order). Skills
 * sharing no term with the query are not returned.
 *
 * @param index The index.
 * @param query Words of the task, or a skill's name.
 * @param options The most results (default 10).
 * @returns Frozen `{ name, description, score }` results.
 * @throws {RangeError} When `limit` is not a whole number of at least 1.
 * @example
 * ```ts
 * import { createSkillIndex, searchSkills } from "./skill_index.ts";
 * import { assert } from "../_assert.ts";
 *
 * const index = createSkillIndex([
 *   { name: "a-forms", description: "Forms, forms, forms" },
 *   { name: "forms", description: "Anything else" },
 * ]);
 * assert.equal(searchSkills(index, "forms")[0]!.name, "forms");
 * assert.equal(searchSkills(index, "forms", { limit: 1 }).length, 1);
 * assert.deepEqual(searchSkills(index, "nothing matches"), []);
 * ```
 */
export function searchSkills(
  index: SkillIndex,
  query: string,
  options: SearchOptions = {},
): readonly SkillSearchResult[] {
  if (!(index instanceof SkillIndex)) throw new TypeError("searchSkills needs a SkillIndex");
  if (typeof query !== "string") throw new TypeError("The query must be a string");
  const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`limit must be a whole number of at least 1, got ${String(limit)}`);
  }
  return index.search(query, limit);
}

function fold(name: string): string {
  return name.trim().toLowerCase();
}

function readSkill(
  skill: IndexableSkill,
  headingsOn: boolean,
): {
  name: string;
  description: string;
  metadata: Readonly<Record<string, string>> | ReadonlyMap<string, string> | undefined;
  headings: readonly string[];
} {
  if (typeof skill === "object" && skill !== null && typeof skill.name === "string") {
    if ("frontmatter" in skill && typeof skill.frontmatter?.description === "string") {
      return {
        name: skill.name,
        description: skill.frontmatter.description,
        metadata: skill.frontmatter.metadata,
        headings: headingsOn && typeof skill.instructions === "string"
          ? markdownHeadings(skill.instructions)
          : [],
      };
    }
    if ("description" in skill && typeof skill.description === "string") {
      const headings = headingsOn && Array.isArray(skill.headings)
        ? skill.headings.filter((h) => typeof h === "string")
        : [];
      return {
        name: skill.name,
        description: skill.description,
        metadata: skill.metadata,
        headings,
      };
    }
  }
  throw new TypeError("Each skill must have a string name and description (or be a bundle)");
}

/** The text of each ATX heading (`# …` to `###### …`) outside fenced code blocks. */
function markdownHeadings(markdown: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split(/\r?\n/)) {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (f !== undefined) {
      if (fence === undefined) fence = f[0]!.repeat(f.length);
      else if (f.startsWith(fence)) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const h = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$/.exec(line);
    if (h !== null && h[1] !== undefined && h[1] !== "") out.push(h[1]);
  }
  return out;
}

function measured(skills: number, lengths: readonly number[]): SkillIndexStatistics {
  let name = 0, description = 0, headings = 0;
  for (let i = 0; i < lengths.length; i += 3) {
    name += lengths[i]!;
    description += lengths[i + 1]!;
    headings += lengths[i + 2]!;
  }
  const n = Math.max(skills, 1);
  return Object.freeze({
    skills,
    average_length: Object.freeze({
      name: name / n,
      description: description / n,
      headings: headings / n,
    }),
  });
}

function checkStatistics(s: SkillIndexStatistics): SkillIndexStatistics {
  const a = s?.average_length;
  const ok = (v: unknown): boolean => typeof v === "number" && Number.isFinite(v) && v >= 0;
  if (!ok(s?.skills) || !ok(a?.name) || !ok(a?.description) || !ok(a?.headings)) {
    throw new RangeError(
      "statistics must be { skills, average_length: { name, description, headings } } of finite numbers of at least 0",
    );
  }
  return Object.freeze({
    skills: s.skills,
    average_length: Object.freeze({
      name: a.name,
      description: a.description,
      headings: a.headings,
    }),
  });
}
