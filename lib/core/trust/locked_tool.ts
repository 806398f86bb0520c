/**
 * The `skill` tool's handler behind a lockfile: the named skill is hashed
 * and compared with its lock entry before anything of it reaches the model.
 *
 * Folder `lib/core/trust/` — trust as data: digests, manifests, lockfiles, approvals, pins, SSH signatures.
 *
 * @module
 */
import {
  findSkillBundle,
  handleSkillTool,
  type SkillToolCall,
  type SkillToolContext,
} from "../activation/skill_tool.ts";
import { parseSkillToolInput } from "../activation/skill_tool_input.ts";
import type { SkillToolResult } from "../activation/tool_format.ts";
import type { Lockfile } from "./lockfile.ts";
import type { SkillBundle } from "../resources/bundle.ts";
import { skillManifest } from "./manifest.ts";
import { pinBundle } from "./pin.ts";
import {
  contextDependencies,
  type DependentSkill,
  type SkillDependencies,
} from "../catalog/skill_dependencies.ts";
import { mayBeDependency } from "../catalog/skill_access.ts";
import type { ModedSkill } from "../catalog/skill_modes.ts";
import { describeChanges, diffFiles } from "./trust_file.ts";

/** The context of {@linkcode handleLockedSkillTool}. */
export interface LockedSkillToolContext extends SkillToolContext {
  /** The lockfile: a skill is used only when it matches an entry of its name. */
  readonly lock: Lockfile;
  /** `"warn"`: use a skill that differs anyway, saying so in `lock_warning`. Default `"enforce"`. */
  readonly lockMode?: "enforce" | "warn";
}

/** {@linkcode handleSkillTool}'s result, with the lock's warning under `lockMode: "warn"`. */
export interface LockedSkillToolResult extends SkillToolResult {
  /** Why the skill does not match its lock entry, when it was used anyway. */
  readonly lock_warning?: string;
}

/**
 * {@linkcode handleSkillTool}, after checking the named skill against the
 * lock: its files are hashed (through the same opened handles as reads) and
 * its skill digest and frontmatter digest must equal those of a lock entry of
 * its name. A skill that differs, or is not locked, is refused with an error
 * text naming the files that differ (or used, with `lock_warning`, under
 * `lockMode: "warn"`). Every call hashes the skill again: a change between
 * calls is caught. The answer is built from the bundle that was hashed —
 * the loader is not asked twice — with its files pinned to the digests that
 * were compared, so a file changed after the check is refused
 * (`RESOURCE_CHANGED`); a bundle loaded from disk holds its SKILL.md as the
 * bytes its instructions were parsed from, so those are what is hashed. A skill's
 * dependencies resolve over the context's skills (or its `dependencies`): under
 * `"warn"` as under `"enforce"`, only a skill locked as it is now, whose mode lets it be a
 * dependency (`skillAccess`), satisfies one; each one at hand is hashed and compared. For bundles whose bytes are at hand (on disk or in
 * memory); for skills consumed over MCP use `trustedMcpSkills`.
 *
 * @param input What the model sent.
 * @param context The skills, switches and the lock.
 * @param call Who made the call, as for {@linkcode handleSkillTool} (`user: true` activates a `manual` skill).
 * @returns The tool result; never throws.
 * @example
 * ```ts
 * import { createBundle, createLockfile, handleLockedSkillTool, lockEntry, skillManifest } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
 *
 * const v1 = createBundle({ frontmatter: { name: "pdf", description: "PDF" }, instructions: "Use it.", files: { "SKILL.md": "v1" } });
 * const lock = createLockfile([lockEntry(await skillManifest(v1), { scope: "p", source: "pdf" })]);
 * assert.equal((await handleLockedSkillTool({ skill: "pdf" }, { skills: [v1], lock })).is_error, false);
 * const v2 = createBundle({ frontmatter: { name: "pdf", description: "PDF" }, instructions: "Use it.", files: { "SKILL.md": "v2" } });
 * const refused = await handleLockedSkillTool({ skill: "pdf" }, { skills: [v2], lock });
 * assert.deepEqual([refused.is_error, refused.content], [true, 'Skill "pdf" differs from its lockfile entry: "SKILL.md" changed']);
 * ```
 */
export async function handleLockedSkillTool(
  input: unknown,
  context: LockedSkillToolContext,
  call: SkillToolCall = {},
): Promise<LockedSkillToolResult> {
  let name: string;
  let bundle;
  try {
    name = parseSkillToolInput(input).skill;
    bundle = findSkillBundle(context, name);
  } catch {
    return handleSkillTool(input, context, call); // the handler words the error
  }
  if (bundle === undefined) return handleSkillTool(input, context, call);
  const { problem, checked } = await lockProblem(context.lock, bundle);
  // The answer is built from the very bundle that was hashed (a loader is not asked
  // again), its files pinned to the digests that were compared; its dependencies still
  // resolve over the context's skills, not over that one bundle.
  const enforce = context.lockMode !== "warn";
  if (problem !== null && enforce) return Object.freeze({ content: problem, is_error: true });
  const dependencies = context.dependencies ?? lockedDependencies(context, bundle);
  // Every skill of its dependency closure is checked against the lock as the skill itself is:
  // a dependency's name in the lockfile is not enough.
  const unlocked = dependencies === undefined
    ? null
    : await dependencyProblem(context, dependencies, bundle);
  // Under "warn" too: the warning waives the lock for the skill named, never for what it pulls in.
  if (unlocked !== null) {
    return Object.freeze({
      content: `Skill ${
        JSON.stringify(bundle.name)
      } cannot be activated: a skill it requires is not available`,
      is_error: true,
    });
  }
  const answer = handleSkillTool(input, {
    ...context,
    skills: [problem === null ? checked : bundle],
    ...(dependencies === undefined ? {} : { dependencies }),
  }, call);
  return problem === null ? answer : Object.freeze({ ...answer, lock_warning: problem });
}

/** Why a bundle does not match a lock entry of its name (null when it does), and the bundle pinned to what was hashed. */
async function lockProblem(
  lock: Lockfile,
  bundle: SkillBundle,
): Promise<{ problem: string | null; checked: SkillBundle }> {
  let problem: string | null;
  let checked: SkillBundle = bundle;
  try {
    const manifest = await skillManifest(bundle);
    checked = pinBundle(bundle, manifest);
    const entries = lock.skills.filter((e) => e.name === bundle.name);
    // The files a reader serves and the frontmatter (a folder's other entries serve nothing).
    const match = entries.some((e) =>
      e.frontmatter_digest === manifest.frontmatter_digest &&
      (e.entries === undefined || e.entries.length === 0
        ? e.digest === manifest.digest
        : diffFiles(e.files, manifest.files).length === 0)
    );
    problem = match
      ? null
      : entries.length === 0
      ? `Skill ${JSON.stringify(bundle.name)} is not in the lockfile`
      : `Skill ${JSON.stringify(bundle.name)} differs from its lockfile entry: ${
        describeChanges(
          diffFiles(entries[0]!.files, manifest.files),
          entries[0]!.frontmatter_digest !== manifest.frontmatter_digest,
        )
      }`;
  } catch (e) {
    problem = `Skill ${JSON.stringify(bundle.name)} could not be checked against the lockfile: ${
      e instanceof Error ? e.message : String(e)
    }`;
  }
  return { problem, checked };
}

/**
 * The first skill of a dependency closure that is not locked as it is now (each one at hand
 * is hashed), else null.
 */
async function dependencyProblem(
  context: LockedSkillToolContext,
  dependencies: SkillDependencies,
  bundle: SkillBundle,
): Promise<string | null> {
  const closure = dependencies.closure(bundle);
  if (!closure.ok) return null; // activation reports the gap or the cycle
  const locked = new Set(context.lock.skills.map((e) => e.name));
  for (const name of closure.order) {
    if (name === bundle.name) continue;
    if (!locked.has(name)) return `Skill ${JSON.stringify(name)} is not in the lockfile`;
    let found: SkillBundle | undefined;
    try {
      found = findSkillBundle(context, name);
    } catch {
      found = undefined;
    }
    if (found === undefined) continue; // listed but not at hand: checked when it is activated
    const { problem } = await lockProblem(context.lock, found);
    if (problem !== null) return problem;
  }
  return null;
}

/**
 * The resolver the skill tool would build over the context's skills, under
 * the one rule of `skillAccess` (docs/security.md): only a skill with a lock
 * entry of its name, whose mode lets it be a dependency (a `manual` one once
 * activated), satisfies one — under `"warn"` too (its bytes are then checked
 * by {@linkcode dependencyProblem}).
 */
function lockedDependencies(
  context: LockedSkillToolContext,
  bundle: SkillBundle,
): SkillDependencies | undefined {
  const locked = new Set(context.lock.skills.map((e) => e.name));
  return contextDependencies(
    context.skills,
    bundle,
    (s: DependentSkill) =>
      s.name === bundle.name ||
      (locked.has(s.name) &&
        mayBeDependency(s as ModedSkill, bundle.name, context.modes, context.activated)),
  );
}
