/**
 * OpenSSH's `allowed_signers` file (ssh-keygen(1), ALLOWED SIGNERS): one
 * signer a line, `principals [options] keytype base64-key [comment]`, read
 * strictly, and the question a verifier asks it: which lines allow this key,
 * for this identity and namespace, now. Web standards only.
 *
 * Folder `lib/core/trust/` — trust as data: digests, manifests, lockfiles, approvals, pins, SSH signatures.
 *
 * @module
 */
import {
  isSmallOrderKey,
  parseSshPublicKey,
  type SshPublicKey,
  SshSignatureError,
} from "./ssh_key.ts";

/** The largest allowed signers file read, in characters: 1 MiB. */
export const MAX_ALLOWED_SIGNERS_CHARS = 1024 * 1024;

/** One line of an allowed signers file that skillset uses. */
export interface AllowedSigner {
  /** The 1-based line. */
  readonly line: number;
  /** The principals, a comma-separated pattern list (`*` and `?` wildcards, `!` negates). */
  readonly principals: string;
  /** The signer's key. */
  readonly key: SshPublicKey;
  /** The `namespaces="…"` pattern list the key may sign in, when the line restricts it. */
  readonly namespaces: string | undefined;
  /** `valid-after`, in milliseconds since the epoch, when given. */
  readonly validAfter: number | undefined;
  /** `valid-before`, in milliseconds since the epoch, when given. */
  readonly validBefore: number | undefined;
}

/** A well-formed line that skillset does not use, and why. */
export interface IgnoredSigner {
  /** The 1-based line. */
  readonly line: number;
  /** Why: another key type, or `cert-authority` (skillset checks no certificates). */
  readonly reason: string;
  /** The line's key as {@linkcode SshPublicKey}'s `base64`, when it is an `ssh-ed25519` key. */
  readonly key: string | undefined;
}

/** An allowed signers file, read. */
export interface AllowedSigners {
  /** The file, as the caller named it. */
  readonly file: string;
  /** The lines used, in file order. */
  readonly signers: readonly AllowedSigner[];
  /** The lines not used. */
  readonly ignored: readonly IgnoredSigner[];
}

const KEY_TYPE =
  /^(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp\d+|sk-[\w.@-]+|rsa-sha2-\d+)(?:-cert-v01@openssh\.com)?$/;
const TIME = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?(Z|UTC)?$/i;

/**
 * Read an allowed signers file: comments (`#`) and empty lines skipped,
 * every other line `principals [options] keytype base64-key [comment]`.
 * Options: `namespaces="…"`, `valid-after="…"`, `valid-before="…"`
 * (`YYYYMMDD[Z]` or `YYYYMMDDHHMM[SS][Z]`, `Z` or `UTC` for UTC, else the
 * local zone's time as OpenSSH reads it) and `cert-authority`. A line with
 * another key type than `ssh-ed25519`, marked `cert-authority`, with a key of
 * small order (one anyone can sign with; OpenSSH takes it), or with a local
 * time skillset cannot read exactly as OpenSSH does (in a zone whose offset
 * changes within about seven years of it: see `localTimeRefusal`), is kept
 * out of `signers` and listed in `ignored` with why.
 *
 * @param text The file's text.
 * @param file Its name, for errors.
 * @returns The signers, frozen.
 * @throws {SshSignatureError} `INVALID_SIGNERS` naming the file and line: a
 *   missing key, an unknown or repeated option, an unclosed quote, a bad
 *   timestamp, a key that is not base64 or not what its type says; or the
 *   file over {@linkcode MAX_ALLOWED_SIGNERS_CHARS}.
 * @example
 * ```ts
 * import { parseAllowedSigners } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
 *
 * const signers = parseAllowedSigners(
 *   "# who may sign the lockfile\n" +
 *     'alice@example.com,ci@example.com namespaces="skillset-lock" ssh-ed25519 ' +
 *     "AAAAC3NzaC1lZDI1NTE5AAAAIGflI/oOqHPAYXKRGpcuyX68NYvbwsU4GeihmnblhxkM\n" +
 *     "bob@example.com ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC7\n",
 * );
 * assert.equal(signers.signers[0]?.namespaces, "skillset-lock");
 * assert.equal(signers.ignored[0]?.line, 3);
 * ```
 */
export function parseAllowedSigners(text: string, file = "allowed_signers"): AllowedSigners {
  if (text.length > MAX_ALLOWED_SIGNERS_CHARS) {
    throw new SshSignatureError(
      "INVALID_SIGNERS",
      `${file}: The file is over ${MAX_ALLOWED_SIGNERS_CHARS} characters`,
    );
  }
  const signers: AllowedSigner[] = [];
  const ignored: IgnoredSigner[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    // OpenSSH reads a line as a C string: a NUL byte ends it.
    const raw = lines[i]!.split("\0", 1)[0]!;
    const line = (raw.endsWith("\r") ? raw.slice(0, -1) : raw).replace(/^[ \t]+/, "");
    if (line === "" || line.startsWith("#")) continue;
    const fail = (reason: string): never => {
      throw new SshSignatureError("INVALID_SIGNERS", `${file}:${i + 1}: ${reason}`);
    };
    const words = new Words(line, fail);
    const principals = words.principals();
    if (principals === "") fail("The principals are empty");
    let options = "";
    let type = words.next("key type");
    if (!KEY_TYPE.test(type)) {
      options = type;
      type = words.next("key type");
      if (!KEY_TYPE.test(type)) fail(`Unknown key type "${type}"`);
    }
    const base64 = words.next("key");
    const parsed = parseOptions(options, fail);
    if (type !== "ssh-ed25519") {
      const reason = `key type "${type}": skillset checks ssh-ed25519 only`;
      ignored.push({ line: i + 1, reason, key: undefined });
      continue;
    }
    let key: SshPublicKey;
    try {
      key = parseSshPublicKey(`${type} ${base64}`);
    } catch (e) {
      return fail((e as Error).message);
    }
    if (parsed.certAuthority) {
      const reason = "cert-authority: skillset checks no certificates";
      ignored.push({ line: i + 1, reason, key: key.base64 });
    } else if (isSmallOrderKey(key)) {
      const reason = "a key of small order: anyone can sign with it";
      ignored.push({ line: i + 1, reason, key: key.base64 });
    } else if (parsed.localTime !== undefined) {
      ignored.push({ line: i + 1, reason: parsed.localTime, key: key.base64 });
    } else signers.push(Object.freeze({ line: i + 1, principals, key, ...parsed.fields }));
  }
  return Object.freeze({
    file,
    signers: Object.freeze(signers),
    ignored: Object.freeze(ignored.map((s) => Object.freeze(s))),
  });
}

/** The words of a line: runs of non-blanks, a double-quoted run kept whole with its quotes. */
class Words {
  readonly #line: string;
  readonly #fail: (reason: string) => never;
  #at = 0;

  constructor(line: string, fail: (reason: string) => never) {
    this.#line = line;
    this.#fail = fail;
  }

  /**
   * The principals, split off as OpenSSH's `strdelimw` does: up to the first
   * blank, carriage return or quote; at a quote, the text before it and the
   * quoted text after it, up to the closing quote (`"a@x,b@y"` is that list,
   * and `"a",b` is `a`, the `,b` left for the next word). Then the blanks after.
   */
  principals(): string {
    const s = this.#line;
    const stop = /[ \t\r\n"]/.exec(s);
    if (stop === null) return this.#fail("The key type is missing");
    let word: string;
    if (stop[0] === '"') {
      const close = s.indexOf('"', stop.index + 1);
      if (close === -1) this.#fail("An unclosed quote in the principals");
      word = s.slice(0, stop.index) + s.slice(stop.index + 1, close);
      this.#at = close + 1;
    } else {
      word = s.slice(0, stop.index);
      this.#at = stop.index + 1;
    }
    while (" \t\r\n".includes(s[this.#at] ?? "_")) this.#at++;
    return word;
  }

  next(what: string): string {
    const s = this.#line;
    while (s[this.#at] === " " || s[this.#at] === "\t") this.#at++;
    const start = this.#at;
    let quoted = false;
    // As OpenSSH's sshkey_advance_past_options: a quote toggles, `\"` does not.
    for (; this.#at < s.length; this.#at++) {
      const c = s[this.#at];
      if (c === "\\" && s[this.#at + 1] === '"') this.#at++;
      else if (c === '"') quoted = !quoted;
      else if (!quoted && (c === " " || c === "\t")) break;
    }
    if (quoted) this.#fail(`An unclosed quote before the ${what}`);
    if (start === this.#at) this.#fail(`The ${what} is missing`);
    return s.slice(start, this.#at);
  }
}

interface ParsedOptions {
  readonly certAuthority: boolean;
  /** Why a local time of the line cannot be read exactly as OpenSSH reads it, if one cannot. */
  readonly localTime: string | undefined;
  readonly fields: Pick<AllowedSigner, "namespaces" | "validAfter" | "validBefore">;
}

/**
 * An option's value at `at` (`="…"`), read as OpenSSH's `opt_dequote`
 * reads it: `\"` is a quote inside it.
 *
 * @returns The value and where the text after it starts, or `null` without the quotes.
 */
function dequote(text: string, at: number): { text: string; end: number } | null {
  if (text[at] !== "=" || text[at + 1] !== '"') return null;
  let value = "";
  let i = at + 2;
  for (; i < text.length && text[i] !== '"'; i++) {
    if (text[i] === "\\" && text[i + 1] === '"') i++;
    value += text[i];
  }
  return i < text.length ? { text: value, end: i + 1 } : null;
}

function parseOptions(text: string, fail: (reason: string) => never): ParsedOptions {
  let certAuthority = false;
  const values = new Map<string, string>();
  let at = 0;
  while (at < text.length) {
    const name = /^[A-Za-z-]+/.exec(text.slice(at))?.[0] ?? "";
    const lower = name.toLowerCase();
    at += name.length;
    if (values.has(lower) || (lower === "cert-authority" && certAuthority)) {
      fail(`The option "${lower}" is given twice`);
    }
    if (lower === "cert-authority") certAuthority = true;
    else if (lower === "namespaces" || lower === "valid-after" || lower === "valid-before") {
      const value = dequote(text, at);
      if (value === null) fail(`The option "${lower}" takes a quoted value: ${lower}="…"`);
      values.set(lower, value!.text);
      at = value!.end;
    } else fail(`Unknown option "${text.slice(at - name.length).split(",")[0]}"`);
    if (at < text.length && text[at++] !== ",") fail(`The options "${text}" are malformed`);
    if (at === text.length && text.endsWith(",")) fail(`The options "${text}" end with a comma`);
  }
  const namespaces = values.get("namespaces");
  if (namespaces === "") fail('The option "namespaces" is empty');
  const validAfter = timestamp(values.get("valid-after"), fail);
  const validBefore = timestamp(values.get("valid-before"), fail);
  return {
    certAuthority,
    localTime: localTimeRefusal("valid-after", values.get("valid-after"), validAfter) ??
      localTimeRefusal("valid-before", values.get("valid-before"), validBefore),
    fields: { namespaces, validAfter, validBefore },
  };
}

/**
 * A `valid-after`/`valid-before` time as OpenSSH's `parse_absolute_time`
 * reads it: UTC with a `Z` or `UTC` suffix (any case), else the local zone's
 * time at its offset then (exact only where that offset does not change
 * nearby: {@linkcode localTimeRefusal} refuses the others); no time at or
 * before the epoch.
 */
function timestamp(text: string | undefined, fail: (reason: string) => never): number | undefined {
  if (text === undefined) return undefined;
  const m = TIME.exec(text);
  if (m === null) {
    return fail(`"${text}" is not a time: YYYYMMDD[Z] or YYYYMMDDHHMM[SS][Z]`);
  }
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((p) => Number(p ?? "0"));
  const parts = [y!, mo! - 1, d!, h!, mi!, s!] as const;
  const wall = new Date(Date.UTC(...parts));
  const round = [
    wall.getUTCFullYear(),
    wall.getUTCMonth(),
    wall.getUTCDate(),
    wall.getUTCHours(),
    wall.getUTCMinutes(),
  ];
  if (round.some((v, i) => v !== parts[i])) fail(`"${text}" is not a valid date and time`);
  // The zone's offset at that wall time (exact where it does not change nearby).
  const at = m[7] === undefined
    ? wall.getTime() + wall.getTimezoneOffset() * 60_000
    : wall.getTime();
  if (at <= 0) fail(`"${text}" is not after 1970-01-01T00:00:00Z`);
  return at;
}

/**
 * How far from a local time glibc's `mktime` looks for an offset of the
 * daylight saving state asked for (`tm_isdst = 0`) when the time itself is
 * in the other state: half its `duration_max` plus one `stride`, in seconds.
 */
const MKTIME_REACH_SECONDS = 457_243_200 / 2 + 601_200;
/** glibc's probe stride: no period of the tz database, in or out of daylight saving time, is shorter. */
const MKTIME_STRIDE_SECONDS = 601_200;

/**
 * Why a local (not `Z`/`UTC`) time cannot be read exactly as OpenSSH reads
 * it, or `undefined` when it can. OpenSSH's `parse_absolute_time` passes
 * `tm_isdst = 0` to `mktime`: the time is read with the offset of the
 * nearest period the system's tz data marks as not daylight saving time.
 * Which periods those are is not visible here (JavaScript sees offsets, not
 * the flag, and zones such as Europe/Dublin mark winter as daylight time
 * with a negative save), so a local time is read only where the zone's
 * offset is the same at every point `mktime` could look at; elsewhere the
 * line is refused (stricter than OpenSSH, never looser).
 *
 * @param option The option's name, for the reason.
 * @param text The option's value.
 * @param at The time as read (the wall time at the zone's offset then).
 * @returns The reason to refuse the line, or `undefined`.
 */
function localTimeRefusal(
  option: string,
  text: string | undefined,
  at: number | undefined,
): string | undefined {
  if (text === undefined || at === undefined || /(?:Z|UTC)$/i.test(text)) return undefined;
  const offset = new Date(at).getTimezoneOffset();
  for (let d = MKTIME_STRIDE_SECONDS; d < MKTIME_REACH_SECONDS; d += MKTIME_STRIDE_SECONDS) {
    for (const probe of [at - d * 1000, at + d * 1000]) {
      if (new Date(probe).getTimezoneOffset() !== offset) {
        return `${option}="${text}" is a local time in a zone whose offset changes near it ` +
          "(OpenSSH's reading depends on daylight saving flags skillset cannot see): " +
          `give it in UTC, as ${option}="${text}Z" or its UTC equivalent`;
      }
    }
  }
  return undefined;
}

/** The longest pattern OpenSSH's `match_pattern_list` reads: a longer one makes the list match nothing. */
const MAX_PATTERN_BYTES = 1022;
const UTF8_ENCODER = new TextEncoder();

/** A string's UTF-8 bytes as a string of one character per byte: OpenSSH matches bytes. */
function byteString(text: string): string {
  let out = "";
  for (const b of UTF8_ENCODER.encode(text)) out += String.fromCharCode(b);
  return out;
}

/**
 * Whether a value matches an OpenSSH pattern list (ssh_config(5), PATTERNS)
 * as OpenSSH's `match_pattern_list` decides: comma-separated patterns with
 * `*` and `?` over the UTF-8 bytes (`?` is one byte), a match of a
 * `!pattern` is no match whatever else matches, and a pattern over 1,022
 * bytes makes the whole list match nothing.
 *
 * @param value The identity or namespace.
 * @param list The pattern list.
 * @returns Whether it matches.
 */
export function matchPatternList(value: string, list: string): boolean {
  const bytes = byteString(value);
  const patterns = byteString(list);
  let positive = false;
  // As OpenSSH walks it: a final comma ends the list without an empty pattern after it.
  for (let at = 0; at < patterns.length;) {
    const negated = patterns[at] === "!";
    if (negated) at++;
    let end = patterns.indexOf(",", at);
    if (end === -1) end = patterns.length;
    const pattern = patterns.slice(at, end);
    if (pattern.length > MAX_PATTERN_BYTES) return false;
    at = end < patterns.length ? end + 1 : end;
    if (matchPattern(bytes, pattern)) {
      if (negated) return false;
      positive = true;
    }
  }
  return positive;
}

/** A glob with `*` and `?`, matched without recursion (backtracking to the last `*`). */
function matchPattern(value: string, pattern: string): boolean {
  let v = 0, p = 0, star = -1, mark = 0;
  while (v < value.length) {
    if (p < pattern.length && (pattern[p] === "?" || pattern[p] === value[v])) {
      v++;
      p++;
    } else if (p < pattern.length && pattern[p] === "*") {
      star = p++;
      mark = v;
    } else if (star !== -1) {
      p = star + 1;
      v = ++mark;
    } else return false;
  }
  while (pattern[p] === "*") p++;
  return p === pattern.length;
}

/** What a verifier asks of the allowed signers. */
export interface SignerQuestion {
  /** The signature's namespace. */
  readonly namespace: string;
  /** The identity the signer must have, when one is required. */
  readonly identity?: string | undefined;
  /** The time of the check, in milliseconds since the epoch. */
  readonly now: number;
}

/**
 * The lines that allow a key: same key, the identity matching the
 * principals, the namespace matching `namespaces`, `now` within the validity.
 *
 * @param signers The allowed signers.
 * @param key The signing key.
 * @param question The namespace, identity and time.
 * @returns The allowing lines, or why none allows the key.
 */
export function signersOf(
  signers: AllowedSigners,
  key: SshPublicKey,
  question: SignerQuestion,
): { readonly allowed: readonly AllowedSigner[]; readonly refusals: readonly string[] } {
  const allowed: AllowedSigner[] = [];
  const refusals: string[] = [];
  for (const s of signers.signers) {
    if (s.key.base64 !== key.base64) continue;
    const at = `${signers.file}:${s.line}`;
    if (question.identity !== undefined && !matchPatternList(question.identity, s.principals)) {
      refusals.push(`${at} lists the key for "${s.principals}", not "${question.identity}"`);
    } else if (s.namespaces !== undefined && !matchPatternList(question.namespace, s.namespaces)) {
      refusals.push(`${at} allows the key only in namespaces "${s.namespaces}"`);
    } else if (s.validAfter !== undefined && question.now < s.validAfter) {
      refusals.push(`${at} allows the key only from ${new Date(s.validAfter).toISOString()}`);
    } else if (s.validBefore !== undefined && question.now > s.validBefore) {
      refusals.push(`${at} allowed the key only until ${new Date(s.validBefore).toISOString()}`);
    } else allowed.push(s);
  }
  return { allowed, refusals };
}
