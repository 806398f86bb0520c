/**
 * The bounded heap `searchSkills` keeps its best results in: parallel typed
 * arrays of skill numbers and scores, the root being the worst kept (lowest
 * score; on a tie, the later name), so a better candidate replaces it in
 * O(log limit).
 *
 * Folder `lib/core/search/` — search over large libraries: the BM25F index and its text analysis.
 *
 * @module
 */

/** Whether heap entry `i` is worse than entry `j` (lower score; same score, later name). */
function worse(
  skill: Int32Array,
  score: Float64Array,
  order: Int32Array,
  i: number,
  j: number,
): boolean {
  return score[i]! < score[j]! ||
    (score[i] === score[j] && order[skill[i]!]! > order[skill[j]!]!);
}

function swap(skill: Int32Array, score: Float64Array, i: number, j: number): void {
  const d = skill[i]!, s = score[i]!;
  skill[i] = skill[j]!;
  score[i] = score[j]!;
  skill[j] = d;
  score[j] = s;
}

/**
 * Restore the heap after an entry was added at `at`.
 *
 * @param skill The kept skills' numbers, by heap position.
 * @param score Their scores, by heap position.
 * @param order Each skill's place in name order, for ties.
 * @param at The position of the added entry.
 */
export function siftUp(
  skill: Int32Array,
  score: Float64Array,
  order: Int32Array,
  at: number,
): void {
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (!worse(skill, score, order, at, parent)) return;
    swap(skill, score, at, parent);
    at = parent;
  }
}

/**
 * Restore the heap after its root was replaced.
 *
 * @param skill The kept skills' numbers, by heap position.
 * @param score Their scores, by heap position.
 * @param order Each skill's place in name order, for ties.
 * @param size How many entries the heap holds.
 */
export function siftDown(
  skill: Int32Array,
  score: Float64Array,
  order: Int32Array,
  size: number,
): void {
  let at = 0;
  for (;;) {
    const l = 2 * at + 1, r = l + 1;
    let worst = at;
    if (l < size && worse(skill, score, order, l, worst)) worst = l;
    if (r < size && worse(skill, score, order, r, worst)) worst = r;
    if (worst === at) return;
    swap(skill, score, at, worst);
    at = worst;
  }
}
