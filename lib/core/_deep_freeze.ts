/**
 * Deep-freeze plain data in place, with an explicit stack (no recursion).
 *
 * Folder `lib/core/` — the pure core behind `mod.ts`: the error family and shared helpers; no I/O.
 *
 * @module
 */

/**
 * @param value Plain data: objects, arrays and primitives, possibly shared or cyclic.
 * @returns `value`, with every object reachable from it frozen.
 */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== "object" || item === null || Object.isFrozen(item)) continue;
    Object.freeze(item);
    for (const key of Object.keys(item)) stack.push((item as Record<string, unknown>)[key]);
  }
  return value;
}
