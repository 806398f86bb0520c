/**
 * A fast path for the plain YAML that frontmatter and catalogs almost always
 * are: block mappings and sequences, one-line plain or simply quoted scalars,
 * one-line flow sequences of plain scalars and flow mappings of plain pairs,
 * full-line comments. Anything else — tags, anchors, aliases, block or
 * multi-line scalars, escapes, trailing comments, duplicate keys, tabs,
 * document markers, odd keys — is not handled: the parser answers
 * `undefined` and the caller parses with the `yaml` package, which stays the
 * parser of record. Where it answers, the value is the one `yaml` gives with
 * the core schema (`toJS()`), and offsets are those of `yaml`'s nodes.
 *
 * The nesting is bounded ({@linkcode MAX_PLAIN_DEPTH}); deeper documents fall back.
 *
 * Folder `lib/fs/load/` — loading one skill folder: verified listings, SKILL.md and YAML, catalog files.
 *
 * @module
 */

/** A document parsed by the fast path. */
export interface PlainYaml {
  /** What `yaml`'s `parse(source, { schema: "core" })` gives. */
  readonly value: unknown;
  /**
   * The offset of the node at `path` (for a mapping key, the key itself),
   * as far as the path exists: the rule of the catalog's locator;
   * `undefined` when parsed without offsets.
   */
  offset(path: readonly (string | number)[]): number | undefined;
}

/** The deepest nesting the fast path handles. */
export const MAX_PLAIN_DEPTH = 12;

/** Characters the fast path never handles: tabs, CR, other controls, NEL, BOM, line separators. */
function hasUnhandledChar(source: string): boolean {
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (
      c < 0x20
        ? c !== 0x0a
        : c >= 0x7f && (c <= 0x9f || c === 0xfeff || c === 0x2028 || c === 0x2029)
    ) {
      return true;
    }
  }
  return false;
}
/** A block mapping key: plain, not a number, null or boolean. */
const KEY = /^([A-Za-z_][A-Za-z0-9_./-]*):(?: +|$)/;
const NOT_STRING_KEYS = new Set([
  "true",
  "True",
  "TRUE",
  "false",
  "False",
  "FALSE",
  "null",
  "Null",
  "NULL",
  "__proto__",
]);
/** Characters that may not start a plain scalar here (YAML indicators, conservatively). */
const INDICATORS = new Set([..."-?:,[]{}#&*!|>'\"%@`"]);
const INT = /^[-+]?[0-9]+$/;
const OTHER_NUMBER = /^(?:0x|0o|[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$)/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
/** What a plain item inside a one-line flow collection may not contain. */
const FLOW_UNSAFE = /[[\]{}"'#:,]/;

/** Options of {@linkcode parsePlainYaml}. */
export interface PlainYamlOptions {
  /** Record node offsets for {@linkcode PlainYaml.offset} (default true; false is faster). */
  readonly offsets?: boolean;
}

/** Each container's keys' or items' offsets. */
type Offsets = WeakMap<object, Map<string | number, number>>;

/** Starts recording a container's offsets, when offsets are recorded at all. */
function track(offsets: Offsets | null, container: object): Map<string | number, number> | null {
  if (offsets === null) return null;
  const at = new Map<string | number, number>();
  offsets.set(container, at);
  return at;
}

interface Line {
  /** Spaces before the content. */
  indent: number;
  /** Offset of the content's first character in the source. */
  start: number;
  /** The content, without trailing spaces. */
  text: string;
}

/** Thrown inside the parser to fall back; never escapes. */
const FALL_BACK = Symbol("fall back");

/**
 * Parse `source` if it is in the plain subset.
 *
 * @param source A YAML document (no `---` markers).
 * @returns The value and a locator, or `undefined` when the `yaml` package must parse it.
 * @example
 * ```ts
 * import { parsePlainYaml } from "./_plain_yaml.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * const doc = parsePlainYaml("name: pdf\ndescription: 'Fill forms'\nmetadata:\n  version: \"1.0\"\n");
 * assert.deepEqual(doc?.value, { name: "pdf", description: "Fill forms", metadata: { version: "1.0" } });
 * assert.equal(doc?.offset(["description"]), 10);
 * assert.equal(parsePlainYaml("name: &a pdf\n"), undefined); // an anchor: yaml parses it
 * ```
 */
export function parsePlainYaml(
  source: string,
  options: PlainYamlOptions = {},
): PlainYaml | undefined {
  if (hasUnhandledChar(source)) return undefined;
  const lines = splitLines(source);
  if (lines === undefined || lines.length === 0 || lines[0]!.indent !== 0) return undefined;
  const root = lines[0]!.start;
  const parser = new Parser(lines, options.offsets === false ? null : new WeakMap());
  try {
    const value = parser.block(0, 0);
    if (parser.i !== lines.length) return undefined;
    const offsets = parser.offsets;
    return {
      value,
      offset: (path) => (offsets === null ? undefined : locate(value, offsets, root, path)),
    };
  } catch (e) {
    if (e === FALL_BACK) return undefined;
    throw e;
  }
}

/**
 * Line and column of offsets in `source`, as `yaml`'s `LineCounter` gives
 * them (both 1-based); the line starts are indexed once, on the first call.
 *
 * @param source The text.
 * @returns A function from an offset to `{ line, col }`.
 * @example
 * ```ts
 * import { linePositions } from "./_plain_yaml.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * assert.deepEqual(linePositions("a: 1\nb: 2\n")(6), { line: 2, col: 2 });
 * ```
 */
export function linePositions(source: string): (offset: number) => { line: number; col: number } {
  let starts: number[] | undefined;
  return (offset) => {
    if (starts === undefined) {
      starts = [0];
      for (let i = source.indexOf("\n"); i >= 0; i = source.indexOf("\n", i + 1)) {
        starts.push(i + 1);
      }
    }
    // The last line start at or before the offset.
    let lo = 0, hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: offset - starts[lo]! + 1 };
  };
}

function fallBack(): never {
  throw FALL_BACK;
}

/** Content lines (blank and full-line comment lines dropped), or `undefined` for a marker line. */
function splitLines(source: string): Line[] | undefined {
  const lines: Line[] = [];
  let at = 0;
  while (at < source.length) {
    let end = source.indexOf("\n", at);
    if (end < 0) end = source.length;
    let indent = 0;
    while (source.charCodeAt(at + indent) === 32) indent++;
    let stop = end;
    while (stop > at + indent && source.charCodeAt(stop - 1) === 32) stop--;
    const text = source.slice(at + indent, stop);
    if (text !== "" && text[0] !== "#") {
      if (indent === 0 && (text.startsWith("---") || text.startsWith("..."))) return undefined;
      lines.push({ indent, start: at + indent, text });
    }
    at = end + 1;
  }
  return lines;
}

function isItem(line: Line): boolean {
  return line.text === "-" || line.text.startsWith("- ");
}

class Parser {
  i = 0;
  constructor(
    readonly lines: Line[],
    /** For each mapping and list built: its keys' and items' offsets (when asked for). */
    readonly offsets: Offsets | null,
  ) {}

  /** A block node whose first line is the current line, at `indent`. */
  block(indent: number, depth: number): unknown {
    if (depth > MAX_PLAIN_DEPTH) fallBack();
    return isItem(this.lines[this.i]!) ? this.sequence(indent, depth) : this.mapping(indent, depth);
  }

  mapping(indent: number, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const offsets = track(this.offsets, out);
    while (this.i < this.lines.length) {
      const line = this.lines[this.i]!;
      if (line.indent < indent) break;
      // Deeper: a multi-line scalar or a stray block; an item here: a yaml error.
      if (line.indent > indent || isItem(line)) fallBack();
      const m = KEY.exec(line.text);
      if (m === null) fallBack();
      const key = m[1]!;
      if (NOT_STRING_KEYS.has(key) || Object.hasOwn(out, key)) fallBack();
      offsets?.set(key, line.start);
      const rest = line.text.slice(m[0].length);
      this.i++;
      if (rest !== "") {
        out[key] = scalarOrFlow(rest, line.start + m[0].length, this.offsets);
        continue;
      }
      const next = this.lines[this.i];
      if (next !== undefined && next.indent > indent) {
        out[key] = this.block(next.indent, depth + 1);
      } else if (next !== undefined && next.indent === indent && isItem(next)) {
        out[key] = this.sequence(indent, depth + 1);
      } else {
        out[key] = null;
      }
    }
    return out;
  }

  sequence(indent: number, depth: number): unknown[] {
    const out: unknown[] = [];
    const offsets = track(this.offsets, out);
    while (this.i < this.lines.length) {
      const line = this.lines[this.i]!;
      if (line.indent < indent || (line.indent === indent && !isItem(line))) break;
      if (line.indent > indent || line.text === "-") fallBack();
      let skip = 2;
      while (line.text.charCodeAt(skip) === 32) skip++;
      const content = line.text.slice(skip);
      const start = line.start + skip;
      offsets?.set(out.length, start);
      if (KEY.test(content) || content === "-" || content.startsWith("- ")) {
        // A compact mapping or sequence: the item's content is a block at its column.
        this.lines[this.i] = { indent: indent + skip, start, text: content };
        out.push(this.block(indent + skip, depth + 1));
      } else {
        this.i++;
        out.push(scalarOrFlow(content, start, this.offsets));
      }
    }
    return out;
  }
}

/** A one-line value: a quoted or plain scalar, or a one-line flow collection. */
function scalarOrFlow(
  text: string,
  start: number,
  offsets: Offsets | null,
): unknown {
  const first = text[0]!;
  if (first === '"' || first === "'") {
    const inner = text.slice(1, -1);
    if (text.length < 2 || text[text.length - 1] !== first || inner.includes(first)) fallBack();
    if (first === '"' && inner.includes("\\")) fallBack();
    return inner;
  }
  if (first === "[") return flowSequence(text, start, offsets);
  if (first === "{") return flowMapping(text, start, offsets);
  return plain(text, false);
}

/** The items of a one-line flow collection between its brackets, with their offsets. */
function flowItems(text: string, start: number, close: string): [string, number][] {
  if (text[text.length - 1] !== close) fallBack();
  const inner = text.slice(1, -1);
  if (inner.trim() === "") return [];
  const items: [string, number][] = [];
  let at = 0;
  for (const part of inner.split(",")) {
    const lead = part.length - part.trimStart().length;
    items.push([part.trim(), start + 1 + at + lead]);
    at += part.length + 1;
  }
  return items;
}

function flowSequence(
  text: string,
  start: number,
  offsets: Offsets | null,
): unknown[] {
  const out: unknown[] = [];
  const at = track(offsets, out);
  for (const [item, offset] of flowItems(text, start, "]")) {
    at?.set(out.length, offset);
    out.push(plain(item, true));
  }
  return out;
}

function flowMapping(
  text: string,
  start: number,
  offsets: Offsets | null,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const at = track(offsets, out);
  for (const [item, offset] of flowItems(text, start, "}")) {
    const colon = item.indexOf(": ");
    if (colon < 0) fallBack();
    const key = item.slice(0, colon);
    const m = KEY.exec(`${key}:`);
    if (m === null || NOT_STRING_KEYS.has(key) || Object.hasOwn(out, key)) fallBack();
    at?.set(key, offset);
    out[key] = plain(item.slice(colon + 2).trim(), true);
  }
  return out;
}

/** A plain scalar resolved by the core schema; anything unusual falls back. */
function plain(text: string, flow: boolean): unknown {
  if (text === "" || INDICATORS.has(text[0]!)) fallBack();
  if (flow ? FLOW_UNSAFE.test(text) : text.includes(" #") || text.includes(": ")) fallBack();
  if (text[text.length - 1] === ":") fallBack();
  switch (text) {
    case "~":
    case "null":
    case "Null":
    case "NULL":
      return null;
    case "true":
    case "True":
    case "TRUE":
      return true;
    case "false":
    case "False":
    case "FALSE":
      return false;
  }
  const c = text.charCodeAt(0);
  // Digits, ".", "+": maybe a number (the core schema's int and float forms).
  if ((c >= 48 && c <= 57) || c === 46 || c === 43) {
    // Up to 15 digits a double holds an integer exactly; longer ones are yaml's to round.
    if (INT.test(text)) return text.length <= 15 ? Number(text) : fallBack();
    if (FLOAT.test(text)) return parseFloat(text);
    // Hex, octal, infinities and NaN are yaml's.
    if (OTHER_NUMBER.test(text)) fallBack();
  }
  return text;
}

function locate(
  value: unknown,
  offsets: Offsets,
  root: number,
  path: readonly (string | number)[],
): number | undefined {
  let node = value, offset = root;
  for (const part of path) {
    if (typeof node !== "object" || node === null) return offset;
    const isList = Array.isArray(node);
    if (isList !== (typeof part === "number")) return offset;
    const at = offsets.get(node)?.get(part);
    if (at === undefined) return offset;
    offset = at;
    node = (node as Record<string | number, unknown>)[part];
  }
  return offset;
}
