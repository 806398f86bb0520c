/**
 * The lock check of a server (issue 20): before each load, every skill
 * folder is hashed and compared with its lockfile entry; one that differs or
 * has none is kept out of the catalog (or, in `"warn"` mode, served with the
 * warning). A step before publishing: the publisher only learns which
 * folders to leave out.
 *
 * @module
 */
import type { SkillWarning } from "@modelcontextprotocol/server/ext/skills";
import { skillManifest } from "../core/trust/manifest.ts";
import { type LoadedSkill, loadSkillFolder } from "../fs/skill_folder.ts";
import { loadLock, lockMismatch } from "../fs/trust.ts";
import type { ServeSkillsOptions } from "./_serve_options.ts";
import { type Source, sourceFolders } from "./_serve_source.ts";

/**
 * With a lock: hash every skill folder and keep out (or only warn about)
 * each one that differs from its lock entry or has none. A discovered
 * skill that cannot be loaded is left to the load, which reports it.
 *
 * @param source Where the skills come from.
 * @param options The server's options: `lock`, `lockMode`, `lockBase`, `resourceClasses`.
 * @param warn Where each mismatch is reported.
 * @returns The skill folders to keep out; `undefined` without a lock.
 * @throws {AgentSkillError} When a skill folder given as a path cannot be loaded.
 */
export async function lockRefusals(
  source: Source,
  options: ServeSkillsOptions,
  warn: (warning: SkillWarning) => void,
): Promise<ReadonlySet<string> | undefined> {
  if (options.lock === undefined) return undefined;
  const lock = loadLock(options.lock, options.lockBase);
  const refused = new Set<string>();
  const lenient = source.kind === "discovery";
  const classes = options.resourceClasses === undefined
    ? {}
    : { resourceClasses: options.resourceClasses };
  for (const folder of sourceFolders(source)) {
    let skill: LoadedSkill;
    try {
      skill = loadSkillFolder(folder, { lenient, ...classes });
    } catch (e) {
      if (lenient) continue;
      throw e;
    }
    const mismatch = await lockMismatch(lock, folder, await skillManifest(skill));
    if (mismatch === null) continue;
    const enforce = options.lockMode !== "warn";
    warn({ path: folder, message: `${mismatch.message}${enforce ? "; not served" : ""}` });
    if (enforce) refused.add(folder);
  }
  return refused;
}
