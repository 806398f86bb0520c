/**
 * The resolver's invariant suite (SPEC §3): its laws as named fast-check
 * properties, checked against the naive reference resolver, and the
 * one-call {@linkcode assertResolverInvariants}.
 *
 * Folder `lib/testing/` — the testing kit behind `lib/testing.ts`: arbitraries, references, laws.
 *
 * @module
 */
import fc from "fast-check";
import assert from "node:assert/strict";
import type { ResolvedToolEntry } from "../core/resolver/resolved_tools.ts";
import type { Skill } from "../core/resolver/skill.ts";
import { catalogArbitrary, type GeneratedCatalog, includeChain } from "./_arbitraries.ts";
import { deepFreeze } from "../core/_deep_freeze.ts";
import {
  check,
  type InvariantOptions,
  type InvariantProperty,
  isMisuse,
  law,
  misuse,
} from "./_invariants.ts";
import { referenceResolve, referenceWriteLog } from "./_reference.ts";

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

type Outcome =
  | { readonly ok: true; readonly entries: readonly ResolvedToolEntry[] }
  | { readonly ok: false; readonly error: { readonly message: string; readonly path: unknown } };

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

/** A TypeError for a result of the wrong shape, marked as misuse. */
function shapeError(message: string): TypeError {
  return misuse(new TypeError(message));
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
    if (!(e instanceof Error) || isMisuse(e)) throw e;
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
