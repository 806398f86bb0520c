/**
 * The budget policy shared by the `<available_skills>` block and the skill
 * tool's description: which skills are listed and how far each description
 * is shortened, for any layout of entries. Pure.
 *
 * Folder `lib/core/catalog/` — the prompt catalog: budget, modes, usage ranking, requirements, dependencies.
 *
 * @module
 */

/** What the policy needs to know about a layout. */
export interface FitLayout {
  /** The number of skills. */
  readonly count: number;
  /** The budget in characters. */
  readonly budget: number;
  /** Descriptions are not shortened below this many characters (≥ 1). */
  readonly floor: number;
  /** The skills in the order they keep descriptions and places (best first). */
  readonly priority: readonly number[];
  /** Shorten the lowest priority first (true) or every description to one common length (false). */
  readonly ranked: boolean;
  /** Characters of everything but the entries and the left-out line. */
  readonly fixed: number;
  /** Characters of the entry of skill `i` with its description cut to `cap` (Infinity: whole). */
  readonly entryLength: (i: number, cap: number) => number;
  /** Characters of skill `i`'s whole description. */
  readonly descriptionLength: (i: number) => number;
  /** Characters of the left-out line when `kept` skills are listed (0 when all are). */
  readonly lineLength: (kept: number) => number;
}

/** The plan: a cap per skill (Infinity: whole), or `undefined` when left out. */
export type FitPlan =
  | { readonly ok: true; readonly caps: readonly (number | undefined)[] }
  | { readonly ok: false; readonly least: number };

/**
 * Plan a fit: leave out from the end of the priority order until every kept
 * skill fits with its description at the floor; then give back characters —
 * one common cap for all (unranked) or whole descriptions from the highest
 * priority down, the first that does not fit whole getting what is left (ranked).
 *
 * @param layout The layout.
 * @returns The caps, or the least budget that would fit.
 */
export function planFit(layout: FitLayout): FitPlan {
  const { count, budget, floor, priority, fixed, entryLength, lineLength } = layout;
  const prefix = [fixed];
  let atFloor = fixed;
  for (let k = 0; k < count; k++) {
    atFloor += entryLength(priority[k]!, floor);
    prefix.push(atFloor);
  }
  let kept = count;
  while (kept >= 0 && prefix[kept]! + lineLength(kept) > budget) kept--;
  if (kept < 0) {
    let least = Infinity;
    for (let k = 0; k <= count; k++) least = Math.min(least, prefix[k]! + lineLength(k));
    return { ok: false, least };
  }
  const caps: (number | undefined)[] = new Array<number | undefined>(count).fill(undefined);
  const room = budget - fixed - lineLength(kept);
  if (!layout.ranked) {
    const sizeAt = (cap: number): number => {
      let total = 0;
      for (let k = 0; k < kept && total <= room; k++) total += entryLength(priority[k]!, cap);
      return total;
    };
    let low = floor;
    let high = floor;
    for (let k = 0; k < kept; k++) high = Math.max(high, layout.descriptionLength(priority[k]!));
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (sizeAt(mid) <= room) low = mid;
      else high = mid - 1;
    }
    for (let k = 0; k < kept; k++) caps[priority[k]!] = low;
    return { ok: true, caps };
  }
  // Ranked: every kept description whole, then the lowest priority cut to the floor
  // one by one; the last one cut gets back what room is left.
  let total = 0;
  for (let k = 0; k < kept; k++) {
    caps[priority[k]!] = Infinity;
    total += entryLength(priority[k]!, Infinity);
  }
  for (let k = kept - 1; k >= 0 && total > room; k--) {
    const i = priority[k]!;
    const whole = entryLength(i, Infinity);
    const least = entryLength(i, floor);
    total += least - whole;
    caps[i] = floor;
    if (total > room) continue;
    let low = floor;
    let high = Math.max(floor, layout.descriptionLength(i));
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (total - least + entryLength(i, mid) <= room) low = mid;
      else high = mid - 1;
    }
    caps[i] = low;
  }
  return { ok: true, caps };
}

/**
 * The priority order: by rank, highest first, ties (and no rank) in the given order.
 *
 * @param names The skills' names, in the given order.
 * @param rank The host's score per name, when it gave one.
 * @returns The indices, best first.
 * @throws {RangeError} When a rank is not a finite number.
 */
export function priorityOrder(
  names: readonly string[],
  rank: ReadonlyMap<string, number> | ((name: string) => number | undefined) | undefined,
): number[] {
  const order = names.map((_, i) => i);
  if (rank === undefined) return order;
  const scores = names.map((name) => {
    const value = typeof rank === "function" ? rank(name) : rank.get(name);
    if (value === undefined) return 0;
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw new RangeError(
        `The rank of ${JSON.stringify(name)} must be a finite number, got ${String(value)}`,
      );
    }
    return value;
  });
  return order.sort((a, b) => scores[b]! - scores[a]! || a - b);
}

/**
 * The text cut to at most `cap` characters on a word boundary, marked with
 * `…`; unchanged when it fits. A first word longer than the cap is cut hard.
 *
 * @param chars The text as code points.
 * @param cap The most characters (≥ 1); `Infinity` keeps it whole.
 * @returns The text, whole or cut.
 */
export function shorten(chars: readonly string[], cap: number): string {
  if (chars.length <= cap) return chars.join("");
  let end = cap - 1;
  // Back up to the last white space, unless the first word alone is longer than the cap.
  let cut = end;
  while (cut > 0 && !/\s/u.test(chars[cut]!)) cut--;
  if (cut > 0) end = cut;
  while (end > 0 && /\s/u.test(chars[end - 1]!)) end--;
  return `${chars.slice(0, end).join("")}…`;
}

/**
 * Length in code points, as budgets count.
 *
 * @param text Any text.
 * @returns The number of code points (a lone surrogate counts as one).
 */
export function codePoints(text: string): number {
  let n = text.length;
  for (let i = 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) {
      const p = text.charCodeAt(i - 1);
      if (p >= 0xd800 && p <= 0xdbff) n--;
    }
  }
  return n;
}

/**
 * An optional whole-number option.
 *
 * @param value The value given.
 * @param name The option's name, for the message.
 * @returns The value.
 * @throws {RangeError} When it is not a whole number of at least 0.
 */
export function wholeNumber(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a whole number of at least 0, got ${String(value)}`);
  }
  return value;
}
