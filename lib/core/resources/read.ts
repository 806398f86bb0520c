/**
 * Paged reads of a skill's bundled files (SPEC §4): text (strict UTF-8, no
 * NUL) by lines, anything else as base64 by bytes, in the
 * `[SKILL_RESOURCE_READ]` envelope. Files are read in chunks; no read holds a
 * whole file in memory.
 *
 * Folder `lib/core/resources/` — a skill's bundled files: paths and classes, the gate, bundles, reads.
 *
 * @module
 */
import { encodeBase64 } from "./base64.ts";
import {
  openResource,
  type ResourceFile,
  type ResourceHandle,
  type SkillBundle,
} from "./bundle.ts";
import { renderResourceReadEnvelope } from "./envelope.ts";
import { ResourceNotFoundError, ResourceReadError } from "../errors.ts";
import { assertAccess, outsideRoot, type SafetyFlags } from "./gate.ts";
import {
  classifyResource,
  effectiveClass,
  normalizeResourcePath,
  type ResourceClass,
  type ResourceClassMap,
} from "./resource_path.ts";
import { assertReadArguments } from "../_shape.ts";

/** Lines in a text page when no limit is given. */
export const DEFAULT_LINE_LIMIT = 2000;
/** Bytes in a binary page when no limit is given (a multiple of 3, so pages concatenate as base64). */
export const DEFAULT_BYTE_LIMIT = 49152;
/**
 * The most bytes of content in one page when no cap is given: 256 KiB.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_PAGE_BYTES, MIN_PAGE_BYTES } from "./read.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(DEFAULT_MAX_PAGE_BYTES, 256 * 1024);
 * assert.equal(MIN_PAGE_BYTES, 4);
 * ```
 */
export const DEFAULT_MAX_PAGE_BYTES = 262144;
/** The smallest page cap: one UTF-8 character always fits. */
export const MIN_PAGE_BYTES = 4;
/**
 * The largest page cap: 64 MiB, so a page (and its base64) stays far below a
 * runtime's longest string.
 */
const MAX_PAGE_BYTES = 64 * 1024 * 1024;

/** Options of {@linkcode readResource}. */
export interface ReadOptions extends SafetyFlags {
  /**
   * Where the page starts, from 0: a line (text) or a byte (binary); for
   * text also `"L+B"`, byte `B` of line `L` (both from 0), which is how
   * `next_offset` continues a line longer than the page cap. Default 0.
   */
  readonly offset?: number | string;
  /**
   * Lines (text; default 2000) or bytes (binary; default 49152, rounded down
   * to a multiple of 3, at least 3) in the page; at least 1. Any value is
   * accepted: the page cap bounds the page whatever the limit.
   */
  readonly limit?: number;
  /**
   * The most bytes of content in one page (text bytes before decoding, or
   * bytes before base64), from 4 to 67108864 (64 MiB). Default 262144
   * (256 KiB). A binary page holds the largest multiple of 3 that fits.
   */
  readonly max_page_bytes?: number;
}

/** One page of a resource. */
export interface ResourceRead {
  /** The skill's name. */
  readonly skill: string;
  /** The normalised path. */
  readonly path: string;
  /** The class the gate decided on: of the requested path and of the real path found when the file was opened. */
  readonly class: ResourceClass;
  /** How `content` is encoded. */
  readonly encoding: "utf-8" | "base64";
  /** Bytes of the whole file when it was opened for this page. */
  readonly size: number;
  /**
   * `lines 1-200 of 731`, `bytes 0-49151 of 1048576`, `lines none of 731`
   * for an empty page, or, for a piece of a line longer than the page cap,
   * `line 5 of 731, bytes 262144-524287` (the bytes of that line, from 0).
   */
  readonly range: string;
  /**
   * Where the next page starts, or `null` after the last page: a line or a
   * byte, or `"L+B"` (byte `B` of line `L`, both from 0) to continue a line
   * longer than the page cap.
   */
  readonly next_offset: number | string | null;
  /** The page: decoded text, or base64. */
  readonly content: string;
}

const CHUNK = 64 * 1024;
/**
 * A line start is remembered every STRIDE lines and at the first line start
 * CHUNK bytes or more after the last remembered one, so finding any line
 * scans less than CHUNK bytes, whatever the shape of the file.
 */
const STRIDE = 1024;
const NEWLINE = 10;
/** `"L+B"`: at most 15 digits each, so both are safe integers. */
const LINE_BYTE = /^(0|[1-9][0-9]{0,14})\+(0|[1-9][0-9]{0,14})$/;

interface TextIndex {
  /** The handle version it was built from. */
  readonly version: string;
  readonly size: number;
  readonly text: boolean;
  /** Number of lines: newlines, plus one for a last line without one. */
  readonly lines: number;
  /** Remembered line numbers (ascending, from 0) and the byte where each starts. */
  readonly checkpointLines: readonly number[];
  readonly checkpointStarts: readonly number[];
}

const indexes = new WeakMap<ResourceFile, TextIndex>();

/**
 * Read one page of a bundled file, through the safety gate. The gate decides
 * twice: on the requested path before anything is opened, then on the class
 * of the file actually opened (a link is classified by its requested and its
 * real path; the stricter wins). Size, text-or-binary and the line index are
 * taken from the opened file, so a file changed since loading is read as it
 * is now. No page holds more than `max_page_bytes` of content; a line longer
 * than that comes in pieces addressed by `"L+B"` offsets.
 *
 * @param bundle The skill.
 * @param path The file's path inside the skill folder (normalised here).
 * @param options The page, the page cap and the two safety switches.
 * @returns The page.
 * @throws {InvalidResourcePathError} When `path` is invalid.
 * @throws {ExecutionError} When the gate refuses, or the file leads outside
 *   the skill folder.
 * @throws {ResourceNotFoundError} When no such file exists (checked after the
 *   gate, so a gated path reveals nothing).
 * @throws {ResourceReadError} When the file is gone, is no longer a regular
 *   file, changed while it was read, or the file system refused.
 * @throws {RangeError} When `offset`, `limit` or `max_page_bytes` is not a
 *   whole number in range, or a `"L+B"` offset is not inside line `L` at a
 *   character boundary (or the file is binary).
 * @example
 * ```ts
 * import { createBundle, readResource } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
 *
 * const bundle = createBundle({
 *   frontmatter: { name: "pdf", description: "Fill PDF forms" },
 *   instructions: "",
 *   files: { "references/forms.md": "one\ntwo\nthree\n", "assets/logo.png": new Uint8Array([0, 1, 2]) },
 * });
 * const page = readResource(bundle, "references/forms.md", { offset: 1, limit: 1 });
 * assert.equal(page.content, "two\n");
 * assert.equal(page.range, "lines 2-2 of 3");
 * assert.equal(page.next_offset, 2);
 * assert.equal(readResource(bundle, "assets/logo.png").content, "AAEC");
 * // A page cap of 4 bytes cuts the line "three\n" in pieces:
 * const piece = readResource(bundle, "references/forms.md", { offset: 2, max_page_bytes: 4 });
 * assert.deepEqual([piece.content, piece.range, piece.next_offset], ["thre", "line 3 of 3, bytes 0-3", "2+4"]);
 * const rest = readResource(bundle, "references/forms.md", { offset: "2+4", max_page_bytes: 4 });
 * assert.deepEqual([rest.content, rest.next_offset], ["e\n", null]);
 * ```
 */
export function readResource(
  bundle: SkillBundle,
  path: string,
  options: ReadOptions = {},
): ResourceRead {
  assertReadArguments(bundle, path, options);
  const offset = parseOffset(options.offset);
  const limit = wholeNumber(options.limit, "limit", 1);
  const cap =
    wholeNumber(options.max_page_bytes, "max_page_bytes", MIN_PAGE_BYTES, MAX_PAGE_BYTES) ??
      DEFAULT_MAX_PAGE_BYTES;
  const normal = normalizeResourcePath(path);
  assertAccess(normal, classifyResource(normal, bundle.resource_classes), options, "read");
  const file = bundle.files.get(normal);
  if (file === undefined) throw new ResourceNotFoundError(bundle.name, normal);
  if (file.outside_root === true) throw outsideRoot(normal, options);
  const handle = open(file, normal, options);
  try {
    const resourceClass = effectiveClass(normal, handle.real_path, bundle.resource_classes);
    assertAccess(normal, resourceClass, options, "read");
    const index = textIndex(file, handle, normal);
    let page: Page;
    if (index.text) {
      page = textPage(handle, index, normal, offset, limit ?? DEFAULT_LINE_LIMIT, cap);
    } else if (offset.byte !== 0 || typeof options.offset === "string") {
      throw new RangeError(
        `offset ${JSON.stringify(options.offset)} addresses a line, but ${
          JSON.stringify(normal)
        } is binary: pass a byte offset`,
      );
    } else {
      page = bytePage(handle, normal, offset.line, limit ?? DEFAULT_BYTE_LIMIT, cap);
    }
    return Object.freeze({
      skill: bundle.name,
      path: normal,
      class: resourceClass,
      encoding: index.text ? "utf-8" : "base64",
      size: index.size,
      ...page,
    });
  } finally {
    handle.close();
  }
}

/**
 * Render a page in the `[SKILL_RESOURCE_READ]` envelope: the format is
 * described in `envelope.ts` (a per-read nonce in both markers and the
 * content's length in the header, so no content can forge the end).
 *
 * @param read A page from {@linkcode readResource}.
 * @param nonce The nonce (default: a new random one per call).
 * @returns The envelope text.
 * @throws {RangeError} For a malformed nonce.
 * @example
 * ```ts
 * import { renderResourceRead } from "./read.ts";
 * import { assert } from "../_assert.ts";
 *
 * const text = renderResourceRead({
 *   skill: "pdf", path: "references/a.md", class: "references", encoding: "utf-8",
 *   size: 3, range: "lines 1-1 of 1", next_offset: null, content: "hi\n",
 * });
 * const nonce = text.slice("[SKILL_RESOURCE_READ nonce=".length, text.indexOf("]"));
 * assert.ok(/^[0-9a-f]{32}$/.test(nonce));
 * assert.ok(text.endsWith(`content_bytes: 3\n---\nhi\n\n[/SKILL_RESOURCE_READ nonce=${nonce}]`));
 * ```
 */
export function renderResourceRead(read: ResourceRead, nonce?: string): string {
  return renderResourceReadEnvelope(read, nonce);
}

/**
 * The whole content of a bundled file as it was listed, for a caller that
 * answers with a whole file at once (an MCP `resources/read`) where
 * {@linkcode readResource} answers with pages. The file is opened once
 * through its verified handle ({@linkcode openResource}); the gate decides on
 * the class of the real path found at the open (a link is classified by its
 * listed and its real path; the stricter wins); a file whose size is no
 * longer `file.size` is `RESOURCE_CHANGED` before any byte is read, so a file
 * that grew never costs more than its listed size. It is read in 64 KiB
 * chunks into one buffer (a file of one chunk is one read, not copied).
 *
 * @param file A file of a bundle; its `path` and `size` are the listed ones.
 * @param flags The two safety switches.
 * @param classes The host's extra standard folders (`resourceClassMap`), for
 *   the class of the real path.
 * @returns Its `file.size` bytes.
 * @throws {ExecutionError} When the gate refuses the class of the opened file.
 * @throws {ResourceReadError} When the file cannot be opened (as
 *   {@linkcode openResource}), or `RESOURCE_CHANGED` when its size is no
 *   longer the listed one or it changed while it was read.
 * @example
 * ```ts
 * import { memoryFile } from "./bundle.ts";
 * import { readWholeResource } from "./read.ts";
 * import { assert } from "../_assert.ts";
 *
 * const file = memoryFile("references/a.md", new TextEncoder().encode("one\ntwo\n"));
 * assert.equal(new TextDecoder().decode(readWholeResource(file, {})), "one\ntwo\n");
 * const font = memoryFile("canvas-fonts/a.ttf", new Uint8Array([1, 2, 3]));
 * assert.throws(() => readWholeResource(font, {}), {
 *   name: "ExecutionError",
 *   message: 'Refused to read non-standard resource "canvas-fonts/a.ttf": global safety is true, skill safety is true (both must be false)',
 * });
 * assert.deepEqual([...readWholeResource(font, { global_safety: false, skill_safety: false })], [1, 2, 3]);
 * ```
 */
export function readWholeResource(
  file: ResourceFile,
  flags: SafetyFlags,
  classes?: ResourceClassMap,
): Uint8Array {
  const handle = openResource(file);
  try {
    assertAccess(file.path, effectiveClass(file.path, handle.real_path, classes), flags, "read");
    if (handle.size !== file.size) {
      throw new ResourceReadError(
        "RESOURCE_CHANGED",
        file.path,
        `it is now ${handle.size} bytes, not the ${file.size} it was published with`,
      );
    }
    // One read is the answer as it is, not copied again.
    if (file.size <= CHUNK) return readExactly(handle, file.path, 0, file.size);
    const out = new Uint8Array(file.size);
    for (let total = 0; total < file.size; total += CHUNK) {
      out.set(readExactly(handle, file.path, total, Math.min(CHUNK, file.size - total)), total);
    }
    return out;
  } finally {
    handle.close();
  }
}

function wholeNumber(
  value: number | undefined,
  name: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
    throw new RangeError(`${name} must be a whole number ${range}, got ${String(value)}`);
  }
  return value;
}

/** A page start: line (or byte, for binary) and the byte inside that line. */
interface Offset {
  readonly line: number;
  readonly byte: number;
}

function parseOffset(value: number | string | undefined): Offset {
  if (typeof value === "string") {
    const match = LINE_BYTE.exec(value);
    if (match === null) {
      throw new RangeError(
        `offset must be a whole number or "line+byte" (e.g. "12+262144"), got ${
          JSON.stringify(value)
        }`,
      );
    }
    return { line: Number(match[1]), byte: Number(match[2]) };
  }
  return { line: wholeNumber(value, "offset", 0) ?? 0, byte: 0 };
}

/** Open a file once for this read; a real path outside the folder is the gate's refusal. */
function open(file: ResourceFile, path: string, flags: SafetyFlags): ResourceHandle {
  try {
    return openResource(file);
  } catch (e) {
    if (e instanceof ResourceReadError && e.code === "OUTSIDE_ROOT") throw outsideRoot(path, flags);
    throw e;
  }
}

function changedWhileRead(path: string): ResourceReadError {
  return new ResourceReadError("RESOURCE_CHANGED", path, "it changed while it was being read");
}

/** Exactly `length` bytes from `position`, or the file changed under the handle. */
function readExactly(
  handle: ResourceHandle,
  path: string,
  position: number,
  length: number,
): Uint8Array {
  const bytes = handle.read(position, length);
  if (bytes.length !== length) throw changedWhileRead(path);
  return bytes;
}

/**
 * Whether a file is text, its line count and line checkpoints: one chunked
 * pass, cached per file and handle version (so a changed file is re-indexed).
 */
function textIndex(file: ResourceFile, handle: ResourceHandle, path: string): TextIndex {
  const cached = indexes.get(file);
  if (cached !== undefined && cached.version === handle.version && cached.size === handle.size) {
    return cached;
  }
  const size = handle.size;
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const checkpointLines = [0];
  const checkpointStarts = [0];
  let lastLine = 0;
  let lastStart = 0;
  let newlines = 0;
  let last = NEWLINE;
  let text = true;
  for (let position = 0; position < size;) {
    const chunk = readExactly(handle, path, position, Math.min(CHUNK, size - position));
    if (chunk.includes(0) || !decodes(decoder, chunk, true)) {
      text = false;
      break;
    }
    for (let i = chunk.indexOf(NEWLINE); i >= 0; i = chunk.indexOf(NEWLINE, i + 1)) {
      newlines++;
      const start = position + i + 1;
      if (newlines - lastLine >= STRIDE || start - lastStart >= CHUNK) {
        checkpointLines.push(newlines);
        checkpointStarts.push(start);
        lastLine = newlines;
        lastStart = start;
      }
    }
    last = chunk[chunk.length - 1]!;
    position += chunk.length;
  }
  text &&= decodes(decoder, new Uint8Array(0), false);
  const index: TextIndex = {
    version: handle.version,
    size,
    text,
    lines: newlines + (last === NEWLINE ? 0 : 1),
    checkpointLines,
    checkpointStarts,
  };
  indexes.set(file, index);
  return index;
}

function decodes(decoder: TextDecoder, bytes: Uint8Array, stream: boolean): boolean {
  try {
    decoder.decode(bytes, { stream });
    return true;
  } catch {
    return false;
  }
}

type Page = Pick<ResourceRead, "range" | "next_offset" | "content">;

function decodeText(bytes: Uint8Array, path: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw changedWhileRead(path);
  }
}

/**
 * A text page: whole lines from a line start, as many as `limit` allows and
 * fit in `cap` bytes; or, when the page starts inside a line or its first line
 * alone is longer than `cap`, a piece of one line cut at a character boundary.
 */
function textPage(
  handle: ResourceHandle,
  index: TextIndex,
  path: string,
  offset: Offset,
  limit: number,
  cap: number,
): Page {
  const { lines: total, size } = index;
  const { line, byte } = offset;
  if (line >= total) {
    if (byte > 0) {
      throw new RangeError(
        `offset "${line}+${byte}" is past the end of the file (${total} ${plural(total, "line")})`,
      );
    }
    return { range: `lines none of ${total}`, next_offset: null, content: "" };
  }
  const lineStart = findLine(handle, index, path, line);
  if (byte > 0) {
    const end = line + 1 < total ? findLine(handle, index, path, line + 1) : size;
    if (lineStart + byte >= end) {
      throw new RangeError(
        `offset "${line}+${byte}" is past the end of line ${line + 1} (${end - lineStart} ${
          plural(end - lineStart, "byte")
        })`,
      );
    }
    if (isContinuation(readExactly(handle, path, lineStart + byte, 1)[0]!)) {
      throw new RangeError(`offset "${line}+${byte}" is not at a character boundary`);
    }
    return piece(handle, index, path, line, lineStart, byte, cap);
  }
  const length = Math.min(cap, size - lineStart);
  const bytes = readExactly(handle, path, lineStart, length);
  let count = 0;
  let end = 0;
  for (let i = bytes.indexOf(NEWLINE); i >= 0 && count < limit; i = bytes.indexOf(NEWLINE, i + 1)) {
    count++;
    end = i + 1;
  }
  if (count < limit && lineStart + length === size && end < length) {
    count++;
    end = length;
  }
  if (count === 0) return piece(handle, index, path, line, lineStart, 0, cap);
  const next = line + count;
  return {
    range: `lines ${line + 1}-${next} of ${total}`,
    next_offset: next < total ? next : null,
    content: decodeText(bytes.subarray(0, end), path),
  };
}

/** A piece of line `line` from byte `byte` of it: up to its end or `cap` bytes, whichever is first. */
function piece(
  handle: ResourceHandle,
  index: TextIndex,
  path: string,
  line: number,
  lineStart: number,
  byte: number,
  cap: number,
): Page {
  const start = lineStart + byte;
  const length = Math.min(cap, index.size - start);
  const bytes = readExactly(handle, path, start, length);
  const newline = bytes.indexOf(NEWLINE);
  let end: number;
  let next: number | string | null;
  if (newline >= 0 || start + length === index.size) {
    end = newline >= 0 ? newline + 1 : length;
    next = line + 1 < index.lines ? line + 1 : null;
  } else {
    // Cut before the character that does not fit whole (valid UTF-8: at most 3 steps back).
    end = length;
    let after = readExactly(handle, path, start + end, 1)[0]!;
    while (end > 0 && isContinuation(after)) after = bytes[--end]!;
    if (end === 0) throw changedWhileRead(path);
    next = `${line}+${byte + end}`;
  }
  return {
    range: `line ${line + 1} of ${index.lines}, bytes ${byte}-${byte + end - 1}`,
    next_offset: next,
    content: decodeText(bytes.subarray(0, end), path),
  };
}

function plural(count: number, noun: string): string {
  return count === 1 ? noun : `${noun}s`;
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** The byte where line `line` (from 0, below the line count) starts: a checkpoint, then less than CHUNK bytes of scanning. */
function findLine(handle: ResourceHandle, index: TextIndex, path: string, line: number): number {
  const lines = index.checkpointLines;
  let low = 0;
  let high = lines.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (lines[middle]! <= line) low = middle;
    else high = middle - 1;
  }
  let left = line - lines[low]!;
  let position = index.checkpointStarts[low]!;
  while (left > 0) {
    const length = Math.min(CHUNK, index.size - position);
    if (length <= 0) throw changedWhileRead(path);
    const chunk = readExactly(handle, path, position, length);
    let i = -1;
    while (left > 0 && (i = chunk.indexOf(NEWLINE, i + 1)) >= 0) left--;
    if (left === 0) return position + i + 1;
    position += chunk.length;
  }
  return position;
}

function bytePage(
  handle: ResourceHandle,
  path: string,
  offset: number,
  limit: number,
  cap: number,
): Page {
  const size = handle.size;
  if (offset >= size) return { range: `bytes none of ${size}`, next_offset: null, content: "" };
  const wanted = Math.max(3, Math.min(limit, cap) - (Math.min(limit, cap) % 3));
  const bytes = readExactly(handle, path, offset, Math.min(wanted, size - offset));
  const next = offset + bytes.length;
  return {
    range: `bytes ${offset}-${next - 1} of ${size}`,
    next_offset: next < size ? next : null,
    content: encodeBase64(bytes),
  };
}
