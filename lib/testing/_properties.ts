/**
 * Invariant suites another implementation can run against itself: the
 * resolver's laws (SPEC §3) and the gate's (SPEC §4), as named fast-check
 * properties and as one-call assertions that report a shrunk counterexample.
 *
 * @module
 */
import { SkillsetError } from "../core/errors.ts";
import fc from "fast-check";
import assert from "node:assert/strict";
import type { SafetyFlags } from "../core/gate.ts";
import type { ResolvedToolEntry } from "../core/resolved_tools.ts";
import type { Skill } from "../core/skill.ts";
import {
  catalogArbitrary,
  type GeneratedCatalog,
  includeChain,
  resourcePathArbitrary,
  safetyFlagsArbitrary,
} from "./_arbitraries.ts";
import { deepFreeze } from "../core/_deep_freeze.ts";
import { referenceNormalize, referenceResolve, referenceWriteLog } from "./_reference.ts";

/**
 * What a resolver under test may return: the resolved entries in order, as
 * an `OrderedMap` or `Map` from name to entry (what `resolveTools` returns),
 * an iterable of entries (`.values()`, an array, a generator) or an iterable
 * of `[name, entry]` pairs (`.entries()`).
 */
export type ResolverResult =
  | ReadonlyMap<string, ResolvedToolEntry>
  | Iterable<ResolvedToolEntry>
  | Iterable<readonly [string, ResolvedToolEntry]>;

/**
 * A resolver under test: the root skill and the other skills by name in,
 * the resolved entries in order out (see {@linkcode ResolverResult}).
 * Errors are thrown, with SPEC §3's messages and a `path` of names.
 */
export type ResolverUnderTest = (
  root: Skill,
  lookup: ReadonlyMap<string, Skill>,
) => ResolverResult;

/** The names of the properties {@linkcode resolverProperties} returns. */
export type ResolverProperty =
  | "agrees with the reference"
  | "keeps first position"
  | "takes last metadata"
  | "takes overrides from the declaring skill"
  | "forms keys by kind"
  | "reports a cycle with its path"
  | "is deterministic and leaves its input alone"
  | "has no recursion limit (100k chain)";

/** A gate operation: reading a file or listing it in a manifest. */
export type GateOperationKind = "read" | "list";

/** One question to the gate under test. */
export interface GateRequest {
  /** The path as asked for: not normalised, possibly hostile. */
  readonly path: string;
  /** The two safety switches (absent means true). */
  readonly flags: SafetyFlags;
  /** Read the file, or list it. */
  readonly operation: GateOperationKind;
  /** The normalised paths of the files the skill folder holds. */
  readonly files: ReadonlySet<string>;
  /**
   * Extra top-level folders the host maps to a standard class (often empty):
   * a mapped folder is to be treated exactly as that class, every other
   * non-standard folder stays gated.
   */
  readonly classes: ReadonlyMap<string, "references" | "assets" | "scripts">;
}

/**
 * The gate's answer: allowed (with the normalised path), refused by the
 * safety gate, an invalid path, or no such file.
 */
export type GateVerdict =
  | { readonly verdict: "allowed"; readonly path: string }
  | { readonly verdict: "refused" | "invalid" | "missing" };

/** A gate under test: a pure function from a request to a verdict. */
export type GateUnderTest = (request: GateRequest) => GateVerdict;

/** The names of the properties {@linkcode gateProperties} returns. */
export type GateProperty =
  | "is open only when both switches are false"
  | "never refuses a standard class"
  | "refuses regardless of whether the file exists"
  | "normalises idempotently"
  | "normalises as the reference"
  | "never allows a .. segment"
  | "treats a mapped folder exactly as its class";

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

/** @internal */
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

type Outcome =
  | { readonly ok: true; readonly entries: readonly ResolvedToolEntry[] }
  | { readonly ok: false; readonly error: { readonly message: string; readonly path: unknown } };

/** The TypeErrors {@linkcode entriesOf} throws: misuse, reported as is, not as a broken law. */
const shapeErrors = new WeakSet<Error>();

const EXPECTED_RESULT = "expected an OrderedMap or Map of entries, an iterable of entries " +
  "(such as a Map's values()) or an iterable of [name, entry] pairs";

/** The most entries read from one result (the 100k chain has 100,001). */
const MAX_ENTRIES = 1_000_000;

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "string") {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `the string ${JSON.stringify(shown)}`;
  }
  if (typeof value !== "object" && typeof value !== "function") {
    return `the ${typeof value} ${String(value)}`;
  }
  if (Array.isArray(value)) return `an array of ${value.length} items`;
  if (typeof value === "function") return "a function";
  const tag = Object.getPrototypeOf(value)?.constructor?.name;
  return typeof tag === "string" && tag !== "" && tag !== "Object"
    ? `an object of class ${tag}`
    : "a plain object";
}

function shapeError(message: string): TypeError {
  const error = new TypeError(message);
  shapeErrors.add(error);
  return error;
}

const isObject = (v: unknown): v is object => typeof v === "object" && v !== null;

/**
 * The entries of a resolver's result in order: the values of a map, the
 * items of an iterable of entries, the second halves of `[name, entry]`
 * pairs (whose name must be the entry's).
 *
 * @throws {TypeError} When the result is none of these, saying what it was.
 */
function entriesOf(result: unknown): ResolvedToolEntry[] {
  if (
    !isObject(result) ||
    typeof (result as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== "function"
  ) {
    throw shapeError(`Resolver returned ${describeValue(result)}; ${EXPECTED_RESULT}`);
  }
  const entries: ResolvedToolEntry[] = [];
  for (const item of result as Iterable<unknown>) {
    if (entries.length === MAX_ENTRIES) {
      assert.fail(`The resolver's result holds more than ${MAX_ENTRIES} entries`);
    }
    if (Array.isArray(item)) {
      const [name, entry] = item as unknown[];
      if (item.length !== 2 || typeof name !== "string" || !isObject(entry)) {
        throw shapeError(
          `Resolver returned an iterable holding ${describeValue(item)} at position ` +
            `${entries.length}; ${EXPECTED_RESULT}`,
        );
      }
      const named = (entry as { name?: unknown }).name;
      assert.equal(named, name, `the entry under key "${name}" is named the same`);
      entries.push(entry as ResolvedToolEntry);
    } else if (isObject(item)) {
      entries.push(item as ResolvedToolEntry);
    } else {
      throw shapeError(
        `Resolver returned an iterable holding ${describeValue(item)} at position ` +
          `${entries.length}; ${EXPECTED_RESULT}`,
      );
    }
  }
  return entries;
}

function outcome(run: () => unknown): Outcome {
  try {
    return { ok: true, entries: entriesOf(run()) };
  } catch (e) {
    if (!(e instanceof Error) || shapeErrors.has(e)) throw e;
    return { ok: false, error: { message: e.message, path: (e as { path?: unknown }).path } };
  }
}

function lookupOf(c: GeneratedCatalog): Map<string, Skill> {
  return new Map(c.skills.map((s) => [s.name, s]));
}

function resolved(resolve: ResolverUnderTest, c: GeneratedCatalog): ResolvedToolEntry[] {
  return entriesOf(resolve(c.root, lookupOf(c)));
}

/** Whether an include cycle is reachable from the root (Kahn's algorithm on the reachable part). */
function cycleReachable(c: GeneratedCatalog): boolean {
  const reach = new Set([c.root.name]);
  const todo = [c.root.name];
  while (todo.length > 0) {
    for (const next of c.edges.get(todo.pop()!) ?? []) {
      if (c.edges.has(next) && !reach.has(next)) {
        reach.add(next);
        todo.push(next);
      }
    }
  }
  const indegree = new Map([...reach].map((n) => [n, 0]));
  for (const n of reach) {
    for (const m of c.edges.get(n)!) if (reach.has(m)) indegree.set(m, indegree.get(m)! + 1);
  }
  const free = [...reach].filter((n) => indegree.get(n) === 0);
  let removed = 0;
  while (free.length > 0) {
    const n = free.pop()!;
    removed++;
    for (const m of c.edges.get(n)!) {
      if (!reach.has(m)) continue;
      indegree.set(m, indegree.get(m)! - 1);
      if (indegree.get(m) === 0) free.push(m);
    }
  }
  return removed < reach.size;
}

/**
 * The resolver's laws as named fast-check properties, each usable as
 * `fc.assert(p)`: agreement with the naive reference (entries or error),
 * first position kept, last metadata taken, overrides from the declaring
 * skill, key forms per kind, the cycle's path and message, determinism on
 * deep-frozen input, and no recursion limit on a 100,000-skill chain (built
 * and resolved once per property object; each run checks every position).
 * The resolver may return any {@linkcode ResolverResult}; any other value
 * fails each property with a `TypeError` saying what it was.
 *
 * @param resolve The resolver under test.
 * @returns The properties by name.
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { resolverProperties } from "../testing.ts";
 * import { resolveTools } from "../../mod.ts";
 *
 * const properties = resolverProperties((root, lookup) => resolveTools(root, lookup).values());
 * fc.assert(properties["keeps first position"], { numRuns: 20 });
 * ```
 */
export function resolverProperties(
  resolve: ResolverUnderTest,
): Readonly<Record<ResolverProperty, InvariantProperty>> {
  if (typeof resolve !== "function") throw new TypeError("resolve must be a function");
  const any = catalogArbitrary();
  const known = catalogArbitrary({ unknown: false });
  const dag = catalogArbitrary({ cycles: false, unknown: false, maxSkills: 12 });
  const CHAIN = 100_000;
  let chain: Outcome | undefined;
  return Object.freeze({
    "agrees with the reference": law(any, (c) => {
      assert.deepEqual(
        outcome(() => resolve(c.root, lookupOf(c))),
        outcome(() => referenceResolve(c.root, lookupOf(c))),
      );
    }),
    "keeps first position": law(known, (c) => {
      fc.pre(!cycleReachable(c));
      const keys = resolved(resolve, c).map((e) => e.name);
      const firstSeen = [...new Set(referenceWriteLog(c.root, lookupOf(c)).map((w) => w.name))];
      assert.deepEqual(keys, firstSeen);
    }),
    "takes last metadata": law(dag, (c) => {
      const log = referenceWriteLog(c.root, lookupOf(c));
      for (const entry of resolved(resolve, c)) {
        assert.deepEqual(entry, log.findLast((w) => w.name === entry.name));
      }
    }),
    "takes overrides from the declaring skill": law(dag, (c) => {
      const skills = lookupOf(c);
      for (const entry of resolved(resolve, c)) {
        const declared = skills.get(entry.source_skill)?.overrides;
        const expected = entry.kind === "tool_ref" && declared !== undefined &&
            Object.hasOwn(declared, entry.name)
          ? declared[entry.name]
          : {};
        assert.deepEqual(entry.overrides, expected, `overrides of "${entry.name}"`);
      }
    }),
    "forms keys by kind": law(dag, (c) => {
      const skills = lookupOf(c);
      for (const entry of resolved(resolve, c)) {
        const skill = skills.get(entry.source_skill);
        assert.ok(skill !== undefined, `source_skill "${entry.source_skill}" is a skill`);
        assert.equal(entry.is_inline, entry.kind === "inline", `is_inline of "${entry.name}"`);
        const forms: Record<ResolvedToolEntry["kind"], string[]> = {
          tool_ref: [...(skill.tool_refs ?? [])],
          inline: (skill.inline_tools ?? []).map((_, i) => `${skill.name}/_anon_${i}`),
          mcp: (skill.mcp_servers ?? []).flatMap((s) =>
            (s.tools ?? []).map((t) => `mcp:${s.server}/${t}`)
          ),
          agent_skill: (skill.agent_skills ?? []).map((p) => `agent_skill:${p}`),
        };
        const index = forms[entry.kind]?.lastIndexOf(entry.name) ?? -1;
        assert.ok(index >= 0, `"${entry.name}" is a key of kind ${entry.kind} of "${skill.name}"`);
        const inline = entry.kind === "inline" ? skill.inline_tools![index] : null;
        assert.deepEqual(entry.inline_tool, inline, `inline_tool of "${entry.name}"`);
      }
    }),
    "reports a cycle with its path": law(known, (c) => {
      const got = outcome(() => resolve(c.root, lookupOf(c)));
      assert.equal(!got.ok, cycleReachable(c), "throws if and only if a cycle is reachable");
      if (got.ok) return;
      const { path } = got.error as { path: string[] };
      assert.ok(Array.isArray(path) && path.every((p) => typeof p === "string"), "a path of names");
      assert.equal(got.error.message, `Cycle detected in skill includes: ${path.join(" -> ")}`);
      assert.equal(path[0], c.root.name);
      for (let i = 1; i < path.length; i++) {
        const [from, to] = [path[i - 1]!, path[i]!];
        assert.ok(c.edges.get(from)?.includes(to), `${from} -> ${to}`);
      }
      assert.ok(path.slice(0, -1).includes(path.at(-1)!), "ends in a repeat");
      assert.equal(new Set(path.slice(0, -1)).size, path.length - 1, "repeats only at the end");
    }),
    "is deterministic and leaves its input alone": law(any, (c) => {
      const before = JSON.stringify(c.skills);
      const first = outcome(() => resolve(c.root, lookupOf(c)));
      assert.equal(JSON.stringify(c.skills), before, "the input is unchanged");
      deepFreeze(c.skills);
      assert.deepEqual(outcome(() => resolve(c.root, lookupOf(c))), first, "frozen input");
      assert.deepEqual(outcome(() => resolve(c.root, lookupOf(c))), first, "third run");
    }),
    "has no recursion limit (100k chain)": law(fc.constant(CHAIN), () => {
      if (chain === undefined) {
        const { root, lookup } = includeChain(CHAIN);
        chain = outcome(() => resolve(root, lookup));
      }
      if (!chain.ok) assert.fail(`Resolving the chain threw: ${chain.error.message}`);
      const entries: readonly ResolvedToolEntry[] = chain.entries;
      assert.equal(entries.length, CHAIN + 1, "one entry per tool");
      // keys: shared, t99999, …, t0; shared last written by the root
      for (let position = 0; position <= CHAIN; position++) {
        const entry = entries[position]!;
        const i = CHAIN - position;
        const [name, source] = position === 0 ? ["shared", "chain/s0"] : [`t${i}`, `chain/s${i}`];
        if (entry.name !== name || entry.source_skill !== source) {
          assert.deepEqual(
            [entry.name, entry.source_skill],
            [name, source],
            `entry ${position} of the chain`,
          );
        }
      }
    }),
  });
}

/**
 * The gate's laws as named fast-check properties, each usable as
 * `fc.assert(p)`: open only when both switches are false, standard classes
 * never refused, a refusal that does not depend on whether the file exists,
 * normalisation idempotent and equal to SPEC §4's rules, no `..` segment
 * ever allowed, and a folder the request's `classes` maps to a standard class
 * treated exactly as that class (every law holds with any mapping).
 *
 * @param decide The gate under test.
 * @returns The properties by name.
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { type GateVerdict, gateProperties, referenceNormalize } from "../testing.ts";
 *
 * // A small correct gate: SPEC §4's rules, spelled out.
 * const properties = gateProperties(({ path, flags, files, classes }): GateVerdict => {
 *   const normal = referenceNormalize(path);
 *   if (!normal.ok) return { verdict: "invalid" };
 *   const top = normal.path.includes("/") ? normal.path.slice(0, normal.path.indexOf("/")) : "";
 *   const gated = !["", "references", "assets", "scripts"].includes(top) && !classes.has(top);
 *   if (gated && !(flags.global_safety === false && flags.skill_safety === false)) {
 *     return { verdict: "refused" };
 *   }
 *   return files.has(normal.path) ? { verdict: "allowed", path: normal.path } : { verdict: "missing" };
 * });
 * for (const p of Object.values(properties)) fc.assert(p, { numRuns: 20 });
 * ```
 */
export function gateProperties(
  decide: GateUnderTest,
): Readonly<Record<GateProperty, InvariantProperty>> {
  if (typeof decide !== "function") throw new TypeError("decide must be a function");
  const valid = resourcePathArbitrary({ hostile: false });
  const operation = fc.constantFrom<GateOperationKind>("read", "list");
  const others = fc.uniqueArray(valid, { maxLength: 4 });
  const request = (
    path: fc.Arbitrary<string>,
    exists: fc.Arbitrary<boolean>,
    mapping: MappingMode = "any",
  ) =>
    fc.tuple(path, safetyFlagsArbitrary(), operation, others, exists, classesArbitrary()).map((
      [p, flags, op, rest, there, drawn],
    ): GateRequest => {
      const normal = referenceNormalize(p);
      const files = new Set(rest);
      if (normal.ok) there ? files.add(normal.path) : files.delete(normal.path);
      const classes = normal.ok ? withMapping(drawn, normal.path, mapping) : drawn;
      return { path: p, flags, operation: op, files, classes };
    });
  const gated = valid.filter((p) => classOf(p, NO_CLASSES) === "nonstandard");
  const standard = valid.filter((p) => classOf(p, NO_CLASSES) !== "nonstandard");
  const anyPath = fc.oneof(valid, resourcePathArbitrary());
  const segments = fc.array(fc.constantFrom("a", "references", "canvas-fonts", ".", "", "x.md"), {
    maxLength: 3,
  });
  return Object.freeze({
    "is open only when both switches are false": law(
      request(gated, fc.constant(true), "unmapped"),
      (r) => {
        const open = r.flags.global_safety === false && r.flags.skill_safety === false;
        assert.deepEqual(
          decide(r),
          open ? { verdict: "allowed", path: r.path } : { verdict: "refused" },
          `global safety ${r.flags.global_safety}, skill safety ${r.flags.skill_safety}`,
        );
      },
    ),
    "never refuses a standard class": law(request(standard, fc.boolean()), (r) => {
      assert.deepEqual(
        decide(r),
        r.files.has(r.path) ? { verdict: "allowed", path: r.path } : { verdict: "missing" },
      );
    }),
    "refuses regardless of whether the file exists": law(
      request(anyPath, fc.constant(true)),
      (r) => {
        const there = decide(r).verdict;
        const normal = referenceNormalize(r.path);
        const files = new Set(r.files);
        if (normal.ok) files.delete(normal.path);
        const absent = decide({ ...r, files }).verdict;
        assert.equal(there === "refused", absent === "refused", `${there} vs ${absent}`);
        assert.equal(there === "invalid", absent === "invalid", `${there} vs ${absent}`);
      },
    ),
    "normalises idempotently": law(request(anyPath, fc.constant(true)), (r) => {
      const first = decide({ ...r, flags: OPEN });
      if (first.verdict !== "allowed") return;
      assert.deepEqual(decide({ ...r, path: first.path, flags: OPEN }), first);
    }),
    "normalises as the reference": law(request(anyPath, fc.constant(true)), (r) => {
      const normal = referenceNormalize(r.path);
      assert.deepEqual(
        decide({ ...r, flags: OPEN }),
        normal.ok ? { verdict: "allowed", path: normal.path } : { verdict: "invalid" },
      );
    }),
    "never allows a .. segment": law(
      request(
        fc.tuple(segments, fc.constantFrom("..", "./..", "../.", "..//"), segments).map((
          [before, dots, after],
        ) => [...before, dots, ...after].join("/")),
        fc.constant(true),
      ),
      (r) => {
        assert.deepEqual(decide({ ...r, flags: OPEN }), { verdict: "invalid" });
        assert.deepEqual(decide(r), { verdict: "invalid" });
      },
    ),
    "treats a mapped folder exactly as its class": law(
      request(gated, fc.boolean(), "mapped"),
      (r) => {
        assert.deepEqual(
          decide(r),
          r.files.has(r.path) ? { verdict: "allowed", path: r.path } : { verdict: "missing" },
          `${r.path} with ${JSON.stringify([...r.classes])}`,
        );
      },
    ),
  });
}

const OPEN: SafetyFlags = Object.freeze({ global_safety: false, skill_safety: false });

// ---- the class mapping of the gate laws ------------------------------------------------

type StandardClass = "references" | "assets" | "scripts";
type MappingMode = "any" | "mapped" | "unmapped";

const NO_CLASSES: ReadonlyMap<string, StandardClass> = new Map();

/** Mappings of 0–2 non-standard top-level folders (some the path arbitraries use) to a standard class. */
function classesArbitrary(): fc.Arbitrary<ReadonlyMap<string, StandardClass>> {
  return fc.uniqueArray(
    fc.tuple(
      fc.constantFrom("canvas-fonts", "References", "rules"),
      fc.constantFrom<StandardClass>("references", "assets", "scripts"),
    ),
    { selector: ([name]) => name, maxLength: 2 },
  ).map((pairs) => new Map(pairs));
}

/** The drawn mapping, with the path's top-level folder mapped (`mapped`) or not (`unmapped`). */
function withMapping(
  drawn: ReadonlyMap<string, StandardClass>,
  normal: string,
  mode: MappingMode,
): ReadonlyMap<string, StandardClass> {
  const slash = normal.indexOf("/");
  if (mode === "any" || slash < 0) return drawn;
  const top = normal.slice(0, slash);
  const out = new Map(drawn);
  if (mode === "unmapped") out.delete(top);
  else if (!out.has(top)) out.set(top, "references");
  return out;
}

function classOf(
  normalised: string,
  classes: ReadonlyMap<string, StandardClass>,
): "standard" | "nonstandard" {
  const slash = normalised.indexOf("/");
  if (slash < 0) return "standard";
  const top = normalised.slice(0, slash);
  return ["references", "assets", "scripts"].includes(top) || classes.has(top)
    ? "standard"
    : "nonstandard";
}

/** fast-check's number of runs when neither the options nor its global settings set one. */
const DEFAULT_RUNS = 100;

/**
 * Run named properties and throw one {@linkcode InvariantViolationError} naming each that fails.
 *
 * @internal
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
    if (error instanceof TypeError && shapeErrors.has(error)) throw error;
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

/**
 * Run every property of {@linkcode resolverProperties} once (the 100k
 * chain last, in one run), and throw one error naming each that fails with
 * its shrunk counterexample. Shrinking stops after as many steps as a
 * property has runs, so a failing call costs at most about twice a passing
 * one; the generated names shrink toward plain ones (`local/a`), so decoys
 * such as `__proto__` stay in a counterexample only when the failure needs
 * them. Each failure's `replay` (`{ seed, path }`) passed back as options
 * starts from its counterexample.
 *
 * @param resolve The resolver under test: it may return an `OrderedMap` or
 *   `Map`, an iterable of entries or an iterable of `[name, entry]` pairs.
 * @param options Runs per property, and a seed (with a path) to replay.
 * @throws {TypeError} When the resolver returns anything else, saying what it returned.
 * @throws {InvariantViolationError} When any property fails.
 * @example
 * ```ts
 * import { assertResolverInvariants, InvariantViolationError } from "../testing.ts";
 * import { resolveTools } from "../../mod.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * assertResolverInvariants(resolveTools, { numRuns: 10 });
 * assertResolverInvariants((root, lookup) => resolveTools(root, lookup).values(), { numRuns: 10 });
 * // A resolver that forgets includes is caught, and the failure replays:
 * const forgetful = (root: Parameters<typeof resolveTools>[0]) =>
 *   resolveTools({ ...root, includes: [] }, {});
 * let failure: InvariantViolationError | undefined;
 * try {
 *   assertResolverInvariants(forgetful, { numRuns: 10 });
 * } catch (e) {
 *   if (e instanceof InvariantViolationError) failure = e;
 * }
 * assert.ok(failure !== undefined);
 * assert.throws(() => assertResolverInvariants(forgetful, failure!.failures[0]!.replay), {
 *   name: "InvariantViolationError",
 * });
 * // A result of another shape is a TypeError saying what came back:
 * assert.throws(() => assertResolverInvariants(() => [["read_file"]] as never), {
 *   name: "TypeError",
 *   message: "Resolver returned an iterable holding an array of 1 items at position 0; " +
 *     "expected an OrderedMap or Map of entries, an iterable of entries (such as a Map's " +
 *     "values()) or an iterable of [name, entry] pairs",
 * });
 * ```
 */
export function assertResolverInvariants(
  resolve: ResolverUnderTest,
  options: InvariantOptions = {},
): void {
  const properties = resolverProperties(resolve);
  // A result of the wrong shape is misuse: say so at once, before any law runs.
  outcome(() => resolve(PROBE, new Map()));
  check("Resolver", properties, options, new Set(["has no recursion limit (100k chain)"]));
}

/** A skill every resolver resolves, to see the shape of its result. */
const PROBE: Skill = Object.freeze({
  name: "local/probe",
  tool_refs: Object.freeze(["read_file"]),
});

/**
 * Run every property of {@linkcode gateProperties} once, and throw one error
 * naming each that fails with its shrunk counterexample.
 *
 * @param decide The gate under test.
 * @param options Runs per property and a seed to replay.
 * @throws {InvariantViolationError} When any property fails.
 * @example
 * ```ts
 * import { assertGateInvariants } from "../testing.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * // A gate that lets everything through is caught:
 * assert.throws(
 *   () => assertGateInvariants(({ path }) => ({ verdict: "allowed", path }), { numRuns: 20 }),
 *   { name: "InvariantViolationError" },
 * );
 * ```
 */
export function assertGateInvariants(decide: GateUnderTest, options: InvariantOptions = {}): void {
  check("Gate", gateProperties(decide), options);
}
