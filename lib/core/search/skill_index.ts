/**
 * A BM25F index over skills, for finding a skill the catalog could not list:
 * the name, the description (with its `description-<lang>` translations), the
 * headings of each SKILL.md and its body (the first 32 KiB), each field with
 * its own weight and length normalisation. Pure and in memory; no dependency.
 *
 * For each query term `t` and skill `d`: `idf(t) · tf / (k1 + tf)` with
 * `tf = Σ_field w_field · count / (1 − b_field + b_field · length / average length)`
 * and `idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))`. A name word's weight is
 * scaled by its rarity among the library's names
 * (`ln(1 + N / names holding it) / ln(1 + N)`), so a family's shared word
 * (`automation` in `x-automation`) counts less than the word that tells the
 * skill apart. Fix `N` and the averages with `statistics` to make scores
 * independent of what else is indexed.
 *
 * Queries drop pronouns and filler; a query term the index lacks is read as
 * the nearest indexed word within an edit or two (`_fuzzy.ts`), unless it is
 * a known English word (`_english_words.ts`: "deck" stays "deck"). A term a
 * skill holds in its body alone weighs at most `BODY_ONLY_MAX` before idf, and
 * a search returns nothing when the best skill is no plausible fit
 * ({@linkcode NO_MATCH_THRESHOLD}). With an
 * `embed` function, lexical and vector rankings are fused (reciprocal rank
 * fusion); without one, or when it fails, search is lexical. Each result says
 * which query terms matched it, and in which fields.
 *
 * One file: build and search share the index's private layout (postings,
 * scratch arrays, the typo vocabulary), which no other module should see.
 *
 * | operation        | cost                                                    |
 * | ---------------- | ------------------------------------------------------- |
 * | createSkillIndex | O(total text, bodies bounded) + O(n log n) for the names |
 * | searchSkills     | O(query) + O(postings of its terms · log limit)         |
 *
 * Folder `lib/core/search/` — search over large libraries: the BM25F index and its text analysis.
 *
 * @module
 */
import { tokenize, tokenizeQuery } from "./tokenize.ts";
import { stem } from "./stem.ts";
import { siftDown, siftUp } from "./_top_k.ts";
import { FIELDS, readSkill, type SkillField, type SkillTexts } from "./_fields.ts";
import { isEnglishWord } from "./_english_words.ts";
import { groupOf, letterMask, nearestTerm, type TypoVocabulary } from "./_fuzzy.ts";
import { type EmbedFunction, embedTexts, fuse, nearest } from "./_fusion.ts";

export type { SkillField } from "./_fields.ts";
export type { EmbedFunction } from "./_fusion.ts";

/** A skill as the index reads it: plain data, or a bundle (`createBundle`, `loadSkillFolder`). */
export type IndexableSkill =
  | {
    readonly name: string;
    readonly description: string;
    /** `description-<lang>` keys are the localised descriptions (all are indexed). */
    readonly metadata?: Readonly<Record<string, string>> | ReadonlyMap<string, string>;
    /** The headings of its SKILL.md; read from `body` when absent. */
    readonly headings?: readonly string[];
    /** The SKILL.md body (its first 32 KiB are read). */
    readonly body?: string;
  }
  | {
    readonly name: string;
    readonly frontmatter: {
      readonly description: string;
      readonly metadata?: Readonly<Record<string, string>>;
    };
    /** The SKILL.md body: its headings and first 32 KiB are read. */
    readonly instructions: string;
  };

/** The global statistics of BM25: fixed, they make a skill's score independent of the others. */
export interface SkillIndexStatistics {
  /** The number of skills (N). */
  readonly skills: number;
  /** The average length in terms of each field (body: measured when left out). */
  readonly average_length: {
    readonly name: number;
    readonly description: number;
    readonly headings: number;
    readonly body?: number;
  };
}

/** Options of {@linkcode createSkillIndex}. */
export interface SkillIndexOptions {
  /** Index the headings of each SKILL.md. Default true. */
  readonly headings?: boolean;
  /** Index the SKILL.md body (its first 32 KiB). Default true. */
  readonly body?: boolean;
  /** A BCP 47 tag: show the `description-<lang>` metadata where a skill has it. */
  readonly lang?: string;
  /** Fixed global statistics instead of those of the skills indexed. */
  readonly statistics?: SkillIndexStatistics;
  /** Stem English terms ({@linkcode stem}) in the skills and the queries. Default true. */
  readonly stem?: boolean;
  /** Read a query term the index lacks as the nearest indexed word. Default true. */
  readonly typos?: boolean;
  /**
   * The host's embedding function: fuses a vector ranking with the lexical one.
   * Called once with every skill's name and description, then once per query;
   * when it fails, search is lexical.
   */
  readonly embed?: EmbedFunction;
}

/** Options of {@linkcode searchSkills}. */
export interface SearchOptions {
  /** The most results; default 10. */
  readonly limit?: number;
  /**
   * Return nothing when no skill is a plausible fit ({@linkcode NO_MATCH_THRESHOLD}):
   * the best one matched only body words, or too little of the query. Default
   * true; `false` ranks whatever shares a term with the query. Not applied
   * with an embedder (the vector ranking decides).
   */
  readonly threshold?: boolean;
}

/** Why a result matched: one query term, and where. */
export interface SkillMatch {
  /** The query term, as tokenized. */
  readonly term: string;
  /** The fields of the skill that hold it (or its stem). */
  readonly fields: readonly SkillField[];
  /** When the term was a typo: the indexed word it was read as. */
  readonly typo_of?: string;
}

/** One search result. */
export interface SkillSearchResult {
  /** The skill's name. */
  readonly name: string;
  /** The description, in the index's language where the skill has one. */
  readonly description: string;
  /** The score: BM25F, or the fused rank score with `embed` (0 for a name match alone). */
  readonly score: number;
  /** The query terms that matched, in query order, with their fields. */
  readonly matched: readonly SkillMatch[];
  /** With `embed`: the cosine similarity of query and skill, when it ranked by meaning. */
  readonly similarity?: number;
}

const NO_SKILLS: ReadonlySet<number> = new Set();
const NO_RESULTS: readonly SkillSearchResult[] = Object.freeze([]);

/** The default number of results of {@linkcode searchSkills}. */
export const DEFAULT_SEARCH_LIMIT = 10;

/** Saturation of term counts. */
const K1 = 1.2;
/** Per field: weight and length normalisation (b). Chosen on the tune split. */
const WEIGHT = [3, 1, 0.5, 0.15] as const;
const B = [0.5, 0.75, 0.75, 0.75] as const;
/** A corrected typo's share of the term's score. */
const TYPO_SHARE = 0.8;
/**
 * The most weight (before idf) of a term a skill holds in its body alone: a
 * rare body word is evidence, not a verdict. Chosen on the tune split.
 */
const BODY_ONLY_MAX = 0.4;
/**
 * The no-match threshold: the best skill is a plausible fit when the part of
 * its score from its name, description and headings is at least this share
 * of the sum of the query's idf (each term found counted once). Chosen on the
 * tune split's matched and no-match requests.
 */
export const NO_MATCH_THRESHOLD = 0.075;
/** How many of each ranking reciprocal rank fusion reads. */
const FUSION_DEPTH = 50;

/** The postings of every term, contiguous: term `t`'s are `[start[t], start[t + 1])`, by skill. */
interface Postings {
  readonly start: Int32Array;
  /** The skill of each posting. */
  readonly skill: Int32Array;
  /**
   * Its BM25F weight before idf: tf / (k1 + tf); negative (and capped at
   * `BODY_ONLY_MAX`) when the skill holds the term in its body alone.
   */
  readonly weight: Float32Array;
  /** Its counts in the name, the description, the headings and the body (4 per posting). */
  readonly counts: Uint16Array;
}

/** What the index holds besides its postings. */
interface IndexParts {
  readonly names: readonly string[];
  readonly descriptions: readonly string[];
  readonly rawIds: ReadonlyMap<string, number>;
  readonly stemIds: ReadonlyMap<string, number> | undefined;
  readonly postings: Postings;
  readonly statistics: SkillIndexStatistics;
  readonly typos: TypoVocabulary | undefined;
  readonly embed: EmbedFunction | undefined;
  readonly vectors: readonly Float32Array[] | undefined;
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
  /** Whether an embedding function's vectors take part in ranking. */
  readonly hybrid: boolean;
  readonly #p: IndexParts;
  /** Per term: its idf. */
  readonly #idf: Float64Array;
  /** Per skill: its place in the names' code-unit order (ties go to the lower). */
  readonly #order: Int32Array;
  readonly #byName: ReadonlyMap<string, number>;
  readonly #byFoldedName: ReadonlyMap<string, readonly number[]>;
  /** Scratch: each skill's score in this search (0 until touched: every weight is > 0). */
  readonly #scores: Float64Array;
  /** Scratch: the part of each skill's score from its name, description and headings. */
  readonly #shown: Float64Array;
  readonly #touched: Int32Array;
  readonly #tier: Uint8Array;
  readonly #heapSkill: Int32Array;
  readonly #heapScore: Float64Array;
  readonly #termMark: Uint8Array;

  /** @internal Use {@linkcode createSkillIndex}. */
  constructor(parts: IndexParts) {
    this.#p = parts;
    const { names, postings, statistics } = parts;
    this.statistics = statistics;
    this.size = names.length;
    this.hybrid = parts.vectors !== undefined;
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
    this.#shown = new Float64Array(names.length);
    this.#touched = new Int32Array(names.length);
    this.#tier = new Uint8Array(names.length);
    this.#heapSkill = new Int32Array(names.length);
    this.#heapScore = new Float64Array(names.length);
    this.#termMark = new Uint8Array(terms);
    Object.freeze(this);
  }

  /** The term id of a query term, if the index has it. */
  #termId(term: string): number | undefined {
    return this.#p.rawIds.get(term) ?? this.#p.stemIds?.get(stem(term));
  }

  /** The query's terms: each with its id, share of the score, and the word a typo was read as. */
  #queryTerms(query: string): { term: string; id: number; share: number; typo?: string }[] {
    let words = tokenizeQuery(query);
    if (words.length === 0) words = tokenize(query);
    const out: { term: string; id: number; share: number; typo?: string }[] = [];
    for (const term of words) {
      const id = this.#termId(term);
      if (id !== undefined) {
        out.push({ term, id, share: 1 });
        continue;
      }
      const typos = this.#p.typos;
      // A known English word is what the user meant, even when no skill holds it.
      const near = typos === undefined || isEnglishWord(term) || isEnglishWord(stem(term))
        ? undefined
        : nearestTerm(term, typos);
      if (near !== undefined) {
        out.push({ term, id: near.id, share: TYPO_SHARE, typo: near.word });
      }
    }
    return out;
  }

  /** Whether a skill the caller may see holds term `t`. */
  #heldByVisible(t: number, visible: (name: string) => boolean): boolean {
    const { start, skill } = this.#p.postings;
    for (let p = start[t]!, end = start[t + 1]!; p < end; p++) {
      if (visible(this.#p.names[skill[p]!]!)) return true;
    }
    return false;
  }

  /**
   * The ranked results; see {@linkcode searchSkills}.
   *
   * @param query The query.
   * @param limit The most results (a whole number of at least 1).
   * @param threshold Whether to return nothing when no skill is a plausible fit.
   * @param visible Which skills, by name, the caller may see (default all): the others are
   *   not ranked, and neither the name match nor the no-match threshold counts them.
   * @returns The results.
   */
  search(
    query: string,
    limit: number,
    threshold = true,
    visible?: (name: string) => boolean,
  ): readonly SkillSearchResult[] {
    const scores = this.#scores, shown = this.#shown, touched = this.#touched, tier = this.#tier;
    const { start, skill, weight } = this.#p.postings;
    let count = 0;
    /** The score of a skill that held every query term found, once, in an average description. */
    let ideal = 0;
    // Each term once, however often the query repeats it (marks cleared below).
    const terms = this.#queryTerms(query);
    const used: typeof terms = [];
    const mark = this.#termMark;
    for (const t of terms) {
      if (mark[t.id] === 1) continue;
      mark[t.id] = 1;
      used.push(t);
      const idf = this.#idf[t.id]! * t.share;
      // A term only skills hidden from the caller hold is not found, for the caller.
      if (visible === undefined || this.#heldByVisible(t.id, visible)) ideal += idf;
      for (let p = start[t.id]!, end = start[t.id + 1]!; p < end; p++) {
        const d = skill[p]!;
        const w = weight[p]!;
        if (scores[d] === 0) touched[count++] = d;
        if (w > 0) {
          scores[d] = scores[d]! + idf * w;
          shown[d] = shown[d]! + idf * w;
        } else {
          scores[d] = scores[d]! - idf * w;
        }
      }
    }
    for (const t of used) mark[t.id] = 0;
    // A skill whose name is the query comes first (tier 2), then one whose name
    // is the query lower-cased and trimmed (tier 1), then the rest by score.
    const names = this.#p.names;
    const seen = (d: number) => visible === undefined || visible(names[d]!);
    const folded = this.#byFoldedName.get(fold(query))?.filter(seen);
    const named = folded === undefined || folded.length === 0 ? undefined : folded;
    const exactName = this.#byName.get(query);
    const exact = exactName !== undefined && seen(exactName) ? exactName : undefined;
    const tiered = named === undefined && exact === undefined
      ? NO_SKILLS
      : new Set(exact === undefined ? named : [...(named ?? []), exact]);
    for (const i of named ?? []) tier[i] = 1;
    if (exact !== undefined) tier[exact] = 2;
    const tieredScores = new Map<number, number>();
    for (const i of tiered) tieredScores.set(i, 0);
    const queryVector = this.#p.vectors === undefined || this.#p.embed === undefined
      ? undefined
      : embedTexts(this.#p.embed, [query], this.#p.vectors[0]?.length)?.[0];
    const keep = queryVector === undefined ? limit : Math.max(limit, FUSION_DEPTH);
    // The best `keep` of the others, in a heap whose root is the worst kept; each
    // touched score is read and cleared for the next search in the same pass.
    const order = this.#order;
    const heapSkill = this.#heapSkill, heapScore = this.#heapScore;
    const capacity = keep < count ? keep : count;
    let size = 0;
    let best = -1, bestScore = 0, bestShown = 0;
    for (let k = 0; k < count; k++) {
      const d = touched[k]!;
      const score = scores[d]!;
      scores[d] = 0;
      if (visible !== undefined && !visible(names[d]!)) {
        shown[d] = 0;
        continue;
      }
      if (score > bestScore || (score === bestScore && order[d]! < order[best]!)) {
        best = d;
        bestScore = score;
        bestShown = shown[d]!;
      }
      shown[d] = 0;
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
    // No skill is a plausible fit: only body words, or too little of the query, matched.
    if (
      threshold && tiered.size === 0 && queryVector === undefined &&
      !(bestShown > 0 && bestShown >= NO_MATCH_THRESHOLD * ideal)
    ) {
      return NO_RESULTS;
    }
    const ranked: { skill: number; score: number; tier: number; similarity?: number }[] = [];
    for (const [d, score] of tieredScores) ranked.push({ skill: d, score, tier: tier[d]! });
    for (const i of tiered) tier[i] = 0;
    const lexical: { skill: number; score: number; tier: number }[] = [];
    for (let k = 0; k < size; k++) {
      lexical.push({ skill: heapSkill[k]!, score: heapScore[k]!, tier: 0 });
    }
    const byScore = (
      a: { skill: number; score: number; tier: number },
      b: { skill: number; score: number; tier: number },
    ) => b.tier - a.tier || b.score - a.score || order[a.skill]! - order[b.skill]!;
    lexical.sort(byScore);
    if (queryVector === undefined) {
      ranked.push(...lexical);
    } else {
      const near = nearest(queryVector, this.#p.vectors!, FUSION_DEPTH)
        .filter((r) => !tiered.has(r.skill) && seen(r.skill));
      const similarity = new Map(near.map((r) => [r.skill, r.similarity]));
      const fused = fuse([lexical.map((r) => r.skill), near.map((r) => r.skill)]);
      for (const [d, score] of fused) {
        const s = similarity.get(d);
        ranked.push({ skill: d, score, tier: 0, ...(s === undefined ? {} : { similarity: s }) });
      }
    }
    ranked.sort(byScore);
    return Object.freeze(
      ranked.slice(0, limit).map((r) =>
        Object.freeze({
          name: this.#p.names[r.skill]!,
          description: this.#p.descriptions[r.skill]!,
          score: r.score,
          matched: this.#explain(r.skill, used),
          ...(r.similarity === undefined ? {} : { similarity: r.similarity }),
        })
      ),
    );
  }

  /** The query terms a skill holds, with their fields: a binary search per term. */
  #explain(
    d: number,
    terms: readonly { term: string; id: number; typo?: string }[],
  ): readonly SkillMatch[] {
    const { start, skill, counts } = this.#p.postings;
    const out: SkillMatch[] = [];
    for (const t of terms) {
      let lo = start[t.id]!, hi = start[t.id + 1]!;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (skill[mid]! < d) lo = mid + 1;
        else hi = mid;
      }
      if (lo >= start[t.id + 1]! || skill[lo] !== d) continue;
      const fields = FIELDS.filter((_, f) => counts[4 * lo + f]! > 0);
      out.push(Object.freeze({
        term: t.term,
        fields: Object.freeze(fields),
        ...(t.typo === undefined ? {} : { typo_of: t.typo }),
      }));
    }
    return Object.freeze(out);
  }

  /**
   * The floor of the performance target: find the query's terms and walk
   * their posting lists, summing the term counts (no scores, no ranking).
   *
   * @param query The query.
   * @returns The sum of the counts.
   */
  walkPostings(query: string): number {
    const { start, counts } = this.#p.postings;
    let sum = 0;
    for (const term of tokenize(query)) {
      const id = this.#termId(term);
      if (id === undefined) continue;
      for (let p = start[id]!, end = start[id + 1]!; p < end; p++) {
        sum += counts[4 * p]! + counts[4 * p + 1]! + counts[4 * p + 2]! + counts[4 * p + 3]!;
      }
    }
    return sum;
  }
}

/**
 * The first pass of {@linkcode createSkillIndex}: term ids, document
 * frequencies and each skill's postings in skill order, one skill at a time.
 *
 * One builder serves every build ({@linkcode BUILDER}; a fresh one only for
 * a build started while another is under way, from a skill's getter): its
 * shape and the runtime's optimised code for its methods then outlive a
 * build. A builder made per build dies with it, and a collection in between
 * takes its shape and that code away, so each build would start cold.
 * {@linkcode IndexBuilder.start} gives it fresh state, {@linkcode IndexBuilder.finish}
 * hands the state over and keeps nothing.
 */
class IndexBuilder {
  busy = false;
  stemming = true;
  /** Term id by raw term (each raw term stemmed once), and by stem. */
  rawIds = new Map<string, number>();
  stemIds = new Map<string, number>();
  terms = 0;
  // Per term: skills holding it; in a name; in a name, description or heading; scratch.
  df = EMPTY;
  nameDf = EMPTY;
  shownDf = EMPTY;
  mark = EMPTY;
  scratch = EMPTY;
  // Postings in skill order: term, skill, 4 counts each.
  pTerm = EMPTY;
  pSkill = EMPTY;
  pCounts = new Uint16Array(0);
  postings = 0;
  /** Per skill, the length of each of its 4 fields. */
  lengths: number[] = [];
  /** The terms of the skill being added, each once. */
  local: number[] = [];
  skills = 0;

  /** Begin a build. */
  start(stemming: boolean): void {
    this.busy = true;
    this.stemming = stemming;
    this.rawIds = new Map();
    this.stemIds = new Map();
    this.terms = 0;
    this.df = new Int32Array(1024);
    this.nameDf = new Int32Array(1024);
    this.shownDf = new Int32Array(1024);
    this.mark = new Int32Array(1024);
    this.scratch = new Int32Array(4 * 1024);
    this.pTerm = new Int32Array(1 << 14);
    this.pSkill = new Int32Array(1 << 14);
    this.pCounts = new Uint16Array(4 << 14);
    this.postings = 0;
    this.lengths = [];
    this.local = [];
    this.skills = 0;
  }

  /** End a build: what it counted, the builder left holding nothing of it. */
  finish(): BuiltTerms {
    const built: BuiltTerms = {
      rawIds: this.rawIds,
      stemIds: this.stemIds,
      terms: this.terms,
      df: this.df,
      nameDf: this.nameDf,
      shownDf: this.shownDf,
      lengths: this.lengths,
      pTerm: this.pTerm,
      pSkill: this.pSkill,
      pCounts: this.pCounts,
      postings: this.postings,
    };
    this.release();
    return built;
  }

  /** Drop the state of a build (finished, or ended by an error). */
  release(): void {
    this.busy = false;
    this.rawIds = new Map();
    this.stemIds = new Map();
    this.df =
      this.nameDf =
      this.shownDf =
      this.mark =
      this.scratch =
        EMPTY;
    this.pTerm = this.pSkill = EMPTY;
    this.pCounts = new Uint16Array(0);
    this.lengths = [];
    this.local = [];
  }

  /** The id of a raw term, a new one for a new stem. */
  idOf(term: string): number {
    let id = this.rawIds.get(term);
    if (id !== undefined) return id;
    const key = this.stemming ? stem(term) : term;
    id = this.stemIds.get(key);
    if (id === undefined) {
      id = this.terms++;
      this.stemIds.set(key, id);
      if (id >= this.df.length) {
        const n = this.df.length * 2;
        this.df = grown(this.df, n);
        this.nameDf = grown(this.nameDf, n);
        this.shownDf = grown(this.shownDf, n);
        this.mark = grown(this.mark, n);
        this.scratch = grown(this.scratch, 4 * n);
      }
    }
    this.rawIds.set(term, id);
    return id;
  }

  /** Count the terms of a text in field `f` of skill `d` (each new one noted in `local`): how many there are. */
  count(text: string, f: number, d: number): number {
    const list = tokenize(text);
    const local = this.local;
    for (let k = 0; k < list.length; k++) {
      const id = this.idOf(list[k]!);
      if (this.mark[id] !== d + 1) {
        this.mark[id] = d + 1;
        local.push(id);
      }
      this.scratch[4 * id + f]!++;
    }
    return list.length;
  }

  /** Add the next skill: its fields' lengths and its postings. */
  add(s: SkillTexts): void {
    const d = this.skills++;
    this.local.length = 0;
    const lengths = this.lengths;
    lengths.push(this.count(s.name, 0, d));
    let described = 0;
    for (const text of s.descriptions) described += this.count(text, 1, d);
    lengths.push(described);
    let headed = 0;
    for (const h of s.headings) headed += this.count(h, 2, d);
    lengths.push(headed, this.count(s.body, 3, d));
    const local = this.local;
    let postings = this.postings;
    if (postings + local.length > this.pTerm.length) {
      const n = Math.max(this.pTerm.length * 2, postings + local.length);
      this.pTerm = grown(this.pTerm, n);
      this.pSkill = grown(this.pSkill, n);
      const c = new Uint16Array(4 * n);
      c.set(this.pCounts);
      this.pCounts = c;
    }
    const { pTerm, pSkill, pCounts, scratch, df, nameDf, shownDf } = this;
    for (const id of local) {
      pTerm[postings] = id;
      pSkill[postings] = d;
      for (let f = 0; f < 4; f++) {
        pCounts[4 * postings + f] = Math.min(scratch[4 * id + f]!, 65535);
        scratch[4 * id + f] = 0;
      }
      df[id]!++;
      if (pCounts[4 * postings]! > 0) nameDf[id]!++;
      if (pCounts[4 * postings]! + pCounts[4 * postings + 1]! + pCounts[4 * postings + 2]! > 0) {
        shownDf[id]!++;
      }
      postings++;
    }
    this.postings = postings;
  }
}

const EMPTY = new Int32Array(0);

/** What {@linkcode IndexBuilder.finish} hands over. */
interface BuiltTerms {
  readonly rawIds: Map<string, number>;
  readonly stemIds: Map<string, number>;
  readonly terms: number;
  readonly df: Int32Array;
  readonly nameDf: Int32Array;
  readonly shownDf: Int32Array;
  readonly lengths: readonly number[];
  readonly pTerm: Int32Array;
  readonly pSkill: Int32Array;
  readonly pCounts: Uint16Array;
  readonly postings: number;
}

/** The builder every build uses unless one is under way. */
const BUILDER = new IndexBuilder();

/** A copy of `a` in a longer array of `n` elements. */
function grown(a: Int32Array, n: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(n);
  b.set(a);
  return b;
}

/**
 * Build a BM25F index over skills: the name (×3, each word scaled by its
 * rarity among the names), the description and its `description-<lang>`
 * translations (×1), the headings of the SKILL.md (×0.5) and its body (the
 * first 32 KiB, ×0.15). Terms come from {@linkcode tokenize}, then
 * {@linkcode stem} unless `stem: false`. The first skill of each name is
 * indexed; later ones are ignored.
 *
 * @param skills The skills: `{ name, description, metadata?, headings?, body? }` or bundles.
 * @param options Fields, language, stemming, typos, an embedder and fixed statistics.
 * @returns The index.
 * @throws {TypeError} When a skill has no string name and description, or `embed` is not a function.
 * @throws {RangeError} When `lang` is not a BCP 47 tag or `statistics` is not positive numbers.
 * @example
 * ```ts
 * import { createSkillIndex, searchSkills } from "./skill_index.ts";
 * import { assert } from "../_assert.ts";
 *
 * const index = createSkillIndex([
 *   { name: "pdf", description: "Fill in PDF forms and check every field" },
 *   { name: "csv", description: "Clean, join and sort CSV tables" },
 *   { name: "xlsx", description: "Read spreadsheets", body: "# Charts\nPlot a column." },
 * ]);
 * assert.deepEqual(searchSkills(index, "join two csv files").map((r) => r.name), ["csv"]);
 * const [hit] = searchSkills(index, "plot the charts");
 * assert.equal(hit!.name, "xlsx");
 * assert.deepEqual(hit!.matched.map((m) => [m.term, m.fields]), [
 *   ["plot", ["body"]],
 *   ["charts", ["headings", "body"]],
 * ]);
 * ```
 */
export function createSkillIndex(
  skills: Iterable<IndexableSkill>,
  options: SkillIndexOptions = {},
): SkillIndex {
  const lang = options.lang;
  if (lang !== undefined && !/^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/.test(lang)) {
    throw new RangeError(`lang must be a BCP 47 language tag, got "${String(lang)}"`);
  }
  if (options.embed !== undefined && typeof options.embed !== "function") {
    throw new TypeError("embed must be a function");
  }
  const stemming = options.stem !== false;
  const headingsOn = options.headings !== false;
  const bodyOn = options.body !== false;
  const embedding = options.embed !== undefined;
  // A build started from a skill's getter while another is under way gets a builder of its own.
  const b = BUILDER.busy ? new IndexBuilder() : BUILDER;
  const names: string[] = [];
  const descriptions: string[] = [];
  const embedTextsOf: string[] = [];
  const seenNames = new Set<string>();
  let built: BuiltTerms;
  b.start(stemming);
  try {
    for (const input of skills) {
      const s = readSkill(input, lang, headingsOn, bodyOn);
      if (seenNames.has(s.name)) continue;
      seenNames.add(s.name);
      names.push(s.name);
      descriptions.push(s.shown);
      if (embedding) embedTextsOf.push(`${s.name}: ${s.descriptions[0]}`);
      b.add(s);
    }
    built = b.finish();
  } finally {
    if (b.busy) b.release();
  }
  const { rawIds, stemIds, terms, df, nameDf, shownDf, lengths, pTerm, pSkill, pCounts, postings } =
    built;
  const n = names.length;
  const statistics = options.statistics === undefined
    ? measured(n, lengths)
    : checkStatistics(options.statistics, measured(n, lengths));
  const avg = statistics.average_length;
  const averages = [avg.name, avg.description, avg.headings, avg.body ?? 0];
  // The postings, term by term (counting sort: each term's stay in skill order).
  const start = new Int32Array(terms + 1);
  for (let t = 0; t < terms; t++) start[t + 1] = start[t]! + df[t]!;
  const skill = new Int32Array(postings);
  const counts = new Uint16Array(4 * postings);
  const weight = new Float32Array(postings);
  const cursor = start.slice(0, terms);
  const logN = Math.log(1 + Math.max(statistics.skills, 1));
  const norm = new Float64Array(4);
  let last = -1;
  for (let q = 0; q < postings; q++) {
    const d = pSkill[q]!, id = pTerm[q]!;
    if (d !== last) {
      last = d;
      for (let f = 0; f < 4; f++) {
        // An average under one term (a field few skills have) counts as one.
        norm[f] = WEIGHT[f]! /
          (1 - B[f]! + B[f]! * lengths[4 * d + f]! / Math.max(averages[f]!, 1));
      }
    }
    const p = cursor[id]!++;
    skill[p] = d;
    let tf = 0;
    for (let f = 0; f < 4; f++) {
      const c = pCounts[4 * q + f]!;
      counts[4 * p + f] = c;
      tf += norm[f]! * c;
    }
    if (pCounts[4 * q]! > 0) {
      // The name's share, scaled by the word's rarity among the names.
      const rarity = Math.log(1 + Math.max(statistics.skills, nameDf[id]!) / nameDf[id]!) / logN;
      tf -= norm[0]! * pCounts[4 * q]! * (1 - rarity);
    }
    const w = tf / (K1 + tf);
    const bodyOnly = pCounts[4 * q]! + pCounts[4 * q + 1]! + pCounts[4 * q + 2]! === 0;
    weight[p] = bodyOnly ? -Math.min(w, BODY_ONLY_MAX) : w;
  }
  return new SkillIndex({
    names: Object.freeze(names),
    descriptions: Object.freeze(descriptions),
    rawIds,
    stemIds: stemming ? stemIds : undefined,
    postings: { start, skill, weight, counts },
    statistics,
    typos: options.typos === false ? undefined : typoVocabulary(rawIds, shownDf, n),
    embed: options.embed,
    vectors: options.embed === undefined ? undefined : embedTexts(options.embed, embedTextsOf),
  });
}

/** The typo candidates: words of the names, descriptions and headings of enough skills. */
function typoVocabulary(
  rawIds: ReadonlyMap<string, number>,
  shownDf: Int32Array,
  n: number,
): TypoVocabulary {
  const least = n < 50 ? 1 : 2;
  const groups: number[][] = [];
  const words: string[] = [], ids: number[] = [], masks: number[] = [];
  for (const [word, id] of rawIds) {
    if (shownDf[id]! < least || word.length < 3 || word.length > 34) continue;
    if (!/^[a-z]+$/.test(word)) continue;
    (groups[groupOf(word.length, word)] ??= []).push(words.length);
    words.push(word);
    ids.push(id);
    masks.push(letterMask(word));
  }
  return { groups, words, ids, masks, df: shownDf };
}

/**
 * The skills that best match a query, best first: a skill whose name is the
 * query comes first (then one whose name is the query lower-cased and
 * trimmed); the rest by BM25F score (fused with the vector ranking when the
 * index has an embedder), ties by name (code-unit order). Skills sharing no
 * term with the query (and, with an embedder, not near it) are not returned,
 * and nothing is when no skill is a plausible fit: when the best one matched
 * only body words, or its name, description and headings hold too little of
 * the query ({@linkcode NO_MATCH_THRESHOLD}; `threshold: false` turns this
 * off). Each result lists the query terms it matched and in which fields.
 *
 * @param index The index.
 * @param query Words of the task, or a skill's name.
 * @param options The most results (default 10), and whether to apply the no-match threshold.
 * @returns Frozen `{ name, description, score, matched, similarity? }` results.
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
 * assert.equal(searchSkills(index, "fomrs")[0]!.matched[0]!.typo_of, "forms");
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
  return index.search(query, limit, options.threshold !== false);
}

function fold(name: string): string {
  return name.trim().toLowerCase();
}

function measured(skills: number, lengths: readonly number[]): SkillIndexStatistics {
  const sum = [0, 0, 0, 0];
  for (let i = 0; i < lengths.length; i++) sum[i % 4]! += lengths[i]!;
  const n = Math.max(skills, 1);
  return Object.freeze({
    skills,
    average_length: Object.freeze({
      name: sum[0]! / n,
      description: sum[1]! / n,
      headings: sum[2]! / n,
      body: sum[3]! / n,
    }),
  });
}

function checkStatistics(
  s: SkillIndexStatistics,
  own: SkillIndexStatistics,
): SkillIndexStatistics {
  const a = s?.average_length;
  const ok = (v: unknown): boolean => typeof v === "number" && Number.isFinite(v) && v >= 0;
  if (
    !ok(s?.skills) || !ok(a?.name) || !ok(a?.description) || !ok(a?.headings) ||
    (a?.body !== undefined && !ok(a.body))
  ) {
    throw new RangeError(
      "statistics must be { skills, average_length: { name, description, headings, body? } } of finite numbers of at least 0",
    );
  }
  return Object.freeze({
    skills: s.skills,
    average_length: Object.freeze({
      name: a.name,
      description: a.description,
      headings: a.headings,
      body: a.body ?? own.average_length.body!,
    }),
  });
}
