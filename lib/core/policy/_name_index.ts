/**
 * A lookup of names by the characters of a longer text, in place: the option
 * walk asks whether `text[start…end)` is one of a table's names without
 * cutting the word out (no string made). The walk hashes each word while it
 * looks for the word's end ({@linkcode hashStep}), so a lookup compares the
 * characters of at most the names that share the word's hash.
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
 * Names and their values, bucketed by hash.
 *
 * | operation | cost                                                  |
 * | --------- | ----------------------------------------------------- |
 * | build     | O(names)                                              |
 * | `get`     | O(the word's length + the names sharing its bucket's) |
 *
 * @example
 * ```ts
 * import { NameIndex } from "./_name_index.ts";
 * import { assert } from "../_assert.ts";
 *
 * const index = new NameIndex(new Map([["--stat", 1], ["log", 2]]));
 * assert.equal(index.get("git log --stat", 4, 7), 2);
 * assert.equal(index.get("git log --stat", 8, 14), 1);
 * assert.equal(index.get("git log --stats", 8, 15), undefined);
 * ```
 */
export class NameIndex<T> {
  readonly #mask: number;
  /** By bucket: the names, their hashes and their values, in step. */
  readonly #names: (string[] | undefined)[];
  readonly #hashes: (number[] | undefined)[];
  readonly #values: (T[] | undefined)[];

  /** @param entries The names and their values. */
  constructor(entries: Iterable<readonly [string, T]>) {
    const list = [...entries].filter(([name]) => name !== "");
    // At least twice as many buckets as names, a power of two so a hash is masked.
    let size = 16;
    while (size < 2 * list.length) size *= 2;
    this.#mask = size - 1;
    this.#names = Array.from({ length: size }, () => undefined);
    this.#hashes = Array.from({ length: size }, () => undefined);
    this.#values = Array.from({ length: size }, () => undefined);
    for (const [name, value] of list) {
      const h = hashOf(name, 0, name.length);
      const b = h & this.#mask;
      (this.#names[b] ??= []).push(name);
      (this.#hashes[b] ??= []).push(h);
      (this.#values[b] ??= []).push(value);
    }
  }

  /**
   * The value of the name `text[start…end)`.
   *
   * @param text The text the name is in.
   * @param start Where it starts.
   * @param end Where it ends (exclusive).
   * @returns Its value, or `undefined` for a name not in the index.
   */
  get(text: string, start: number, end: number): T | undefined {
    return this.getHashed(text, start, end, hashOf(text, start, end));
  }

  /**
   * {@linkcode get} with the name's hash already known (the walk's).
   *
   * @param text The text the name is in.
   * @param start Where it starts.
   * @param end Where it ends (exclusive).
   * @param hash The hash of `text[start…end)`, {@linkcode hashStep} folded over it.
   * @returns Its value, or `undefined` for a name not in the index.
   */
  getHashed(text: string, start: number, end: number, hash: number): T | undefined {
    const b = hash & this.#mask;
    const hashes = this.#hashes[b];
    if (hashes === undefined) return undefined;
    const length = end - start;
    for (let i = 0; i < hashes.length; i++) {
      if (hashes[i] !== hash) continue;
      const name = this.#names[b]![i]!;
      if (name.length === length && sameAt(text, start, name)) return this.#values[b]![i];
    }
    return undefined;
  }
}

/** Whether `text` holds `name` at `start`. */
function sameAt(text: string, start: number, name: string): boolean {
  for (let k = 0; k < name.length; k++) {
    if (text.charCodeAt(start + k) !== name.charCodeAt(k)) return false;
  }
  return true;
}
