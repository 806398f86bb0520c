/**
 * An immutable, insertion-ordered map with the rule at the heart of the
 * resolver: setting a key that is already present keeps its first position
 * and takes the new value.
 *
 * Folder `lib/core/resolver/` — the skill model and the resolver: ordered maps, the include graph, tool sets.
 *
 * @module
 */

/**
 * An immutable map whose iteration order is the order in which keys first
 * appeared. Setting an existing key keeps its position and replaces its value.
 * Keys compare with SameValueZero, as in `Map`, so `"__proto__"` and
 * `"constructor"` are ordinary keys.
 *
 * Instances are frozen; every update returns a new map and leaves the old one
 * unchanged. Build large maps with {@linkcode OrderedMap.builder}.
 *
 * | operation                               | cost                   |
 * | --------------------------------------- | ---------------------- |
 * | `get`, `has`, `size`                    | O(1)                   |
 * | `keys`, `values`, `entries`, iteration  | O(1) to start, O(n) to exhaust |
 * | `toArray`, `toJSON`                     | O(n)                   |
 * | `with`, `without`                       | O(n) (copy on write; O(1) when nothing changes) |
 * | `withMany(entries)`                     | O(n + m)               |
 * | `from(entries)`                         | O(m)                   |
 * | builder `set` / `freeze`                | O(1) amortised / O(1)  |
 *
 * @example
 * ```ts
 * import { OrderedMap } from "./ordered_map.ts";
 * import { assert } from "../_assert.ts";
 *
 * const tools = OrderedMap.from([["read", 1], ["write", 2], ["read", 3]]);
 * assert.deepEqual([...tools.keys()], ["read", "write"]);
 * assert.equal(tools.get("read"), 3);
 *
 * const more = tools.with("grep", 4).without("write");
 * assert.deepEqual(more.toArray(), [["read", 3], ["grep", 4]]);
 * assert.equal(tools.size, 2); // the original is unchanged
 * ```
 */
export class OrderedMap<K, V> implements ReadonlyMap<K, V> {
  readonly #map: Map<K, V>;

  /** Not for direct use: call {@linkcode OrderedMap.from}, {@linkcode OrderedMap.empty} or a builder. */
  private constructor(map: Map<K, V>, token: typeof PRIVATE) {
    if (token !== PRIVATE) {
      throw new TypeError("OrderedMap cannot be constructed directly: use OrderedMap.from");
    }
    this.#map = map;
    Object.freeze(this);
  }

  /**
   * Build a map from entries: each key at its first position, with its last value.
   *
   * @param entries Key-value pairs, in order.
   * @returns A new frozen map.
   * @throws {TypeError} When an entry is not an object (as `new Map` does).
   * @example
   * ```ts
   * import { OrderedMap } from "./ordered_map.ts";
   * import { assert } from "../_assert.ts";
   *
   * const m = OrderedMap.from([["a", 1], ["b", 2], ["a", 9]]);
   * assert.deepEqual(m.toArray(), [["a", 9], ["b", 2]]);
   * ```
   */
  static from<K, V>(entries: Iterable<readonly [K, V]>): OrderedMap<K, V> {
    return new OrderedMap(new Map(entries), PRIVATE);
  }

  /**
   * The empty map.
   *
   * @returns A shared frozen map with no keys.
   * @example
   * ```ts
   * import { OrderedMap } from "./ordered_map.ts";
   * import { assert } from "../_assert.ts";
   *
   * assert.equal(OrderedMap.empty<string, number>().size, 0);
   * ```
   */
  static empty<K, V>(): OrderedMap<K, V> {
    return EMPTY as OrderedMap<K, V>;
  }

  /**
   * A transient builder for bulk work: `set` mutates in O(1) amortised time and
   * `freeze` hands out an immutable map in O(1). The builder stays usable after
   * `freeze`; its next `set` copies first, so frozen maps never change.
   *
   * @returns A new, empty builder.
   * @example
   * ```ts
   * import { OrderedMap } from "./ordered_map.ts";
   * import { assert } from "../_assert.ts";
   *
   * const b = OrderedMap.builder<string, number>();
   * b.set("x", 1).set("y", 2).set("x", 3);
   * const m = b.freeze();
   * assert.deepEqual(m.toArray(), [["x", 3], ["y", 2]]);
   * ```
   */
  static builder<K, V>(): OrderedMapBuilder<K, V> {
    return new OrderedMapBuilder<K, V>(adopt);
  }

  /** The number of keys. */
  get size(): number {
    return this.#map.size;
  }

  /**
   * Look a key up.
   *
   * @param key The key to look up.
   * @returns The value of `key`, or `undefined` when absent.
   */
  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  /**
   * Test for a key.
   *
   * @param key The key to look up.
   * @returns Whether `key` is present.
   */
  has(key: K): boolean {
    return this.#map.has(key);
  }

  /**
   * The keys.
   *
   * @returns The keys in first-appearance order.
   */
  keys(): MapIterator<K> {
    return this.#map.keys();
  }

  /**
   * The values.
   *
   * @returns The values in key order.
   */
  values(): MapIterator<V> {
    return this.#map.values();
  }

  /**
   * The entries.
   *
   * @returns The `[key, value]` pairs in key order.
   */
  entries(): MapIterator<[K, V]> {
    return this.#map.entries();
  }

  /**
   * Iterate over the entries.
   *
   * @returns The `[key, value]` pairs in key order.
   */
  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.#map.entries();
  }

  /**
   * Call `callback` for each entry in key order.
   *
   * @param callback Receives the value, the key and this map.
   * @param thisArg The `this` of each call.
   */
  forEach(
    callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void,
    thisArg?: unknown,
  ): void {
    for (const [key, value] of this.#map) callback.call(thisArg, value, key, this);
  }

  /**
   * The entries as an array.
   *
   * @returns The `[key, value]` pairs as a new frozen array of frozen pairs.
   */
  toArray(): ReadonlyArray<readonly [K, V]> {
    const out: (readonly [K, V])[] = [];
    for (const pair of this.#map) out.push(Object.freeze(pair));
    return Object.freeze(out);
  }

  /**
   * The entries as JSON: `[key, value]` pairs.
   *
   * @returns The same as {@linkcode OrderedMap.toArray}, for `JSON.stringify`.
   */
  toJSON(): ReadonlyArray<readonly [K, V]> {
    return this.toArray();
  }

  /**
   * Set one key, persistently (O(n) copy on write).
   *
   * @param key The key to set.
   * @param value Its new value.
   * @returns A map in which `key` has `value`: at its old position when it was
   *   present, at the end otherwise. `this` when nothing changes.
   */
  with(key: K, value: V): OrderedMap<K, V> {
    const map = this.#map;
    if (map.has(key) && Object.is(map.get(key), value)) return this;
    const copy = new Map(map);
    copy.set(key, value);
    return new OrderedMap(copy, PRIVATE);
  }

  /**
   * Set many keys, persistently.
   *
   * @param entries Pairs to set, in order.
   * @returns A map equal to folding {@linkcode OrderedMap.with} over `entries`.
   */
  withMany(entries: Iterable<readonly [K, V]>): OrderedMap<K, V> {
    const copy = new Map(this.#map);
    for (const [key, value] of entries) copy.set(key, value);
    return new OrderedMap(copy, PRIVATE);
  }

  /**
   * Remove one key, persistently (O(n) copy on write).
   *
   * @param key The key to remove.
   * @returns A map without `key`; `this` when it was absent.
   */
  without(key: K): OrderedMap<K, V> {
    if (!this.#map.has(key)) return this;
    const copy = new Map(this.#map);
    copy.delete(key);
    return new OrderedMap(copy, PRIVATE);
  }

  /** The tag shown by `Object.prototype.toString`. */
  get [Symbol.toStringTag](): string {
    return "OrderedMap";
  }
}

/**
 * The transient builder of an {@linkcode OrderedMap}; get one from
 * {@linkcode OrderedMap.builder}.
 *
 * | operation | cost           |
 * | --------- | -------------- |
 * | `set`     | O(1) amortised; O(n) once after each `freeze` |
 * | `get`, `has`, `size` | O(1) |
 * | `freeze`  | O(1)           |
 */
export class OrderedMapBuilder<K, V> {
  #map: Map<K, V> = new Map();
  #shared = false;
  readonly #adopt: (map: Map<K, V>) => OrderedMap<K, V>;

  /** Not for direct use: call {@linkcode OrderedMap.builder}. */
  constructor(adoptMap: typeof adopt) {
    if (adoptMap !== adopt) {
      throw new TypeError(
        "OrderedMapBuilder cannot be constructed directly: use OrderedMap.builder",
      );
    }
    this.#adopt = adoptMap as (map: Map<K, V>) => OrderedMap<K, V>;
  }

  /** The number of keys set so far. */
  get size(): number {
    return this.#map.size;
  }

  /**
   * Look a key up.
   *
   * @param key The key to look up.
   * @returns The value set last for `key`, or `undefined`.
   */
  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  /**
   * Test for a key.
   *
   * @param key The key to look up.
   * @returns Whether `key` has been set.
   */
  has(key: K): boolean {
    return this.#map.has(key);
  }

  /**
   * Set `key` to `value`, keeping the first position of a key already set.
   *
   * @param key The key.
   * @param value Its value.
   * @returns This builder, for chaining.
   */
  set(key: K, value: V): this {
    if (this.#shared) {
      this.#map = new Map(this.#map);
      this.#shared = false;
    }
    this.#map.set(key, value);
    return this;
  }

  /**
   * Freeze what was built, in O(1); the builder copies before its next `set`.
   *
   * @returns An immutable map of everything set so far.
   */
  freeze(): OrderedMap<K, V> {
    this.#shared = true;
    return this.#adopt(this.#map);
  }
}

const PRIVATE: unique symbol = Symbol("OrderedMap.private");

/**
 * Internal (not exported from `mod.ts`): wrap `map` as an immutable
 * {@linkcode OrderedMap} without copying. The caller hands over ownership and
 * must never touch `map` again; the resolver uses this to skip a copy.
 *
 * @param map A map nobody else holds.
 * @returns The frozen map backed by it.
 */
export function adopt<K, V>(map: Map<K, V>): OrderedMap<K, V> {
  // The constructor is private to the class body; this module is its only other caller.
  const Ctor = OrderedMap as unknown as new (
    map: Map<K, V>,
    token: typeof PRIVATE,
  ) => OrderedMap<K, V>;
  return new Ctor(map, PRIVATE);
}

const EMPTY: OrderedMap<never, never> = OrderedMap.from([]);
