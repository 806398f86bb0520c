/**
 * SHA-256 digests in SEP-2640's form (`sha256:` + 64 lowercase hex), over
 * bytes, over a skill's file list (the canonical manifest) and over a
 * frontmatter object. Hashing uses the runtime's WebCrypto
 * (`crypto.subtle`); nothing else.
 *
 * Folder `lib/core/trust/` — trust as data: digests, manifests, lockfiles, approvals, pins, SSH signatures.
 *
 * @module
 */

/** A digest as SEP-2640 writes it: `sha256:` then 64 lowercase hexadecimal digits. */
export const DIGEST_PATTERN: RegExp = /^sha256:[0-9a-f]{64}$/;

/** One file of a skill, as a SEP-2640 resource entry keyed by its path inside the skill. */
export interface FileDigest {
  /** The normalised path inside the skill (`references/forms.md`). */
  readonly path: string;
  /** Its size in bytes. */
  readonly size: number;
  /** `sha256:<hex>` of its bytes. */
  readonly digest: string;
}

const HEX: readonly string[] = Array.from(
  { length: 256 },
  (_, i) => i.toString(16).padStart(2, "0"),
);
const UTF8 = new TextEncoder();

/**
 * Whether a value is a digest in SEP-2640's form.
 *
 * @param value Anything.
 * @returns True for `sha256:` followed by exactly 64 lowercase hexadecimal digits.
 * @example
 * ```ts
 * import { isDigest } from "./digest.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(isDigest(`sha256:${"0".repeat(64)}`), true);
 * assert.equal(isDigest(`sha256:${"A".repeat(64)}`), false);
 * assert.equal(isDigest(`md5:${"0".repeat(32)}`), false);
 * ```
 */
export function isDigest(value: unknown): value is string {
  return typeof value === "string" && DIGEST_PATTERN.test(value);
}

/**
 * The SHA-256 digest of bytes, by `crypto.subtle`.
 *
 * @param bytes The bytes.
 * @returns `sha256:<hex>`.
 * @example
 * ```ts
 * import { sha256Digest } from "./digest.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(
 *   await sha256Digest(new TextEncoder().encode("abc")),
 *   "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
 * );
 * ```
 */
export async function sha256Digest(bytes: Uint8Array): Promise<string> {
  return hexDigest(
    new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)),
  );
}

/**
 * A 32-byte SHA-256 hash in SEP-2640's form.
 *
 * @param hash The hash.
 * @returns `sha256:<hex>`.
 * @example
 * ```ts
 * import { hexDigest } from "./digest.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(hexDigest(new Uint8Array(32).fill(255)), `sha256:${"ff".repeat(32)}`);
 * ```
 */
export function hexDigest(hash: Uint8Array): string {
  let hex = "sha256:";
  for (let i = 0; i < hash.length; i++) hex += HEX[hash[i]!];
  return hex;
}

/**
 * Order two paths by UTF-16 code units (JavaScript's default sort order).
 *
 * @param a A path.
 * @param b Another path.
 * @returns Negative, zero or positive.
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The canonical manifest of a skill's files: one line per file, in code-unit
 * order of path, each the 64 hex digits of its digest, two spaces, its path
 * and a line feed — exactly what `sha256sum` prints for the file. A path
 * never holds a backslash or a control character (they are not valid
 * resource paths), so no line is escaped.
 *
 * @param files The files (any order; each path once).
 * @returns The manifest text.
 * @throws {TypeError} When a digest is not `sha256:<hex>` or a path is listed twice.
 * @example
 * ```ts
 * import { canonicalManifest } from "./digest.ts";
 * import { assert } from "../_assert.ts";
 *
 * const d = `sha256:${"ab".repeat(32)}`;
 * assert.equal(
 *   canonicalManifest([{ path: "b.md", size: 1, digest: d }, { path: "SKILL.md", size: 2, digest: d }]),
 *   `${"ab".repeat(32)}  SKILL.md\n${"ab".repeat(32)}  b.md\n`,
 * );
 * ```
 */
export function canonicalManifest(files: readonly FileDigest[]): string {
  const sorted = [...files].sort((a, b) => compareCodeUnits(a.path, b.path));
  let text = "";
  for (let i = 0; i < sorted.length; i++) {
    const file = sorted[i]!;
    if (!isDigest(file.digest)) {
      throw new TypeError(
        `Invalid digest ${JSON.stringify(file.digest)} of ${JSON.stringify(file.path)}`,
      );
    }
    if (i > 0 && sorted[i - 1]!.path === file.path) {
      throw new TypeError(`The file ${JSON.stringify(file.path)} is listed twice`);
    }
    text += `${file.digest.slice(7)}  ${file.path}\n`;
  }
  return text;
}

/**
 * A skill's digest: the SHA-256 of its {@linkcode canonicalManifest} (UTF-8).
 * Recompute it with `sha256sum` over the files in that order, piped to
 * `sha256sum` again.
 *
 * @param files The files (any order).
 * @returns `sha256:<hex>`.
 * @throws {TypeError} As {@linkcode canonicalManifest}.
 * @example
 * ```ts
 * import { sha256Digest, skillDigest } from "./digest.ts";
 * import { assert } from "../_assert.ts";
 *
 * const file = { path: "SKILL.md", size: 3, digest: await sha256Digest(new TextEncoder().encode("abc")) };
 * assert.equal(
 *   await skillDigest([file]),
 *   await sha256Digest(new TextEncoder().encode(`${file.digest.slice(7)}  SKILL.md\n`)),
 * );
 * ```
 */
export function skillDigest(files: readonly FileDigest[]): Promise<string> {
  return sha256Digest(UTF8.encode(canonicalManifest(files)));
}

/**
 * The canonical JSON of plain data: object keys in code-unit order, no
 * white space, strings and numbers as `JSON.stringify` writes them. Built
 * with an explicit stack.
 *
 * @param value JSON data (objects, arrays, strings, finite numbers, booleans, null).
 * @returns The text.
 * @throws {TypeError} For a value JSON cannot hold (undefined, a function, a
 *   non-finite number, a cycle).
 * @example
 * ```ts
 * import { canonicalJson } from "./digest.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(canonicalJson({ name: "pdf", metadata: { b: "2", a: "1" } }), '{"metadata":{"a":"1","b":"2"},"name":"pdf"}');
 * ```
 */
export function canonicalJson(value: unknown): string {
  let out = "";
  type Step = { text: string } | { value: unknown } | { close: object };
  const stack: Step[] = [{ value }];
  const open = new Set<object>();
  while (stack.length > 0) {
    const step = stack.pop()!;
    if ("text" in step) {
      out += step.text;
      continue;
    }
    if ("close" in step) {
      open.delete(step.close);
      continue;
    }
    const v = step.value;
    if (v === null || typeof v === "boolean") out += String(v);
    else if (typeof v === "string") out += JSON.stringify(v);
    else if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new TypeError(`Not a JSON value: ${v}`);
      out += JSON.stringify(v);
    } else if (typeof v === "object") {
      if (open.has(v)) throw new TypeError("Not JSON data: it holds a cycle");
      open.add(v);
      const parts: Step[] = [];
      if (Array.isArray(v)) {
        parts.push({ text: "[" });
        for (let i = 0; i < v.length; i++) {
          if (i > 0) parts.push({ text: "," });
          parts.push({ value: v[i] });
        }
        parts.push({ text: "]" });
      } else {
        const keys = Object.keys(v).sort(compareCodeUnits);
        parts.push({ text: "{" });
        for (let i = 0; i < keys.length; i++) {
          parts.push({ text: `${i > 0 ? "," : ""}${JSON.stringify(keys[i])}:` });
          parts.push({ value: (v as Record<string, unknown>)[keys[i]!] });
        }
        parts.push({ text: "}" });
      }
      parts.push({ close: v });
      for (let i = parts.length - 1; i >= 0; i--) stack.push(parts[i]!);
    } else {
      throw new TypeError(`Not a JSON value: ${typeof v}`);
    }
  }
  return out;
}

/**
 * The digest of a frontmatter object: the SHA-256 of its
 * {@linkcode canonicalJson}. The same frontmatter read from `SKILL.md` on
 * disk and from a SEP-2640 entry gives the same digest.
 *
 * @param frontmatter The frontmatter as JSON data.
 * @returns `sha256:<hex>`.
 * @throws {TypeError} As {@linkcode canonicalJson}.
 * @example
 * ```ts
 * import { frontmatterDigest } from "./digest.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(
 *   await frontmatterDigest({ name: "pdf", description: "PDF" }),
 *   await frontmatterDigest({ description: "PDF", name: "pdf" }),
 * );
 * ```
 */
export function frontmatterDigest(frontmatter: unknown): Promise<string> {
  return sha256Digest(UTF8.encode(canonicalJson(frontmatter)));
}
