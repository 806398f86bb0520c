/**
 * Resource paths inside a skill folder: normalisation and classification
 * (SPEC §4).
 *
 * @module
 */
import { InvalidResourcePathError } from "./errors.ts";

/** The class of a bundled resource, which decides whether the gate applies. */
export type ResourceClass = "root" | "references" | "assets" | "scripts" | "nonstandard";

/** Every class, in manifest order. */
export const RESOURCE_CLASSES: readonly ResourceClass[] = Object.freeze([
  "root",
  "references",
  "assets",
  "scripts",
  "nonstandard",
]);

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/**
 * Bidirectional controls (embeddings, overrides, isolates, the marks) and the
 * line and paragraph separators: they make a path display as another.
 */
const INVISIBLE = /[\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** Characters drawn like `/` or `\`, which make one name look like a folder path. */
const SLASH_LIKE = /[\u2044\u2215\u2216\u2571\u2572\u29f5\u29f8\u29f9\ufe68\uff0f\uff3c]/;
/** Every character refused in a name, in one test (for listing folders fast). */
const REFUSED = new RegExp(`${CONTROL.source}|${INVISIBLE.source}|${SLASH_LIKE.source}|\\\\`);
const DRIVE = /^[A-Za-z]:/;

/**
 * Normalise a resource path: `/`-separated and relative, with `.` and empty
 * segments dropped.
 *
 * @param input A path relative to the skill folder, e.g. `./references//forms.md`.
 * @returns The normalised path, e.g. `references/forms.md`.
 * @throws {InvalidResourcePathError} When the path is empty (also after
 *   normalisation), absolute, a drive or UNC path, or holds a `..` segment, a
 *   backslash, NUL or another control character, a bidirectional control
 *   (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), a line or
 *   paragraph separator (U+2028, U+2029), or a character drawn like a slash
 *   or backslash (U+2044, U+2215, U+2216, U+2571, U+2572, U+29F5, U+29F8,
 *   U+29F9, U+FE68, U+FF0F, U+FF3C).
 * @throws {TypeError} When `input` is not a string.
 * @example
 * ```ts
 * import { normalizeResourcePath } from "./resource_path.ts";
 * import { assert } from "./_assert.ts";
 *
 * assert.equal(normalizeResourcePath("./assets//logo.png"), "assets/logo.png");
 * assert.throws(() => normalizeResourcePath("references/../../etc/passwd"), {
 *   name: "InvalidResourcePathError",
 * });
 * ```
 */
export function normalizeResourcePath(input: string): string {
  if (typeof input !== "string") {
    throw new TypeError(`A resource path must be a string, got ${typeof input}`);
  }
  if (input === "") throw new InvalidResourcePathError(input, "it is empty");
  if (CONTROL.test(input)) {
    throw new InvalidResourcePathError(input, "it contains NUL or another control character");
  }
  if (INVISIBLE.test(input)) {
    throw new InvalidResourcePathError(
      input,
      "it contains a bidirectional control or a line separator",
    );
  }
  if (SLASH_LIKE.test(input)) {
    throw new InvalidResourcePathError(
      input,
      "it contains a character that looks like a slash or a backslash",
    );
  }
  if (input.includes("\\")) throw new InvalidResourcePathError(input, "it contains a backslash");
  if (input.startsWith("/")) throw new InvalidResourcePathError(input, "it is absolute");
  if (DRIVE.test(input)) throw new InvalidResourcePathError(input, "it is a drive path");
  const segments: string[] = [];
  for (const segment of input.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      throw new InvalidResourcePathError(
        input,
        'it contains ".." and could leave the skill folder',
      );
    }
    segments.push(segment);
  }
  if (segments.length === 0) throw new InvalidResourcePathError(input, "it names no file");
  if (DRIVE.test(segments[0]!)) throw new InvalidResourcePathError(input, "it is a drive path");
  return segments.join("/");
}

/**
 * Whether `name`, a single file or folder name, can be appended to a
 * normalised folder path and leave it normalised — a fast check for listing
 * folders; when it says no, {@linkcode normalizeResourcePath} says why.
 *
 * @param name One path segment (no `/`).
 * @param topLevel Whether it sits at the top of the skill folder (where a drive-like `C:` is refused).
 * @returns True when `folder/name` needs no normalisation and is valid.
 */
export function isPlainName(name: string, topLevel: boolean): boolean {
  return name !== "" && name !== "." && name !== ".." && !name.includes("/") &&
    !REFUSED.test(name) && !(topLevel && DRIVE.test(name));
}

/**
 * Classify a normalised path: files at the top level are `root`; the folders
 * `references/`, `assets/` and `scripts/` (exact, case-sensitive names) give
 * their class; any other top-level folder is `nonstandard`.
 *
 * @param path A path returned by {@linkcode normalizeResourcePath}.
 * @returns Its class.
 * @example
 * ```ts
 * import { classifyResource } from "./resource_path.ts";
 * import { assert } from "./_assert.ts";
 *
 * assert.equal(classifyResource("assets/logo.png"), "assets");
 * assert.equal(classifyResource("References/x.md"), "nonstandard");
 * assert.equal(classifyResource("LICENSE"), "root");
 * ```
 */
export function classifyResource(path: string): ResourceClass {
  const slash = path.indexOf("/");
  if (slash < 0) return "root";
  switch (path.slice(0, slash)) {
    case "references":
      return "references";
    case "assets":
      return "assets";
    case "scripts":
      return "scripts";
    default:
      return "nonstandard";
  }
}

/**
 * The class of a file reached through a symbolic link: the stricter of the
 * class of its requested path and of its real path, so
 * `references/x -> ../secret/y` is `nonstandard`.
 *
 * @param requested The normalised requested path.
 * @param real The normalised real path inside the skill root, when it differs.
 * @returns The stricter class.
 */
export function effectiveClass(requested: string, real: string | undefined): ResourceClass {
  const own = classifyResource(requested);
  if (real === undefined || own === "nonstandard") return own;
  return classifyResource(real) === "nonstandard" ? "nonstandard" : own;
}
