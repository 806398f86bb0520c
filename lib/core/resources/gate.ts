/**
 * The double-safety gate (SPEC §4): the only place that decides access to a
 * skill's bundled resources.
 *
 * Folder `lib/core/resources/` — a skill's bundled files: paths and classes, the gate, bundles, reads.
 *
 * @module
 */
import { ExecutionError, type GateOperation } from "../errors.ts";
import type { ResourceClass } from "./resource_path.ts";

/** The two safety switches; each defaults to true (safe). */
export interface SafetyFlags {
  /** The runtime's global safety. */
  readonly global_safety?: boolean;
  /** This skill's own safety. */
  readonly skill_safety?: boolean;
}

/**
 * Whether the gate is open.
 *
 * @param flags The two switches (absent means true).
 * @returns Whether non-standard resources may be listed and read: only when
 *   global safety is false **and** skill safety is false.
 * @example
 * ```ts
 * import { isGateOpen } from "./gate.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(isGateOpen({ global_safety: false, skill_safety: false }), true);
 * assert.equal(isGateOpen({ global_safety: false }), false);
 * ```
 */
export function isGateOpen(flags: SafetyFlags): boolean {
  return flags.global_safety === false && flags.skill_safety === false;
}

/**
 * Whether a class of resources is accessible.
 *
 * @param resourceClass A resource's class (for a link: the stricter of both paths).
 * @param flags The two switches.
 * @returns Whether resources of that class may be listed and read under `flags`.
 */
export function mayAccess(resourceClass: ResourceClass, flags: SafetyFlags): boolean {
  return resourceClass !== "nonstandard" || isGateOpen(flags);
}

/**
 * Decide one operation on one resource. A pure function of its arguments.
 *
 * @param path The normalised path (named in the refusal).
 * @param resourceClass Its class (for a link: the stricter of both paths).
 * @param flags The two switches.
 * @param operation `read` or `list`.
 * @returns `null` when allowed, otherwise the {@linkcode ExecutionError} to throw.
 * @example
 * ```ts
 * import { decideAccess } from "./gate.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(decideAccess("assets/a.png", "assets", {}, "read"), null);
 * assert.equal(
 *   decideAccess("canvas-fonts/a.ttf", "nonstandard", { skill_safety: false }, "read")?.message,
 *   'Refused to read non-standard resource "canvas-fonts/a.ttf": global safety is true, skill safety is false (both must be false)',
 * );
 * ```
 */
export function decideAccess(
  path: string,
  resourceClass: ResourceClass,
  flags: SafetyFlags,
  operation: GateOperation,
): ExecutionError | null {
  if (mayAccess(resourceClass, flags)) return null;
  const global_safety = flags.global_safety !== false;
  const skill_safety = flags.skill_safety !== false;
  return new ExecutionError(
    `Refused to ${operation} non-standard resource ${JSON.stringify(path)}: ` +
      `global safety is ${global_safety}, skill safety is ${skill_safety} (both must be false)`,
    { path, operation, global_safety, skill_safety },
  );
}

/**
 * Like {@linkcode decideAccess}, but throws the refusal.
 *
 * @param path The normalised path.
 * @param resourceClass Its class.
 * @param flags The two switches.
 * @param operation `read`, `list` or `run`.
 * @throws {ExecutionError} When the gate refuses.
 */
export function assertAccess(
  path: string,
  resourceClass: ResourceClass,
  flags: SafetyFlags,
  operation: GateOperation,
): void {
  const refusal = decideAccess(path, resourceClass, flags, operation);
  if (refusal !== null) throw refusal;
}

/**
 * The refusal of a path that does not lead to a regular file inside the skill
 * folder (a link out, a folder): the same error for reading and for running.
 *
 * @param path The normalised path.
 * @param flags The safety flags the refusal reports.
 * @param verb `read` or `run`.
 * @returns The error, to throw.
 */
export function outsideRoot(
  path: string,
  flags: SafetyFlags,
  verb: "read" | "run" = "read",
): ExecutionError {
  return new ExecutionError(
    `Refused to ${verb} ${
      JSON.stringify(path)
    }: it does not lead to a regular file inside the skill folder`,
    {
      path,
      operation: verb,
      global_safety: flags.global_safety !== false,
      skill_safety: flags.skill_safety !== false,
    },
  );
}
