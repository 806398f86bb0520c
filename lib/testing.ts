/**
 * **skillset/testing** — property suites that guard any resolver or gate:
 * fast-check arbitraries (catalogs, hostile resource paths, bundles, safety
 * flags), the naive reference resolver, and the invariants of SPEC §3 and §4
 * as named properties or one-call assertions; the same for a tool policy
 * (`toolPolicyProperties`, `assertToolPolicyInvariants`). Needs `fast-check` (a peer
 * dependency of this entry only; `mod.ts` never imports it).
 *
 * ```ts
 * import { assertResolverInvariants } from "./testing.ts";
 * import { resolveTools } from "../mod.ts";
 *
 * // Throws InvariantViolationError with a shrunk counterexample when a law breaks.
 * assertResolverInvariants((root, lookup) => resolveTools(root, lookup).values(), { numRuns: 20 });
 * ```
 *
 * @module
 */
export {
  bundleInputArbitrary,
  catalogArbitrary,
  includeChain,
  resourcePathArbitrary,
  safetyFlagsArbitrary,
} from "./testing/_arbitraries.ts";
export type { CatalogOptions, GeneratedBundle, GeneratedCatalog } from "./testing/_arbitraries.ts";
export { referenceNormalize, referenceResolve, referenceWriteLog } from "./testing/_reference.ts";
export type { ReferenceLookup } from "./testing/_reference.ts";
export {
  assertGateInvariants,
  assertResolverInvariants,
  gateProperties,
  InvariantViolationError,
  resolverProperties,
} from "./testing/_properties.ts";
export type {
  GateOperationKind,
  GateProperty,
  GateRequest,
  GateUnderTest,
  GateVerdict,
  InvariantFailure,
  InvariantOptions,
  InvariantProperty,
  ResolverProperty,
  ResolverUnderTest,
} from "./testing/_properties.ts";
export {
  assertToolPolicyInvariants,
  referenceCovers,
  referenceToolVerdict,
  toolPolicyProperties,
  toolQuestionArbitrary,
} from "./testing/_tool_policy.ts";
export type {
  GeneratedEntry,
  GeneratedPolicySkill,
  GeneratedToolQuestion,
  ToolPolicyProperty,
  ToolPolicyUnderTest,
} from "./testing/_tool_policy.ts";
