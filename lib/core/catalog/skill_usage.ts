/**
 * Usage ranking: the activation events a usage log holds, shaped like
 * OpenTelemetry log events, and the recent-weighted counts made from them —
 * a `SkillRank` for the catalog's budget and the hot and never-used
 * skills of `skillset stats`. Pure: the clock is an argument, the log file is
 * `lib/fs/usage/usage_log.ts`'s.
 *
 * Folder `lib/core/catalog/` — the prompt catalog: budget, modes, usage ranking, requirements, dependencies.
 *
 * @module
 */

/** The `event_name` of an activation event. */
export const ACTIVATION_EVENT_NAME = "skillset.skill.activation";

/** Who named the skill: the model (through the skill tool) or the user or host. */
export type ActivationTrigger = "model" | "user";

/** One activation, as the skill tool handler and the CLI report it. */
export interface SkillActivation {
  /** The skill's name. */
  readonly name: string;
  /** Where it comes from: its MCP origin label, or `"local"`. */
  readonly origin: string;
  /** Who named it. */
  readonly trigger: ActivationTrigger;
}

/**
 * One line of a usage log: an OpenTelemetry log record that is an event (the
 * log data model's `time_unix_nano`, `event_name` and `attributes`, with the
 * 64-bit time written as a decimal string as OTLP/JSON writes it). The skill's
 * name is the GenAI semantic conventions' `gen_ai.skill.name`; origin and
 * trigger have no convention yet and sit under `skillset.`.
 */
export interface ActivationEvent {
  /** When, in nanoseconds since the Unix epoch, as a decimal string. */
  readonly time_unix_nano: string;
  /** Always {@linkcode ACTIVATION_EVENT_NAME}. */
  readonly event_name: typeof ACTIVATION_EVENT_NAME;
  /** What was activated, from where, by whom. */
  readonly attributes: {
    readonly "gen_ai.skill.name": string;
    readonly "skillset.skill.origin": string;
    readonly "skillset.skill.trigger": ActivationTrigger;
  };
}

/** The default half-life of an activation's weight: 14 days. */
export const DEFAULT_HALF_LIFE_MS: number = 14 * 24 * 60 * 60 * 1000;

/** The default most distinct skills a tally keeps (the rest are counted as dropped). */
export const DEFAULT_MAX_SKILLS = 100_000;

/** The longest skill name or origin an event may carry, in UTF-16 code units. */
export const MAX_EVENT_FIELD = 1024;

/** The last millisecond whose nanoseconds fit OTel's unsigned 64-bit `time_unix_nano` (in 2554). */
const MAX_TIME_MS = 18_446_744_073_709;
const MAX_TIME_NS = "18446744073709551615";
const NAME = "gen_ai.skill.name";
const ORIGIN = "skillset.skill.origin";
const TRIGGER = "skillset.skill.trigger";
/** How every line the writer makes begins: a line glued after a torn one is found by it. */
const LINE_START = '{"time_unix_nano":';

/**
 * The event for an activation at a time.
 *
 * @param activation The skill, its origin and the trigger.
 * @param timeMs When, in milliseconds since the Unix epoch (a fraction is dropped).
 * @returns The event.
 * @throws {TypeError} When a field is not a non-empty string of at most
 *   {@linkcode MAX_EVENT_FIELD} characters, or the trigger is not `model` or `user`.
 * @throws {RangeError} When the time is not a number of milliseconds from 0 to
 *   18,446,744,073,709 (the nanoseconds must fit in 64 bits).
 * @example
 * ```ts
 * import { activationEvent } from "./skill_usage.ts";
 * import { assert } from "../_assert.ts";
 *
 * const event = activationEvent({ name: "pdf", origin: "local", trigger: "model" }, 1_700_000_000_000);
 * assert.equal(event.time_unix_nano, "1700000000000000000");
 * assert.equal(event.attributes["gen_ai.skill.name"], "pdf");
 * ```
 */
export function activationEvent(activation: SkillActivation, timeMs: number): ActivationEvent {
  const { name, origin, trigger } = activation ?? {};
  if (!isField(name) || !isField(origin) || (trigger !== "model" && trigger !== "user")) {
    throw new TypeError(
      `An activation must be { name, origin, trigger: "model" | "user" } with names of 1 to ${MAX_EVENT_FIELD} characters`,
    );
  }
  if (typeof timeMs !== "number" || !(timeMs >= 0 && timeMs <= MAX_TIME_MS)) {
    throw new RangeError(
      `The time must be a number of milliseconds from 0 to ${MAX_TIME_MS}, got ${timeMs}`,
    );
  }
  return Object.freeze({
    time_unix_nano: `${BigInt(Math.floor(timeMs)) * 1_000_000n}`,
    event_name: ACTIVATION_EVENT_NAME,
    attributes: Object.freeze({ [NAME]: name, [ORIGIN]: origin, [TRIGGER]: trigger }),
  });
}

/**
 * An event as one line of a usage log: JSON with `time_unix_nano` first, ending in `\n`.
 *
 * @param event The event.
 * @returns The line.
 * @example
 * ```ts
 * import { activationEvent, formatActivationEvent, parseActivationEvent } from "./skill_usage.ts";
 * import { assert } from "../_assert.ts";
 *
 * const event = activationEvent({ name: "pdf", origin: "local", trigger: "user" }, 0);
 * const line = formatActivationEvent(event);
 * assert.ok(line.startsWith('{"time_unix_nano":"0","event_name":"skillset.skill.activation"'));
 * assert.deepEqual(parseActivationEvent(line), event);
 * ```
 */
export function formatActivationEvent(event: ActivationEvent): string {
  const a = event.attributes;
  return `${
    JSON.stringify({
      time_unix_nano: event.time_unix_nano,
      event_name: event.event_name,
      attributes: { [NAME]: a[NAME], [ORIGIN]: a[ORIGIN], [TRIGGER]: a[TRIGGER] },
    })
  }\n`;
}

/**
 * A line of a usage log as an event, or `undefined` for anything else: a
 * torn or garbled line, another event, a field of the wrong type. A line
 * where an event was glued after a torn one (a writer died mid-line, the
 * next one appended after it) gives that event.
 *
 * @param line One line, with or without its `\n`.
 * @returns The event, or `undefined`.
 * @example
 * ```ts
 * import { parseActivationEvent } from "./skill_usage.ts";
 * import { assert } from "../_assert.ts";
 *
 * const good = '{"time_unix_nano":"5000000","event_name":"skillset.skill.activation",' +
 *   '"attributes":{"gen_ai.skill.name":"pdf","skillset.skill.origin":"local","skillset.skill.trigger":"model"}}';
 * assert.equal(parseActivationEvent(good)?.attributes["gen_ai.skill.name"], "pdf");
 * assert.equal(parseActivationEvent('{"time_unix_nano":"5'), undefined);
 * assert.equal(parseActivationEvent('{"time_unix_nano":"5' + good)?.time_unix_nano, "5000000");
 * ```
 */
export function parseActivationEvent(line: string): ActivationEvent | undefined {
  if (typeof line !== "string") return undefined;
  const found = parseLine(line);
  if (found !== undefined) return found;
  // A torn line with a whole one glued after it: the last start is the whole one.
  const start = line.lastIndexOf(LINE_START);
  return start > 0 ? parseLine(line.slice(start)) : undefined;
}

/** A JSON string: no raw control character, escapes kept for JSON.parse. */
const JSON_STRING = String.raw`"(?:[^"\\\x00-\x1f]|\\.)*"`;
/** The line as the writer writes it: read without building a JSON object (the common case). */
const CANONICAL = new RegExp(
  String
    .raw`^\{"time_unix_nano":"(0|[1-9][0-9]{0,19})","event_name":"skillset\.skill\.activation",` +
    String
      .raw`"attributes":\{"gen_ai\.skill\.name":(${JSON_STRING}),"skillset\.skill\.origin":(${JSON_STRING}),` +
    String.raw`"skillset\.skill\.trigger":"(model|user)"\}\}\n?$`,
);

/** A quoted JSON string's value, or `undefined` for a bad escape. */
function jsonString(quoted: string): unknown {
  if (!quoted.includes("\\")) return quoted.slice(1, -1);
  try {
    return JSON.parse(quoted);
  } catch {
    return undefined;
  }
}

function parseLine(line: string): ActivationEvent | undefined {
  const canonical = CANONICAL.exec(line);
  if (canonical !== null) {
    const [, nanos, quotedName, quotedOrigin, trigger] = canonical;
    return event(nanos!, jsonString(quotedName!), jsonString(quotedOrigin!), trigger);
  }
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) return undefined;
  const { time_unix_nano: time, event_name: eventName, attributes } = data as Record<
    string,
    unknown
  >;
  if (eventName !== ACTIVATION_EVENT_NAME) return undefined;
  let nanos: string;
  if (typeof time === "string" && /^(?:0|[1-9][0-9]{0,19})$/.test(time)) nanos = time;
  else if (typeof time === "number" && Number.isSafeInteger(time) && time >= 0) nanos = `${time}`;
  else return undefined;
  if (typeof attributes !== "object" || attributes === null) return undefined;
  const own = (key: string): unknown =>
    Object.hasOwn(attributes, key) ? (attributes as Record<string, unknown>)[key] : undefined;
  return event(nanos, own(NAME), own(ORIGIN), own(TRIGGER));
}

/** The event, when its fields are valid (the time a decimal string of at most 20 digits). */
function event(
  nanos: string,
  name: unknown,
  origin: unknown,
  trigger: unknown,
): ActivationEvent | undefined {
  if (!isField(name) || !isField(origin) || (trigger !== "model" && trigger !== "user")) {
    return undefined;
  }
  // Unsigned 64 bits: a 20-digit time is compared as text (same length, so same order).
  if (nanos.length === 20 && nanos > MAX_TIME_NS) return undefined;
  return Object.freeze({
    time_unix_nano: nanos,
    event_name: ACTIVATION_EVENT_NAME,
    attributes: Object.freeze({ [NAME]: name, [ORIGIN]: origin, [TRIGGER]: trigger }),
  });
}

function isField(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= MAX_EVENT_FIELD;
}

/**
 * An event's time in milliseconds since the Unix epoch.
 *
 * @param event The event.
 * @returns The time, in whole milliseconds.
 * @example
 * ```ts
 * import { activationEvent, eventTimeMs } from "./skill_usage.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(eventTimeMs(activationEvent({ name: "a", origin: "local", trigger: "user" }, 1234)), 1234);
 * ```
 */
export function eventTimeMs(event: ActivationEvent): number {
  // Whole milliseconds: the nanoseconds without their last six digits.
  const nanos = event.time_unix_nano;
  return nanos.length <= 6 ? 0 : Number(nanos.slice(0, -6));
}

/** Options of {@linkcode UsageTally} and {@linkcode usageRank}. */
export interface UsageOptions {
  /** Now, in milliseconds since the Unix epoch: the clock is the caller's. */
  readonly now: number;
  /**
   * After this many milliseconds an activation weighs half as much
   * (default {@linkcode DEFAULT_HALF_LIFE_MS}, 14 days); `Infinity` counts every one as 1.
   */
  readonly halfLifeMs?: number;
  /** Events before this time (milliseconds since the epoch) are not counted. */
  readonly since?: number;
  /** The most distinct skills kept; default {@linkcode DEFAULT_MAX_SKILLS}. */
  readonly maxSkills?: number;
}

/** One skill's usage: its recent-weighted count and its plain counts. */
export interface SkillUsage {
  /** The skill's name. */
  readonly name: string;
  /** Σ 2^(−age / half-life) over its activations (an activation from the future weighs 1). */
  readonly score: number;
  /** Its activations. */
  readonly count: number;
  /** Those the model made. */
  readonly by_model: number;
  /** Those the user or host made. */
  readonly by_user: number;
  /** Its last activation, in milliseconds since the Unix epoch. */
  readonly last_used_ms: number;
}

interface Entry {
  score: number;
  count: number;
  model: number;
  user: number;
  last: number;
  readonly first: number;
}

/**
 * Recent-weighted counts of activations, added one event at a time (so a log
 * of any length is read in memory bounded by its distinct skills, at most
 * `maxSkills` of them). Each activation weighs 2^(−age / half-life) at `now`:
 * 1 now, ½ one half-life ago. Scores add: the tally of two logs is the sum of
 * their tallies.
 *
 * | operation   | cost                   |
 * | ----------- | ---------------------- |
 * | `add`       | O(1)                   |
 * | `rank`      | O(skills)              |
 * | `usage`     | O(skills · log skills) |
 *
 * @example
 * ```ts
 * import { activationEvent, UsageTally } from "./skill_usage.ts";
 * import { assert } from "../_assert.ts";
 *
 * const day = 86_400_000;
 * const tally = new UsageTally({ now: 28 * day, halfLifeMs: 14 * day });
 * tally.add(activationEvent({ name: "pdf", origin: "local", trigger: "model" }, 28 * day));
 * tally.add(activationEvent({ name: "csv", origin: "local", trigger: "user" }, 0));
 * assert.deepEqual([...tally.rank()], [["pdf", 1], ["csv", 0.25]]);
 * ```
 */
export class UsageTally {
  readonly #now: number;
  readonly #halfLife: number;
  readonly #since: number;
  readonly #max: number;
  readonly #skills = new Map<string, Entry>();
  #events = 0;
  #dropped = 0;

  /**
   * Start an empty tally.
   *
   * @param options Now, the half-life, the start of the window and the most skills.
   * @throws {RangeError} When `now` or `since` is not a finite number, the half-life is
   *   not more than 0, or `maxSkills` is not a whole number ≥ 1.
   */
  constructor(options: UsageOptions) {
    const { now, halfLifeMs = DEFAULT_HALF_LIFE_MS, since = -Infinity } = options ?? {};
    const max = options?.maxSkills ?? DEFAULT_MAX_SKILLS;
    if (typeof now !== "number" || !Number.isFinite(now)) {
      throw new RangeError(`now must be a finite number of milliseconds, got ${String(now)}`);
    }
    if (typeof halfLifeMs !== "number" || !(halfLifeMs > 0)) {
      throw new RangeError(`halfLifeMs must be more than 0, got ${String(halfLifeMs)}`);
    }
    if (typeof since !== "number" || Number.isNaN(since) || since === Infinity) {
      throw new RangeError(`since must be a number of milliseconds, got ${String(since)}`);
    }
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new RangeError(`maxSkills must be a whole number ≥ 1, got ${String(max)}`);
    }
    this.#now = now;
    this.#halfLife = halfLifeMs;
    this.#since = since;
    this.#max = max;
  }

  /**
   * Count one activation (nothing when it is before `since`).
   *
   * @param event The event.
   * @returns Whether it was counted (not before `since`, not a skill past `maxSkills`).
   * @throws {TypeError} When it is not an activation event.
   */
  add(event: ActivationEvent): boolean {
    const time = typeof event?.time_unix_nano === "string" ? eventTimeMs(event) : NaN;
    const name = event?.attributes?.[NAME];
    if (!Number.isFinite(time) || typeof name !== "string") {
      throw new TypeError(
        "add(event) takes an activation event (from activationEvent or parseActivationEvent)",
      );
    }
    if (time < this.#since) return false;
    let entry = this.#skills.get(name);
    if (entry === undefined) {
      if (this.#skills.size >= this.#max) {
        this.#dropped++;
        return false;
      }
      entry = { score: 0, count: 0, model: 0, user: 0, last: time, first: this.#skills.size };
      this.#skills.set(name, entry);
    }
    const age = Math.max(0, this.#now - time);
    entry.score += this.#halfLife === Infinity ? 1 : 2 ** (-age / this.#halfLife);
    entry.count++;
    if (event.attributes[TRIGGER] === "model") entry.model++;
    else entry.user++;
    if (time > entry.last) entry.last = time;
    this.#events++;
    return true;
  }

  /** The activations counted. */
  get events(): number {
    return this.#events;
  }

  /** The activations not counted because their skill came past `maxSkills`. */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Each counted skill's score, for the catalog's `rank` (a skill not in it ranks 0).
   *
   * @returns The scores by name, in the order skills were first seen.
   */
  rank(): ReadonlyMap<string, number> {
    const out = new Map<string, number>();
    for (const [name, entry] of this.#skills) out.set(name, entry.score);
    return out;
  }

  /**
   * Each counted skill's usage, the highest score first (ties: the first seen first).
   *
   * @returns The usage of every counted skill.
   */
  usage(): readonly SkillUsage[] {
    return Object.freeze(
      [...this.#skills]
        .sort(([, a], [, b]) => b.score - a.score || a.first - b.first)
        .map(([name, e]) =>
          Object.freeze({
            name,
            score: e.score,
            count: e.count,
            by_model: e.model,
            by_user: e.user,
            last_used_ms: e.last,
          })
        ),
    );
  }
}

/**
 * The recent-weighted usage of each skill as a catalog rank:
 * `fitSkillCatalog(skills, { budget, rank: usageRank(events, { now }) })`
 * keeps the most used skills' descriptions and places first; skills never
 * used rank 0 and keep the given order.
 *
 * @param events The activations (e.g. read from a usage log).
 * @param options Now, the half-life, the start of the window.
 * @returns Each used skill's score: a `SkillRank` for `fitSkillCatalog`.
 * @throws {RangeError} For bad options (see {@linkcode UsageTally}).
 * @example
 * ```ts
 * import { activationEvent, usageRank } from "./skill_usage.ts";
 * import { fitSkillCatalog } from "./skill_catalog.ts";
 * import { assert } from "../_assert.ts";
 *
 * const now = Date.UTC(2026, 0, 15);
 * const used = (name: string, daysAgo: number) =>
 *   activationEvent({ name, origin: "local", trigger: "model" }, now - daysAgo * 86_400_000);
 * const rank = usageRank([used("csv", 1), used("csv", 2), used("pdf", 30)], { now });
 * const skills = [
 *   { name: "pdf", description: "Fill in PDF forms" },
 *   { name: "csv", description: "Clean and join CSV files" },
 *   { name: "git", description: "Write commit messages" },
 * ];
 * const fit = fitSkillCatalog(skills, { budget: 280, rank });
 * assert.deepEqual(fit.listed.map((s) => s.name), ["csv"]);
 * assert.ok(rank.get("pdf")! > 0); // used long ago: ranks before "git"
 * ```
 */
export function usageRank(
  events: Iterable<ActivationEvent>,
  options: UsageOptions,
): ReadonlyMap<string, number> {
  const tally = new UsageTally(options);
  for (const event of events) tally.add(event);
  return tally.rank();
}
