/**
 * Which skills a catalog considers, and in which mode: the host's modes, then
 * a profile, then the skill's `paths` against the host's paths — in the order
 * of the table in `docs/large-libraries.md` ("What wins when"). The catalog,
 * the skill tool's definition and `skill_search` all read it from here.
 *
 * Folder `lib/core/catalog/` — the prompt catalog: budget, modes, usage ranking, requirements, dependencies.
 *
 * @module
 */
import { type SkillMode, skillMode, type SkillModes } from "./skill_modes.ts";
import type { ResolvedSkillProfile } from "./skill_profiles.ts";
import { HostPaths, readSkillPaths } from "./skill_paths.ts";

/** A skill as the selection reads it. */
export interface SelectedSkill {
  readonly name: string;
  readonly origin?: string;
  readonly frontmatter?: {
    readonly "disable-model-invocation"?: boolean;
    readonly paths?: unknown;
  };
}

/** What the selection takes from the host. */
export interface SelectionOptions {
  /** The host's modes. */
  readonly modes?: SkillModes;
  /**
   * A resolved profile (`resolveSkillProfile`): the skills it leaves out are not listed
   * (reason `profile`), its modes and pinned globs apply; the host's `disabled` still wins.
   */
  readonly profile?: ResolvedSkillProfile;
  /**
   * The paths in play (relative to the project root): a skill whose SKILL.md has `paths` is
   * listed only when one of its globs matches one of them (reason `paths` otherwise). Absent:
   * no skill with `paths` is listed.
   */
  readonly paths?: Iterable<string> | HostPaths;
}

/** A skill's place: its mode, or why it is left out before any mode applies. */
export type Selection =
  | { readonly mode: SkillMode; readonly out?: undefined }
  | { readonly mode: "disabled"; readonly out: "profile"; readonly detail: string }
  | {
    readonly mode: "disabled";
    readonly out: "paths";
    readonly detail: string;
    /** The skill's globs: it is listed, in `listed`, once a path in play matches one. */
    readonly globs: readonly string[];
    /** Its mode when a path matches. */
    readonly listed: SkillMode;
  };

/**
 * The selection of each skill, in the order given.
 *
 * @param skills The skills.
 * @param options The host's modes, profile and paths.
 * @returns One selection per skill.
 */
export function selectSkills(
  skills: readonly SelectedSkill[],
  options: SelectionOptions,
): Selection[] {
  return skills.map(selector(options));
}

/**
 * The selection as a function of one skill, the host's paths read once.
 *
 * @param options The host's modes, profile and paths.
 * @returns The selection of a skill.
 */
export function selector(options: SelectionOptions): (skill: SelectedSkill) => Selection {
  const profile = options.profile;
  const host = options.paths === undefined
    ? undefined
    : options.paths instanceof HostPaths
    ? options.paths
    : new HostPaths(options.paths);
  return (s) => {
    const hostMode = skillMode(s, options.modes);
    if (hostMode === "disabled") return { mode: hostMode };
    let mode: SkillMode = hostMode;
    if (profile !== undefined) {
      const decided = profile.decide(s, hostMode);
      if (decided === "out") return { mode: "disabled", out: "profile", detail: profile.name };
      mode = decided;
    }
    const paths = s.frontmatter?.paths;
    if (paths === undefined || paths === null) return { mode };
    const read = readSkillPaths(paths);
    // Lenient here: a `paths` that cannot be read lists the skill (validate reports it).
    if ("globs" in read && read.globs !== undefined && read.globs.length > 0) {
      if (host === undefined || !host.matches(read.globs)) {
        return {
          mode: "disabled",
          out: "paths",
          detail: host === undefined || host.size === 0 ? "no path given" : "no path given matches",
          globs: read.globs,
          listed: mode,
        };
      }
    }
    return { mode };
  };
}
