/**
 * Argument checks at the public entry points most used from plain
 * JavaScript (`activateSkill`, `readResource`, `handleSkillTool`,
 * `resolveTools`): a wrong shape is a `TypeError` naming what was passed and
 * what to pass instead, never a raw "cannot read properties of undefined".
 *
 * Folder `lib/core/` — the pure core behind `mod.ts`: the error family and shared helpers; no I/O.
 *
 * @module
 */
import type { SkillBundle } from "./resources/bundle.ts";

/** A short account of a value's shape, for a message. */
function shapeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value !== "object") return typeof value === "function" ? "a function" : typeof value;
  const record = value as Record<string, unknown>;
  if (typeof record["skill_md"] === "string" && typeof record["path"] === "string") {
    return "a discovered skill (from discoverSkills: load it with loadSkillFolder(skill.path), " +
      "or use discovery.bundle(name))";
  }
  if (value instanceof Promise) return "a Promise (await it first)";
  const keys = Object.keys(record).slice(0, 5).map((k) => JSON.stringify(k.slice(0, 40)));
  return keys.length === 0 ? "an object without fields" : `an object with ${keys.join(", ")}`;
}

/**
 * @param value What was passed as a bundle.
 * @param where The function and argument, e.g. `activateSkill(bundle)`.
 * @throws {TypeError} When it is not a skill bundle (a `name` string and a `files` map).
 */
export function assertBundle(value: unknown, where: string): asserts value is SkillBundle {
  const bundle = value as Partial<SkillBundle> | null;
  if (
    typeof bundle !== "object" || bundle === null || typeof bundle.name !== "string" ||
    typeof bundle.files?.get !== "function" || typeof bundle.files?.values !== "function"
  ) {
    throw new TypeError(
      `${where} takes a SkillBundle (from loadSkillFolder, createBundle or discovery.bundle), ` +
        `got ${shapeOf(value)}`,
    );
  }
}

/**
 * @param value What was passed as an options or context object.
 * @param where The function and argument, e.g. `handleSkillTool(input, context)`.
 * @param wanted What it should be, e.g. `an object with "skills"`.
 * @param field A field it must have, if any.
 * @throws {TypeError} When it is not an object (with that field).
 */
export function assertObject(value: unknown, where: string, wanted: string, field?: string): void {
  if (
    typeof value !== "object" || value === null || Array.isArray(value) ||
    (field !== undefined && (value as Record<string, unknown>)[field] == null)
  ) {
    throw new TypeError(`${where} takes ${wanted}, got ${shapeOf(value)}`);
  }
}

/**
 * @param bundle What was passed as the bundle of `readResource`.
 * @param path What was passed as the path.
 * @param options What was passed as the options.
 * @throws {TypeError} For a bundle that is not one, a path that is not a string, options that are not an object.
 */
export function assertReadArguments(bundle: unknown, path: unknown, options: unknown): void {
  assertBundle(bundle, "readResource(bundle, path)");
  if (typeof path !== "string") {
    throw new TypeError(
      `readResource(bundle, path) takes the path as a string, got ${
        path === null ? "null" : typeof path
      }`,
    );
  }
  assertObject(options, "readResource(bundle, path, options)", "an options object");
}
