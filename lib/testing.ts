/**
 * **skillset/testing** — property suites that guard any resolver or gate:
 * fast-check arbitraries (catalogs, hostile resource paths, bundles, safety
 * flags), the naive reference resolver, and the invariants of SPEC §3 and §4
 * as named properties or one-call assertions; the same for a tool policy
 * (`toolPolicyProperties`, `assertToolPolicyInvariants`), and the real shell
 * as an oracle for a command grammar and a policy
 * (`assertShellWordsAgreeWithShell`, `assertToolPolicyAgreesWithShell`: they
 * run `bash` or `dash` in a sandbox); the laws of skill dependencies against
 * a naive reference (`dependencyProperties`, `assertDependencyInvariants`). Needs `fast-check` (a peer
 * dependency of this entry only; `mod.ts` never imports it).
 *
 * ```ts
 * import { assertResolverInvariants } from "./testing.ts";
 * import { resolveTools } from "../mod.ts";
 *
 * // Throws InvariantViolationError with a shrunk counterexample when a law breaks.
 * assertResolverInvariants(resolveTools, { numRuns: 20 });
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
export { assertResolverInvariants, resolverProperties } from "./testing/_resolver_properties.ts";
export type {
  ResolverProperty,
  ResolverResult,
  ResolverUnderTest,
} from "./testing/_resolver_properties.ts";
export { assertGateInvariants, gateProperties } from "./testing/_gate_properties.ts";
export type {
  GateOperationKind,
  GateProperty,
  GateRequest,
  GateUnderTest,
  GateVerdict,
} from "./testing/_gate_properties.ts";
export { InvariantViolationError } from "./testing/_invariants.ts";
export type {
  InvariantFailure,
  InvariantOptions,
  InvariantProperty,
} from "./testing/_invariants.ts";
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
export {
  assertShellWordsAgreeWithShell,
  assertToolPolicyAgreesWithShell,
  shellCommandArbitrary,
  shellWordsProperty,
  toolPolicyShellProperty,
} from "./testing/_shell_laws.ts";
export type { ShellLawOptions, ShellWordsUnderTest } from "./testing/_shell_laws.ts";
export { referenceShellWords } from "./testing/_shell_reference.ts";
export { findShell, observeShell, sandboxKind } from "./testing/_shell_oracle.ts";
export type { ShellName, ShellObservation, ShellRecord } from "./testing/_shell_oracle.ts";
export {
  assertDependencyInvariants,
  dependencyCatalogArbitrary,
  dependencyProperties,
} from "./testing/_dependency_laws.ts";
export type {
  DependencyProperty,
  DependencyResolverUnderTest,
  GeneratedDependencyCatalog,
} from "./testing/_dependency_laws.ts";
export {
  referenceDependencyClosure,
  referenceDirectDependencies,
} from "./testing/_dependency_reference.ts";
export type { ReferenceClosure } from "./testing/_dependency_reference.ts";
