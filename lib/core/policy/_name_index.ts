/**
 * A lookup of names by the characters of a longer text, in place: the option
 * walk asks whether `text[start…end)` is one of a table's names without
 * cutting the word out (no string made). The walk hashes each word while it
 * looks for the word's end ({@linkcode hashStep}), so a lookup compares the
 * characters of a name only when it shares the word's hash, and then with
 * the name's character codes kept in a typed array ({@linkcode sameAt}):
 * only the word's side is read from a string.
 *
 * The table is a plain record read by a top-level function (open addressing
 * over flat arrays): the walk runs once per option word of every call the
 * policy decides, and a small function over flat arrays is what every
 * runtime's compiler inlines into it.
 *
 * Folder `lib/core/policy/` — the tool policy: allowed-tools patterns, the shell grammar, decisions.
 *
 * @module
 */

/**
 * One step of the words' hash: the hash of a word is `hashStep` folded over
 * its character codes from 0. The walk computes it as it reads a word.
 *
 * @internal
 */
export function hashStep(hash: number, code: number): number {
  return (Math.imul(hash, 31) + code) | 0;
}

/**
 * The hash of `text[start…end)`.
 *
 * @internal
 */
export function hashOf(text: string, start: number, end: number): number {
  let h = 0;
  for (let k = start; k < end; k++) h = hashStep(h, text.charCodeAt(k));
  return h;
}

/**
 * Names and their values in open addressing: slot `hash & mask` and the
 * slots after it, up to an empty one (`undefined` name).
 *
 * | operation          | cost                                            |
 * | ------------------ | ----------------------------------------------- |
 * | {@linkcode nameIndex} | O(names)                                     |
 * | {@linkcode nameAt}    | O(the word's length), + a probe per collision |
 *
 * @internal
 */
export interface NameIndex<T> {
  /** The number of slots less one: a power of two less one, so a hash is masked. */
  readonly mask: number;
  /** The names by slot; `undefined` for an empty slot. */
  readonly names: readonly (string | undefined)[];
  /** The hashes of the names, by slot. */
  readonly hashes: Int32Array;
  /** The values, by slot. */
  readonly values: readonly (T | undefined)[];
  /** The names' character codes, one after another: a lookup compares a word with them. */
  readonly codes: Uint16Array;
  /** Where each slot's name starts in `codes`, by slot. */
  readonly at: Int32Array;
}

/**
 * Build an index of names (an empty name is left out: no word is empty
 * where the walk looks one up).
 *
 * @param entries The names and their values; a name given twice keeps its first value.
 * @returns The index.
 * @example
 * ```ts
 * import { nameAt, nameIndex } from "./_name_index.ts";
 * import { assert } from "../_assert.ts";
 *
 * const index = nameIndex(new Map([["--stat", 1], ["log", 2]]));
 * assert.equal(nameAt(index, "git log --stat", 4, 7), 2);
 * assert.equal(nameAt(index, "git log --stat", 8, 14), 1);
 * assert.equal(nameAt(index, "git log --stats", 8, 15), undefined);
 * ```
 */
export function nameIndex<T>(entries: Iterable<readonly [string, T]>): NameIndex<T> {
  const list = [...entries].filter(([name]) => name !== "");
  // At most half the slots full, so a probe ends soon at an empty one.
  let size = 16;
  while (size < 2 * list.length) size *= 2;
  const mask = size - 1;
  const names: (string | undefined)[] = Array.from({ length: size }, () => undefined);
  const values: (T | undefined)[] = Array.from({ length: size }, () => undefined);
  const hashes = new Int32Array(size);
  const at = new Int32Array(size);
  const codes = new Uint16Array(list.reduce((n, [name]) => n + name.length, 0));
  let used = 0;
  for (const [name, value] of list) {
    const h = hashOf(name, 0, name.length);
    let b = h & mask;
    while (names[b] !== undefined && names[b] !== name) b = (b + 1) & mask;
    if (names[b] === name) continue;
    names[b] = name;
    hashes[b] = h;
    values[b] = value;
    at[b] = used;
    for (let k = 0; k < name.length; k++) codes[used++] = name.charCodeAt(k);
  }
  return Object.freeze({ mask, names, hashes, values, codes, at });
}

/**
 * The value of the name `text[start…end)`.
 *
 * @param index The index.
 * @param text The text the name is in.
 * @param start Where it starts.
 * @param end Where it ends (exclusive).
 * @param hash The hash of `text[start…end)` when the caller has it ({@linkcode hashOf}).
 * @returns Its value, or `undefined` for a name not in the index.
 */
export function nameAt<T>(
  index: NameIndex<T>,
  text: string,
  start: number,
  end: number,
  hash: number = hashOf(text, start, end),
): T | undefined {
  const { mask, names, hashes } = index;
  const length = end - start;
  for (let b = hash & mask;; b = (b + 1) & mask) {
    const name = names[b];
    if (name === undefined) return undefined;
    if (
      hashes[b] === hash && name.length === length &&
      sameAt(text, start, length, index.codes, index.at[b]!)
    ) {
      return index.values[b];
    }
  }
}

/**
 * Whether `text` holds at `start` the `length` codes of `codes` from `from`
 * (a name of an index, or a walk's literal words).
 *
 * @internal
 */
export function sameAt(
  text: string,
  start: number,
  length: number,
  codes: Uint16Array,
  from: number,
): boolean {
  for (let k = 0; k < length; k++) {
    if (text.charCodeAt(start + k) !== codes[from + k]) return false;
  }
  return true;
}
