/**
 * A lookup of names by the characters of a longer text, in place: the option
 * walk asks whether `text[start…end)` is one of a table's names without
 * cutting the word out (no string made, none hashed per call).
 *
 * Folder `lib/core/policy/` — the tool policy: allowed-tools patterns, the shell grammar, decisions.
 *
 * @module
 */

/** Buckets: a power of two, so a hash is masked. */
const BUCKETS = 64;

function bucketOf(length: number, last: number): number {
  return (length * 7 + last) & (BUCKETS - 1);
}

/**
 * Names and their values, bucketed by length and last character.
 *
 * | operation | cost                                          |
 * | --------- | --------------------------------------------- |
 * | build     | O(names)                                      |
 * | `get`     | O(the names of one bucket × the word's length) |
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
  readonly #names: (string[] | undefined)[] = Array.from({ length: BUCKETS }, () => undefined);
  readonly #values: (T[] | undefined)[] = Array.from({ length: BUCKETS }, () => undefined);

  /** @param entries The names and their values. */
  constructor(entries: Iterable<readonly [string, T]>) {
    for (const [name, value] of entries) {
      if (name === "") continue;
      const b = bucketOf(name.length, name.charCodeAt(name.length - 1));
      (this.#names[b] ??= []).push(name);
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
    const length = end - start;
    if (length <= 0) return undefined;
    const b = bucketOf(length, text.charCodeAt(end - 1));
    const names = this.#names[b];
    if (names === undefined) return undefined;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (name.length === length && text.startsWith(name, start)) return this.#values[b]![i];
    }
    return undefined;
  }
}
