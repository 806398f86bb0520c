/**
 * Named profiles: which skills an agent or subagent sees. A profile has
 * `include` and `exclude` globs over skill names (and, for a skill served
 * over MCP, over `mcp:<origin>/<path>`), `pinned` globs, per-skill `modes`,
 * and may `extends` another profile, whose lists it adds to (its own modes
 * win). The order is fixed and documented in `docs/large-libraries.md`:
 *
 * 1. the host's `disabled` mode wins over everything;
 * 2. a skill an `exclude` glob matches is left out;
 * 3. the profile's own mode for the skill, if any;
 * 4. a skill a `pinned` glob matches is `pinned`;
 * 5. with `include` globs, a skill none matches is left out;
 * 6. otherwise the host's mode.
 *
 * `extends` is walked by the resolver's own walk (`_include_walk.ts`), so a
 * cycle is an error with its path. Pure: a profiles file is read from its text.
 *
 * Folder `lib/core/catalog/` — the prompt catalog: budget, modes, usage ranking, requirements, dependencies.
 *
 * @module
 */
import { SkillCycleError, SkillsetError } from "../errors.ts";
import { nearestNames } from "../_nearest.ts";
import { quoteShort } from "../_text.ts";
import { walkIncludes } from "../resolver/_include_walk.ts";
import type { Skill } from "../resolver/skill.ts";
import { type JsonNode, JsonSyntaxError, lineColumn, parseJsonNodes } from "../trust/_json.ts";
import { compileNameGlob, globProblem, type SkillGlob } from "./skill_glob.ts";
import { SKILL_MODES, type SkillMode } from "./skill_modes.ts";

/** One profile as written. */
export interface SkillProfile {
  /** Globs of the skills it shows (none: every skill). */
  readonly include?: readonly string[];
  /** Globs of the skills it leaves out; exclude wins over include and pinned. */
  readonly exclude?: readonly string[];
  /** Globs of the skills it pins (listed first, whole). */
  readonly pinned?: readonly string[];
  /** Its mode per skill name. */
  readonly modes?: ReadonlyMap<string, SkillMode>;
  /** The profile it adds to. */
  readonly extends?: string;
}

/** The codes of {@linkcode SkillProfileError}. */
export type SkillProfileCode =
  /** A profiles file over {@linkcode MAX_PROFILES_FILE_BYTES}. */
  | "TOO_LARGE"
  /** A profiles file that is not JSON. */
  | "INVALID_JSON"
  /** A profile of the wrong shape: an unknown key, a bad glob, a mode that does not exist. */
  | "INVALID_FIELD"
  /** A profile name (asked for, or in `extends`) that no profile has. */
  | "UNKNOWN_PROFILE"
  /** Profiles that extend each other in a cycle. */
  | "PROFILE_CYCLE"
  /** A profile that leaves no skill (unless the host allows it). */
  | "EMPTY_PROFILE"
  /** A skill named to run (`skillset run --profile`) that the profile leaves out or disables. */
  | "LEFT_OUT_BY_PROFILE";

/** The largest profiles file read: 1 MiB. */
export const MAX_PROFILES_FILE_BYTES = 1 << 20;

/**
 * A profiles file or config key that cannot be used, an unknown profile (with
 * the nearest names), a cycle of `extends`, or a profile that matches no skill.
 *
 * @example
 * ```ts
 * import { resolveSkillProfile, SkillProfileError } from "./skill_profiles.ts";
 * import { assert } from "../_assert.ts";
 *
 * const profiles = new Map([["review", { include: ["code-*"] }]]);
 * assert.throws(() => resolveSkillProfile(profiles, "reveiw"), {
 *   name: "SkillProfileError",
 *   message: 'Unknown profile "reveiw" (did you mean "review"?)',
 * });
 * ```
 */
export class SkillProfileError extends SkillsetError {
  /** Always `"SkillProfileError"`. */
  override readonly name = "SkillProfileError";
  /** Which condition failed. */
  readonly code: SkillProfileCode;
  /** For `UNKNOWN_PROFILE`: the name no profile has, the names there are, and who named it. */
  readonly unknown?: UnknownProfile;

  /**
   * Describe an unusable profile.
   *
   * @param code Which condition failed.
   * @param message What is wrong (capitalised, no final period).
   * @param unknown For `UNKNOWN_PROFILE`, the name and the known ones, so a front end can word it.
   */
  constructor(code: SkillProfileCode, message: string, unknown?: UnknownProfile) {
    super(message);
    this.code = code;
    if (unknown !== undefined) this.unknown = unknown;
  }
}

/** The name of an `UNKNOWN_PROFILE`, the profiles there are, and the profile that extends it. */
export interface UnknownProfile {
  /** The name no profile has. */
  readonly name: string;
  /** The names of the profiles there are. */
  readonly known: readonly string[];
  /** The profile whose `extends` names it, when it is not the one asked for. */
  readonly extendedBy?: string;
}

/** A skill as a profile reads it: its name and, when served over MCP, its origin. */
export interface ProfiledSkill {
  /** The skill's name (`<origin>:<path>` for a skill served over MCP). */
  readonly name: string;
  /** Its MCP origin; absent for a local skill. */
  readonly origin?: string;
}

/** A profile with what it extends folded in, ready to decide skill by skill (frozen). */
export interface ResolvedSkillProfile {
  /** Its name. */
  readonly name: string;
  /** The profiles it is made of, the one asked for first, then what it extends. */
  readonly chain: readonly string[];
  /**
   * The mode a profile gives a skill, or `"out"` when it leaves the skill out.
   *
   * @param skill The skill.
   * @param hostMode Its mode without the profile (`skillMode`).
   */
  decide(skill: ProfiledSkill, hostMode: SkillMode): SkillMode | "out";
}

const KNOWN_KEYS = ["include", "exclude", "pinned", "modes", "extends"] as const;

/**
 * Read a profiles file: `{ "profiles": { "<name>": { include?, exclude?, pinned?, modes?, extends? } } }`
 * (`$schema` allowed beside `profiles`), strictly, with the line and column of any problem.
 *
 * @param text The file's text.
 * @param file The file's name, for errors.
 * @returns The profiles by name, in the file's order.
 * @throws {SkillProfileError} `TOO_LARGE`, `INVALID_JSON` or `INVALID_FIELD`.
 * @example
 * ```ts
 * import { parseSkillProfiles } from "./skill_profiles.ts";
 * import { assert } from "../_assert.ts";
 *
 * const profiles = parseSkillProfiles(
 *   '{ "profiles": { "review": { "include": ["code-*"], "exclude": ["*-experimental"] } } }',
 *   "profiles.json",
 * );
 * assert.deepEqual(profiles.get("review")?.include, ["code-*"]);
 * ```
 */
export function parseSkillProfiles(text: string, file: string): ReadonlyMap<string, SkillProfile> {
  if (typeof text !== "string" || typeof file !== "string") {
    throw new TypeError("parseSkillProfiles(text, file) takes two strings");
  }
  if (text.length > MAX_PROFILES_FILE_BYTES) {
    throw new SkillProfileError(
      "TOO_LARGE",
      `${file}: The file is over ${MAX_PROFILES_FILE_BYTES} bytes`,
    );
  }
  let root: JsonNode;
  try {
    root = parseJsonNodes(text);
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    const at = lineColumn(text, e.offset);
    throw new SkillProfileError(
      "INVALID_JSON",
      `${file}:${at.line}:${at.column}: Not valid JSON: ${e.message}`,
    );
  }
  const fail = (offset: number, reason: string): SkillProfileError => {
    const at = lineColumn(text, offset);
    return new SkillProfileError("INVALID_FIELD", `${file}:${at.line}:${at.column}: ${reason}`);
  };
  if (root.kind !== "object") throw fail(root.offset, 'The file must hold { "profiles": {} }');
  for (const [key, member] of root.entries) {
    if (key === "$schema" && member.node.kind === "string") continue;
    if (key !== "profiles") {
      throw fail(member.keyOffset, `Unknown field ${quoteShort(key)} (known: $schema, profiles)`);
    }
  }
  const profiles = root.entries.get("profiles");
  if (profiles === undefined) throw fail(root.offset, 'Missing field "profiles"');
  return profilesFromNode(profiles.node, (offset, reason) => fail(offset, reason));
}

/**
 * Read the `profiles` value of a config already parsed as JSON (`skillset.json`).
 *
 * @param value The value of `profiles`.
 * @param where Where it is, for errors (e.g. `skillset.json: "profiles"`).
 * @returns The profiles by name.
 * @throws {SkillProfileError} `INVALID_FIELD`.
 */
export function skillProfilesFromJson(
  value: unknown,
  where: string,
): ReadonlyMap<string, SkillProfile> {
  return profilesFromNode(
    toNode(value),
    (_offset, reason) => new SkillProfileError("INVALID_FIELD", `${where}: ${reason}`),
  );
}

/** A parsed JSON value as the node shape the reader walks (offsets unknown: 0). */
function toNode(value: unknown): JsonNode {
  const stack: { value: unknown; set: (n: JsonNode) => void }[] = [];
  let root: JsonNode | undefined;
  stack.push({ value, set: (n) => root = n });
  while (stack.length > 0) {
    const { value: v, set } = stack.pop()!;
    if (typeof v === "string") set({ kind: "string", value: v, offset: 0 } as JsonNode);
    else if (Array.isArray(v)) {
      const items: JsonNode[] = new Array(v.length);
      set({ kind: "array", items, offset: 0 } as unknown as JsonNode);
      v.forEach((item, i) => stack.push({ value: item, set: (n) => items[i] = n }));
    } else if (typeof v === "object" && v !== null) {
      const entries = new Map<string, { node: JsonNode; keyOffset: number }>();
      set({ kind: "object", entries, offset: 0 } as unknown as JsonNode);
      for (const [k, item] of Object.entries(v)) {
        const slot = { node: undefined as unknown as JsonNode, keyOffset: 0 };
        entries.set(k, slot);
        stack.push({ value: item, set: (n) => slot.node = n });
      }
    } else {
      set({ kind: v === null ? "null" : typeof v, offset: 0 } as unknown as JsonNode);
    }
  }
  return root!;
}

function profilesFromNode(
  node: JsonNode,
  fail: (offset: number, reason: string) => SkillProfileError,
): ReadonlyMap<string, SkillProfile> {
  if (node.kind !== "object") {
    throw fail(node.offset, 'Field "profiles" must be an object of profile names and profiles');
  }
  const out = new Map<string, SkillProfile>();
  for (const [name, member] of node.entries) {
    if (name === "") throw fail(member.keyOffset, "A profile name must not be empty");
    const p = member.node;
    const where = `Profile ${quoteShort(name)}`;
    if (p.kind !== "object") throw fail(p.offset, `${where} must be an object`);
    const profile: {
      include?: readonly string[];
      exclude?: readonly string[];
      pinned?: readonly string[];
      modes?: ReadonlyMap<string, SkillMode>;
      extends?: string;
    } = {};
    for (const [key, field] of p.entries) {
      const f = field.node;
      switch (key) {
        case "include":
        case "exclude":
        case "pinned": {
          if (f.kind !== "array") {
            throw fail(f.offset, `${where}: "${key}" must be a list of globs`);
          }
          const globs: string[] = [];
          for (const item of f.items) {
            const problem = item.kind === "string"
              ? globProblem(item.value)
              : "a glob must be a string";
            if (problem !== undefined || item.kind !== "string") {
              throw fail(item.offset, `${where}: "${key}": ${problem}`);
            }
            globs.push(item.value);
          }
          profile[key] = Object.freeze(globs);
          break;
        }
        case "modes": {
          if (f.kind !== "object") {
            throw fail(f.offset, `${where}: "modes" must be an object of skill names and modes`);
          }
          const modes = new Map<string, SkillMode>();
          for (const [skill, m] of f.entries) {
            const mode = m.node;
            if (mode.kind !== "string" || !SKILL_MODES.includes(mode.value as SkillMode)) {
              throw fail(
                mode.offset,
                `${where}: the mode of ${quoteShort(skill)} must be one of ${
                  SKILL_MODES.join(", ")
                }`,
              );
            }
            modes.set(skill, mode.value as SkillMode);
          }
          profile.modes = modes;
          break;
        }
        case "extends":
          if (f.kind !== "string" || f.value === "") {
            throw fail(f.offset, `${where}: "extends" must be a profile name`);
          }
          profile.extends = f.value;
          break;
        default:
          throw fail(
            field.keyOffset,
            `${where}: unknown field ${quoteShort(key)} (known: ${KNOWN_KEYS.join(", ")})`,
          );
      }
    }
    out.set(name, Object.freeze(profile));
  }
  for (const [name, profile] of out) {
    if (profile.extends !== undefined && !out.has(profile.extends)) {
      throw new SkillProfileError(
        "UNKNOWN_PROFILE",
        `Profile ${quoteShort(name)} extends unknown profile ${quoteShort(profile.extends)}${
          hint(profile.extends, out.keys())
        }`,
        Object.freeze({
          name: profile.extends,
          known: Object.freeze([...out.keys()]),
          extendedBy: name,
        }),
      );
    }
  }
  return out;
}

function hint(name: string, known: Iterable<string>): string {
  const near = nearestNames(name, known, 1);
  return near.length === 0 ? "" : ` (did you mean ${quoteShort(near[0]!)}?)`;
}

/**
 * A profile by name, with what it extends folded in.
 *
 * @param profiles The profiles.
 * @param name The profile asked for.
 * @returns The resolved profile.
 * @throws {SkillProfileError} `UNKNOWN_PROFILE` (with the nearest name) or `PROFILE_CYCLE` (with its path).
 * @example
 * ```ts
 * import { resolveSkillProfile } from "./skill_profiles.ts";
 * import { assert } from "../_assert.ts";
 *
 * const profiles = new Map([
 *   ["base", { exclude: ["*-experimental"] }],
 *   ["review", { include: ["code-*", "git-*"], pinned: ["code-review"], extends: "base" }],
 * ]);
 * const review = resolveSkillProfile(profiles, "review");
 * assert.deepEqual(review.chain, ["review", "base"]);
 * assert.equal(review.decide({ name: "code-review" }, "auto"), "pinned");
 * assert.equal(review.decide({ name: "code-experimental" }, "auto"), "out");
 * assert.equal(review.decide({ name: "pdf" }, "auto"), "out");
 * assert.equal(review.decide({ name: "git-log" }, "disabled"), "disabled");
 * ```
 */
export function resolveSkillProfile(
  profiles: ReadonlyMap<string, SkillProfile>,
  name: string,
): ResolvedSkillProfile {
  const root = profiles.get(name);
  if (root === undefined) {
    throw new SkillProfileError(
      "UNKNOWN_PROFILE",
      `Unknown profile ${quoteShort(name)}${hint(name, profiles.keys())}`,
      Object.freeze({ name, known: Object.freeze([...profiles.keys()]) }),
    );
  }
  // `extends` as an include edge: the resolver's walk finds the cycle and its path.
  const node = (n: string): Skill | undefined => {
    const p = profiles.get(n);
    return p === undefined
      ? undefined
      : { name: n, includes: p.extends === undefined ? [] : [p.extends] } as unknown as Skill;
  };
  let chain: string[];
  try {
    const graph = walkIncludes(node(name)!, node);
    chain = [...graph.postOrder].reverse().map((id) => graph.names[id]!);
  } catch (e) {
    if (e instanceof SkillCycleError) {
      const path = e.path;
      const cycle = path.slice(path.indexOf(path.at(-1)!));
      throw new SkillProfileError(
        "PROFILE_CYCLE",
        `Profiles extend each other in a cycle: ${cycle.map((n) => quoteShort(n)).join(" -> ")}`,
      );
    }
    throw new SkillProfileError(
      "UNKNOWN_PROFILE",
      `Profile ${quoteShort(name)} cannot be resolved: ${(e as Error).message}`,
    );
  }
  const include: SkillGlob[] = [];
  const exclude: SkillGlob[] = [];
  const pinned: SkillGlob[] = [];
  const modes = new Map<string, SkillMode>();
  // What a profile extends first, so its own modes are set last and win.
  for (const n of [...chain].reverse()) {
    const p = profiles.get(n)!;
    for (const g of p.include ?? []) include.push(compileNameGlob(g));
    for (const g of p.exclude ?? []) exclude.push(compileNameGlob(g));
    for (const g of p.pinned ?? []) pinned.push(compileNameGlob(g));
    for (const [skill, mode] of p.modes ?? []) modes.set(skill, mode);
  }
  const any = (globs: readonly SkillGlob[], skill: ProfiledSkill): boolean => {
    const origin = skill.origin === undefined || skill.origin === ""
      ? undefined
      : `mcp:${skill.origin}/${skill.name.slice(skill.name.indexOf(":") + 1)}`;
    for (const g of globs) {
      if (g.matches(skill.name) || (origin !== undefined && g.matches(origin))) return true;
    }
    return false;
  };
  return Object.freeze({
    name,
    chain: Object.freeze(chain),
    decide(skill: ProfiledSkill, hostMode: SkillMode): SkillMode | "out" {
      if (hostMode === "disabled") return "disabled";
      if (any(exclude, skill)) return "out";
      const own = modes.get(skill.name);
      if (own !== undefined) return own;
      if (any(pinned, skill)) return "pinned";
      if (include.length > 0 && !any(include, skill)) return "out";
      return hostMode;
    },
  });
}
