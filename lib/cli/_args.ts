/**
 * Flag values shared by every command of the command line: the usage error,
 * the argument parser and the value kinds (switches, the safety switches,
 * whole numbers, class mappings).
 * Values are quoted with their control characters escaped, since they are
 * printed to a terminal.
 *
 * Folder `lib/cli/` — the command line behind `lib/cli.ts`: the command table, flags, output, config.
 *
 * @module
 */
import { SkillsetError } from "../core/errors.ts";
import { escapeControls as esc } from "../core/_text.ts";
import { type ResourceClassMap, resourceClassMap } from "../core/resources/resource_path.ts";
import { didYouMean } from "./_suggest.ts";

/** Bad usage: exit code 2. */
export class UsageError extends SkillsetError {
  /** Always `"UsageError"`. */
  override readonly name = "UsageError";
  /** Always `"USAGE"`. */
  readonly code = "USAGE" as const;
}

/**
 * A `true|false` flag; absent means true (both safety switches default to on).
 *
 * @param flags The flags given, by name.
 * @param name The flag, e.g. `--global-safety`.
 * @returns Its value.
 * @throws {UsageError} When the value is neither `true` nor `false`.
 */
export function bool(flags: ReadonlyMap<string, string>, name: string): boolean {
  const value = flags.get(name);
  if (value === undefined || value === "true") return true;
  if (value === "false") return false;
  throw new UsageError(`${name} takes true or false, got "${esc(value)}"`);
}

/**
 * The two safety switches, `--global-safety` and `--skill-safety` (each on unless `false`).
 *
 * @param flags The flags given, by name.
 * @returns The switches, as the gate takes them.
 * @throws {UsageError} When a value is neither `true` nor `false`.
 */
export function safetyFlags(
  flags: ReadonlyMap<string, string>,
): { global_safety: boolean; skill_safety: boolean } {
  return {
    global_safety: bool(flags, "--global-safety"),
    skill_safety: bool(flags, "--skill-safety"),
  };
}

/**
 * A whole-number flag.
 *
 * @param flags The flags given, by name.
 * @param name The flag, e.g. `--limit`.
 * @param min The least value allowed.
 * @returns Its value, or `undefined` when absent.
 * @throws {UsageError} When the value is not a safe whole number of at least `min`.
 */
export function count(
  flags: ReadonlyMap<string, string>,
  name: string,
  min: number,
): number | undefined {
  const value = flags.get(name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
    throw new UsageError(`${name} takes a whole number of at least ${min}, got "${esc(value)}"`);
  }
  return Number(value);
}

/**
 * `--tools a,b,c` as names (commas and spaces separate; empty names dropped).
 *
 * @param value The flag's value, if given.
 * @returns The names, or `undefined` when the flag is absent.
 */
export function toolList(value: string | undefined): readonly string[] | undefined {
  return value === undefined ? undefined : value.split(/[\s,]+/).filter((t) => t !== "");
}

/** What a command accepts. */
export interface ArgSpec {
  /** Flags that take a value. */
  readonly values: readonly string[];
  /** Flags among `values` that may be given more than once. */
  readonly repeated?: readonly string[];
  /** Flags that take no value. */
  readonly switches?: readonly string[];
  /** Positional arguments: [required, maximum]. */
  readonly positional: readonly [number, number];
  readonly usage: string;
}

/** A parsed command line. */
export interface Args {
  readonly positional: readonly string[];
  /** The last value of each flag. */
  readonly flags: ReadonlyMap<string, string>;
  /** Every value of a repeated flag, in order. */
  readonly repeated: ReadonlyMap<string, readonly string[]>;
  readonly switches: ReadonlySet<string>;
  readonly json: boolean;
  readonly help: boolean;
  /** `--quiet` (errors only), `--verbose` (every finding, information too), or neither. */
  readonly verbosity: Verbosity;
}

/** How much of what a command noticed it prints. */
export type Verbosity = "quiet" | "normal" | "verbose";

/**
 * Parse a command's arguments: `--flag value` or `--flag=value`, switches,
 * `--json`, `--help`/`-h`, and `--` before positional arguments that start with `-`.
 *
 * @param command The command's name, for messages.
 * @param spec What it accepts.
 * @param argv The arguments after the command's name.
 * @returns The parsed arguments.
 * @throws {UsageError} For an unknown option, a missing value or a wrong number of arguments.
 */
export function parseArgs(command: string, spec: ArgSpec, argv: readonly string[]): Args {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  const repeated = new Map<string, string[]>();
  const switches = new Set<string>();
  let json = false, help = false, rest = false;
  let verbosity: Verbosity = "normal";
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (rest || !arg.startsWith("-") || arg === "-") positional.push(arg);
    else if (arg === "--") rest = true;
    else if (arg === "--json") json = true;
    else if (arg === "--help" || arg === "-h") help = true;
    else if (arg === "--quiet" || arg === "-q") verbosity = "quiet";
    else if (arg === "--verbose") verbosity = "verbose";
    else if (spec.switches?.includes(arg) === true) switches.add(arg);
    else {
      const eq = arg.indexOf("=");
      const name = eq < 0 ? arg : arg.slice(0, eq);
      if (!spec.values.includes(name)) {
        const known = [...spec.values, ...(spec.switches ?? []), "--json", "--help", "--quiet"];
        throw new UsageError(
          `${command}: unknown option "${esc(name)}"${
            didYouMean(name, [...known, "--verbose"])
          }\nusage: ${spec.usage}`,
        );
      }
      const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined) {
        throw new UsageError(`${command}: ${name} needs a value\nusage: ${spec.usage}`);
      }
      flags.set(name, value);
      if (spec.repeated?.includes(name) === true) {
        repeated.set(name, [...(repeated.get(name) ?? []), value]);
      }
    }
  }
  const [min, max] = spec.positional;
  if (!help && (positional.length < min || positional.length > max)) {
    throw new UsageError(
      `${command}: expected ${min === max ? min : `${min} or more`} argument${
        max === 1 ? "" : "s"
      }, got ${positional.length}\nusage: ${spec.usage}`,
    );
  }
  return { positional, flags, repeated, switches, json, help, verbosity };
}

/**
 * The `--class NAME=references|assets|scripts` flags: extra top-level folders
 * mapped to a standard class, for every skill.
 *
 * @param values Every value of `--class`, in order.
 * @returns The mapping (empty when none is given).
 * @throws {UsageError} When a value is not `NAME=CLASS`, or names a standard
 *   folder, a folder that is not one plain name, or another class.
 */
export function classFlags(values: readonly string[]): ResourceClassMap {
  const pairs: [string, string][] = [];
  for (const value of values) {
    const eq = value.indexOf("=");
    if (eq <= 0) {
      throw new UsageError(`--class takes NAME=references|assets|scripts, got "${esc(value)}"`);
    }
    pairs.push([value.slice(0, eq), value.slice(eq + 1)]);
  }
  try {
    return resourceClassMap(pairs);
  } catch (e) {
    if (e instanceof RangeError) throw new UsageError(`--class: ${esc(e.message)}`);
    throw e;
  }
}
