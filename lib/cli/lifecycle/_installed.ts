/**
 * The names `update` and `remove` take are skills `skillset add` installed:
 * a typo is a usage error naming the nearest installed ones, before any
 * git or file work starts.
 *
 * Folder `lib/cli/lifecycle/` — the lifecycle commands: add, outdated, update, remove.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { type LifecycleOptions, placeOf } from "../../fs/lifecycle/_installed.ts";
import { readLockfile } from "../../fs/trust/trust_files.ts";
import { unknownName } from "../_unknown_name.ts";

/**
 * Check that each name is a skill the scope's lockfile says `skillset add` installed.
 *
 * @param names The names typed.
 * @param options The scope and lockfile.
 * @throws {UsageError} For the first name that is not, with up to three nearest installed names.
 * @throws {TrustFileError} When the lockfile cannot be read.
 */
export function assertInstalled(names: readonly string[], options: LifecycleOptions): void {
  if (names.length === 0) return;
  const { lockfile } = placeOf(options);
  // No lockfile: the lifecycle step itself says so.
  if (!existsSync(lockfile)) return;
  const installed = readLockfile(lockfile).skills
    .filter((s) => s.installed_from !== undefined && s.source !== undefined)
    .map((s) => s.name);
  for (const name of names) {
    if (!installed.includes(name)) {
      throw unknownName("skill", name, installed, "(not installed by skillset add)");
    }
  }
}
