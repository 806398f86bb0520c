/**
 * Every entry of a skill folder, as a lockfile records it: the files a
 * reader serves are in `files`; every other entry — a link, a named pipe, a
 * socket, a device, or a regular file whose name no reader serves (not valid
 * UTF-8, a control character, a backslash) — is an {@linkcode OtherEntry},
 * by kind and escaped name, so adding, removing or changing one is a
 * difference. The skill digest covers every regular file, hostile names
 * included, in the line format of `sha256sum` (its escaping rule for a name
 * holding a line feed, carriage return or backslash), so the documented
 * recipe still recomputes it.
 *
 * Folder `lib/core/trust/` — trust as data: digests, manifests, lockfiles, approvals, pins, SSH signatures.
 *
 * @module
 */
import { compareCodeUnits, type FileDigest, hexDigest, sha256Digest } from "./digest.ts";
import { canonicalManifest } from "./digest.ts";
import { Sha256 } from "./_sha256.ts";

/** The kinds of {@linkcode OtherEntry}. */
export type EntryKind =
  | "file"
  | "link"
  | "fifo"
  | "socket"
  | "char-device"
  | "block-device"
  | "folder"
  | "unreadable";

/** The kinds a lockfile reads. */
export const ENTRY_KINDS: readonly EntryKind[] = Object.freeze([
  "file",
  "link",
  "fifo",
  "socket",
  "char-device",
  "block-device",
  "folder",
  "unreadable",
]);

/**
 * An entry of a skill folder no reader serves. `path` is escaped (see
 * {@linkcode escapeName}); a `file` carries its size and digest, a `link` the
 * digest of its target's text (size 0), the others neither.
 */
export interface OtherEntry {
  /** The escaped path inside the skill folder, `/`-separated. */
  readonly path: string;
  /** What it is. */
  readonly kind: EntryKind;
  /** For a `file`: its size in bytes. */
  readonly size?: number;
  /** For a `file`: `sha256:` of its bytes; for a `link`: of its target. */
  readonly digest?: string;
}

const STRICT = new TextDecoder("utf-8", { fatal: true });
const UTF8 = new TextEncoder();
const HEX = "0123456789abcdef";

/**
 * A name's bytes as text that says them exactly and holds no control
 * character: valid UTF-8 is kept, `\` becomes `\\`, and every control
 * character and every byte that is not part of valid UTF-8 becomes `\xHH`.
 * {@linkcode unescapeName} gives the bytes back.
 *
 * @param bytes A name (or a `/`-separated path) as bytes.
 * @returns The escaped text.
 * @example
 * ```ts
 * import { escapeName, unescapeName } from "./entries.ts";
 * import { assert } from "../_assert.ts";
 *
 * const bytes = new Uint8Array([0x61, 0x1b, 0x5c, 0xff]);
 * assert.equal(escapeName(bytes), "a\\x1b\\\\\\xff");
 * assert.deepEqual(unescapeName(escapeName(bytes)), bytes);
 * ```
 */
export function escapeName(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const n = b < 0x80
      ? 1
      : b >= 0xc2 && b <= 0xdf
      ? 2
      : b >= 0xe0 && b <= 0xef
      ? 3
      : b >= 0xf0 && b <= 0xf4
      ? 4
      : 0;
    if (n === 1) {
      out += b === 0x5c
        ? "\\\\"
        : b < 0x20 || b === 0x7f
        ? `\\x${HEX[b >> 4]}${HEX[b & 15]}`
        : String.fromCharCode(b);
      i++;
      continue;
    }
    let text: string | null = null;
    if (n > 1 && i + n <= bytes.length) {
      try {
        text = STRICT.decode(bytes.subarray(i, i + n));
      } catch {
        text = null;
      }
    }
    if (text === null) {
      out += `\\x${HEX[b >> 4]}${HEX[b & 15]}`;
      i++;
    } else {
      const c = text.codePointAt(0)!;
      out += c >= 0x80 && c <= 0x9f ? `\\u${c.toString(16).padStart(4, "0")}` : text;
      i += n;
    }
  }
  return out;
}

/**
 * The bytes an escaped name says ({@linkcode escapeName} undone).
 *
 * @param text An escaped name.
 * @returns Its bytes.
 * @throws {TypeError} When `text` is not the output of {@linkcode escapeName}.
 */
export function unescapeName(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length;) {
    const c = text[i]!;
    if (c !== "\\") {
      const cp = text.codePointAt(i)!;
      if (cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp <= 0x9f)) {
        throw new TypeError(`Not an escaped name: ${JSON.stringify(text)}`);
      }
      const s = String.fromCodePoint(cp);
      out.push(...UTF8.encode(s));
      i += s.length;
      continue;
    }
    const next = text[i + 1];
    if (next === "\\") {
      out.push(0x5c);
      i += 2;
    } else if (next === "x" && /^[0-9a-f]{2}$/.test(text.slice(i + 2, i + 4))) {
      out.push(parseInt(text.slice(i + 2, i + 4), 16));
      i += 4;
    } else if (next === "u" && /^00[89][0-9a-f]$/.test(text.slice(i + 2, i + 6))) {
      out.push(...UTF8.encode(String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16))));
      i += 6;
    } else {
      throw new TypeError(`Not an escaped name: ${JSON.stringify(text)}`);
    }
  }
  return Uint8Array.from(out);
}

/**
 * One line of `sha256sum`'s output for a file: `<hex>  <name>\n`; a name
 * holding `\`, a line feed or a carriage return is written escaped (`\\`,
 * `\n`, `\r`) and the line starts with `\` (GNU coreutils 9).
 *
 * @param digest `sha256:<hex>`.
 * @param name The name's bytes.
 * @returns The line's bytes.
 */
export function sha256sumLine(digest: string, name: Uint8Array): Uint8Array {
  const needs = name.some((b) => b === 0x5c || b === 0x0a || b === 0x0d);
  const body: number[] = [];
  for (const b of name) {
    if (needs && b === 0x5c) body.push(0x5c, 0x5c);
    else if (needs && b === 0x0a) body.push(0x5c, 0x6e);
    else if (needs && b === 0x0d) body.push(0x5c, 0x72);
    else body.push(b);
  }
  const head = UTF8.encode(`${needs ? "\\" : ""}${digest.slice(7)}  `);
  const line = new Uint8Array(head.length + body.length + 1);
  line.set(head, 0);
  line.set(body, head.length);
  line[line.length - 1] = 0x0a;
  return line;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/**
 * The skill digest over every regular file: the served `files` and the
 * `file` entries of `others`. Without such entries it is the digest over
 * `files` alone (as lockfile version 1 wrote it); with them, the lines of
 * `sha256sum` for every regular file, sorted by the bytes of the name (as
 * `LC_ALL=C sort` does), hashed.
 *
 * @param files The served files.
 * @param others The other entries.
 * @returns `sha256:<hex>`.
 * @throws {TypeError} As `canonicalManifest`, or when an entry's path is not escaped.
 * @example
 * ```ts
 * import { fullSkillDigest } from "./entries.ts";
 * import { skillDigest } from "./digest.ts";
 * import { assert } from "../_assert.ts";
 *
 * const files = [{ path: "SKILL.md", size: 1, digest: `sha256:${"0".repeat(64)}` }];
 * assert.equal(await fullSkillDigest(files, []), await skillDigest(files));
 * ```
 */
export function fullSkillDigest(
  files: readonly FileDigest[],
  others: readonly OtherEntry[],
): Promise<string> {
  const extra = others.filter((e) => e.kind === "file");
  if (extra.length === 0) return sha256Digest(UTF8.encode(canonicalManifest(files)));
  canonicalManifest(files); // the same checks
  const lines = [
    ...files.map((f) => ({ name: UTF8.encode(f.path), digest: f.digest })),
    ...extra.map((e) => ({ name: unescapeName(e.path), digest: e.digest ?? "" })),
  ].sort((a, b) => compareBytes(a.name, b.name));
  const hash = new Sha256();
  for (const line of lines) hash.update(sha256sumLine(line.digest, line.name));
  return Promise.resolve(hexDigest(hash.digest()));
}

/**
 * The entries in their order: code-unit order of the escaped path.
 *
 * @param entries Entries (any order).
 * @returns A frozen sorted copy.
 */
export function sortEntries(entries: readonly OtherEntry[]): readonly OtherEntry[] {
  return Object.freeze(
    [...entries].sort((a, b) => compareCodeUnits(a.path, b.path)).map((e) =>
      Object.freeze({ ...e })
    ),
  );
}

/**
 * The entries that differ between two lists, each as `"<path>" (<kind>) added|removed|changed`;
 * an `unreadable` entry found again is `(unreadable) cannot be checked`.
 *
 * @param before The older list.
 * @param after The newer list.
 * @returns The differences, in order of path.
 */
export function diffEntries(
  before: readonly OtherEntry[],
  after: readonly OtherEntry[],
): readonly { readonly path: string; readonly change: string }[] {
  const key = (e: OtherEntry) => `${e.kind} ${e.size ?? ""} ${e.digest ?? ""}`;
  const old = new Map(before.map((e) => [e.path, e]));
  const out: { path: string; change: string }[] = [];
  for (const e of after) {
    const was = old.get(e.path);
    if (was === undefined) out.push({ path: e.path, change: `(${e.kind}) added` });
    // Content that could not be read cannot be shown unchanged (a folder or file the walk may
    // not open, a name this runtime cannot give back to the file system).
    else if (e.kind === "unreadable") {
      out.push({ path: e.path, change: "(unreadable) cannot be checked" });
    } else if (key(was) !== key(e)) out.push({ path: e.path, change: `(${e.kind}) changed` });
    old.delete(e.path);
  }
  for (const [path, e] of old) out.push({ path, change: `(${e.kind}) removed` });
  return Object.freeze(out.sort((a, b) => compareCodeUnits(a.path, b.path)));
}
