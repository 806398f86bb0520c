/**
 * The runner the invariant suites share: a property as a named law, the
 * options and failures of a run, {@linkcode InvariantViolationError}, and
 * {@linkcode check}, which runs named laws with a bounded shrink and throws
 * one error naming each that fails.
 *
 * Folder `lib/testing/` — the testing kit behind `lib/testing.ts`: arbitraries, references, laws.
 *
 * @module
 */
import { SkillsetError } from "../core/errors.ts";
import fc from "fast-check";

/**
 * One named law: a fast-check property over one generated value (a catalog,
 * a request, …), to run with `fc.assert(p)` or `fc.check(p)`.
 */
export type InvariantProperty = Property;

/**
 * A fast-check property (`fc.IProperty` of the `fast-check` peer dependency).
 *
 * @internal
 */
type Property = fc.IProperty<[unknown]>;

/**
 * The shrinking budget of the {@linkcode check} in progress: once a property
 * has failed, it runs at most `left` more times (each further candidate
 * counts as passing), so a failing property runs about twice as often as a
 * passing one at most. Null outside `check`: `fc.assert` on a property
 * shrinks as usual.
 */
let budget: { calls: number; failed: boolean; left: number; readonly runs: number } | null = null;

/**
 * A named law's property: `check` run on each generated value, within the
 * shrinking budget of the {@linkcode check} in progress.
 *
 * @internal
 * @param arbitrary The values to check.
 * @param check Throws when the law does not hold for a value.
 * @returns The property.
 */
export function law<T>(arbitrary: fc.Arbitrary<T>, check: (value: T) => void): InvariantProperty {
  return fc.property(arbitrary as fc.Arbitrary<unknown>, (value) => {
    if (budget !== null) {
      if (budget.failed && budget.left-- <= 0) return;
      budget.calls++;
    }
    try {
      check(value as T);
    } catch (e) {
      if (budget !== null && !budget.failed) {
        // What a passing property would have run, twice, less what the search took.
        budget.failed = true;
        budget.left = Math.max(budget.runs, 2 * budget.runs - budget.calls);
      }
      throw e;
    }
  });
}

/** Options of {@linkcode assertResolverInvariants} and {@linkcode assertGateInvariants}. */
export interface InvariantOptions {
  /** Runs per property (default: fast-check's global setting, 100 unless configured). */
  readonly numRuns?: number;
  /** A seed, to replay a failure (or to vary the runs). */
  readonly seed?: number;
  /**
   * With `seed`, a failure's replay path (`InvariantFailure.replay.path`):
   * the property starts from that counterexample instead of searching
   * (each property whose values the path reaches, or only `property`).
   */
  readonly path?: string;
  /** Check only the property of this name (as `InvariantFailure.property` and `replay` give it). */
  readonly property?: string;
}

/** One property that did not hold. */
export interface InvariantFailure {
  /** The property's name. */
  readonly property: string;
  /** The shrunk counterexample (the property's arguments). */
  readonly counterexample: unknown;
  /** What the property's check said about it. */
  readonly reason: string;
  /**
   * What replays it: pass it back as the options, or `seed` and `path` to
   * fast-check (`fc.assert(property, { seed, path })`).
   */
  readonly replay: { readonly seed: number; readonly path: string; readonly property: string };
}

/** Thrown by {@linkcode assertResolverInvariants} and {@linkcode assertGateInvariants}. */
export class InvariantViolationError extends SkillsetError {
  /** Always `"InvariantViolationError"`. */
  override readonly name = "InvariantViolationError";
  /** Always `"INVARIANT_VIOLATED"`. */
  readonly code = "INVARIANT_VIOLATED" as const;
  /** Every property that failed, each with its shrunk counterexample. */
  readonly failures: readonly InvariantFailure[];

  /**
   * Report the failed properties.
   *
   * @param subject What was checked, e.g. `Resolver`.
   * @param total How many properties were checked.
   * @param failures The failed properties (at least one).
   */
  constructor(subject: string, total: number, failures: readonly InvariantFailure[]) {
    super(
      `${subject} invariants failed: ${failures.length} of ${total}\n` +
        failures.map((f) =>
          `- "${f.property}" on ${fc.stringify(f.counterexample)} ` +
          `(replay: { seed: ${f.replay.seed}, path: "${f.replay.path}" }):\n  ` +
          f.reason.trim().split("\n").filter((l) => l.trim() !== "").join("\n  ")
        ).join("\n"),
    );
    this.failures = Object.freeze([...failures]);
  }
}

/**
 * The TypeErrors a suite throws for misuse (a result of the wrong shape):
 * reported as they are, not as a broken law.
 */
const misuses = new WeakSet<Error>();

/**
 * Mark an error as misuse of a suite, so {@linkcode check} rethrows it as it
 * is instead of reporting a broken law.
 *
 * @internal
 * @param error The error to mark.
 * @returns The same error.
 */
export function misuse(error: TypeError): TypeError {
  misuses.add(error);
  return error;
}

/**
 * Whether an error was marked with {@linkcode misuse}.
 *
 * @internal
 * @param error Any error.
 * @returns `true` for a misuse error.
 */
export function isMisuse(error: Error): boolean {
  return misuses.has(error);
}

/** fast-check's number of runs when neither the options nor its global settings set one. */
const DEFAULT_RUNS = 100;

/**
 * Run named properties and throw one {@linkcode InvariantViolationError} naming each that fails.
 *
 * @internal
 * @param subject What was checked, e.g. `Resolver`, for the message.
 * @param properties The properties by name.
 * @param options Runs per property, a seed and path to replay, or one property to run.
 * @param once The properties that run once whatever `numRuns` says (a costly fixture).
 * @throws {RangeError} When `options.property` names no property.
 * @throws {TypeError} A misuse error ({@linkcode misuse}) a property threw, as it is.
 * @throws {InvariantViolationError} When any property fails.
 */
export function check(
  subject: string,
  properties: Readonly<Record<string, InvariantProperty>>,
  options: InvariantOptions,
  once: ReadonlySet<string> = new Set(),
): void {
  const failures: InvariantFailure[] = [];
  const globalRuns = fc.readConfigureGlobal().numRuns;
  const chosen = options.property;
  if (chosen !== undefined && !Object.hasOwn(properties, chosen)) {
    throw new RangeError(`Unknown property "${chosen}"`);
  }
  for (const [property, p] of Object.entries(properties)) {
    if (chosen !== undefined && property !== chosen) continue;
    const numRuns = once.has(property) ? 1 : options.numRuns ?? globalRuns ?? DEFAULT_RUNS;
    budget = { calls: 0, failed: false, left: numRuns, runs: numRuns };
    let details: fc.RunDetails<[unknown]>;
    try {
      details = fc.check(p, {
        numRuns,
        ...(options.seed !== undefined ? { seed: options.seed } : {}),
        ...(options.path !== undefined ? { path: options.path } : {}),
      });
    } catch (e) {
      // A path from another property's values, which this one's do not reach: nothing to replay.
      if (
        options.path !== undefined && chosen === undefined && /Unable to replay/.test(String(e))
      ) {
        continue;
      }
      throw e;
    } finally {
      budget = null;
    }
    if (!details.failed) continue;
    const error = details.errorInstance;
    if (error instanceof TypeError && misuses.has(error)) throw error;
    failures.push({
      property,
      counterexample: details.counterexample?.[0],
      reason: error instanceof Error ? error.message : String(error),
      replay: { seed: details.seed, path: details.counterexamplePath ?? "", property },
    });
  }
  if (failures.length > 0) {
    throw new InvariantViolationError(subject, Object.keys(properties).length, failures);
  }
}
