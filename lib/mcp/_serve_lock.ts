/**
 * The lock and approval check of a server: in the one load a server
 * publishes, each loaded skill is hashed and compared with its lockfile
 * entry and its approval, then pinned
 * to what was hashed ({@linkcode pinBundle}). One that differs or has none is
 * kept out of the catalog (or, in `"warn"` mode, served with the warning).
 * The bundle that was checked is the bundle that is published: SKILL.md is
 * the buffer read at load, and every other file is verified against the
 * compared digest when it is read, so a change after the check is refused
 * (`RESOURCE_CHANGED`), never served.
 *
 * Folder `lib/mcp/` — skills over MCP behind `lib/mcp.ts`: serve, consume, watch, HTTP, remote trust.
 *
 * @module
 */
import type { SkillWarning } from "@modelcontextprotocol/server/ext/skills";
import { approvalChanges, decideApproval } from "../core/trust/approval.ts";
import { FILE_ORIGIN } from "../fs/trust/trust_files.ts";
import { hashAndPin } from "../core/trust/pin.ts";
import type { LoadedSkill } from "../fs/load/skill_folder.ts";
import { otherEntries } from "../fs/trust/_trust_entries.ts";
import { type LoadedLock, loadLock, lockMismatch } from "../fs/trust/trust.ts";
import type { ServeSkillsOptions } from "./_serve_options.ts";

/** A lock read for one load: checks a loaded skill and pins it. */
export interface LoadLock {
  /**
   * Check a loaded skill against its entry.
   *
   * @param folder The folder it was found at (as the lockfile records it, relative to the base).
   * @param skill The skill as loaded.
   * @returns The skill pinned to what was hashed, or `undefined` when it is kept out.
   */
  check(folder: string, skill: LoadedSkill): Promise<LoadedSkill | undefined>;
}

/**
 * The lock of one load: the lockfile read now (a path is read again on every
 * load, so a reload sees a new lockfile) and the approvals, or `undefined`
 * without either.
 *
 * @param options The server's options: `lock`, `lockMode`, `lockBase`, `approvals`.
 * @param warn Where each mismatch is reported.
 * @returns The check, or `undefined`.
 * @throws {TrustFileError} When the lock names a missing or malformed lockfile.
 */
export function loadServeLock(
  options: ServeSkillsOptions,
  warn: (warning: SkillWarning) => void,
): LoadLock | undefined {
  if (options.lock === undefined && options.approvals === undefined) return undefined;
  const lock: LoadedLock | undefined = options.lock === undefined
    ? undefined
    : loadLock(options.lock, options.lockBase);
  const approvals = options.approvals;
  const enforce = options.lockMode !== "warn";
  return {
    async check(folder: string, skill: LoadedSkill): Promise<LoadedSkill | undefined> {
      let manifest;
      let pinned: LoadedSkill;
      try {
        // One pass: hashed, and the hashed bytes kept to serve the first reads.
        ({ manifest, pinned } = await hashAndPin(skill));
      } catch (e) {
        warn({
          path: folder,
          message: `Skill ${JSON.stringify(skill.name)} could not be hashed: ${
            e instanceof Error ? e.message : String(e)
          }; not served`,
        });
        return undefined;
      }
      // A lock and an approval of a folder cover its other entries (links, pipes …) too.
      let others;
      try {
        others = otherEntries(skill);
      } catch {
        others = undefined;
      }
      if (lock !== undefined) {
        const mismatch = others === undefined
          ? { message: `Skill ${JSON.stringify(skill.name)} could not be walked` }
          : await lockMismatch(lock, folder, manifest, others);
        if (mismatch !== null) {
          warn({ path: folder, message: `${mismatch.message}${enforce ? "; not served" : ""}` });
          if (enforce) return undefined;
        }
      }
      if (approvals !== undefined) {
        if (others === undefined) {
          warn({
            path: folder,
            message: `Skill ${JSON.stringify(skill.name)} could not be walked; not served`,
          });
          return undefined;
        }
        const decision = await decideApproval(approvals, FILE_ORIGIN, folder, manifest, others);
        if (decision.status !== "approved") {
          warn({
            path: folder,
            message: decision.status === "needs_approval"
              ? `Skill ${JSON.stringify(skill.name)} needs approval; not served`
              : `Skill ${JSON.stringify(skill.name)} changed since it was approved: ${
                approvalChanges(decision)
              }; not served`,
          });
          return undefined;
        }
      }
      return pinned;
    },
  };
}
