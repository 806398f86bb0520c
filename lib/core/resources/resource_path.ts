/**
 * Resource paths inside a skill folder: normalisation and classification
 * (SPEC §4).
 *
 * Folder `lib/core/resources/` — a skill's bundled files: paths and classes, the gate, bundles, reads.
 *
 * @module
 */
import { InvalidResourcePathError } from "../errors.ts";

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
 * import { assert } from "../_assert.ts";
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

/** The three standard classes a folder can be mapped to. */
export type StandardResourceClass = "references" | "assets" | "scripts";

/**
 * Extra top-level folder names mapped to a standard class, for every skill:
 * an explicit host choice (`resourceClasses` in the library, `--class
 * NAME=references|assets|scripts` on the command line). Build one with
 * {@linkcode resourceClassMap}.
 */
export type ResourceClassMap = ReadonlyMap<string, StandardResourceClass>;

const STANDARD: ReadonlySet<string> = new Set(["references", "assets", "scripts"]);

/**
 * Check and freeze a mapping of extra top-level folders to standard classes.
 *
 * @param input Folder name to class, as a `Map`, a list of pairs or a plain object
 *   (`undefined`: no extra folder).
 * @returns A frozen map (empty for `undefined`).
 * @throws {TypeError} When `input` is not a map, a list of pairs or an object.
 * @throws {RangeError} When a name is not one plain folder name (no `/`, not
 *   `.` or `..`, nothing {@linkcode normalizeResourcePath} refuses), is one of
 *   the three standard folders, or its class is not `references`, `assets` or `scripts`.
 * @example
 * ```ts
 * import { classifyResource, resourceClassMap } from "./resource_path.ts";
 * import { assert } from "../_assert.ts";
 *
 * const classes = resourceClassMap({ reference: "references", templates: "assets" });
 * assert.equal(classifyResource("reference/guide.md", classes), "references");
 * assert.equal(classifyResource("rules/a.md", classes), "nonstandard");
 * assert.throws(() => resourceClassMap({ "a/b": "references" }), { name: "RangeError" });
 * ```
 */
export function resourceClassMap(
  input:
    | ReadonlyMap<string, string>
    | Iterable<readonly [string, string]>
    | Readonly<Record<string, string>>
    | undefined,
): ResourceClassMap {
  const out = new Map<string, StandardResourceClass>();
  if (input === undefined) return Object.freeze(out) as ResourceClassMap;
  if (typeof input !== "object" || input === null) {
    throw new TypeError(
      "resourceClasses must be a Map, a list of [name, class] pairs or an object",
    );
  }
  const pairs: Iterable<readonly [unknown, unknown]> = input instanceof Map
    ? input
    : Symbol.iterator in input
    ? (input as Iterable<readonly [string, string]>)
    : Object.entries(input);
  for (const pair of pairs) {
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw new TypeError(
        "resourceClasses must be a Map, a list of [name, class] pairs or an object",
      );
    }
    const [name, cls] = pair as [unknown, unknown];
    if (typeof name !== "string" || !isPlainName(name, true)) {
      throw new RangeError(
        `Folder ${
          JSON.stringify(String(name))
        } cannot be mapped: give one plain top-level folder name`,
      );
    }
    if (STANDARD.has(name)) {
      throw new RangeError(`Folder ${JSON.stringify(name)} is a standard folder already`);
    }
    if (typeof cls !== "string" || !STANDARD.has(cls)) {
      throw new RangeError(
        `Folder ${JSON.stringify(name)} maps to ${
          JSON.stringify(String(cls))
        }: the class must be references, assets or scripts`,
      );
    }
    out.set(name, cls as StandardResourceClass);
  }
  return Object.freeze(out) as ResourceClassMap;
}

/**
 * Classify a normalised path: files at the top level are `root`; the folders
 * `references/`, `assets/` and `scripts/` (exact, case-sensitive names) give
 * their class, and so does an extra folder `classes` maps; any other
 * top-level folder is `nonstandard`.
 *
 * @param path A path returned by {@linkcode normalizeResourcePath}.
 * @param classes Extra top-level folders mapped to a standard class (see
 *   {@linkcode resourceClassMap}); default none.
 * @returns Its class.
 * @example
 * ```ts
 * import { classifyResource } from "./resource_path.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(classifyResource("assets/logo.png"), "assets");
 * assert.equal(classifyResource("References/x.md"), "nonstandard");
 * assert.equal(classifyResource("LICENSE"), "root");
 * assert.equal(classifyResource("rules/a.md", new Map([["rules", "references"]])), "references");
 * ```
 */
export function classifyResource(path: string, classes?: ResourceClassMap): ResourceClass {
  const slash = path.indexOf("/");
  if (slash < 0) return "root";
  const top = path.slice(0, slash);
  switch (top) {
    case "references":
      return "references";
    case "assets":
      return "assets";
    case "scripts":
      return "scripts";
    default:
      return classes?.get(top) ?? "nonstandard";
  }
}

/**
 * The class of a file reached through a symbolic link: the stricter of the
 * class of its requested path and of its real path, so
 * `references/x -> ../secret/y` is `nonstandard`.
 *
 * @param requested The normalised requested path.
 * @param real The normalised real path inside the skill root, when it differs.
 * @param classes Extra top-level folders mapped to a standard class; default none.
 * @returns The stricter class.
 */
export function effectiveClass(
  requested: string,
  real: string | undefined,
  classes?: ResourceClassMap,
): ResourceClass {
  const own = classifyResource(requested, classes);
  if (real === undefined || own === "nonstandard") return own;
  return classifyResource(real, classes) === "nonstandard" ? "nonstandard" : own;
}
