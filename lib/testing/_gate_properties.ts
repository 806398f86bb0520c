/**
 * The gate's invariant suite (SPEC §4): its laws as named fast-check
 * properties, with hostile paths and host class mappings, and the one-call
 * {@linkcode assertGateInvariants}.
 *
 * Folder `lib/testing/` — the testing kit behind `lib/testing.ts`: arbitraries, references, laws.
 *
 * @module
 */
import fc from "fast-check";
import assert from "node:assert/strict";
import type { SafetyFlags } from "../core/resources/gate.ts";
import { resourcePathArbitrary, safetyFlagsArbitrary } from "./_arbitraries.ts";
import { check, type InvariantOptions, type InvariantProperty, law } from "./_invariants.ts";
import { referenceNormalize } from "./_reference.ts";

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
