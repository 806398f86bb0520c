/**
 * The usage log on disk: a local, opt-in file of activation events, one JSON
 * line each (`lib/core/catalog/skill_usage.ts` shapes them). Appends are one `write`
 * of one whole line to a file opened for appending, so writers in several
 * processes never mix their lines; reading streams the file in fixed chunks,
 * caps each line's length and skips (and counts) any line that is not an
 * event, so a torn line, garbage or a huge file never fails the read or
 * grows memory.
 *
 * Folder `lib/fs/usage/` — the activation usage log on disk.
 *
 * @module
 */
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from "node:fs";
import { SkillsetError } from "../../core/errors.ts";
import {
  type ActivationEvent,
  activationEvent,
  formatActivationEvent,
  parseActivationEvent,
  type SkillActivation,
  type UsageOptions,
  UsageTally,
} from "../../core/catalog/skill_usage.ts";
import { O_NOFOLLOW, READ_FLAGS } from "../_safe_open.ts";

/** The longest line a usage log holds, in bytes; longer lines are skipped, never buffered. */
export const MAX_USAGE_LINE_BYTES = 4096;

/** The codes of {@linkcode UsageLogError}. */
export type UsageLogCode =
  | "LOG_NOT_A_FILE"
  | "LOG_FOREIGN"
  | "LOG_UNREADABLE"
  | "LOG_UNWRITABLE"
  | "EVENT_TOO_LARGE";

/**
 * A usage log could not be used: it is not a regular file, or is a link
 * (`LOG_NOT_A_FILE`), it holds something other than activation events
 * (`LOG_FOREIGN`: it is never appended to),
 * the file system refused to read it (`LOG_UNREADABLE`) or to append to it
 * (`LOG_UNWRITABLE`), or an event's line is longer than
 * {@linkcode MAX_USAGE_LINE_BYTES} (`EVENT_TOO_LARGE`).
 *
 * @example
 * ```ts
 * import { UsageLogError } from "./usage_log.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * const e = new UsageLogError("LOG_NOT_A_FILE", "/tmp/usage.jsonl", "The usage log is not a regular file");
 * assert.deepEqual([e.code, e.path], ["LOG_NOT_A_FILE", "/tmp/usage.jsonl"]);
 * ```
 */
export class UsageLogError extends SkillsetError {
  /** Always `"UsageLogError"`. */
  override readonly name = "UsageLogError";
  /** Which condition failed. */
  readonly code: UsageLogCode;
  /** The log's path. */
  readonly path: string;

  /**
   * Describe a failure.
   *
   * @param code Which condition failed.
   * @param path The log's path.
   * @param message The whole message.
   */
  constructor(code: UsageLogCode, path: string, message: string) {
    super(message);
    this.code = code;
    this.path = path;
  }
}

// Read and write: the first line is read to tell a usage log from any other file. No final link.
const APPEND_FLAGS = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT |
  (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0) | O_NOFOLLOW;
const ENCODER = new TextEncoder();

/**
 * Append one event to a usage log (created, private to its owner, when
 * missing): the whole line in one `write` to a file opened with `O_APPEND`,
 * so concurrent writers' lines never interleave. Only a usage log is
 * appended to: a path that is a link, or a file whose first line is not an
 * activation event (a shell profile a hostile `skillset.json` names, say),
 * is refused and left as it was.
 *
 * @param path The log.
 * @param event The event.
 * @throws {UsageLogError} `EVENT_TOO_LARGE` for a line over {@linkcode MAX_USAGE_LINE_BYTES};
 *   `LOG_NOT_A_FILE` when the path is a folder, a pipe, a device or a link; `LOG_FOREIGN` when
 *   the file's first line is not an activation event; `LOG_UNWRITABLE` when the
 *   file system refuses the append or takes only part of the line.
 * @example
 * ```ts
 * import { appendActivationEvent, readUsageLog } from "./usage_log.ts";
 * import { activationEvent } from "../../core/catalog/skill_usage.ts";
 * import { assert } from "../../core/_assert.ts";
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 *
 * const log = join(mkdtempSync(join(tmpdir(), "usage-")), "usage.jsonl");
 * appendActivationEvent(log, activationEvent({ name: "pdf", origin: "local", trigger: "user" }, 0));
 * const names: string[] = [];
 * readUsageLog(log, (e) => names.push(e.attributes["gen_ai.skill.name"]));
 * assert.deepEqual(names, ["pdf"]);
 * ```
 */
export function appendActivationEvent(path: string, event: ActivationEvent): void {
  const bytes = ENCODER.encode(formatActivationEvent(event));
  if (bytes.length > MAX_USAGE_LINE_BYTES) {
    throw new UsageLogError(
      "EVENT_TOO_LARGE",
      path,
      `The event's line has ${bytes.length} bytes, more than the ${MAX_USAGE_LINE_BYTES} a usage log holds`,
    );
  }
  let fd: number;
  try {
    fd = openSync(path, APPEND_FLAGS, 0o600);
  } catch (e) {
    if ((e as { code?: unknown }).code === "ELOOP") {
      throw new UsageLogError(
        "LOG_NOT_A_FILE",
        path,
        "The usage log is a link; name the file itself",
      );
    }
    throw refused("LOG_UNWRITABLE", path, "appended to", e);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw new UsageLogError("LOG_NOT_A_FILE", path, "The usage log is not a regular file");
    }
    if (stat.size > 0 && !startsWithEvent(fd)) {
      throw new UsageLogError(
        "LOG_FOREIGN",
        path,
        "The file is not a usage log (its first line is not an activation event); not appended to",
      );
    }
    // One write of the whole line: O_APPEND puts it at the end as one piece.
    const written = writeSync(fd, bytes);
    if (written !== bytes.length) {
      throw new UsageLogError(
        "LOG_UNWRITABLE",
        path,
        `The usage log took ${written} of the line's ${bytes.length} bytes`,
      );
    }
  } catch (e) {
    if (e instanceof UsageLogError) throw e;
    throw refused("LOG_UNWRITABLE", path, "appended to", e);
  } finally {
    closeSync(fd);
  }
}

/** Whether a file's first line is an activation event (read at offset 0, at most one line). */
function startsWithEvent(fd: number): boolean {
  const head = new Uint8Array(MAX_USAGE_LINE_BYTES + 1);
  let n = 0;
  while (n < head.length) {
    const got = readSync(fd, head, n, head.length - n, n);
    if (got === 0) break;
    n += got;
  }
  const end = head.subarray(0, n).indexOf(0x0a);
  if (end < 0) return false;
  let line: string;
  try {
    line = new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, end));
  } catch {
    return false;
  }
  return parseActivationEvent(line) !== undefined;
}

/**
 * A skill tool hook that appends each activation to a usage log, timed by a
 * clock: `handleSkillTool(input, { skills, on_activate: usageLogSink("usage.jsonl") })`.
 *
 * @param path The log.
 * @param options `clock`: now in milliseconds since the Unix epoch (default `Date.now`).
 * @returns The hook; it throws {@linkcode UsageLogError} as {@linkcode appendActivationEvent} does
 *   (the skill tool handler ignores that and returns the activation all the same).
 * @example
 * ```ts
 * import { readUsageLog, usageLogSink } from "./usage_log.ts";
 * import { createBundle, handleSkillTool } from "../../../mod.ts";
 * import { assert } from "../../core/_assert.ts";
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 *
 * const log = join(mkdtempSync(join(tmpdir(), "usage-")), "usage.jsonl");
 * const pdf = createBundle({ frontmatter: { name: "pdf", description: "Fill PDF forms" }, instructions: "" });
 * handleSkillTool({ skill: "pdf" }, { skills: [pdf], on_activate: usageLogSink(log, { clock: () => 42 }) });
 * const times: string[] = [];
 * readUsageLog(log, (e) => times.push(e.time_unix_nano));
 * assert.deepEqual(times, ["42000000"]);
 * ```
 */
export function usageLogSink(
  path: string,
  options: { readonly clock?: () => number } = {},
): (activation: SkillActivation) => void {
  if (typeof path !== "string" || path === "") {
    throw new TypeError("usageLogSink(path) takes the usage log's path");
  }
  const clock = options.clock ?? Date.now;
  return (activation) => appendActivationEvent(path, activationEvent(activation, clock()));
}

/** What reading a usage log found. */
export interface UsageLogSummary {
  /** Whether the file exists (a log not written yet reads as empty). */
  readonly exists: boolean;
  /** The events read. */
  readonly events: number;
  /** The lines skipped: torn, garbled, too long, or not an activation event (blank lines aside). */
  readonly skipped: number;
  /** Those of them longer than the line cap. */
  readonly too_long: number;
}

const CHUNK_BYTES = 64 * 1024;
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Stream a usage log's events, in order, to a callback: the file is read in
 * 64 KiB chunks, a line over the cap is passed over without being kept, and
 * every line that is not an event is skipped and counted. A missing file
 * reads as empty.
 *
 * @param path The log.
 * @param onEvent Called with each event.
 * @param options `maxLineBytes`: the line cap (default {@linkcode MAX_USAGE_LINE_BYTES}).
 * @returns The counts of events and skipped lines.
 * @throws {UsageLogError} `LOG_NOT_A_FILE` for a folder, a pipe or a device; `LOG_UNREADABLE`
 *   when the file system refuses the read.
 * @throws Whatever `onEvent` throws, as it is (the read stops there).
 */
export function readUsageLog(
  path: string,
  onEvent: (event: ActivationEvent) => void,
  options: { readonly maxLineBytes?: number } = {},
): UsageLogSummary {
  const cap = options.maxLineBytes ?? MAX_USAGE_LINE_BYTES;
  if (!Number.isSafeInteger(cap) || cap < 1) {
    throw new RangeError(`maxLineBytes must be a whole number ≥ 1, got ${String(cap)}`);
  }
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (e) {
    if ((e as { code?: unknown }).code === "ENOENT") {
      return Object.freeze({ exists: false, events: 0, skipped: 0, too_long: 0 });
    }
    throw refused("LOG_UNREADABLE", path, "read", e);
  }
  let events = 0;
  let skipped = 0;
  let tooLong = 0;
  const line = (bytes: Uint8Array): void => {
    if (bytes.length === 0) return;
    let text: string;
    try {
      text = STRICT_UTF8.decode(bytes);
    } catch {
      skipped++;
      return;
    }
    lineText(text);
  };
  const lineText = (text: string): void => {
    if (text === "" || text.trim() === "") return;
    const event = parseActivationEvent(text);
    if (event === undefined) {
      skipped++;
      return;
    }
    events++;
    onEvent(event);
  };
  const tooLongLine = (): void => {
    skipped++;
    tooLong++;
  };
  // The lines in chunk[start, last), each ending in a newline at or before `last`.
  const wholeLines = (chunk: Uint8Array, start: number, last: number): void => {
    let text: string | undefined;
    try {
      text = STRICT_UTF8.decode(chunk.subarray(start, last));
    } catch {
      text = undefined; // Some line is not UTF-8: decode line by line, to skip only it.
    }
    let from = 0;
    for (let at = start; at <= last;) {
      const end = chunk.indexOf(10, at);
      if (text === undefined) {
        if (end - at > cap) tooLongLine();
        else line(chunk.subarray(at, end));
      } else {
        // A newline byte is a newline character: the text's lines are the bytes' lines.
        const stop = end === last ? text.length : text.indexOf("\n", from);
        if (end - at > cap) tooLongLine();
        else lineText(text.slice(from, stop));
        from = stop + 1;
      }
      at = end + 1;
    }
  };
  try {
    let regular: boolean;
    try {
      regular = fstatSync(fd).isFile();
    } catch (e) {
      throw refused("LOG_UNREADABLE", path, "read", e);
    }
    if (!regular) {
      throw new UsageLogError("LOG_NOT_A_FILE", path, "The usage log is not a regular file");
    }
    const buffer = new Uint8Array(CHUNK_BYTES);
    // The start of a line that runs past a chunk, copied (never more than the cap).
    let carry: Uint8Array = new Uint8Array(0);
    let overlong = false;
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buffer, 0, buffer.length, null);
      } catch (e) {
        throw refused("LOG_UNREADABLE", path, "read", e);
      }
      if (n === 0) break;
      const chunk = buffer.subarray(0, n);
      let start = 0;
      // The line begun in an earlier chunk: kept in `carry`, or passed over when too long.
      if (carry.length > 0 || overlong) {
        const newline = chunk.indexOf(10);
        const end = newline === -1 ? n : newline;
        if (!overlong && carry.length + end > cap) {
          overlong = true;
          carry = new Uint8Array(0);
        }
        if (newline === -1) {
          if (!overlong) carry = concat(carry, chunk);
          continue;
        }
        if (overlong) tooLongLine();
        else line(concat(carry, chunk.subarray(0, end)));
        overlong = false;
        carry = new Uint8Array(0);
        start = newline + 1;
      }
      // The whole lines of this chunk: one decode for all of them when they are all UTF-8.
      const last = chunk.lastIndexOf(10);
      if (last >= start) {
        wholeLines(chunk, start, last);
        start = last + 1;
      }
      // The start of a line that goes on in the next chunk.
      if (start < n) {
        if (n - start > cap) overlong = true;
        else carry = chunk.slice(start);
      }
    }
    // A last line without its newline: a writer died mid-line, or is writing it now.
    if (overlong) {
      tooLongLine();
    } else {
      line(carry);
    }
  } finally {
    closeSync(fd);
  }
  return Object.freeze({ exists: true, events, skipped, too_long: tooLong });
}

/**
 * A usage log's recent-weighted counts: {@linkcode readUsageLog} into a
 * {@linkcode UsageTally}, so memory is bounded by the distinct skills, not the log.
 *
 * @param path The log.
 * @param options Now, the half-life, the start of the window, the most skills, the line cap.
 * @returns The tally and what the read found.
 * @throws {UsageLogError} As {@linkcode readUsageLog}.
 * @throws {RangeError} For bad options.
 * @example
 * ```ts
 * import { appendActivationEvent, tallyUsageLog } from "./usage_log.ts";
 * import { activationEvent } from "../../core/catalog/skill_usage.ts";
 * import { assert } from "../../core/_assert.ts";
 * import { appendFileSync, mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 *
 * const log = join(mkdtempSync(join(tmpdir(), "usage-")), "usage.jsonl");
 * appendActivationEvent(log, activationEvent({ name: "pdf", origin: "local", trigger: "model" }, 1000));
 * appendFileSync(log, '{"time_unix_nano":"12\n'); // a torn line
 * const { tally, summary } = tallyUsageLog(log, { now: 1000 });
 * assert.deepEqual([...tally.rank()], [["pdf", 1]]);
 * assert.equal(summary.skipped, 1);
 * ```
 */
export function tallyUsageLog(
  path: string,
  options: UsageOptions & { readonly maxLineBytes?: number },
): { readonly tally: UsageTally; readonly summary: UsageLogSummary } {
  const tally = new UsageTally(options);
  const summary = readUsageLog(
    path,
    (event) => tally.add(event),
    options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes },
  );
  return Object.freeze({ tally, summary });
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function refused(code: UsageLogCode, path: string, verb: string, e: unknown): UsageLogError {
  const errno = (e as { code?: unknown })?.code;
  if (errno === "EISDIR") {
    return new UsageLogError("LOG_NOT_A_FILE", path, "The usage log is not a regular file");
  }
  return new UsageLogError(
    code,
    path,
    `The usage log cannot be ${verb}${typeof errno === "string" ? ` (${errno})` : ""}`,
  );
}
