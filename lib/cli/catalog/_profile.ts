/**
 * `--profile NAME`, `--profiles FILE` and `--paths PATH`: the profile a
 * command lists or serves skills under (from `--profiles FILE`, or the
 * `"profiles"` of `skillset.json`), and the paths in play for skills with
 * `paths`. An unknown profile (asked for, or in `extends`) is a usage error
 * in the one shape of every unknown name, naming the nearest ones. One
 * implementation for every command that takes them: `to-prompt`, `serve`,
 * `list`, `search`, `eval` and `run`.
 *
 * Folder `lib/cli/catalog/` — the commands that show skills: resolve, activate, list, search, stats.
 *
 * @module
 */
import { readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import { escapeControls as esc } from "../../core/_text.ts";
import { HostPaths } from "../../core/catalog/skill_paths.ts";
import { type SelectedSkill, selector } from "../../core/catalog/_selection.ts";
import {
  MAX_PROFILES_FILE_BYTES,
  parseSkillProfiles,
  type ResolvedSkillProfile,
  resolveSkillProfile,
  type SkillProfile,
  SkillProfileError,
  skillProfilesFromJson,
} from "../../core/catalog/skill_profiles.ts";
import { UsageError } from "../_args.ts";
import { CONFIG_NAME } from "../_config.ts";
import { unknownName } from "../_unknown_name.ts";

/** The profile flags, for a command's flag spec: values, the repeated one, usage and help. */
export const PROFILE_FLAGS = {
  values: ["--profile", "--profiles", "--paths"],
  repeated: ["--paths"],
  usage: "[--profile NAME [--profiles FILE]] [--paths PATH]...",
} as const;

/** What a command takes from the profile flags. */
export interface ProfileFlags {
  /** The profile asked for, resolved. */
  readonly profile?: ResolvedSkillProfile;
  /** The paths in play (`--paths`). */
  readonly paths?: HostPaths;
  /** Whether a profile that matches no skill is allowed (`--allow-empty`). */
  readonly allowEmpty: boolean;
}

/**
 * Read the profile flags of a command.
 *
 * @param flags The single-valued flags (`--profile`, `--profiles`).
 * @param repeated The repeated flags (`--paths`).
 * @param switches The switches (`--allow-empty`).
 * @returns The profile and the paths, when given.
 * @throws {UsageError} For an unknown profile, asked for or in `extends` (with the nearest names),
 *   or `--profile` without profiles.
 * @throws {SkillProfileError} For a profiles file that cannot be used.
 */
export function profileFlags(
  flags: ReadonlyMap<string, string>,
  repeated: ReadonlyMap<string, readonly string[]>,
  switches: ReadonlySet<string>,
): ProfileFlags {
  const name = flags.get("--profile");
  const file = flags.get("--profiles");
  const given = repeated.get("--paths");
  const out: { profile?: ResolvedSkillProfile; paths?: HostPaths; allowEmpty: boolean } = {
    allowEmpty: switches.has("--allow-empty"),
  };
  if (given !== undefined) out.paths = new HostPaths(given);
  if (name === undefined) return out;
  if (file === undefined) {
    throw new UsageError(
      `--profile: no profiles are defined (add "profiles" to ${CONFIG_NAME}, or pass --profiles FILE)`,
    );
  }
  try {
    out.profile = resolveSkillProfile(readProfiles(file), name);
  } catch (e) {
    throw e instanceof SkillProfileError ? asUnknownName(e, file) : e;
  }
  return out;
}

/**
 * An unknown profile, asked for or named by `extends`, in the one shape of
 * every unknown name (`unknown profile "reveiw" in skillset.json (did you
 * mean "review"?)`, exit 2); any other profile error as it is.
 */
function asUnknownName(e: SkillProfileError, file: string): Error {
  if (e.code !== "UNKNOWN_PROFILE" || e.unknown === undefined) return e;
  const { name, known, extendedBy } = e.unknown;
  const where = extendedBy === undefined
    ? `in ${esc(file)}`
    : `in the "extends" of profile ${esc(JSON.stringify(extendedBy))} in ${esc(file)}`;
  return unknownName("profile", name, known, where);
}

/** A profiles file, or the `"profiles"` of a `skillset.json`. */
function readProfiles(file: string): ReadonlyMap<string, SkillProfile> {
  let text: string;
  try {
    if (!statSync(file).isFile()) throw new UsageError(`--profiles: "${esc(file)}" is not a file`);
    if (statSync(file).size > MAX_PROFILES_FILE_BYTES) {
      throw new SkillProfileError(
        "TOO_LARGE",
        `${esc(file)}: The file is over ${MAX_PROFILES_FILE_BYTES} bytes`,
      );
    }
    text = readFileSync(file, "utf8");
  } catch (e) {
    if (e instanceof UsageError || e instanceof SkillProfileError) throw e;
    throw new UsageError(
      `--profiles: cannot read "${esc(file)}" (${esc(String((e as { code?: unknown }).code))})`,
    );
  }
  if (basename(file) !== CONFIG_NAME) return parseSkillProfiles(text, file);
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch {
    throw new SkillProfileError("INVALID_JSON", `${esc(file)}: Not valid JSON`);
  }
  const value = (config as { profiles?: unknown } | null)?.profiles;
  return skillProfilesFromJson(value ?? {}, `${file}: "profiles"`);
}

/**
 * Refuse a profile that left every skill out, unless `--allow-empty`.
 *
 * @param choice The profile flags.
 * @param considered How many skills the profile was asked about.
 * @param left How many it left out.
 * @throws {SkillProfileError} `EMPTY_PROFILE`.
 */
export function checkProfileMatched(choice: ProfileFlags, considered: number, left: number): void {
  if (choice.profile === undefined || choice.allowEmpty || considered === 0) return;
  if (left < considered) return;
  throw new SkillProfileError(
    "EMPTY_PROFILE",
    `Profile "${esc(choice.profile.name)}" matches none of the ${considered} skill${
      considered === 1 ? "" : "s"
    } found (pass --allow-empty to list none)`,
  );
}

/** A skill a profile or the paths left out, and why. */
export interface LeftOutSkill {
  /** The skill's name. */
  readonly name: string;
  /** `profile` (the profile leaves it out, or its modes disable it) or `paths` (no path matches). */
  readonly reason: "profile" | "paths";
  /** The profile's name, or which paths. */
  readonly detail: string;
}

/**
 * The skills a command shows under the profile flags, for the commands that
 * show skills to a person (`list`, `search`, `eval`): the profile's skills
 * (a skill its modes make `disabled` left out too), and a skill with `paths`
 * left out only when `--paths` is given and none matches — without `--paths`
 * every skill is shown, as these commands show what is there. Without
 * `--profile` and `--paths`, every skill. A profile that leaves every skill
 * out is an error unless `--allow-empty`.
 *
 * @param choice The profile flags.
 * @param skills The skills found.
 * @returns The skills kept, in order, and those left out with why.
 * @throws {SkillProfileError} `EMPTY_PROFILE`.
 */
export function profiledSkills<T extends SelectedSkill>(
  choice: ProfileFlags,
  skills: readonly T[],
): { readonly kept: readonly T[]; readonly left: readonly LeftOutSkill[] } {
  if (choice.profile === undefined && choice.paths === undefined) return { kept: skills, left: [] };
  const select = selector({
    ...(choice.profile === undefined ? {} : { profile: choice.profile }),
    ...(choice.paths === undefined ? {} : { paths: choice.paths }),
  });
  const kept: T[] = [];
  const left: LeftOutSkill[] = [];
  for (const s of skills) {
    const selection = select(s);
    if (selection.out === "paths" && choice.paths === undefined) {
      kept.push(s);
    } else if (selection.out !== undefined) {
      left.push({ name: s.name, reason: selection.out, detail: selection.detail });
    } else if (selection.mode === "disabled") {
      left.push({ name: s.name, reason: "profile", detail: choice.profile?.name ?? "" });
    } else {
      kept.push(s);
    }
  }
  checkProfileMatched(
    choice,
    skills.length,
    left.filter((l) => l.reason === "profile").length,
  );
  return { kept, left };
}

/**
 * Refuse a skill named on the command line (`run`) that `--profile` leaves
 * out or disables: the user asked to act under the profile. A skill with
 * `paths` is never refused for them: it was named.
 *
 * @param choice The profile flags.
 * @param skill The skill named.
 * @throws {SkillProfileError} `LEFT_OUT_BY_PROFILE`.
 */
export function checkProfileKeeps(choice: ProfileFlags, skill: SelectedSkill): void {
  const profile = choice.profile;
  if (profile === undefined) return;
  const selection = selector({ profile })(skill);
  if (selection.out === "paths" || selection.mode !== "disabled") return;
  throw new SkillProfileError(
    "LEFT_OUT_BY_PROFILE",
    `Profile "${esc(profile.name)}" leaves out skill "${
      esc(skill.name)
    }" (run it without --profile, or add it to the profile)`,
  );
}
