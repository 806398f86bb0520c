/**
 * Trigger evaluations offline: each case of a skill's `evals/trigger-eval.json`
 * (the skill-creator format, `[{ "query": …, "should_trigger": true|false }]`)
 * routed through the skill index, a skill "triggering" when it ranks first
 * above the no-match threshold; per skill the true and false positives and
 * negatives, recall and precision, and for each miss the skill that won and
 * the terms that decided it. Also the pairs of skills likely to be confused:
 * each skill's description and "use when" sentences run as queries.
 *
 * | operation          | cost                                   |
 * | ------------------ | -------------------------------------- |
 * | parseTriggerEvals  | O(cases)                               |
 * | evaluateTriggers   | one search per case                    |
 * | confusableSkills   | one search per description and sentence |
 *
 * Folder `lib/core/search/` — search over large libraries: the BM25F index and its text analysis.
 *
 * @module
 */
import { searchSkills, type SkillIndex, type SkillSearchResult } from "./skill_index.ts";

/** One case of a trigger evaluation. */
export interface TriggerCase {
  /** The request, as a user would write it. */
  readonly query: string;
  /** Whether the skill should be picked for it. */
  readonly should_trigger: boolean;
}

/** How a case came out. */
export interface TriggerOutcome extends TriggerCase {
  /** The skill picked (ranked first above the threshold), or null when none was. */
  readonly winner: string | null;
  /** The winner's matched query terms, with their fields: `fill (description, body)`. */
  readonly terms: readonly string[];
  /** Whether the outcome is right. */
  readonly passed: boolean;
}

/** One skill's results. */
export interface TriggerReport {
  /** The skill's name. */
  readonly skill: string;
  /** Queries that should trigger it and did. */
  readonly true_positives: number;
  /** Queries that should not trigger it and did. */
  readonly false_positives: number;
  /** Queries that should trigger it and did not. */
  readonly false_negatives: number;
  /** Queries that should not trigger it and did not. */
  readonly true_negatives: number;
  /** TP / (TP + FN); 1 when the skill has no case that should trigger it. */
  readonly recall: number;
  /** TP / (TP + FP); 1 when it never triggered. */
  readonly precision: number;
  /** Every case, in file order. */
  readonly cases: readonly TriggerOutcome[];
}

/** The most cases one skill's evaluation may hold. */
export const MAX_TRIGGER_CASES = 10_000;
/** The longest query of a case, in UTF-16 units. */
export const MAX_TRIGGER_QUERY = 4_000;

/**
 * Check a trigger evaluation read from JSON: a list of
 * `{ query, should_trigger }` (other keys are ignored).
 *
 * @param data The parsed JSON.
 * @param where What to name in an error (a file).
 * @returns The cases, frozen.
 * @throws {TypeError} Naming the first case that breaks the format.
 * @example
 * ```ts
 * import { parseTriggerEvals } from "./trigger_eval.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.deepEqual(parseTriggerEvals([{ query: "fill a form", should_trigger: true }], "x.json"), [
 *   { query: "fill a form", should_trigger: true },
 * ]);
 * assert.throws(() => parseTriggerEvals([{ query: 1 }], "x.json"), { name: "TypeError" });
 * ```
 */
export function parseTriggerEvals(data: unknown, where: string): readonly TriggerCase[] {
  const at = JSON.stringify(where);
  if (!Array.isArray(data)) {
    throw new TypeError(`Trigger evals in ${at} must be a list of { query, should_trigger }`);
  }
  if (data.length > MAX_TRIGGER_CASES) {
    throw new TypeError(`Trigger evals in ${at} hold more than ${MAX_TRIGGER_CASES} cases`);
  }
  return Object.freeze(data.map((c: unknown, i) => {
    const o = (typeof c === "object" && c !== null ? c : {}) as Record<string, unknown>;
    const query = o["query"], should = o["should_trigger"];
    if (
      typeof query !== "string" || query.trim() === "" || query.length > MAX_TRIGGER_QUERY ||
      typeof should !== "boolean"
    ) {
      throw new TypeError(
        `Trigger eval ${i + 1} in ${at} must have a "query" of 1 to ${MAX_TRIGGER_QUERY} ` +
          `characters and a boolean "should_trigger"`,
      );
    }
    return Object.freeze({ query, should_trigger: should });
  }));
}

/** The winner's matched terms, as `term (fields)`. */
function decidingTerms(r: SkillSearchResult | undefined): readonly string[] {
  if (r === undefined) return Object.freeze([]);
  return Object.freeze(r.matched.map((m) => `${m.term} (${m.fields.join(", ")})`));
}

/**
 * Route each skill's cases through the index: a skill triggers when the
 * search ranks it first above the no-match threshold (or when `pick` says
 * so, for a live tier).
 *
 * @param index The index of the whole collection.
 * @param evals Per skill name, its cases.
 * @param pick Instead of the index, who picks the skill for a query (null: none).
 * @returns Per skill, in the order given: the counts, recall, precision and every case.
 * @throws {TypeError} When `pick` returns something other than a string or null.
 * @example
 * ```ts
 * import { createSkillIndex } from "./skill_index.ts";
 * import { evaluateTriggers } from "./trigger_eval.ts";
 * import { assert } from "../_assert.ts";
 *
 * const index = createSkillIndex([
 *   { name: "pdf", description: "Fill in PDF forms" },
 *   { name: "csv", description: "Join CSV tables" },
 * ]);
 * const [pdf] = evaluateTriggers(index, new Map([["pdf", [
 *   { query: "fill in this pdf form", should_trigger: true },
 *   { query: "join two csv tables", should_trigger: false },
 *   { query: "join the tables of this form", should_trigger: true },
 * ]]]));
 * assert.deepEqual([pdf!.true_positives, pdf!.true_negatives, pdf!.false_negatives], [1, 1, 1]);
 * assert.equal(pdf!.cases[2]!.winner, "csv");
 * ```
 */
export function evaluateTriggers(
  index: SkillIndex,
  evals: ReadonlyMap<string, readonly TriggerCase[]>,
  pick?: (query: string) => string | null,
): readonly TriggerReport[] {
  const out: TriggerReport[] = [];
  for (const [skill, cases] of evals) {
    let tp = 0, fp = 0, fn = 0, tn = 0;
    const outcomes = cases.map((c) => {
      let winner: string | null, terms: readonly string[];
      if (pick === undefined) {
        const [top] = searchSkills(index, c.query, { limit: 1 });
        winner = top?.name ?? null;
        terms = decidingTerms(top);
      } else {
        winner = pick(c.query);
        if (winner !== null && typeof winner !== "string") {
          throw new TypeError("The picker must return a skill name or null");
        }
        terms = Object.freeze([]);
      }
      const triggered = winner === skill;
      if (c.should_trigger) triggered ? tp++ : fn++;
      else triggered ? fp++ : tn++;
      return Object.freeze({
        query: c.query,
        should_trigger: c.should_trigger,
        winner,
        terms,
        passed: triggered === c.should_trigger,
      });
    });
    out.push(Object.freeze({
      skill,
      true_positives: tp,
      false_positives: fp,
      false_negatives: fn,
      true_negatives: tn,
      recall: tp + fn === 0 ? 1 : tp / (tp + fn),
      precision: tp + fp === 0 ? 1 : tp / (tp + fp),
      cases: Object.freeze(outcomes),
    }));
  }
  return Object.freeze(out);
}

/** Two skills likely to be confused. */
export interface ConfusablePair {
  /** The two names, in code-unit order. */
  readonly skills: readonly [string, string];
  /** The query terms both matched, in the queries that brought them together. */
  readonly shared: readonly string[];
  /** How many of each one's own queries the other won (or came within the margin of). */
  readonly crossings: number;
}

/** A skill's texts as `confusableSkills` reads them. */
export interface ConfusableInput {
  /** The skill's name. */
  readonly name: string;
  /** Its description (and "use when" sentences, read as queries). */
  readonly description: string;
}

/** The default margin: a rival within this share of the owner's score counts as confused. */
export const CONFUSABLE_MARGIN = 0.1;

/**
 * The sentences of a description that say when to use the skill
 * (`Use when …`, `Use this skill when …`, `Use for …`).
 */
function useWhen(description: string): string[] {
  return description.split(/(?<=[.!?])\s+/).filter((s) =>
    /\buse (?:this skill )?(?:when|for|if)\b/i.test(s)
  );
}

/**
 * The pairs of skills likely to be confused: each skill's description and
 * its "use when" sentences run as queries (no threshold); a pair is reported
 * when the other skill wins one of them, or scores within `margin` of the
 * owner, with the query terms both matched.
 *
 * @param index The index of the whole collection.
 * @param skills The skills whose descriptions to run.
 * @param margin The share of the owner's score a rival must reach (default 0.1).
 * @returns The pairs, most crossings first, then by names.
 * @throws {RangeError} When `margin` is not a number from 0 to 1.
 * @example
 * ```ts
 * import { createSkillIndex } from "./skill_index.ts";
 * import { confusableSkills } from "./trigger_eval.ts";
 * import { assert } from "../_assert.ts";
 *
 * const skills = [
 *   { name: "pdf-forms", description: "Fill in PDF forms and check their fields" },
 *   { name: "pdf-filler", description: "Fill in the fields of PDF forms" },
 *   { name: "csv", description: "Join CSV tables" },
 * ];
 * const [pair] = confusableSkills(createSkillIndex(skills), skills);
 * assert.deepEqual(pair!.skills, ["pdf-filler", "pdf-forms"]);
 * assert.deepEqual(pair!.shared, ["fields", "fill", "forms", "pdf"]);
 * ```
 */
export function confusableSkills(
  index: SkillIndex,
  skills: Iterable<ConfusableInput>,
  margin: number = CONFUSABLE_MARGIN,
): readonly ConfusablePair[] {
  if (typeof margin !== "number" || !(margin >= 0 && margin <= 1)) {
    throw new RangeError(`margin must be a number from 0 to 1, got ${String(margin)}`);
  }
  const pairs = new Map<string, { skills: [string, string]; shared: Set<string>; n: number }>();
  for (const s of skills) {
    for (const query of [s.description, ...useWhen(s.description)]) {
      if (query.trim() === "") continue;
      const ranked = searchSkills(index, query, { limit: 5, threshold: false });
      const own = ranked.find((r) => r.name === s.name);
      const ownScore = own?.score ?? 0;
      const ownTerms = new Set(own?.matched.map((m) => m.term) ?? []);
      for (const r of ranked) {
        if (r.name === s.name) continue;
        const wins = own === undefined || r.score > ownScore ||
          r.score >= (1 - margin) * ownScore;
        if (!wins) continue;
        const key = s.name < r.name ? `${s.name}\n${r.name}` : `${r.name}\n${s.name}`;
        let pair = pairs.get(key);
        if (pair === undefined) {
          pair = {
            skills: s.name < r.name ? [s.name, r.name] : [r.name, s.name],
            shared: new Set(),
            n: 0,
          };
          pairs.set(key, pair);
        }
        pair.n++;
        for (const m of r.matched) if (ownTerms.has(m.term)) pair.shared.add(m.term);
      }
    }
  }
  const out = [...pairs.values()].map((p) =>
    Object.freeze({
      skills: Object.freeze(p.skills) as readonly [string, string],
      shared: Object.freeze([...p.shared].sort()),
      crossings: p.n,
    })
  );
  out.sort((a, b) =>
    b.crossings - a.crossings ||
    (a.skills.join("\n") < b.skills.join("\n")
      ? -1
      : a.skills.join("\n") > b.skills.join("\n")
      ? 1
      : 0)
  );
  return Object.freeze(out);
}
