/**
 * The option walk of `./options.ts` as an automaton, for the policy's fast
 * path: after a pattern's literal words, whether a plain command (words of
 * plain characters joined by single spaces) uses only operands and approved
 * options, read one character at a time through a table of transitions. A
 * character costs one lookup; no word is read twice, hashed or compared
 * with a name; the words after `--` are read by a plain loop.
 *
 * A state is where the walk would be: before a word under a configuration
 * (the table in force, whether a subcommand may come next, whether it is
 * the first word, a value pending), or inside a word, as the prefix of the
 * names it may still be (an option's, as its parser spells it; a
 * subcommand's) or as the kind of word it has become (an operand, a cluster
 * of short options, a value). States and transitions are made when a
 * command first needs them, from the compiled tables the walk reads, and
 * kept for every later command: the automaton grows with the commands seen,
 * up to {@linkcode MAX_STATES} states (a table of 4 MiB), never with the tables' size.
 *
 * It answers exactly as the walk does, or leaves the command to the walk
 * ({@linkcode UNKNOWN}): a dashless first word (tar's `czf`, which queues
 * several values), `-` and digits followed by letters, a lone `-`, and
 * every new command once it is full. The option walk's tests hold the two
 * to the same answers on commands aimed at every table.
 *
 * Folder `lib/core/policy/` — the tool policy: allowed-tools patterns, the shell grammar, decisions.
 *
 * @module
 */
import type { OptionStyle } from "./option_tables.ts";
import { isPlainTail, isWordStart } from "./shell_words.ts";

/** An option takes no value. */
export const FLAG = 0;
/** An option takes a value (`--format=x`, `--format x`, `-fx`, `-f x`). */
export const VALUE = 1;
/** An option takes a value only attached to it (`--color=always`). */
export const OPTIONAL = 2;
/** An option takes a path: a value with a `:` (a remote, `host:path`) is not approved. */
export const PATH = 3;
/** Set on an option listed only for its arity (`!-c=`): approved only when named. */
export const UNSAFE = 8;

/** A table, compiled (`compileOptionTables` of `./options.ts`): arities by name. */
export interface CompiledOptionTable {
  /** How the program's parser reads its options. */
  readonly style: OptionStyle;
  /** Long options (getopt: the name after `--`; npm, go, word: the normalized word). */
  readonly long: ReadonlyMap<string, number>;
  /** Short options (getopt), by letter. */
  readonly short: ReadonlyMap<string, number>;
  /** Whether `-NUM` is an option (`head -20`). */
  readonly number: boolean;
  /** The subcommands' own tables, by word (`git log`), or `null`. */
  readonly subcommands: ReadonlyMap<string, CompiledOptionTable> | null;
  /** Whether a subcommand not in the table is refused. */
  readonly closed: boolean;
  /** Whether the first word is read as options without a dash (tar's `czf`). */
  readonly dashlessFirst: boolean;
  /** Whether the first operand ends option reading (an interpreter's program). */
  readonly operandEnds: boolean;
  /** Whether `--` ends the options. */
  readonly dashDashEnds: boolean;
}

/** {@linkcode runPlainWalk}'s answers: the command is not approved, is, or the walk must read it. */
export const REFUSED = 0;
export const APPROVED = 1;
export const UNKNOWN = 2;

/** The most states kept (2 bytes per state and ASCII character: 4 MiB at most). */
export const MAX_STATES = 16381;

/** Transition codes below the first state: not made yet, refused, not modelled. */
const UNMADE = 0;
const NO = 1;
const UNSURE = 2;
/** The first state's number: a transition below it is a code. @internal */
export const FIRST_STATE = 3;

/** Where the walk is between two words: the table, a subcommand may come next, the first word, a value pending. */
interface Config {
  readonly id: number;
  readonly table: CompiledOptionTable;
  readonly slot: boolean;
  readonly first: boolean;
  /** The pending value: 0 none, or its arity (`VALUE` or `PATH`). */
  readonly pending: number;
}

// What a state is (its `kind`).
/** Before a word. */
const START = 1;
/** Read `-`. */
const DASH_READ = 2;
/** Read `text` (`--` and more), a prefix of a long option's name. */
const LONG = 3;
/** A cluster of short flags. */
const CLUSTER = 4;
/** A cluster whose last letter takes a value (`at`: its arity). */
const CLUSTER_VALUE = 5;
/** `-` and digits. */
const NUMBER = 6;
/** An option's attached value (`at`: `VALUE` or `PATH`). */
const ATTACHED = 7;
/** An operand. */
const OPERAND = 8;
/** Read `text`, a prefix of a subcommand's word. */
const SUB = 9;
/** A word in a subcommand's place that is none. */
const NOT_SUB = 10;
/** A pending value: read `-`. */
const VALUE_DASH = 11;
/** A pending value. */
const PENDING_VALUE = 12;
/** After `--` or an interpreter's program: plain words only, before one. */
const FREE_START = 13;
/** Inside a plain word after them. */
const FREE = 14;
/** Read `text`, a prefix of an option's name as a parser that is not getopt's keys it (npm's, go's, a whole word). */
const NAME = 15;
/** npm: read three or more dashes. */
const DASHES = 16;
/** go: a boolean flag's attached value, read `text` of it. */
const BOOLEAN = 17;
/** Read `text`, a dashed word that may still be a subcommand's (python's `-m`). */
const DASHED_SUB = 18;

interface State {
  readonly kind: number;
  /** The configuration (`null` once options are no longer read). */
  readonly config: Config | null;
  readonly text: string;
  readonly at: number;
}

// Grown by doubling as states are made: memory follows the commands seen.
let transitions = new Uint16Array(64 << 7);
let ends = new Uint8Array(64);
const states: State[] = [null!, null!, null!];
const stateIds = new Map<string, number>();
/** The configurations, by table (a table no longer used takes its own with it). */
const configs = new WeakMap<CompiledOptionTable, Map<string, Config>>();
let nextConfigId = 0;
/**
 * The one state before a word once options are over (after `--`, or an
 * interpreter's program): the first state made, so every code below a
 * state's and it are told apart from the others by one comparison.
 */
const FREE_STATE = stateOf(FREE_START, null);

function configOf(
  table: CompiledOptionTable,
  slot: boolean,
  first: boolean,
  pending: number,
): Config {
  // Only a dashless first word makes the first word differ: one configuration for the others.
  first &&= table.dashlessFirst;
  let mine = configs.get(table);
  if (mine === undefined) configs.set(table, mine = new Map());
  const key = `${slot} ${first} ${pending}`;
  let c = mine.get(key);
  if (c === undefined) mine.set(key, c = { id: nextConfigId++, table, slot, first, pending });
  return c;
}

/** The state with this description, made if new: {@linkcode UNSURE} when the automaton is full. */
function stateOf(kind: number, config: Config | null, text = "", at = 0): number {
  const key = `${kind} ${config?.id ?? -1} ${at} ${text}`;
  const known = stateIds.get(key);
  if (known !== undefined) return known;
  const id = states.length;
  if (id >= MAX_STATES + FIRST_STATE) return UNSURE;
  if (id === ends.length) {
    const more = new Uint16Array(transitions.length * 2);
    more.set(transitions);
    transitions = more;
    const moreEnds = new Uint8Array(ends.length * 2);
    moreEnds.set(ends);
    ends = moreEnds;
  }
  const state: State = { kind, config, text, at };
  states.push(state);
  stateIds.set(key, id);
  // Computed first: it may make states, and so grow `ends` (a write would go to the old array).
  const end = ending(state);
  ends[id] = end;
  return id;
}

/**
 * The state before the first word after a pattern's literal words: `table`
 * in force, whether a subcommand may come next (`slot`), and whether that
 * word is the command's first after its program (`first`).
 *
 * @internal
 */
export function plainWalkStart(table: CompiledOptionTable, slot: boolean, first: boolean): number {
  return startOf(configOf(table, slot, first, 0));
}

/** How many states the automaton keeps (at most {@linkcode MAX_STATES}). @internal */
export function plainWalkStates(): number {
  return states.length - FIRST_STATE;
}

/**
 * Read a plain command's words from `from` on, from a walk's state
 * ({@linkcode plainWalkStart}): {@linkcode APPROVED}, {@linkcode REFUSED}
 * (as the walk would answer), or {@linkcode UNKNOWN} (the walk must read it).
 *
 * @internal
 */
export function runPlainWalk(start: number, text: string, from: number): number {
  if (start < FIRST_STATE) return UNKNOWN;
  let s = start;
  for (let k = from; k < text.length; k++) {
    const c = text.charCodeAt(k);
    // Past ASCII: not a plain word's character.
    if (c >= 128) return REFUSED;
    const t = transitions[(s << 7) | c]!;
    if (t <= FREE_STATE) {
      // Options are over: the rest need only be plain words, which a loop without states reads faster.
      if (t === FREE_STATE) return isPlainTail(text, k + 1) ? APPROVED : REFUSED;
      // Making a transition is a call, kept out of this loop: the compilers would keep it in every turn.
      return t === NO ? REFUSED : t === UNSURE ? UNKNOWN : makingRun(s, k, text);
    }
    s = t;
  }
  return ends[s]!;
}

/** {@linkcode runPlainWalk} from state `s` at character `k`, making the transitions not made yet. */
function makingRun(s: number, k: number, text: string): number {
  for (; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c >= 128) return REFUSED;
    let t = transitions[(s << 7) | c]!;
    if (t === UNMADE) t = transitionOf(s, c);
    if (t === NO) return REFUSED;
    if (t === UNSURE) return UNKNOWN;
    s = t;
  }
  return ends[s]!;
}

/**
 * Make (and keep) the transition of state `s` on ASCII character `c`: the
 * next state, or a code below every state's. Exported for the test that
 * counts the states a command can reach.
 *
 * @internal
 */
export function transitionOf(s: number, c: number): number {
  const t = step(states[s]!, c);
  transitions[(s << 7) | c] = t;
  return t;
}

/** Whether any of `names` starts with `prefix`. */
function leads(names: ReadonlyMap<string, unknown> | null, prefix: string): boolean {
  if (names === null) return false;
  for (const name of names.keys()) if (name.startsWith(prefix)) return true;
  return false;
}

const DASH = 0x2d;
const SPACE = 0x20;
const EQUALS = 0x3d;
const COLON = 0x3a;

/** The state after `state` reads `c` (a space ends a word). */
function step(state: State, c: number): number {
  const { kind, config, text, at } = state;
  if (kind === FREE_START || kind === FREE) {
    if (c === SPACE) return kind === FREE ? FREE_STATE : NO;
    return isWordStart(c) ? stateOf(FREE, null) : NO;
  }
  if (c === SPACE) return afterWord(wordEnd(state));
  // A plain walk's word holds word characters and "=".
  if (!isWordStart(c) && c !== EQUALS) return NO;
  const cfg = config!;
  const t = cfg.table;
  const ch = String.fromCharCode(c);
  switch (kind) {
    case START:
      if (cfg.pending !== 0) {
        if (c === DASH) return stateOf(VALUE_DASH, cfg);
        return cfg.pending === PATH && c === COLON ? NO : stateOf(PENDING_VALUE, cfg);
      }
      if (c === DASH) {
        return cfg.slot && leads(t.subcommands, "-")
          ? stateOf(DASHED_SUB, cfg, "-")
          : stateOf(DASH_READ, cfg);
      }
      if (cfg.first && t.dashlessFirst) return UNSURE;
      if (cfg.slot) {
        return leads(t.subcommands, ch) ? stateOf(SUB, cfg, ch) : stateOf(NOT_SUB, cfg);
      }
      return stateOf(OPERAND, cfg);
    case DASH_READ:
      if (c === DASH) return stateOf(LONG, cfg, "--");
      if (t.style === "getopt") {
        if (t.number && c >= 0x30 && c <= 0x39) return stateOf(NUMBER, cfg);
        return letter(cfg, ch);
      }
      if (t.style === "word") return nameOf(cfg, `-${ch}`);
      return c === EQUALS ? NO : nameOf(cfg, t.style === "npm" ? npmChar(ch) : ch);
    case DASHES:
      if (c === DASH) return stateOf(DASHES, cfg);
      return c === EQUALS ? NO : nameOf(cfg, npmChar(ch));
    case NAME:
      if (c === EQUALS && t.style !== "word") return attached(cfg, t.long.get(text));
      return nameOf(cfg, text + (t.style === "npm" ? npmChar(ch) : ch));
    case BOOLEAN: {
      const value = text + ch;
      return BOOLEANS.some((b) => b.startsWith(value)) ? stateOf(BOOLEAN, cfg, value) : NO;
    }
    case DASHED_SUB: {
      const word = text + ch;
      return leads(t.subcommands, word) ? stateOf(DASHED_SUB, cfg, word) : asOption(cfg, word);
    }
    case CLUSTER:
      return letter(cfg, ch);
    case CLUSTER_VALUE:
      // The rest of the word is the letter's value.
      return at === PATH && c === COLON ? NO : stateOf(ATTACHED, cfg, "", at);
    case NUMBER:
      // `-5x` is a cluster after all: the walk reads it.
      return c >= 0x30 && c <= 0x39 ? stateOf(NUMBER, cfg) : UNSURE;
    case LONG:
      // Past `--`, a parser that is not getopt's reads its own way.
      switch (t.style) {
        case "getopt":
          if (c === EQUALS) return attached(cfg, t.long.get(text));
          return leads(t.long, text + ch) ? stateOf(LONG, cfg, text + ch) : NO;
        case "word":
          return nameOf(cfg, text + ch);
        case "npm":
          if (c === DASH) return stateOf(DASHES, cfg);
          return c === EQUALS ? NO : nameOf(cfg, npmChar(ch));
        case "go":
          // No name of Go's starts with a dash: `---x` is refused as no name.
          return c === EQUALS ? NO : nameOf(cfg, ch);
      }
      return UNSURE;
    case ATTACHED:
    case PENDING_VALUE:
      return (kind === ATTACHED ? at : cfg.pending) === PATH && c === COLON
        ? NO
        : stateOf(kind, cfg, "", at);
    case VALUE_DASH:
      // A pending value that looks like an option is not approved.
      return NO;
    case OPERAND:
    case NOT_SUB:
      return stateOf(kind, cfg);
    case SUB: {
      const word = text + ch;
      return leads(t.subcommands, word) ? stateOf(SUB, cfg, word) : stateOf(NOT_SUB, cfg);
    }
  }
  return UNSURE;
}

/** The values Go reads as a boolean flag's. */
const BOOLEANS = ["true", "false", "1", "0"];

/** npm's reading of a name's character after its dashes: `_` for `-`, lower case. */
function npmChar(ch: string): string {
  return ch === "_" ? "-" : ch.toLowerCase();
}

/** A name that some option's still starts with, or a refusal: no option is this word. */
function nameOf(cfg: Config, name: string): number {
  return leads(cfg.table.long, name) ? stateOf(NAME, cfg, name) : NO;
}

/** After an option's `=`: its value, read as its arity says (a flag takes none; Go's, a boolean). */
function attached(cfg: Config, arity: number | undefined): number {
  if (arity === FLAG && cfg.table.style === "go") return stateOf(BOOLEAN, cfg, "");
  if (arity === undefined || (arity & UNSAFE) !== 0 || (arity & 7) === FLAG) return NO;
  return stateOf(ATTACHED, cfg, "", (arity & 7) === PATH ? PATH : VALUE);
}

/** The state a dashed word that is no subcommand's is in, read as an option from its first dash. */
function asOption(cfg: Config, word: string): number {
  let s = stateOf(DASH_READ, cfg);
  for (let k = 1; k < word.length && s >= FIRST_STATE; k++) {
    s = step(states[s]!, word.charCodeAt(k));
  }
  return s;
}

/** A short option's letter in a cluster. */
function letter(cfg: Config, ch: string): number {
  const arity = cfg.table.short.get(ch);
  if (arity === undefined || (arity & UNSAFE) !== 0) return NO;
  const kind = arity & 7;
  if (kind === FLAG) return stateOf(CLUSTER, cfg);
  // An optional value is the rest of the word, if any.
  if (kind === OPTIONAL) return stateOf(ATTACHED, cfg, "", VALUE);
  return stateOf(CLUSTER_VALUE, cfg, "", kind === PATH ? PATH : VALUE);
}

/** What the end of a word leaves: the configuration for the next, `null` for plain words only, or a refusal. */
type WordEnd = Config | null | typeof NO | typeof UNSURE;

function wordEnd(state: State): WordEnd {
  const { kind, config, text, at } = state;
  if (kind === FREE_START) return NO;
  if (kind === FREE) return null;
  const cfg = config!;
  const t = cfg.table;
  switch (kind) {
    case START:
      // An empty word: not plain.
      return NO;
    case DASH_READ:
      return UNSURE;
    case LONG:
    case NAME: {
      if (kind === LONG && text === "--") {
        return t.dashDashEnds ? null : configOf(t, cfg.slot, false, 0);
      }
      const arity = t.long.get(text);
      if (arity === undefined || (arity & UNSAFE) !== 0) return NO;
      const k = arity & 7;
      return configOf(t, cfg.slot, false, k === VALUE || k === PATH ? k : 0);
    }
    case CLUSTER_VALUE:
      return configOf(t, cfg.slot, false, at);
    case CLUSTER:
    case NUMBER:
    case ATTACHED:
    case VALUE_DASH:
    case PENDING_VALUE:
      return configOf(t, cfg.slot, false, 0);
    case OPERAND:
      return t.operandEnds ? null : configOf(t, false, false, 0);
    case SUB: {
      const sub = t.subcommands!.get(text);
      if (sub !== undefined) return subcommandConfig(sub);
      return notSub(t);
    }
    case NOT_SUB:
      return notSub(t);
    case DASHES:
      return NO;
    case BOOLEAN:
      return BOOLEANS.includes(text) ? configOf(t, cfg.slot, false, 0) : NO;
    case DASHED_SUB: {
      const sub = text === "--" ? undefined : t.subcommands!.get(text);
      if (sub !== undefined) return subcommandConfig(sub);
      const s = asOption(cfg, text);
      return s >= FIRST_STATE ? wordEnd(states[s]!) : s === NO ? NO : UNSURE;
    }
  }
  return UNSURE;
}

/** Where a subcommand leaves the walk: its table, and its own subcommands' place if it has some. */
function subcommandConfig(sub: CompiledOptionTable): Config {
  return configOf(sub, sub.subcommands !== null, false, 0);
}

/** A word in a subcommand's place that is none: refused by a closed table, else an operand. */
function notSub(t: CompiledOptionTable): WordEnd {
  if (t.closed) return NO;
  return t.operandEnds ? null : configOf(t, false, false, 0);
}

/** The state before the next word. */
function afterWord(end: WordEnd): number {
  if (end === NO || end === UNSURE) return end;
  return end === null ? FREE_STATE : startOf(end);
}

function startOf(config: Config): number {
  return stateOf(START, config);
}

/** The answer for a command that ends in `state`. */
function ending(state: State): number {
  const end = wordEnd(state);
  return end === NO ? REFUSED : end === UNSURE ? UNKNOWN : APPROVED;
}
