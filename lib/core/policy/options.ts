/**
 * Options are code: after a pattern's literal words, its `*` matches
 * operands and the arguments after `--`, and an option is approved only when
 * the pattern names it or it is in its program's table of options known not
 * to run code (`./option_tables.ts`). A command's words are read the way the
 * program's own parser reads them — clusters of short options (`-la`),
 * `--opt=value` and `--opt value`, npm's any number of dashes and `_` for
 * `-`, tar's dashless first word, git's and npm's subcommands — so every
 * spelling of an option is the same option. Anything the table does not
 * approve (an unknown option, an abbreviation, a subcommand not listed, a
 * value that looks like an option) makes the command not match.
 *
 * One file: the queue of values an option takes from the next words is state
 * of this module that every step of reading a word shares (starting a walk,
 * the walk, an option, a cluster), and the tables are compiled for that walk
 * alone; split, the queue would have to be shared across files.
 *
 * Folder `lib/core/policy/` — the tool policy: allowed-tools patterns, the shell grammar, decisions.
 *
 * @module
 */
import { hashOf, hashStep, nameAt, type NameIndex, nameIndex, sameAt } from "./_name_index.ts";
import {
  APPROVED,
  type CompiledOptionTable,
  FLAG,
  OPTIONAL,
  PATH,
  plainWalkStart,
  runPlainWalk,
  UNKNOWN,
  UNSAFE,
  VALUE,
} from "./_plain_walk.ts";
import { OPTION_TABLES, type OptionTableSpec } from "./option_tables.ts";
import { isPlainTail, isWordStart } from "./shell_words.ts";

const DASH = 0x2d;

/** Whether `text[start…end)` is `-` and digits (`-20`). */
function isNumber(text: string, start: number, end: number): boolean {
  for (let k = start + 1; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c < 0x30 || c > 0x39) return false;
  }
  return end - start > 1;
}

/**
 * The values the words after an option are (tar's `cfC out.tar dir` queues
 * two), by arity: an option is read only when none is pending, and the walk
 * never nests, so one queue serves every walk and deciding a call allocates
 * nothing. `queued` values are pending, the next at index `next` of the walk.
 */
const pending: number[] = [];
let queued = 0;

export type { CompiledOptionTable };

type Table = CompiledOptionTable;

/** Compiled tables, by program name: what {@linkcode unapprovedOption} reads. */
export type OptionTables = ReadonlyMap<string, CompiledOptionTable>;

const EMPTY: Table = {
  style: "getopt",
  long: new Map(),
  short: new Map(),
  number: false,
  subcommands: null,
  closed: false,
  dashlessFirst: false,
  operandEnds: false,
  dashDashEnds: true,
};

/**
 * Compile tables written as {@linkcode OPTION_TABLES} is.
 *
 * @param specs The tables, by program name.
 * @returns The compiled tables.
 * @throws {RangeError} When an option's spelling is not one of the documented forms.
 */
export function compileOptionTables(
  specs: ReadonlyMap<string, OptionTableSpec>,
): OptionTables {
  const out = new Map<string, Table>();
  for (const [program, spec] of specs) out.set(program, compileTable(spec, program));
  return out;
}

function compileTable(spec: OptionTableSpec, where: string): Table {
  const long = new Map<string, number>();
  const short = new Map<string, number>();
  let number = false;
  for (const raw of spec.options.split(" ")) {
    if (raw === "") continue;
    const unsafe = raw.startsWith("!") ? UNSAFE : 0;
    const entry = unsafe ? raw.slice(1) : raw;
    if (entry === "-#") {
      number = true;
      continue;
    }
    const m = /^(-{1,2}[A-Za-z0-9][\w-]*)(=|=\?|=path)?$/.exec(entry);
    if (m === null) throw new RangeError(`Invalid option "${raw}" in the table of "${where}"`);
    const name = m[1]!;
    const arity =
      (m[2] === "=" ? VALUE : m[2] === "=?" ? OPTIONAL : m[2] === "=path" ? PATH : FLAG) |
      unsafe;
    switch (spec.style) {
      case "getopt":
        if (name.startsWith("--")) long.set(name, arity);
        else if (name.length === 2) short.set(name[1]!, arity);
        else throw new RangeError(`Invalid option "${raw}" in the table of "${where}"`);
        break;
      case "npm":
        long.set(normalizeNpm(name), arity);
        break;
      case "go":
        long.set(name.replace(/^--?/, ""), arity);
        break;
      case "word":
        long.set(name, arity);
    }
  }
  let subcommands: Map<string, Table> | null = null;
  if (spec.subcommands !== undefined) {
    subcommands = new Map();
    for (const [word, sub] of spec.subcommands) {
      subcommands.set(word, compileTable(sub, `${where} ${word}`));
    }
  }
  return {
    style: spec.style,
    long,
    short,
    number,
    subcommands,
    closed: spec.closed === true,
    dashlessFirst: spec.dashlessFirst === true,
    operandEnds: spec.operandEnds === true,
    dashDashEnds: spec.dashDashEnds ?? (spec.style === "getopt" || spec.style === "npm"),
  };
}

/** npm's reading of an option's name: no leading dashes, `_` for `-`, lower case. */
function normalizeNpm(word: string): string {
  let k = 0;
  while (k < word.length && word.charCodeAt(k) === DASH) k++;
  return word.slice(k).replaceAll("_", "-").toLowerCase();
}

/** The project's tables, compiled once. */
export const DEFAULT_OPTION_TABLES: OptionTables = compileOptionTables(OPTION_TABLES);

/**
 * The first word of a command that its program's table does not approve, or
 * `undefined` when every option is approved: the words before `named` (the
 * pattern's literal words) and the words in `namedWords` are approved as
 * written; any other option must be in the table of its program (or of its
 * subcommand); operands and the words after `--` are free. A program without
 * a table gets operands only.
 *
 * @param words A command's words ({@linkcode shellWords}), the program first.
 * @param named How many leading words the pattern names (default 1: the program).
 * @param namedWords Further words the pattern names (a glob pattern's literal options).
 * @param tables The tables (default {@linkcode DEFAULT_OPTION_TABLES}).
 * @returns The first word not approved, or `undefined`.
 * @example
 * ```ts
 * import { unapprovedOption } from "./options.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(unapprovedOption(["git", "log", "--oneline", "-5"]), undefined);
 * assert.equal(unapprovedOption(["sort", "-S", "1K", "--compress-program=sh", "a"]), "--compress-program=sh");
 * assert.equal(unapprovedOption(["npm", "test", "---node-options=--import=x"]), "---node-options=--import=x");
 * assert.equal(unapprovedOption(["git", "log", "--output=x"], 3), undefined);
 * ```
 */
export function unapprovedOption(
  words: readonly string[],
  named = 1,
  namedWords: ReadonlySet<string> | null = null,
  tables: OptionTables = DEFAULT_OPTION_TABLES,
): string | undefined {
  for (const w of words) {
    if (typeof w !== "string" || w.includes(NUL)) {
      throw new TypeError("words must be strings without NUL");
    }
  }
  return unapprovedIn(words.join(NUL), NUL, named, namedWords, tables);
}

const NUL = "\u0000";

/**
 * A table with its lookups in place: by the characters of a command's text,
 * so the walk cuts no word out to look it up. Built once per table
 * ({@linkcode lookupOf}); a subcommand's lookup is its table's.
 *
 * @internal
 */
export interface OptionLookup {
  /** The table. */
  readonly table: CompiledOptionTable;
  /** The long options (`getopt`: with their dashes; `go`: without; `word`: the word), by name. */
  readonly long: NameIndex<number>;
  /** The short options' arities by ASCII code, -1 for none. */
  readonly short: Int8Array;
  /** The subcommands' lookups, by word, or `null`. */
  readonly subcommands: NameIndex<OptionLookup> | null;
}

const lookups = new WeakMap<CompiledOptionTable, OptionLookup>();

/** The lookup of a table, built on first use (a table's subcommands are a few levels deep). */
function lookupOf(t: CompiledOptionTable): OptionLookup {
  let found = lookups.get(t);
  if (found === undefined) {
    const short = new Int8Array(128).fill(-1);
    for (const [letter, arity] of t.short) {
      if (letter.length === 1 && letter.charCodeAt(0) < 128) short[letter.charCodeAt(0)] = arity;
    }
    const subcommands = t.subcommands === null
      ? null
      : nameIndex([...t.subcommands].map(([word, sub]) => [word, lookupOf(sub)] as const));
    found = { table: t, long: nameIndex(t.long), short, subcommands };
    lookups.set(t, found);
  }
  return found;
}

const EMPTY_LOOKUP = lookupOf(EMPTY);

/**
 * Where a pattern's literal words leave the walk over a command's options,
 * resolved once when the pattern is compiled ({@linkcode startOptionWalk}):
 * the table in force after them (the program's, or its subcommand's) and
 * whether the next operand may still be a subcommand, so deciding a call
 * neither looks the program up nor walks the words the pattern names.
 *
 * @internal
 */
export interface OptionWalk {
  /** The table in force after the literal words, with its lookups. */
  readonly lookup: OptionLookup;
  /** Whether the next operand may still be a subcommand. */
  readonly slot: boolean;
  /** Whether the literal words ended option reading (`--`, an interpreter's program): the words after them are free. */
  readonly free: boolean;
  /** How many words the pattern names: the walk resumes at this word. */
  readonly named: number;
  /** The literal words' length with one separator each: where the walk resumes in a command's text. */
  readonly offset: number;
  /** The literal words joined by single spaces, and a space: how a plain command that they lead starts. */
  readonly spaced: string;
  /** The character codes of `spaced`. */
  readonly codes: Uint16Array;
  /** The state of the walk's automaton (`./_plain_walk.ts`) before the words after `spaced`. */
  readonly start: number;
}

/**
 * The walk after a pattern's literal words (`git log` of `Bash(git log:*)`),
 * or `null` when they do not fix it: no words, a program with `*`, or a last
 * word that leaves a value pending (`Bash(git -c:*)`); the general walk of
 * {@linkcode unapprovedIn} reads those.
 *
 * @internal
 */
export function startOptionWalk(
  words: readonly string[],
  tables: OptionTables = DEFAULT_OPTION_TABLES,
): OptionWalk | null {
  if (words.length === 0 || words[0]!.includes("*")) return null;
  const program = words[0]!;
  let l = lookupOf(tables.get(program.slice(program.lastIndexOf("/") + 1)) ?? EMPTY);
  let slot = l.subcommands !== null;
  let free = false;
  let next = 0;
  queued = 0;
  // Every word here is named: approved as written, read only for where it leaves the walk.
  for (let i = 1; i < words.length && !free; i++) {
    const w = words[i]!;
    const t = l.table;
    const dashed = w.length > 1 && w.charCodeAt(0) === DASH;
    if (next < queued) {
      next++;
      continue;
    }
    if (w === "--") {
      free = t.dashDashEnds;
      continue;
    }
    if (!dashed && !slot && !(i === 1 && t.dashlessFirst)) {
      free = t.operandEnds;
      continue;
    }
    if (slot) {
      const sub = nameAt(l.subcommands!, w, 0, w.length);
      if (sub !== undefined) {
        l = sub;
        slot = sub.subcommands !== null;
        continue;
      }
    }
    if (dashed || (i === 1 && t.dashlessFirst)) {
      next = queued = 0;
      if (dashed) {
        const eq = w.indexOf("=");
        readOption(l, w, 0, w.length, true, hashOf(w, 0, w.length), eq, hashOf(w, 0, eq));
      } else {
        readCluster(l, w, 0, w.length, 0, true);
      }
      continue;
    }
    if (slot) {
      slot = false;
      if (t.closed) l = EMPTY_LOOKUP;
    }
    free = l.table.operandEnds;
  }
  if (!free && next < queued) return null;
  const spaced = words.join(" ") + " ";
  // By code unit, as the walk reads a command (a pair of surrogates is two).
  const codes = Uint16Array.from({ length: spaced.length }, (_, k) => spaced.charCodeAt(k));
  const start = plainWalkStart(l.table, slot, words.length === 1);
  return {
    lookup: l,
    slot,
    free,
    named: words.length,
    offset: spaced.length,
    spaced,
    codes,
    start,
  };
}

/**
 * Whether the words of a command after a pattern's literal words (`text`
 * from `walk.offset`, words joined by one `separator`) use only operands and
 * approved options. A command with no option word after them and no
 * subcommand to read is approved without a walk.
 *
 * @internal
 */
export function approvedAfter(walk: OptionWalk, text: string, separator: string): boolean {
  const from = walk.offset;
  if (walk.free || from > text.length) return true;
  const l = walk.lookup;
  if (
    !walk.slot && !(walk.named === 1 && l.table.dashlessFirst) &&
    text.charCodeAt(from) !== DASH && text.indexOf(separator === " " ? " -" : NUL_DASH, from) < 0
  ) {
    return true;
  }
  return walkFrom(text, separator, from, walk.named, l, walk.slot, 0, null, false) === undefined;
}

/**
 * The policy's fast path for a plain command: whether `text` starts with
 * the walk's literal words and a space ({@linkcode OptionWalk.spaced}), the
 * rest is plain words separated by single spaces ({@linkcode isPlainTail}),
 * and {@linkcode approvedAfter} approves them. The rest is read once, by
 * the walk's automaton (`./_plain_walk.ts`), or by the walk itself where
 * the automaton leaves a command to it.
 *
 * @internal
 */
export function approvedPlainTail(walk: OptionWalk, text: string): boolean {
  const from = walk.spaced.length;
  if (from >= text.length) return false;
  if (!sameAt(text, 0, from, walk.codes, 0)) return false;
  if (walk.free) return isPlainTail(text, from);
  const answer = runPlainWalk(walk.start, text, from);
  if (answer !== UNKNOWN) return answer === APPROVED;
  return walkFrom(text, " ", from, walk.named, walk.lookup, walk.slot, 0, null, true) ===
    undefined;
}

const NUL_DASH = NUL + "-";

/**
 * {@linkcode unapprovedOption} of words joined by one `separator` (a
 * character no word holds): the policy's own, without splitting; only the
 * words that may be options or subcommands are cut out of the text.
 *
 * @internal
 */
export function unapprovedIn(
  text: string,
  separator: string,
  named: number,
  namedWords: ReadonlySet<string> | null,
  tables: OptionTables = DEFAULT_OPTION_TABLES,
): string | undefined {
  const end = text.indexOf(separator);
  if (end < 0) return undefined;
  const slash = text.lastIndexOf("/", end);
  const l = lookupOf(tables.get(text.slice(slash < 0 ? 0 : slash + 1, end)) ?? EMPTY);
  return walkFrom(
    text,
    separator,
    end + 1,
    1,
    l,
    l.subcommands !== null,
    named,
    namedWords,
    false,
  );
}

/** Whether `text[start…end)` holds a `:`. */
function hasColon(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (text.charCodeAt(k) === 0x3a) return true;
  return false;
}

/**
 * The walk: word `i` of the command starts at `start` in `text`, `l` is the
 * table in force and `slot` whether the next operand may be a subcommand.
 * Words are read in place; only the word returned is cut out. A `plain`
 * walk (words joined by single spaces) also checks that every word, to the
 * last, is plain word characters and not empty, and answers
 * {@linkcode NOT_PLAIN} for a command that is not.
 */
function walkFrom(
  text: string,
  separator: string,
  start: number,
  i: number,
  l: OptionLookup,
  slot: boolean,
  named: number,
  namedWords: ReadonlySet<string> | null,
  plain: boolean,
): string | undefined {
  const n = text.length;
  const classes = plain
    ? PLAIN_CLASSES
    : separator === NUL
    ? NUL_CLASSES
    : separator === " "
    ? SPACE_CLASSES
    : classesOf(separator);
  const wide = plain ? NOT_IN_WORD : IN_WORD;
  let next = 0;
  queued = 0;
  for (let end = start; start <= n; i++, start = end + 1) {
    // The word's end, its hash, and where its first "=" is with the hash before it.
    let hash = 0;
    let eq = -1;
    let eqHash = 0;
    for (end = start; end < n; end++) {
      const c = text.charCodeAt(end);
      const k = c < 128 ? classes[c]! : wide;
      if (k !== IN_WORD) {
        if (k === ENDS_WORD) break;
        if (k === NOT_IN_WORD) return NOT_PLAIN;
        if (eq < 0) {
          eq = end;
          eqHash = hash;
        }
      }
      hash = hashStep(hash, c);
    }
    if (plain && end === start) return NOT_PLAIN;
    const t = l.table;
    const dashed = end - start > 1 && text.charCodeAt(start) === DASH;
    // A pattern names options only (words starting with "-").
    const isNamed = i < named ||
      (dashed && namedWords !== null && namedWords.has(text.slice(start, end)));
    if (next < queued) {
      const arity = pending[next++]!;
      if (isNamed) continue;
      // A value that looks like an option is not approved: whoever is wrong about an arity errs safe.
      if (dashed) return text.slice(start, end);
      if ((arity & 7) === PATH && hasColon(text, start, end)) return text.slice(start, end);
      continue;
    }
    if (end - start === 2 && dashed && text.charCodeAt(start + 1) === DASH) {
      if (t.dashDashEnds) return approvedRest(text, end, plain);
      continue;
    }
    if (!dashed && !slot && !(i === 1 && t.dashlessFirst)) {
      // An operand.
      if (t.operandEnds) return approvedRest(text, end, plain);
      continue;
    }
    if (slot) {
      const sub = nameAt(l.subcommands!, text, start, end, hash);
      if (sub !== undefined) {
        l = sub;
        slot = sub.subcommands !== null;
        continue;
      }
    }
    if (dashed) {
      next = queued = 0;
      if (!readOption(l, text, start, end, isNamed, hash, eq, eqHash) && !isNamed) {
        return text.slice(start, end);
      }
      continue;
    }
    if (i === 1 && t.dashlessFirst) {
      next = queued = 0;
      if (!readCluster(l, text, start, end, 0, isNamed) && !isNamed) {
        return text.slice(start, end);
      }
      continue;
    }
    if (slot) {
      slot = false;
      if (t.closed) {
        if (!isNamed) return text.slice(start, end);
        l = EMPTY_LOOKUP;
      }
    }
    // An interpreter's first operand is the program: the words after it are its arguments.
    if (l.table.operandEnds) return approvedRest(text, end, plain);
  }
  return undefined;
}

/** The walk's classes of ASCII characters: a word's own, its end, an `=`, and one no plain word holds. */
const IN_WORD = 0;
const ENDS_WORD = 1;
const EQUALS = 2;
const NOT_IN_WORD = 3;

/**
 * The classes for words joined by `separator`: every character but it is a
 * word's. The table holds ASCII only (a character past it is a word's), so
 * a separator past ASCII, or of more than one character, is refused.
 *
 * @throws {RangeError} When `separator` is not one ASCII character.
 */
function classesOf(separator: string): Uint8Array {
  if (separator.length !== 1 || separator.charCodeAt(0) >= 128) {
    throw new RangeError(
      `A walk's separator must be one ASCII character, got ${JSON.stringify(separator)}`,
    );
  }
  const table = new Uint8Array(128);
  table[0x3d] = EQUALS;
  table[separator.charCodeAt(0)] = ENDS_WORD;
  return table;
}

const NUL_CLASSES = classesOf(NUL);
const SPACE_CLASSES = classesOf(" ");

/** The classes of a plain walk: words of plain characters joined by single spaces. */
const PLAIN_CLASSES = (() => {
  const table = classesOf(" ");
  for (let c = 0; c < 128; c++) if (table[c] === IN_WORD && !isWordStart(c)) table[c] = NOT_IN_WORD;
  return table;
})();

/** What a plain walk returns for a command that is not plain words: not approved by the fast path. */
const NOT_PLAIN = "\u0000";

/**
 * The walk's answer when the words from `end` on are free: approved, and
 * for a plain walk only when they are plain words too.
 */
function approvedRest(text: string, end: number, plain: boolean): string | undefined {
  return !plain || end === text.length || isPlainTail(text, end + 1) ? undefined : NOT_PLAIN;
}

/**
 * Whether the option word `text[start…end)` is approved by the table,
 * queueing the arities of values it takes from the next words. A named word
 * is read for its arity only. `hash` is the word's hash, `eqAt` the index of
 * its first `=` (-1: none) and `eqHash` the hash of the name before it, as
 * the walk found them.
 */
function readOption(
  l: OptionLookup,
  text: string,
  start: number,
  end: number,
  isNamed: boolean,
  hash: number,
  eqAt: number,
  eqHash: number,
): boolean {
  const t = l.table;
  if (t.style === "getopt") {
    if (text.charCodeAt(start + 1) !== DASH) {
      if (t.number && isNumber(text, start, end)) return true;
      return readCluster(l, text, start, end, 1, isNamed);
    }
    // A name holds no "=": the whole word first, then the name before its "=".
    const arity = nameAt(l.long, text, start, end, hash);
    if (arity !== undefined) return readLong(arity, text, -1, end, isNamed);
    return eqAt >= 0 &&
      readLong(nameAt(l.long, text, start, eqAt, eqHash), text, eqAt, end, isNamed);
  }
  return readOtherOption(l, text, start, end, isNamed, eqAt);
}

/** {@linkcode readOption} for a program whose parser is not getopt's: npm's, go's, or whole words. */
function readOtherOption(
  l: OptionLookup,
  text: string,
  start: number,
  end: number,
  isNamed: boolean,
  eq: number,
): boolean {
  const style = l.table.style;
  if (style === "npm") {
    // nopt's reading of a name: the word is cut out here, and normalized.
    const name = normalizeNpm(text.slice(start, eq < 0 ? end : eq));
    return readLong(l.table.long.get(name), text, eq, end, isNamed);
  }
  if (style === "go") {
    const from = text.charCodeAt(start + 1) === DASH ? start + 2 : start + 1;
    if (text.charCodeAt(from) === DASH) return false;
    const arity = nameAt(l.long, text, from, eq < 0 ? end : eq);
    // A boolean flag of Go's may be written `-v=true`.
    if (arity === FLAG && eq >= 0) return /^=(?:true|false|1|0)$/.test(text.slice(eq, end));
    return readLong(arity, text, eq, end, isNamed);
  }
  // "word": the whole word is the name.
  return readLong(nameAt(l.long, text, start, end), text, -1, end, isNamed);
}

/** A long option of arity `arity` (undefined: not in the table), with its `=` at `eq` (-1: none) of a word ending at `end`. */
function readLong(
  arity: number | undefined,
  text: string,
  eq: number,
  end: number,
  isNamed: boolean,
): boolean {
  if (arity === undefined) return false;
  const kind = arity & 7;
  if (kind === FLAG) {
    if (eq >= 0) return false;
  } else if (kind === VALUE || kind === PATH) {
    if (eq < 0) pending[queued++] = arity;
    else if (kind === PATH && hasColon(text, eq, end) && !isNamed) return false;
  }
  return (arity & UNSAFE) === 0;
}

/**
 * A cluster of short options in `text[start…end)`, from its character
 * `from` (`-la`, tar's `czf`): each letter, up to one taking a value.
 */
function readCluster(
  l: OptionLookup,
  text: string,
  start: number,
  end: number,
  from: number,
  isNamed: boolean,
): boolean {
  let approved = true;
  for (let k = start + from; k < end; k++) {
    const c = text.charCodeAt(k);
    const arity = c < 128 ? l.short[c]! : -1;
    if (arity < 0) return false;
    // One listed for its arity only: read on, for a named word's value.
    if ((arity & UNSAFE) !== 0) approved = false;
    const kind = arity & 7;
    if (kind === FLAG) continue;
    // tar's dashless first word: every value letter takes the next word, in order.
    if (from === 0 && kind !== OPTIONAL) {
      pending[queued++] = arity;
      continue;
    }
    if (kind === OPTIONAL) return approved;
    if (k + 1 === end) pending[queued++] = arity;
    else if (kind === PATH && hasColon(text, k + 1, end) && !isNamed) return false;
    return approved;
  }
  return approved;
}
