/**
 * What the lockfile and the approval file share: their typed error, the
 * size cap, and the checks of a file list and of a folder's other entries
 * read from JSON, each failure naming the file, line and column.
 *
 * Folder `lib/core/trust/` — trust as data: digests, manifests, lockfiles, approvals, pins, SSH signatures.
 *
 * @module
 */
import { SkillsetError } from "../errors.ts";
import { InvalidResourcePathError } from "../errors.ts";
import { normalizeResourcePath } from "../resources/resource_path.ts";
import { compareCodeUnits, DIGEST_PATTERN, type FileDigest, isDigest } from "./digest.ts";
import {
  ENTRY_KINDS,
  type EntryKind,
  type OtherEntry,
  sortEntries,
  unescapeName,
} from "./entries.ts";
import { type JsonNode, JsonSyntaxError, lineColumn, parseJsonNodes } from "./_json.ts";

/** The largest lockfile or approval file read: 16 MiB. */
export const MAX_TRUST_FILE_BYTES = 16 * 1024 * 1024;

/** The codes of {@linkcode TrustFileError}. */
export type TrustFileCode =
  /** Over {@linkcode MAX_TRUST_FILE_BYTES}. */
  | "TOO_LARGE"
  /** Not JSON (truncated, a stray comma, a key given twice, …). */
  | "INVALID_JSON"
  /** JSON, but a field is missing, of the wrong type, or not allowed. */
  | "INVALID_FIELD"
  /** A digest that is not `sha256:` followed by 64 lowercase hexadecimal digits. */
  | "BAD_DIGEST"
  /** A `version` this library does not read. */
  | "UNSUPPORTED_VERSION"
  /** Two entries for one skill, or one path twice in a skill. */
  | "DUPLICATE_ENTRY"
  /** No such file (a lockfile that must exist). */
  | "NOT_FOUND"
  /** Not a regular file, or the file system refused to read it. */
  | "UNREADABLE"
  /** A file skillset would write that is not of its kind (or is a link): never replaced. */
  | "FOREIGN_FILE"
  /** A signed lockfile that records no base (version 1 or 2) read from outside the repository root. */
  | "UNROOTED_LOCKFILE";

/**
 * A lockfile or approval file that cannot be used, with where: never read
 * as "nothing locked" or "everything approved".
 *
 * @example
 * ```ts
 * import { parseLockfile, TrustFileError } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
 *
 * let error: TrustFileError | undefined;
 * try {
 *   parseLockfile('{\n  "version": 1,\n  "skills": [\n', "skills.lock.json");
 * } catch (e) {
 *   if (e instanceof TrustFileError) error = e;
 * }
 * assert.deepEqual([error?.code, error?.file, error?.line], ["INVALID_JSON", "skills.lock.json", 4]);
 * ```
 */
export class TrustFileError extends SkillsetError {
  /** Always `"TrustFileError"`. */
  override readonly name = "TrustFileError";
  /** Which condition failed. */
  readonly code: TrustFileCode;
  /** The file, as the caller named it. */
  readonly file: string;
  /** The 1-based line, when the problem is at a place in the text. */
  readonly line: number | undefined;
  /** The 1-based column, with `line`. */
  readonly column: number | undefined;
  /** What is wrong, without the place. */
  readonly reason: string;

  /**
   * Describe an unusable file.
   *
   * @param code Which condition failed.
   * @param file The file.
   * @param reason What is wrong (a capitalised sentence without a final period).
   * @param at Line and column, when known.
   */
  constructor(
    code: TrustFileCode,
    file: string,
    reason: string,
    at?: { readonly line: number; readonly column: number },
  ) {
    super(`${file}${at === undefined ? "" : `:${at.line}:${at.column}`}: ${reason}`);
    this.code = code;
    this.file = file;
    this.line = at?.line;
    this.column = at?.column;
    this.reason = reason;
  }
}

/** Reads fields of a parsed trust file, each failure a {@linkcode TrustFileError} at its place. */
export class FieldReader {
  readonly #text: string;
  readonly #file: string;

  /**
   * @param text The whole text (for line numbers).
   * @param file The file's name in errors.
   */
  constructor(text: string, file: string) {
    this.#text = text;
    this.#file = file;
  }

  /**
   * Parse the text, refusing it over the cap.
   *
   * @returns The root node.
   * @throws {TrustFileError} `TOO_LARGE` or `INVALID_JSON`.
   */
  root(): JsonNode {
    if (this.#text.length > MAX_TRUST_FILE_BYTES) {
      throw new TrustFileError(
        "TOO_LARGE",
        this.#file,
        `The file is over ${MAX_TRUST_FILE_BYTES} bytes`,
      );
    }
    try {
      return parseJsonNodes(this.#text);
    } catch (e) {
      if (!(e instanceof JsonSyntaxError)) throw e;
      throw new TrustFileError(
        "INVALID_JSON",
        this.#file,
        `Not valid JSON: ${e.message}`,
        this.at(e.offset),
      );
    }
  }

  /**
   * @param offset An offset.
   * @returns Its line and column.
   */
  at(offset: number): { line: number; column: number } {
    return lineColumn(this.#text, offset);
  }

  /**
   * @param code The code.
   * @param offset Where.
   * @param reason What is wrong.
   * @returns The error.
   */
  error(code: TrustFileCode, offset: number, reason: string): TrustFileError {
    return new TrustFileError(code, this.#file, reason, this.at(offset));
  }

  /**
   * The members of an object, refusing keys not in `allowed`.
   *
   * @param node A node.
   * @param what What it is, in errors.
   * @param allowed The keys allowed.
   * @returns The object node.
   */
  object(
    node: JsonNode,
    what: string,
    allowed: readonly string[],
  ): Extract<JsonNode, { kind: "object" }> {
    if (node.kind !== "object") {
      throw this.error(
        "INVALID_FIELD",
        node.offset,
        `${capitalise(what)} must be an object, not ${kindName(node)}`,
      );
    }
    for (const [key, member] of node.entries) {
      if (!allowed.includes(key)) {
        throw this.error(
          "INVALID_FIELD",
          member.keyOffset,
          `Unknown field ${JSON.stringify(key)} in ${what}`,
        );
      }
    }
    return node;
  }

  /**
   * A required array member.
   *
   * @param node The object.
   * @param key The key.
   * @param what The object, in errors.
   * @returns The items.
   */
  array(node: Extract<JsonNode, { kind: "object" }>, key: string, what: string): JsonNode[] {
    const member = this.#required(node, key, what);
    if (member.kind !== "array") {
      throw this.error(
        "INVALID_FIELD",
        member.offset,
        `Field ${JSON.stringify(key)} of ${what} must be an array, not ${kindName(member)}`,
      );
    }
    return member.items;
  }

  /**
   * A string member, required unless `optional`.
   *
   * @param node The object.
   * @param key The key.
   * @param what The object, in errors.
   * @param optional Whether it may be absent.
   * @returns The string and its offset, or undefined.
   */
  string(
    node: Extract<JsonNode, { kind: "object" }>,
    key: string,
    what: string,
    optional = false,
  ): { value: string; offset: number } | undefined {
    const member = optional ? node.entries.get(key)?.node : this.#required(node, key, what);
    if (member === undefined) return undefined;
    if (member.kind !== "string" || member.value === "") {
      throw this.error(
        "INVALID_FIELD",
        member.offset,
        `Field ${JSON.stringify(key)} of ${what} must be a non-empty string, not ${
          kindName(member)
        }`,
      );
    }
    return { value: member.value, offset: member.offset };
  }

  /**
   * A required digest member.
   *
   * @param node The object.
   * @param key The key.
   * @param what The object, in errors.
   * @returns The digest.
   */
  digest(node: Extract<JsonNode, { kind: "object" }>, key: string, what: string): string {
    const member = this.#required(node, key, what);
    if (member.kind !== "string" || !DIGEST_PATTERN.test(member.value)) {
      throw this.error(
        "BAD_DIGEST",
        member.offset,
        `Field ${
          JSON.stringify(key)
        } of ${what} must be "sha256:" and 64 lowercase hexadecimal digits, not ${
          member.kind === "string" ? JSON.stringify(member.value.slice(0, 80)) : kindName(member)
        }`,
      );
    }
    return member.value;
  }

  /**
   * A required file list: `[{ path, size, digest }]`, each path a
   * normalised resource path, once.
   *
   * @param node The object.
   * @param what The object, in errors.
   * @returns The entries, frozen, in code-unit order.
   */
  files(node: Extract<JsonNode, { kind: "object" }>, what: string): readonly FileDigest[] {
    const items = this.array(node, "files", what);
    const out: FileDigest[] = [];
    const seen = new Set<string>();
    for (const item of items) {
      const file = this.object(item, `a file of ${what}`, ["path", "size", "digest"]);
      const path = this.string(file, "path", `a file of ${what}`)!;
      let normal: string;
      try {
        normal = normalizeResourcePath(path.value);
      } catch (e) {
        if (!(e instanceof InvalidResourcePathError)) throw e;
        throw this.error(
          "INVALID_FIELD",
          path.offset,
          `Invalid file path ${JSON.stringify(path.value)}: ${e.message}`,
        );
      }
      if (normal !== path.value) {
        throw this.error(
          "INVALID_FIELD",
          path.offset,
          `File path ${JSON.stringify(path.value)} is not normalised (${JSON.stringify(normal)})`,
        );
      }
      if (seen.has(normal)) {
        throw this.error(
          "DUPLICATE_ENTRY",
          path.offset,
          `File ${JSON.stringify(normal)} is listed twice in ${what}`,
        );
      }
      seen.add(normal);
      const size = this.#required(file, "size", `file ${JSON.stringify(normal)}`);
      if (size.kind !== "number" || !Number.isSafeInteger(size.value) || size.value < 0) {
        throw this.error(
          "INVALID_FIELD",
          size.offset,
          `Field "size" of file ${JSON.stringify(normal)} must be a whole number >= 0`,
        );
      }
      const digest = this.digest(file, "digest", `file ${JSON.stringify(normal)}`);
      out.push(Object.freeze({ path: normal, size: size.value, digest }));
    }
    return Object.freeze(out.sort((a, b) => compareCodeUnits(a.path, b.path)));
  }

  /**
   * The `entries` of a skill (a folder's other entries): each `{ path, kind, size?, digest? }`,
   * paths escaped, each once.
   *
   * @param o The object holding `entries`.
   * @param what What it is, for messages.
   * @returns The entries, sorted by path.
   */
  otherEntries(o: Extract<JsonNode, { kind: "object" }>, what: string): readonly OtherEntry[] {
    const out: OtherEntry[] = [];
    const seen = new Set<string>();
    for (const item of this.array(o, "entries", what)) {
      const e = this.object(item, `an entry of ${what}`, ["path", "kind", "size", "digest"]);
      const path = this.string(e, "path", `an entry of ${what}`)!;
      try {
        unescapeName(path.value);
      } catch {
        throw this.error(
          "INVALID_FIELD",
          path.offset,
          `Entry path ${JSON.stringify(path.value)} is not escaped`,
        );
      }
      if (seen.has(path.value)) {
        throw this.error(
          "DUPLICATE_ENTRY",
          path.offset,
          `Entry ${JSON.stringify(path.value)} is listed twice in ${what}`,
        );
      }
      seen.add(path.value);
      const kind = this.string(e, "kind", `entry ${JSON.stringify(path.value)}`)!;
      if (!(ENTRY_KINDS as readonly string[]).includes(kind.value)) {
        throw this.error(
          "INVALID_FIELD",
          kind.offset,
          `Unknown entry kind ${JSON.stringify(kind.value)}`,
        );
      }
      const size = e.entries.get("size")?.node;
      if (
        size !== undefined &&
        (size.kind !== "number" || !Number.isSafeInteger(size.value) || size.value < 0)
      ) {
        throw this.error(
          "INVALID_FIELD",
          size.offset,
          `Field "size" of entry ${JSON.stringify(path.value)} must be a whole number >= 0`,
        );
      }
      const digest = e.entries.has("digest")
        ? this.digest(e, "digest", `entry ${JSON.stringify(path.value)}`)
        : undefined;
      if (kind.value === "file" && (size === undefined || digest === undefined)) {
        throw this.error(
          "INVALID_FIELD",
          e.offset,
          `Entry ${JSON.stringify(path.value)} of kind "file" needs "size" and "digest"`,
        );
      }
      out.push({
        path: path.value,
        kind: kind.value as EntryKind,
        ...size === undefined ? {} : { size: (size as { value: number }).value },
        ...digest === undefined || !isDigest(digest) ? {} : { digest },
      });
    }
    return sortEntries(out);
  }

  /**
   * The `version` member, which must be one of `versions`.
   *
   * @param node The root object.
   * @param versions The versions read (default: 1).
   * @returns The version.
   */
  version(node: Extract<JsonNode, { kind: "object" }>, versions: readonly number[] = [1]): number {
    const member = this.#required(node, "version", "the file");
    if (member.kind !== "number" || !versions.includes(member.value)) {
      throw this.error(
        "UNSUPPORTED_VERSION",
        member.offset,
        `Unsupported version ${
          member.kind === "number" ? member.value : kindName(member)
        }: this library reads version ${
          versions.length === 1
            ? versions[0]
            : `${versions.slice(0, -1).join(", ")} and ${versions[versions.length - 1]}`
        }`,
      );
    }
    return member.value;
  }

  #required(node: Extract<JsonNode, { kind: "object" }>, key: string, what: string): JsonNode {
    const member = node.entries.get(key);
    if (member === undefined) {
      throw this.error(
        "INVALID_FIELD",
        node.offset,
        `Missing field ${JSON.stringify(key)} in ${what}`,
      );
    }
    return member.node;
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function kindName(node: JsonNode): string {
  switch (node.kind) {
    case "object":
      return "an object";
    case "array":
      return "an array";
    case "string":
      return node.value === "" ? "an empty string" : "a string";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    case "null":
      return "null";
  }
}

/**
 * One file list as lines of a JSON file: one entry per line, so a changed
 * file is a one-line diff.
 *
 * @param files The entries.
 * @param indent The indentation of each line.
 * @returns The JSON text of the array.
 */
export function renderFiles(files: readonly FileDigest[], indent: string): string {
  if (files.length === 0) return "[]";
  const lines = [...files].sort((a, b) => compareCodeUnits(a.path, b.path)).map((f) =>
    `${indent}  { "path": ${JSON.stringify(f.path)}, "size": ${f.size}, "digest": ${
      JSON.stringify(f.digest)
    } }`
  );
  return `[\n${lines.join(",\n")}\n${indent}]`;
}

/**
 * A folder's other entries as lines of a JSON file, one entry per line.
 *
 * @param entries The entries, sorted.
 * @param indent The indentation of the field holding them.
 * @returns The JSON text of the array.
 */
export function renderOtherEntries(entries: readonly OtherEntry[], indent: string): string {
  const rows = entries.map((e) =>
    `${indent}  { "path": ${JSON.stringify(e.path)}, "kind": ${JSON.stringify(e.kind)}${
      e.size === undefined ? "" : `, "size": ${e.size}`
    }${e.digest === undefined ? "" : `, "digest": ${JSON.stringify(e.digest)}`} }`
  );
  return `[\n${rows.join(",\n")}\n${indent}]`;
}

/** How one file differs between two lists. */
export interface FileChange {
  /** The file's path. */
  readonly path: string;
  /** `added` (only in the newer list), `removed` (only in the older) or `changed` (digest or size). */
  readonly change: "added" | "removed" | "changed";
}

/**
 * The files that differ between two lists, in code-unit order of path.
 *
 * @param before The older list.
 * @param after The newer list.
 * @returns The differences; empty when the lists hold the same files.
 * @example
 * ```ts
 * import { diffFiles } from "./trust_file.ts";
 * import { assert } from "../_assert.ts";
 *
 * const a = `sha256:${"a".repeat(64)}`, b = `sha256:${"b".repeat(64)}`;
 * assert.deepEqual(
 *   diffFiles([{ path: "x", size: 1, digest: a }, { path: "y", size: 1, digest: a }], [{ path: "x", size: 1, digest: b }, { path: "z", size: 1, digest: a }]),
 *   [{ path: "x", change: "changed" }, { path: "y", change: "removed" }, { path: "z", change: "added" }],
 * );
 * ```
 */
export function diffFiles(
  before: readonly FileDigest[],
  after: readonly FileDigest[],
): readonly FileChange[] {
  const old = new Map(before.map((f) => [f.path, f]));
  const changes: FileChange[] = [];
  for (const file of after) {
    const was = old.get(file.path);
    if (was === undefined) changes.push({ path: file.path, change: "added" });
    else if (was.digest !== file.digest || was.size !== file.size) {
      changes.push({ path: file.path, change: "changed" });
    }
    old.delete(file.path);
  }
  for (const path of old.keys()) changes.push({ path, change: "removed" });
  return Object.freeze(
    changes.sort((a, b) => compareCodeUnits(a.path, b.path)).map((c) => Object.freeze(c)),
  );
}

/**
 * Say what differs, for messages: each file quoted with its change, then the frontmatter.
 *
 * @param files The file changes.
 * @param frontmatter Whether the frontmatter differs.
 * @returns `"a.md" changed, "b.md" added`, or `its digest differs` when nothing else is known.
 * @example
 * ```ts
 * import { describeChanges } from "./trust_file.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(describeChanges([{ path: "a.md", change: "added" }], true), '"a.md" added, frontmatter changed');
 * ```
 */
export function describeChanges(
  files: readonly { readonly path: string; readonly change: string }[],
  frontmatter: boolean,
): string {
  const parts = files.map((f) => `${JSON.stringify(f.path)} ${f.change}`);
  if (frontmatter) parts.push("frontmatter changed");
  return parts.length === 0 ? "its digest differs" : parts.join(", ");
}
