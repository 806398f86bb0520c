/**
 * The laws of skill dependencies as named fast-check properties, checked
 * against the naive reference (`_dependency_reference.ts`): agreement,
 * order stability (the same closure twice, and under any permutation of a
 * catalog with unique names), a cycle always reported with a path whose ends
 * agree, a missing dependency that never activates, origins kept apart
 * unless the host allows crossing, and the catalog split agreeing with the
 * closures — with {@linkcode assertDependencyInvariants} to run them all.
 *
 * Folder `lib/testing/` — the testing kit behind `lib/testing.ts`: arbitraries, references, laws.
 *
 * @module
 */
import fc from "fast-check";
import assert from "node:assert/strict";
import type {
  DependencyAvailability,
  DependencyClosure,
  DependentSkill,
  SkillDependencyOptions,
} from "../core/catalog/skill_dependencies.ts";
import { check, type InvariantOptions, type InvariantProperty, law } from "./_invariants.ts";
import {
  referenceDependencyClosure,
  referenceDirectDependencies,
} from "./_dependency_reference.ts";

/**
 * A fast-check arbitrary (`fc.Arbitrary` of the `fast-check` peer dependency).
 *
 * @internal
 */
type Arbitrary<T> = fc.Arbitrary<T>;

/**
 * A dependency resolver under test: a catalog and options in, an object
 * that answers `closure`, `require` and `split` out (what
 * `skillDependencies` returns).
 */
export type DependencyResolverUnderTest = (
  skills: readonly DependentSkill[],
  options: SkillDependencyOptions,
) => {
  closure(name: string): DependencyClosure;
  require(name: string): readonly string[];
  split(): DependencyAvailability<DependentSkill>;
};

/** A generated catalog: skills with unique names, the skill to check, and the options. */
export interface GeneratedDependencyCatalog {
  /** The skills, local and of up to two MCP origins (`docs:…`, `web:…`). */
  readonly skills: readonly DependentSkill[];
  /** The name of the skill whose closure is checked. */
  readonly root: string;
  /** Whether dependencies may cross origins. */
  readonly crossOrigin: boolean;
}

/** The names of the properties {@linkcode dependencyProperties} returns. */
export type DependencyProperty =
  | "agrees with the reference"
  | "is order-stable"
  | "reports a cycle with a path whose ends agree"
  | "never activates a skill with a missing dependency"
  | "keeps origins apart unless allowed"
  | "splits the catalog as the closures say";

const LEAVES = ["a", "b", "c", "d", "e", "f"];

/**
 * Catalogs of skills that depend on each other: chains, diamonds, cycles
 * (self-dependencies too), `requires-any-skills` lists, names no skill has,
 * now and then a value that breaks the grammar, and skills of two MCP
 * origins (one under a folder prefix) beside local ones.
 *
 * @returns The arbitrary.
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { dependencyCatalogArbitrary } from "../testing.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const [c] = fc.sample(dependencyCatalogArbitrary(), { numRuns: 1, seed: 1 });
 * assert.ok(c!.skills.some((s) => s.name === c!.root));
 * ```
 */
export function dependencyCatalogArbitrary(): Arbitrary<GeneratedDependencyCatalog> {
  const place = fc.oneof(
    { weight: 3, arbitrary: fc.constant("") },
    { weight: 1, arbitrary: fc.constantFrom("docs:", "web:", "web:team/") },
  );
  const names = fc.uniqueArray(fc.tuple(place, fc.constantFrom(...LEAVES)), {
    minLength: 1,
    maxLength: 10,
    selector: ([p, l]) => `${p}${l}`,
  });
  // Mostly names of the pool, now and then one no skill has.
  const list = fc.tuple(
    fc.subarray(LEAVES, { maxLength: 2 }),
    fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, {
      weight: 1,
      arbitrary: fc.constantFrom(["gone"], ["lost"]),
    }),
  ).chain(([known, unknown]) =>
    fc.shuffledSubarray([...known, ...unknown], { minLength: known.length + unknown.length })
  ).map((l) => l.join(" "));
  const value = fc.oneof(
    { weight: 12, arbitrary: list },
    { weight: 1, arbitrary: fc.constantFrom("a, b", "A", "a--b", " ") },
  );
  const metadata = fc.record(
    { "requires-skills": value, "requires-any-skills": value },
    { requiredKeys: [] },
  );
  return names.chain((pairs) =>
    fc.record({
      skills: fc.tuple(...pairs.map(([p, l]) =>
        metadata.map((m): DependentSkill => ({
          name: `${p}${l}`,
          frontmatter: { metadata: m },
          ...(p === "" ? {} : { origin: p.slice(0, p.indexOf(":")) }),
        }))
      )),
      root: fc.constantFrom(...pairs.map(([p, l]) => `${p}${l}`)),
      crossOrigin: fc.boolean(),
    })
  );
}

/** The closure as plain data, for comparison. */
function plain(c: DependencyClosure): unknown {
  return JSON.parse(JSON.stringify({ ...c }));
}

/**
 * The laws of dependency resolution as named fast-check properties, each
 * usable as `fc.assert(p)`.
 *
 * @param resolver The resolver under test.
 * @returns The properties by name.
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { dependencyProperties } from "../testing.ts";
 * import { skillDependencies } from "../../mod.ts";
 *
 * const properties = dependencyProperties(skillDependencies);
 * fc.assert(properties["reports a cycle with a path whose ends agree"], { numRuns: 20 });
 * ```
 */
export function dependencyProperties(
  resolver: DependencyResolverUnderTest,
): Readonly<Record<DependencyProperty, InvariantProperty>> {
  if (typeof resolver !== "function") throw new TypeError("resolver must be a function");
  const catalogs = dependencyCatalogArbitrary();
  const options = (c: GeneratedDependencyCatalog) => ({ crossOrigin: c.crossOrigin });
  const reference = (c: GeneratedDependencyCatalog) =>
    JSON.parse(JSON.stringify(referenceDependencyClosure(c.root, c.skills, options(c))));
  return Object.freeze({
    "agrees with the reference": law(catalogs, (c) => {
      assert.deepEqual(plain(resolver(c.skills, options(c)).closure(c.root)), reference(c));
    }),
    "is order-stable": law(
      catalogs.chain((c) =>
        fc.tuple(
          fc.constant(c),
          fc.shuffledSubarray([...c.skills], {
            minLength: c.skills.length,
          }),
        )
      ),
      ([c, shuffled]) => {
        const once = plain(resolver(c.skills, options(c)).closure(c.root));
        assert.deepEqual(plain(resolver(c.skills, options(c)).closure(c.root)), once, "again");
        assert.deepEqual(
          plain(resolver(shuffled, options(c)).closure(c.root)),
          once,
          "with the catalog permuted",
        );
      },
    ),
    "reports a cycle with a path whose ends agree": law(catalogs, (c) => {
      const got = resolver(c.skills, options(c)).closure(c.root);
      const expected = reference(c);
      assert.equal(
        got.cycle !== null,
        expected.cycle !== null,
        "a cycle if and only if one is met",
      );
      if (got.cycle === null) return;
      const path = got.cycle;
      assert.ok(path.length >= 2, "at least one step");
      assert.equal(path[0], path.at(-1), "the ends agree");
      assert.equal(new Set(path.slice(0, -1)).size, path.length - 1, "no other repeat");
      for (let i = 1; i < path.length; i++) {
        const direct = referenceDirectDependencies(path[i - 1]!, c.skills, options(c));
        assert.ok(direct.includes(path[i]!), `${path[i - 1]} depends on ${path[i]}`);
      }
      assert.ok(!got.ok && got.order.length === 0, "no order and not ok");
      assert.throws(() => resolver(c.skills, options(c)).require(c.root), {
        name: "SkillDependencyError",
      });
    }),
    "never activates a skill with a missing dependency": law(catalogs, (c) => {
      const expected = reference(c);
      const deps = resolver(c.skills, options(c));
      if (expected.ok) {
        assert.deepEqual([...deps.require(c.root)], expected.order.slice(0, -1));
        return;
      }
      assert.throws(() => deps.require(c.root), (e: unknown) => {
        const { name, code } = e as { name?: unknown; code?: unknown };
        assert.equal(name, "SkillDependencyError");
        assert.equal(code, expected.cycle === null ? "MISSING_DEPENDENCY" : "DEPENDENCY_CYCLE");
        return true;
      });
    }),
    "keeps origins apart unless allowed": law(catalogs, (c) => {
      if (c.crossOrigin) return;
      const origin = (name: string) => c.skills.find((s) => s.name === name)?.origin ?? "";
      const got = resolver(c.skills, options(c)).closure(c.root);
      for (const name of [...got.order, ...(got.cycle ?? [])]) {
        assert.equal(origin(name), origin(c.root), `"${name}" is of the origin of "${c.root}"`);
      }
    }),
    "splits the catalog as the closures say": law(catalogs, (c) => {
      const { available, hidden } = resolver(c.skills, options(c)).split();
      const expected = c.skills.filter((s) =>
        referenceDependencyClosure(s.name, c.skills, options(c)).ok
      );
      assert.deepEqual(available.map((s) => s.name), expected.map((s) => s.name));
      assert.equal(available.length + hidden.length, c.skills.length, "every skill once");
      for (const h of hidden) {
        if (h.cycle !== null) assert.equal(h.cycle[0], h.cycle.at(-1), "the ends agree");
      }
    }),
  });
}

/**
 * Run every property of {@linkcode dependencyProperties} and throw one error
 * naming each that fails, with its shrunk counterexample.
 *
 * @param resolver The resolver under test.
 * @param options Runs per property, and a seed (with a path) to replay.
 * @throws {InvariantViolationError} When any property fails.
 * @example
 * ```ts
 * import { assertDependencyInvariants } from "../testing.ts";
 * import { type DependentSkill, skillDependencies } from "../../mod.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * assertDependencyInvariants(skillDependencies, { numRuns: 20 });
 * // A resolver that ignores requires-any-skills is caught:
 * const forgetful = (skills: readonly DependentSkill[]) =>
 *   skillDependencies(skills.map((s) => ({
 *     ...s,
 *     frontmatter: { metadata: { ...s.frontmatter?.metadata, "requires-any-skills": "" } },
 *   })));
 * assert.throws(() => assertDependencyInvariants(forgetful, { numRuns: 100, seed: 1 }), {
 *   name: "InvariantViolationError",
 * });
 * ```
 */
export function assertDependencyInvariants(
  resolver: DependencyResolverUnderTest,
  options: InvariantOptions = {},
): void {
  check("Dependency resolver", dependencyProperties(resolver), options);
}
