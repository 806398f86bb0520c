/**
 * The `skill` tool's description: what the tool does and one line per skill,
 * fitted to a budget of characters the way the catalog is.
 *
 * Folder `lib/core/activation/` — activation and the model's tools: bodies, the skill tool, skill_search.
 *
 * @module
 */
import { escapeControls, foldDescription } from "../_text.ts";
import { codePoints, planFit, priorityOrder, shorten, wholeNumber } from "../catalog/_fit.ts";
import {
  DEFAULT_DESCRIPTION_FLOOR,
  localizedDescription,
  type SkillRank,
} from "../catalog/skill_catalog.ts";
import type { SkillMode } from "../catalog/skill_modes.ts";

/** A skill as the description lists it (one per name). */
export type Summary = {
  name: string;
  description?: string;
  metadata?: Readonly<Record<string, string>> | ReadonlyMap<string, string>;
  /** `pinned`: first and whole; `name-only`: no description; default `auto`. */
  mode?: SkillMode;
};

/** The options of `skillToolDefinition` that shape the description. */
export interface DescriptionOptions {
  /** Descriptions are not shortened below this; default 80. */
  readonly descriptionFloor?: number;
  /** A score per skill: the lowest-ranked lose their descriptions and places first. */
  readonly rank?: SkillRank;
  /** A BCP 47 tag: `description-<lang>` metadata is shown where a skill has it. */
  readonly lang?: string;
}

const PREAMBLE = (cap: number): string =>
  [
    "Use a skill: a folder of instructions and bundled files for a task.",
    "Call with only `skill` to activate it: you get its instructions and a manifest of its bundled files, " +
    "grouped as references/ (documentation to read when needed), assets/ (templates, images, data) " +
    "and scripts/ (source code), plus files at the top level.",
    "Call with `skill` and `resource` (a path from the manifest) to read a file. Text comes back decoded; " +
    "binary assets come back as base64. Long files come in pages: pass `offset` (a line for text, " +
    "a byte for base64) and `limit`, and follow `next_offset` until it says none. " +
    `No page holds more than ${cap} bytes: a longer line comes in pieces, and \`next_offset\` ` +
    'then reads like "1200+262144" (line 1200 from byte 262144 of it); pass it back as `offset` as it is.',
    "A manifest lists at most a few hundred files per folder and says how many more there are: " +
    "call with `skill` and `offset` (no `resource`) to list the next ones.",
    "Scripts are only read as source: this tool never runs anything.",
    "Files in non-standard folders (anything other than references/, assets/ and scripts/) are gated by the " +
    "safety settings: they are not listed and cannot be read unless both the global and the skill's safety " +
    "are off.",
    "Available skills:",
  ].join("\n");

/**
 * The description: the preamble and one line per skill (`- name: description`,
 * on one line each, so a description cannot add lines or entries of its own),
 * pinned skills first and whole, fitted to the budget: descriptions are
 * shortened first (not below the floor), then skills are left out of the list
 * (lowest rank first with `rank`, else from the end) and a last line says how many.
 *
 * @param byName The skills, one per name, in the order given.
 * @param cap The page cap the preamble states.
 * @param budget The budget in characters, as `measure` counts them (`undefined`: none).
 * @param options The floor, rank and language of the list.
 * @param search Whether the last line points to `skill_search`.
 * @param measure How a piece of the description counts against the budget (default: code points).
 * @returns The description and the names it leaves out, or the least budget it needs.
 */
export function describe(
  byName: ReadonlyMap<string, Summary>,
  cap: number,
  budget: number | undefined,
  options: DescriptionOptions,
  search: boolean,
  measure: (text: string) => number = codePoints,
): { description: string; left_out: readonly string[] } | { least: number } {
  // Pinned skills first, then the others in the order given.
  const given = [...byName.values()];
  const pinned = given.filter((s) => s.mode === "pinned");
  const all = pinned.length === 0
    ? given
    : [...pinned, ...given.filter((s) => s.mode !== "pinned")];
  const lang = options.lang;
  const texts = all.map((s) =>
    s.description === undefined || s.mode === "name-only" ? undefined : [
      ...localizedDescription(
        {
          description: s.description,
          ...(s.metadata === undefined ? {} : { metadata: s.metadata }),
        },
        lang,
      ),
    ]
  );
  const line = (i: number, cap: number): string => {
    const text = texts[i];
    return `\n- ${escapeControls(all[i]!.name)}${
      text === undefined ? "" : `: ${escapeControls(foldDescription(shorten(text, cap)))}`
    }`;
  };
  const preamble = PREAMBLE(cap);
  const offered = all.length;
  const leftOutLine = (kept: number): string => {
    const n = offered - kept;
    return `\n(${n} more skill${n === 1 ? " is" : "s are"} not described here, to fit the budget` +
      (search
        ? "; call `skill_search` with words from the task to find one)"
        : ": call `skill` with a skill's name to use one)");
  };
  const floor = Math.max(
    1,
    wholeNumber(options.descriptionFloor, "descriptionFloor") ?? DEFAULT_DESCRIPTION_FLOOR,
  );
  const whole = all.map((_, i) => line(i, Infinity));
  const wholeLength = measure(preamble) + whole.reduce((n, l) => n + measure(l), 0);
  if (budget === undefined || wholeLength <= budget) {
    return { description: preamble + whole.join(""), left_out: [] };
  }
  // The pinned lines are fixed; the plan fits the others after them.
  const fixed = measure(preamble) +
    whole.slice(0, pinned.length).reduce((n, l) => n + measure(l), 0);
  const rest = all.length - pinned.length;
  const at = (k: number): number => k + pinned.length;
  const plan = planFit({
    count: rest,
    budget,
    floor,
    priority: priorityOrder(all.slice(pinned.length).map((s) => s.name), options.rank),
    ranked: options.rank !== undefined,
    fixed,
    entryLength: (k, c) => measure(line(at(k), c)),
    descriptionLength: (k) => texts[at(k)]?.length ?? 0,
    lineLength: (kept) => (kept === rest ? 0 : measure(leftOutLine(kept + pinned.length))),
  });
  if (!plan.ok) return { least: plan.least };
  const lines: string[] = whole.slice(0, pinned.length);
  const leftOut: string[] = [];
  all.slice(pinned.length).forEach((s, k) => {
    const c = plan.caps[k];
    if (c === undefined) leftOut.push(s.name);
    else lines.push(line(at(k), c));
  });
  return {
    description: preamble + lines.join("") +
      (leftOut.length === 0 ? "" : leftOutLine(all.length - leftOut.length)),
    left_out: leftOut,
  };
}
