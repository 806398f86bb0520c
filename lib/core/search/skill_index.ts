/**
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
import { localizedDescription } from "../skill_catalog.ts";

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
  readonly name: string;
  /** The description, in the index's language where the skill has one. */
  readonly description: string;
  /** The BM25 score (0 for a name match with no term in common). */
  readonly score: number;
}

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
/** Postings are stored as [skill, name count, description count, heading count]. */
const STRIDE = 4;

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
  readonly #postings: readonly Int32Array[];
  /** Per skill: 1 / (1 − b + b · length / average) for each field. */
  readonly #norm: Float64Array;
  /** Per skill: its place in the names' code-unit order (ties go to the lower). */
  readonly #order: Int32Array;
  readonly #byName: ReadonlyMap<string, number>;
  readonly #byFoldedName: ReadonlyMap<string, readonly number[]>;
  readonly #scores: Float64Array;
  readonly #touched: Int32Array;
  readonly #seen: Uint8Array;
  readonly #tier: Uint8Array;

  /** @internal Use {@linkcode createSkillIndex}. */
  constructor(
    names: readonly string[],
    descriptions: readonly string[],
    rawIds: ReadonlyMap<string, number>,
    stemIds: ReadonlyMap<string, number> | undefined,
    postings: readonly Int32Array[],
    norm: Float64Array,
    statistics: SkillIndexStatistics,
  ) {
    this.#names = names;
    this.#descriptions = descriptions;
    this.#rawIds = rawIds;
    this.#stemIds = stemIds;
    this.#postings = postings;
    this.#norm = norm;
    this.statistics = statistics;
    this.size = names.length;
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
    this.#seen = new Uint8Array(names.length);
    this.#tier = new Uint8Array(names.length);
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
    const scores = this.#scores, touched = this.#touched, seen = this.#seen, norm = this.#norm;
    const tier = this.#tier;
    let count = 0;
    // A skill whose name is the query comes first (tier 2), then one whose name
    // is the query lower-cased and trimmed (tier 1), then the rest by score.
    const named = this.#byFoldedName.get(fold(query)) ?? [];
    for (const i of named) tier[i] = 1;
    const exact = this.#byName.get(query);
    if (exact !== undefined) tier[exact] = 2;
    for (const i of exact === undefined ? named : [...named, exact]) {
      if (seen[i] === 1) continue;
      seen[i] = 1;
      scores[i] = 0;
      touched[count++] = i;
    }
    const { skills: total } = this.statistics;
    const done = new Set<number>();
    for (const term of tokenize(query)) {
      const id = this.#termId(term);
      if (id === undefined || done.has(id)) continue;
      done.add(id);
      const postings = this.#postings[id]!;
      const df = postings.length / STRIDE;
      const idf = Math.log(1 + (Math.max(total, df) - df + 0.5) / (df + 0.5));
      for (let p = 0; p < postings.length; p += STRIDE) {
        const d = postings[p]!;
        const tf = BOOST_NAME * postings[p + 1]! * norm[3 * d]! +
          BOOST_DESCRIPTION * postings[p + 2]! * norm[3 * d + 1]! +
          BOOST_HEADINGS * postings[p + 3]! * norm[3 * d + 2]!;
        const s = idf * tf / (K1 + tf);
        if (seen[d] === 0) {
          seen[d] = 1;
          scores[d] = s;
          touched[count++] = d;
        } else {
          scores[d] = scores[d]! + s;
        }
      }
    }
    // The best `limit` of the touched skills, in a heap whose root is the worst kept.
    const order = this.#order;
    const better = (a: number, b: number): boolean => {
      if (tier[a] !== tier[b]) return tier[a]! > tier[b]!;
      if (scores[a] !== scores[b]) return scores[a]! > scores[b]!;
      return order[a]! < order[b]!;
    };
    const heap: number[] = [];
    // The worst kept, to pass over most skills with one comparison once the heap is full.
    let worstTier = -1, worstScore = -Infinity;
    for (let k = 0; k < count; k++) {
      const d = touched[k]!;
      seen[d] = 0;
      if (heap.length < limit) {
        heap.push(d);
        siftUp(heap, heap.length - 1, better);
        if (heap.length === limit) [worstTier, worstScore] = [tier[heap[0]!]!, scores[heap[0]!]!];
      } else if (
        tier[d]! > worstTier || (tier[d] === worstTier && scores[d]! >= worstScore) &&
          better(d, heap[0]!)
      ) {
        heap[0] = d;
        siftDown(heap, better);
        [worstTier, worstScore] = [tier[heap[0]!]!, scores[heap[0]!]!];
      }
    }
    heap.sort((a, b) => (better(a, b) ? -1 : 1));
    const results = heap.map((d) =>
      Object.freeze({
        name: this.#names[d]!,
        description: this.#descriptions[d]!,
        score: scores[d]!,
      })
    );
    for (const i of named) tier[i] = 0;
    if (exact !== undefined) tier[exact] = 0;
    return Object.freeze(results);
  }

  /**
   * The floor of the performance target: find the query's terms and walk
   * their posting lists, summing the term counts (no scores, no ranking).
   *
   * @param query The query.
   * @returns The sum of the counts.
   */
  walkPostings(query: string): number {
    let sum = 0;
    for (const term of tokenize(query)) {
      const id = this.#termId(term);
      if (id === undefined) continue;
      const postings = this.#postings[id]!;
      for (let p = 0; p < postings.length; p += STRIDE) {
        sum += postings[p + 1]! + postings[p + 2]! + postings[p + 3]!;
      }
    }
    return sum;
  }
}

/**
 * Build a BM25 index over skills: the name (boosted ×3), the description (in
 * the language asked for, where the skill has one) and, with `headings`, the
 * headings of its SKILL.md (×0.5). Terms come from {@linkcode tokenize}. The
 * first skill of each name is indexed; later ones are ignored.
 *
 * @param skills The skills: `{ name, description, metadata?, headings? }` or bundles.
 * @param options Headings, language and fixed statistics.
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
  const lengths: number[] = [];
  const seenNames = new Set<string>();
  /** Term id by raw term (each raw term stemmed once), and by stem. */
  const rawIds = new Map<string, number>();
  const stemIds = new Map<string, number>();
  const lists: number[][] = [];
  // Per term: the last skill that added a posting, and where that posting is.
  let lastSkill: Int32Array = new Int32Array(1024).fill(-1);
  let lastAt: Int32Array = new Int32Array(1024);
  const add = (terms: readonly string[], skill: number, field: number): void => {
    for (const term of terms) {
      let id = rawIds.get(term);
      if (id === undefined) {
        const key = stemming ? stem(term) : term;
        id = stemIds.get(key);
        if (id === undefined) {
          id = lists.length;
          stemIds.set(key, id);
          lists.push([]);
        }
        rawIds.set(term, id);
        if (id >= lastSkill.length) {
          const grownSkill = new Int32Array(lastSkill.length * 2).fill(-1);
          grownSkill.set(lastSkill);
          lastSkill = grownSkill;
          const grownAt = new Int32Array(lastAt.length * 2);
          grownAt.set(lastAt);
          lastAt = grownAt;
        }
      }
      const list = lists[id]!;
      if (lastSkill[id] !== skill) {
        lastSkill[id] = skill;
        lastAt[id] = list.length;
        list.push(skill, 0, 0, 0);
      }
      list[lastAt[id]! + 1 + field]!++;
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
    let headingTerms: string[] = [];
    for (const h of headings) headingTerms = headingTerms.concat(tokenize(h));
    add(nameTerms, i, 0);
    add(descriptionTerms, i, 1);
    add(headingTerms, i, 2);
    lengths.push(nameTerms.length, descriptionTerms.length, headingTerms.length);
  }
  const statistics = options.statistics === undefined
    ? measured(names.length, lengths)
    : checkStatistics(options.statistics);
  const { name: avgName, description: avgDescription, headings: avgHeadings } =
    statistics.average_length;
  const norm = new Float64Array(lengths.length);
  for (let i = 0; i < lengths.length; i += 3) {
    norm[i] = 1 / (1 - B + B * lengths[i]! / (avgName || 1));
    norm[i + 1] = 1 / (1 - B + B * lengths[i + 1]! / (avgDescription || 1));
    norm[i + 2] = 1 / (1 - B + B * lengths[i + 2]! / (avgHeadings || 1));
  }
  return new SkillIndex(
    Object.freeze(names),
    Object.freeze(descriptions),
    rawIds,
    stemming ? stemIds : undefined,
    lists.map((list) => Int32Array.from(list)),
    norm,
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

function siftUp(heap: number[], at: number, better: (a: number, b: number) => boolean): void {
  // The root is the worst kept: a child is never worse than its parent.
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (!better(heap[parent]!, heap[at]!)) break;
    [heap[parent], heap[at]] = [heap[at]!, heap[parent]!];
    at = parent;
  }
}

function siftDown(heap: number[], better: (a: number, b: number) => boolean): void {
  let at = 0;
  for (;;) {
    const l = 2 * at + 1, r = l + 1;
    let worst = at;
    if (l < heap.length && better(heap[worst]!, heap[l]!)) worst = l;
    if (r < heap.length && better(heap[worst]!, heap[r]!)) worst = r;
    if (worst === at) return;
    [heap[worst], heap[at]] = [heap[at]!, heap[worst]!];
    at = worst;
  }
}
