/**
 * Paged reads of a skill's bundled files (SPEC §4): text (strict UTF-8, no
 * NUL) by lines, anything else as base64 by bytes, in the
 * `[SKILL_RESOURCE_READ]` envelope. Files are read in chunks; no read holds a
 * whole file in memory.
 *
 * @module
 */
import { encodeBase64 } from "./base64.ts";
import type { ResourceFile, SkillBundle } from "./bundle.ts";
import { renderResourceReadEnvelope } from "./envelope.ts";
import { ExecutionError, ResourceNotFoundError } from "./errors.ts";
import { assertAccess, type SafetyFlags } from "./gate.ts";
import {
  classifyResource,
  effectiveClass,
  normalizeResourcePath,
  type ResourceClass,
} from "./resource_path.ts";

/** Lines in a text page when no limit is given. */
export const DEFAULT_LINE_LIMIT = 2000;
/** Bytes in a binary page when no limit is given (a multiple of 3, so pages concatenate as base64). */
export const DEFAULT_BYTE_LIMIT = 49152;

/** Options of {@linkcode readResource}. */
export interface ReadOptions extends SafetyFlags {
  /** First line (text) or byte (binary) of the page, from 0. Default 0. */
  readonly offset?: number;
  /**
   * Lines (text; default 2000) or bytes (binary; default 49152, rounded down
   * to a multiple of 3, at least 3) in the page; at least 1.
   */
  readonly limit?: number;
}

/** One page of a resource. */
export interface ResourceRead {
  readonly skill: string;
  readonly path: string;
  readonly class: ResourceClass;
  readonly encoding: "utf-8" | "base64";
  /** Bytes of the whole file. */
  readonly size: number;
  /** `lines 1-200 of 731`, `bytes 0-49151 of 1048576`, or `lines none of 731` for an empty page. */
  readonly range: string;
  /** Where the next page starts, or `null` after the last page. */
  readonly next_offset: number | null;
  /** The page: decoded text, or base64. */
  readonly content: string;
}

const CHUNK = 64 * 1024;
/** Every STRIDE-th line start is remembered, so a page far into a file skips most of it. */
const STRIDE = 1024;
const NEWLINE = 10;

interface TextIndex {
  readonly text: boolean;
  /** Number of lines: newlines, plus one for a last line without one. */
  readonly lines: number;
  /** Byte offset of line k·STRIDE, for every k. */
  readonly starts: readonly number[];
}

const indexes = new WeakMap<ResourceFile, TextIndex>();

/**
 * Read one page of a bundled file, through the safety gate.
 *
 * @param bundle The skill.
 * @param path The file's path inside the skill folder (normalised here).
 * @param options The page and the two safety switches.
 * @returns The page.
 * @throws {InvalidResourcePathError} When `path` is invalid.
 * @throws {ExecutionError} When the gate refuses, or the file is a link that
 *   leaves the skill folder.
 * @throws {ResourceNotFoundError} When no such file exists (checked after the
 *   gate, so a gated path reveals nothing).
 * @throws {RangeError} When `offset` or `limit` is not a whole number in range.
 * @example
 * ```ts
 * import { createBundle, readResource } from "../mod.ts";
 * import { assert } from "./_assert.ts";
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
 * ```
 */
export function readResource(
  bundle: SkillBundle,
  path: string,
  options: ReadOptions = {},
): ResourceRead {
  const offset = wholeNumber(options.offset, "offset", 0) ?? 0;
  const limit = wholeNumber(options.limit, "limit", 1);
  const normal = normalizeResourcePath(path);
  const file = bundle.files.get(normal);
  const resourceClass = file === undefined
    ? classifyResource(normal)
    : effectiveClass(normal, file.real_path);
  assertAccess(normal, resourceClass, options, "read");
  if (file === undefined) throw new ResourceNotFoundError(bundle.name, normal);
  if (file.outside_root === true) throw outsideRoot(normal, options);
  const index = textIndex(file);
  const page = index.text
    ? textPage(file, index, offset, limit ?? DEFAULT_LINE_LIMIT)
    : bytePage(file, offset, limit ?? DEFAULT_BYTE_LIMIT);
  return Object.freeze({
    skill: bundle.name,
    path: normal,
    class: resourceClass,
    encoding: index.text ? "utf-8" : "base64",
    size: file.size,
    ...page,
  });
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
 * import { assert } from "./_assert.ts";
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

function wholeNumber(value: number | undefined, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${name} must be a whole number of at least ${min}, got ${String(value)}`);
  }
  return value;
}

function outsideRoot(path: string, flags: SafetyFlags): ExecutionError {
  return new ExecutionError(
    `Refused to read ${
      JSON.stringify(path)
    }: it is a link whose real path is outside the skill folder`,
    {
      path,
      operation: "read",
      global_safety: flags.global_safety !== false,
      skill_safety: flags.skill_safety !== false,
    },
  );
}

/** Whether a file is text, its line count and line checkpoints: one chunked pass, cached per file. */
function textIndex(file: ResourceFile): TextIndex {
  const cached = indexes.get(file);
  if (cached !== undefined) return cached;
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const starts = [0];
  let newlines = 0;
  let last = NEWLINE;
  let text = true;
  for (let position = 0; position < file.size;) {
    const chunk = file.read(position, CHUNK);
    if (chunk.length === 0) break;
    if (chunk.includes(0) || !decodes(decoder, chunk, true)) {
      text = false;
      break;
    }
    for (let i = chunk.indexOf(NEWLINE); i >= 0; i = chunk.indexOf(NEWLINE, i + 1)) {
      if (++newlines % STRIDE === 0) starts.push(position + i + 1);
    }
    last = chunk[chunk.length - 1]!;
    position += chunk.length;
  }
  text &&= decodes(decoder, new Uint8Array(0), false);
  const index: TextIndex = {
    text,
    lines: newlines + (last === NEWLINE ? 0 : 1),
    starts,
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

function textPage(file: ResourceFile, index: TextIndex, offset: number, limit: number): Page {
  const total = index.lines;
  if (offset >= total) return { range: `lines none of ${total}`, next_offset: null, content: "" };
  const checkpoint = Math.floor(offset / STRIDE);
  const start = skipLines(file, index.starts[checkpoint]!, offset - checkpoint * STRIDE);
  const count = Math.min(limit, total - offset);
  const end = skipLines(file, start, count);
  const bytes = file.read(start, end - start);
  const content = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  const next = offset + count;
  return {
    range: `lines ${offset + 1}-${next} of ${total}`,
    next_offset: next < total ? next : null,
    content,
  };
}

/** The byte position just after the `lines`-th newline from `position`, or the end of the file. */
function skipLines(file: ResourceFile, position: number, lines: number): number {
  let left = lines;
  while (left > 0 && position < file.size) {
    const chunk = file.read(position, CHUNK);
    if (chunk.length === 0) break;
    let i = -1;
    while (left > 0 && (i = chunk.indexOf(NEWLINE, i + 1)) >= 0) left--;
    if (left === 0) return position + i + 1;
    position += chunk.length;
  }
  return Math.min(position, file.size);
}

function bytePage(file: ResourceFile, offset: number, limit: number): Page {
  const size = file.size;
  if (offset >= size) return { range: `bytes none of ${size}`, next_offset: null, content: "" };
  const bytes = file.read(offset, Math.max(3, limit - (limit % 3)));
  const next = offset + bytes.length;
  return {
    range: `bytes ${offset}-${next - 1} of ${size}`,
    next_offset: next < size ? next : null,
    content: encodeBase64(bytes),
  };
}
