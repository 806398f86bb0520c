/**
 * The usage log on the command line: `stats` (the hot and the never-used
 * skills), the rank `to-prompt --rank usage` reads from the log, and the
 * event `activate --usage-log` appends.
 *
 * Folder `lib/cli/catalog/` — the commands that show skills: resolve, activate, list, search, stats.
 *
 * @module
 */
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { escapeControls as esc } from "../../core/_text.ts";
import {
  activationEvent,
  DEFAULT_HALF_LIFE_MS,
  type SkillActivation,
} from "../../core/catalog/skill_usage.ts";
import {
  appendActivationEvent,
  tallyUsageLog,
  usageLogSink,
  type UsageLogSummary,
} from "../../fs/usage/usage_log.ts";
import { type Args, type ArgSpec, UsageError } from "../_args.ts";
import { type DiscoveryFlags, discoveryFlags, listDiscovery } from "../_discovery.ts";
import { bold, type CliIO, table, visible } from "../_io.ts";

/** The help entry of `stats` in the command table of `main.ts`. */
export const STATS_COMMAND: ArgSpec & { readonly help: string } = {
  values: ["--root", "--class", "--usage-log", "--since"],
  repeated: ["--root", "--class"],
  positional: [0, Infinity],
  usage:
    "skillset stats [folder]... [--root scope=path]... --usage-log FILE [--since 7d|DATE] [--json]",
  help:
    "Which skills are used: the hot skills of the usage log (activations weighted by recency,\n" +
    "half-life 14 days, with the plain count, by model and by user, and the last use) and the\n" +
    "skills discovered under the roots (as in list) that the log never names. --since counts only\n" +
    "activations from a span back (30m, 12h, 7d, 2w) or a date on. The log is a JSON-lines file\n" +
    "of activation events, written by activate --usage-log (trigger user), serve --usage-log\n" +
    "(trigger model) and hosts through the skill tool's on_activate hook; a line that is not an\n" +
    "event is skipped and counted on stderr. A date is UTC midnight unless it has a time.",
};

/**
 * `stats` from its parsed command line.
 *
 * @param args The parsed arguments.
 * @param io Where to write.
 * @returns The exit code.
 * @throws {UsageError} Without `--usage-log`, or for a bad flag value.
 * @throws {UsageLogError} When the log is not a regular file or cannot be read.
 */
export function runStats(args: Args, io: CliIO): number {
  const usageLog = args.flags.get("--usage-log");
  if (usageLog === undefined) throw new UsageError("stats needs --usage-log FILE");
  const since = args.flags.get("--since");
  return statsCommand(
    args.positional,
    args.repeated.get("--root") ?? [],
    discoveryFlags(args),
    { usageLog, ...(since === undefined ? {} : { since }) },
    args.json,
    io,
  );
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** The farthest a `Date` reaches either side of the epoch: 100,000,000 days. */
const MAX_DATE_MS = 8.64e15;
const UNITS: ReadonlyMap<string, number> = new Map([
  ["m", 60 * 1000],
  ["h", 60 * 60 * 1000],
  ["d", DAY_MS],
  ["w", 7 * DAY_MS],
]);

/**
 * `--since` as a time: a span back from now (`30m`, `12h`, `7d`, `2w`) or a
 * date or date-time (`2026-11-01`, `2026-11-01T09:30:00Z`).
 *
 * @param value The flag's value.
 * @param now Now, in milliseconds since the Unix epoch.
 * @returns The time, in milliseconds since the Unix epoch.
 * @throws {UsageError} For anything else.
 */
export function sinceOf(value: string, now: number): number {
  const span = /^(\d{1,9})([mhdw])$/.exec(value);
  // A span back past the first date a Date can hold (271,821 BC) is no time at all.
  const back = span === null ? NaN : now - Number(span[1]) * UNITS.get(span[2]!)!;
  if (back >= -MAX_DATE_MS) return back;
  if (/^\d{4}-\d{2}-\d{2}(?:T[0-9:.]+(?:Z|[+-]\d{2}:\d{2})?)?$/.test(value)) {
    const time = Date.parse(value);
    if (Number.isFinite(time)) return time;
  }
  throw new UsageError(
    `--since takes a span back from now (30m, 12h, 7d, 2w) or a date (2026-11-01), got "${
      esc(value)
    }"`,
  );
}

/** The usage log read into a tally, with a warning on stderr for what it skipped. */
function readLog(
  path: string,
  io: Pick<CliIO, "stderr">,
  now: number,
  since?: number,
): ReturnType<typeof tallyUsageLog> {
  const read = tallyUsageLog(path, { now, ...(since === undefined ? {} : { since }) });
  warnSkipped(path, read.summary, io);
  return read;
}

function warnSkipped(path: string, summary: UsageLogSummary, io: Pick<CliIO, "stderr">): void {
  if (!summary.exists) {
    io.stderr(`skillset: usage log ${visible(path)} does not exist yet: no activations recorded\n`);
  } else if (summary.skipped > 0) {
    const n = summary.skipped;
    io.stderr(
      `skillset: warning: usage log ${visible(path)}: skipped ${n} line${n === 1 ? "" : "s"} that ${
        n === 1 ? "is" : "are"
      } not an activation event (torn, garbled${
        summary.too_long > 0 ? `, ${summary.too_long} over the line cap` : ""
      } or another event)\n`,
    );
  }
}

/**
 * The recent-weighted rank of `to-prompt --rank usage`.
 *
 * @param path The usage log.
 * @param io Where a warning about skipped lines goes.
 * @param now Now, in milliseconds since the Unix epoch.
 * @returns Each logged skill's score.
 * @throws {UsageLogError} When the log is not a regular file or cannot be read.
 */
export function usageLogRank(
  path: string,
  io: Pick<CliIO, "stderr">,
  now: number = Date.now(),
): ReadonlyMap<string, number> {
  return readLog(path, io, now).tally.rank();
}

/**
 * Append an activation by the user to the usage log (`activate --usage-log`); a failure is a
 * warning on stderr, since the activation was printed already.
 *
 * @param path The usage log.
 * @param activation The skill, its origin and trigger.
 * @param io Where a failure is reported.
 * @param now Now, in milliseconds since the Unix epoch.
 * @returns Whether it was recorded.
 */
export function recordActivation(
  path: string,
  activation: SkillActivation,
  io: CliIO,
  now: number = Date.now(),
): boolean {
  try {
    appendActivationEvent(path, activationEvent(activation, now));
    return true;
  } catch (e) {
    io.stderr(
      `skillset: warning: the activation was not recorded in ${visible(path)}: ${
        visible(e instanceof Error ? e.message : String(e))
      }\n`,
    );
    return false;
  }
}

/**
 * Refuse a usage log that lies inside a skill folder: each append would change that skill
 * (a new file in it, so its lock entry or approval no longer matches, and a reader may
 * serve the log).
 *
 * @param path The usage log, as typed.
 * @param folders The skill folders used (their real paths, or paths that resolve to them).
 * @throws {UsageError} Naming the log and the folder.
 */
export function assertLogOutside(path: string, folders: Iterable<string>): void {
  const log = realOrResolved(path);
  for (const folder of folders) {
    const real = realOrResolved(folder);
    if (log.startsWith(real.endsWith(sep) ? real : real + sep)) {
      throw new UsageError(
        `--usage-log ${visible(path)} lies inside the skill folder ${
          visible(folder)
        }: each activation would change that skill (its lock entry or approval would no longer match); keep the log outside skill folders`,
      );
    }
  }
}

/** A path's real path, or, when it does not exist yet, its folder's real path joined to its name. */
function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    try {
      return join(realpathSync(dirname(resolve(path))), basename(path));
    } catch {
      return resolve(path);
    }
  }
}

/**
 * `serve --usage-log FILE` as the server's `onActivate`: each activation the model makes is
 * appended; the first failure is logged (the skill tool answers the model all the same).
 *
 * @param path The usage log, if given.
 * @param log Where the server logs.
 * @returns The option, or nothing without a log.
 */
export function usageLogOption(
  path: string | undefined,
  log: (line: string) => void,
): { onActivate?: (activation: SkillActivation) => void } {
  if (path === undefined) return {};
  const sink = usageLogSink(path);
  let warned = false;
  return {
    onActivate: (activation) => {
      try {
        sink(activation);
      } catch (e) {
        if (!warned) {
          log(
            `warning: activations are not recorded in ${esc(path)}: ${
              esc(String((e as Error)?.message ?? e))
            }`,
          );
        }
        warned = true;
      }
    },
  };
}

/** The options of {@linkcode statsCommand}. */
export interface StatsOptions {
  /** The usage log. */
  readonly usageLog: string;
  /** `--since`, as typed. */
  readonly since?: string;
}

/**
 * `stats`: the hot skills (recent-weighted activations, with plain counts and the last use) and
 * the discovered skills the log never names.
 *
 * @param folders The folder arguments.
 * @param rootFlags The values of `--root`.
 * @param load The class mapping and switches.
 * @param options The usage log and `--since`.
 * @param json Whether to print JSON.
 * @param io Where to write.
 * @param now Now, in milliseconds since the Unix epoch (tests pass a fixed clock).
 * @returns The exit code.
 * @throws {UsageError} For a bad `--since`.
 * @throws {UsageLogError} When the log is not a regular file or cannot be read.
 */
export function statsCommand(
  folders: readonly string[],
  rootFlags: readonly string[],
  load: DiscoveryFlags,
  options: StatsOptions,
  json: boolean,
  io: CliIO,
  now: number = Date.now(),
): number {
  const since = options.since === undefined ? undefined : sinceOf(options.since, now);
  const { roots, discovery } = listDiscovery(folders, rootFlags, load);
  // Named as typed: relative to the working folder when every root was given relative.
  const typedRelative = roots.every((r) => !isAbsolute(r.path));
  const shown = (p: string): string => typedRelative && isAbsolute(p) ? relative(".", p) || "." : p;
  const { tally, summary } = readLog(options.usageLog, io, now, since);
  const found = new Set(discovery.skills.map((s) => s.name));
  const hot = tally.usage().map((u) => ({
    name: u.name,
    score: Math.round(u.score * 1e6) / 1e6,
    count: u.count,
    by_model: u.by_model,
    by_user: u.by_user,
    last_used: new Date(u.last_used_ms).toISOString(),
    discovered: found.has(u.name),
  }));
  const used = tally.rank();
  const never = discovery.skills
    .filter((s) => !used.has(s.name))
    .map((s) => ({ name: s.name, scope: s.scope, path: s.path }));
  if (json) {
    io.stdout(
      `${
        JSON.stringify(
          {
            log: options.usageLog,
            now: new Date(now).toISOString(),
            since: since === undefined ? null : new Date(since).toISOString(),
            half_life_days: DEFAULT_HALF_LIFE_MS / DAY_MS,
            events: tally.events,
            skipped: summary.skipped,
            hot,
            never_used: never,
          },
          null,
          2,
        )
      }\n`,
    );
    return 0;
  }
  const window = since === undefined ? "" : ` since ${new Date(since).toISOString()}`;
  const lines = [
    bold(
      `Hot skills${window} (${tally.events} activation${
        tally.events === 1 ? "" : "s"
      }, weighted by recency: half-life ${DEFAULT_HALF_LIFE_MS / DAY_MS} days)`,
      io,
    ),
  ];
  if (hot.length === 0) lines.push("  none");
  else {
    lines.push(
      ...table([
        ["name", "score", "uses", "model", "user", "last used"],
        ...hot.map((h) => [
          `${visible(h.name)}${h.discovered ? "" : " (not discovered)"}`,
          h.score.toFixed(2),
          String(h.count),
          String(h.by_model),
          String(h.by_user),
          h.last_used,
        ]),
      ]).map((l) => `  ${l}`),
    );
  }
  lines.push(
    "",
    bold(
      `${
        since === undefined ? "Never used" : `Not used${window}`
      } (${never.length} of ${discovery.skills.length} discovered)`,
      io,
    ),
  );
  if (never.length === 0) lines.push("  none");
  else {
    lines.push(
      ...table([
        ["name", "scope", "path"],
        ...never.map((s) => [visible(s.name), visible(s.scope), visible(shown(s.path))]),
      ]).map((l) => `  ${l}`),
    );
  }
  io.stdout(`${lines.join("\n")}\n`);
  return 0;
}
