/**
 * The assertions the JSDoc examples use, so that examples (run as doc tests)
 * import nothing but relative `.ts` files, like the module itself. Not
 * exported from `mod.ts`; the tests use `node:assert/strict`.
 *
 * Folder `lib/core/` — the pure core behind `mod.ts`: the error family and shared helpers; no I/O.
 *
 * @module
 */

/** Thrown when an example's assertion fails. */
export class AssertionError extends Error {
  override readonly name = "AssertionError";
}

/**
 * Structural equality of plain data (arrays, plain objects, primitives by
 * `Object.is`), without recursion; arrays and objects never equal each other.
 */
function sameData(actual: unknown, expected: unknown): boolean {
  const pairs: [unknown, unknown][] = [[actual, expected]];
  while (pairs.length > 0) {
    const [a, b] = pairs.pop()!;
    if (Object.is(a, b)) continue;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(b, key)) return false;
      pairs.push([(a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]]);
    }
  }
  return true;
}

const show = (value: unknown): string => JSON.stringify(value) ?? String(value);

/** `equal`, `deepEqual`, `ok` and `throws`, in the shape of `node:assert/strict`. */
export const assert = Object.freeze({
  /** Fails unless `actual` is `expected` (`Object.is`). */
  equal(actual: unknown, expected: unknown): void {
    if (!Object.is(actual, expected)) {
      throw new AssertionError(`Expected ${show(expected)}, got ${show(actual)}`);
    }
  },
  /** Fails unless `actual` and `expected` are the same plain data. */
  deepEqual(actual: unknown, expected: unknown): void {
    if (!sameData(actual, expected)) {
      throw new AssertionError(`Expected ${show(expected)}, got ${show(actual)}`);
    }
  },
  /** Fails unless `value` is truthy. */
  ok(value: unknown): void {
    if (!value) throw new AssertionError(`Expected a truthy value, got ${show(value)}`);
  },
  /** Fails unless `run` throws an error with the given `name` and `message` (each when given). */
  throws(run: () => unknown, expected: { name?: string; message?: string }): void {
    try {
      run();
    } catch (e) {
      const { name, message } = e as Error;
      if (expected.name !== undefined && name !== expected.name) {
        throw new AssertionError(`Expected ${expected.name}, got ${name}: ${message}`);
      }
      if (expected.message !== undefined && message !== expected.message) {
        throw new AssertionError(
          `Expected message ${show(expected.message)}, got ${show(message)}`,
        );
      }
      return;
    }
    throw new AssertionError("Expected a throw, but nothing was thrown");
  },
});
