/**
 * What discovery found, as a value: the {@linkcode Discovery} result class, the
 * records it holds (found, shadowed and skipped skills, name conflicts) and
 * the file system discovery reads through. Discovery (`discover.ts`) builds
 * it; trust (`trust.ts`), the CLI and the server take it — none of them needs
 * the scan itself.
 *
 * Folder `lib/fs/discovery/` — discovery over roots and what it found: walk, diagnostics, validation.
 *
 * @module
 */
import { type Dirent, readdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { AgentSkillFrontmatter } from "../../core/activation/agent_skill.ts";
import { AgentSkillError } from "../../core/errors.ts";
import type { SafetyFlags } from "../../core/resources/gate.ts";
import { type ResourceClassMap, resourceClassMap } from "../../core/resources/resource_path.ts";
import type { HiddenSkill } from "../../core/policy/requirements.ts";
import { readRegularFile, realpath } from "../_safe_open.ts";
import type { SkillDiagnostic } from "./skill_diagnostic.ts";
import { type LoadedSkill, loadSkillFolder } from "../load/skill_folder.ts";

/** A directory entry as discovery needs it; Node's `Dirent` is one. */
export interface DiscoveryEntry {
  /** The entry's name in its folder. */
  readonly name: string;
  /** Whether it is a regular file (not following a link). */
  isFile(): boolean;
  /** Whether it is a folder (not following a link). */
  isDirectory(): boolean;
  /** Whether it is a symbolic link. */
  isSymbolicLink(): boolean;
}

/**
 * The file-system operations discovery uses. The default,
 * {@linkcode nodeDiscoveryFileSystem}, uses `node:fs`; tests wrap it, for
 * example to shuffle the order of `readdir`.
 */
export interface DiscoveryFileSystem {
  /** The entries of a folder, without following links (a link is reported as a link). */
  readdir(dir: string): readonly DiscoveryEntry[];
  /** The real path: every link resolved. */
  realpath(path: string): string;
  /** Whether a path (links followed) is a folder. */
  isDirectory(path: string): boolean;
  /**
   * At most `maxBytes + 1` bytes of a regular file, without following a final
   * link and without blocking (a FIFO is refused, not waited on).
   */
  readFile(path: string, maxBytes: number): Uint8Array;
}

/** Where a skill folder was found. Paths are absolute. */
export interface SkillPlace {
  /** The scope of the root it was found under. */
  readonly scope: string;
  /** The folder as reached from its root (through links, if any). */
  readonly path: string;
  /** The folder's real path: the skill's containment root. */
  readonly real_path: string;
  /** The SKILL.md (or skill.md) file, under `path`. */
  readonly skill_md: string;
  /** Whether it lies inside another skill folder (a host may ask consent for it again). */
  readonly nested: boolean;
  /** The nearest skill folder above it (as reached), or `null`. */
  readonly parent: string | null;
  /**
   * Whether its SKILL.md is a link to the SKILL.md of another folder of the
   * same root: then `real_path` is that folder, the skill's containment root.
   */
  readonly alias: boolean;
}

/** A skill found and loaded (perhaps with rule breaks, in `diagnostics`). */
export interface DiscoveredSkill extends SkillPlace {
  /** The frontmatter name (NFKC-normalised), or the folder name when it has none. */
  readonly name: string;
  /** The frontmatter description, whole. */
  readonly description: string;
  /** The frontmatter as read leniently. */
  readonly frontmatter: AgentSkillFrontmatter;
  /** The version its SKILL.md states (`metadata.version`, or a top-level `version`), if any. */
  readonly version?: string;
  /** The rule breaks passed over, and a `NAME_CONFLICT` warning when it won a clash in its scope. */
  readonly diagnostics: readonly SkillDiagnostic[];
  /**
   * The first 32 KiB of its SKILL.md body, for search: read from the file
   * each time it is asked (nothing is kept), empty when the file can no
   * longer be read. Not enumerable, so JSON leaves it out; `createSkillIndex`
   * reads it, so `createSkillIndex(discovery.skills)` searches bodies.
   */
  readonly body?: string;
}

/** A skill that lost a name clash. */
export interface ShadowedSkill extends DiscoveredSkill {
  /** The skill that is used instead. */
  readonly winner: { readonly scope: string; readonly path: string };
  /** Whether the winner is of the same scope (a conflict) rather than of an earlier one. */
  readonly same_scope: boolean;
}

/** A skill folder whose SKILL.md could not be used; `diagnostics` says why. */
export interface SkippedSkill extends SkillPlace {
  /** Why it was skipped (severity `error`). */
  readonly diagnostics: readonly SkillDiagnostic[];
}

/** Two or more skills of one scope with one name. */
export interface NameConflict {
  /** The shared name. */
  readonly name: string;
  /** The scope that holds them. */
  readonly scope: string;
  /** Their folders; the first is the one the scope offers (earlier root, shallower, then code-unit order). */
  readonly paths: readonly string[];
}

/**
 * The `node:fs` file system (Node, Deno and Bun). Wrap it to observe or
 * change what discovery sees.
 *
 * @example
 * ```ts
 * import { discoverSkills } from "./discover.ts";
 * import { nodeDiscoveryFileSystem } from "./discovery.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * const listed: string[] = [];
 * const fs = {
 *   ...nodeDiscoveryFileSystem,
 *   readdir(dir: string) {
 *     listed.push(dir);
 *     return [...nodeDiscoveryFileSystem.readdir(dir)].reverse();
 *   },
 * };
 * const examples = new URL("../../../examples", import.meta.url).pathname;
 * assert.equal(discoverSkills([{ scope: "s", path: examples }], { fs }).skills[0]?.name, "pdf");
 * // examples, skills, pdf, and pdf's four sub-folders (scanned for nested skills)
 * assert.equal(listed.length, 7);
 * ```
 */
export const nodeDiscoveryFileSystem: DiscoveryFileSystem = Object.freeze({
  readdir: (dir: string): Dirent[] => readdirSync(dir, { withFileTypes: true }),
  realpath,
  isDirectory: (path: string): boolean => statSync(path).isDirectory(),
  readFile: readRegularFile,
});

/**
 * What {@linkcode discoverSkills} found. `skills` are the winners, in
 * precedence order (scope, then root, then depth, then path in code-unit
 * order); every loser of a name clash is in `shadowed`, every unusable skill
 * folder in `skipped`, and every bound hit, broken link or unreadable folder
 * in `diagnostics`.
 *
 * | operation | cost |
 * |---|---|
 * | `skill(name)` | O(1) |
 * | `bundle(name)`, first call | one `realpath` before and after listing the skill folder |
 * | `bundle(name)`, later calls | O(1) (cached) |
 * | `loadBundle(name)` | as the first `bundle(name)`, every call |
 *
 * @example
 * ```ts
 * import { discoverSkills } from "./discover.ts";
 * import { handleSkillTool } from "../../../mod.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * const found = discoverSkills([
 *   { scope: "project", path: new URL("../../../examples", import.meta.url).pathname },
 * ]);
 * assert.equal(found.skill("pdf")?.description.startsWith("Fill in PDF forms"), true);
 * const read = handleSkillTool({ skill: "pdf", resource: "references/forms.md" }, { skills: found });
 * assert.equal(read.is_error, false);
 * ```
 */
export class Discovery {
  /** The skills to use, one per name, in precedence order. */
  readonly skills: readonly DiscoveredSkill[];
  /** Skills that lost a name clash, in precedence order. */
  readonly shadowed: readonly ShadowedSkill[];
  /** Names held by more than one skill of one scope. */
  readonly conflicts: readonly NameConflict[];
  /** Skill folders whose SKILL.md could not be used. */
  readonly skipped: readonly SkippedSkill[];
  /** What the scan itself met: missing roots, bounds, links, unreadable folders, repeats. */
  readonly diagnostics: readonly SkillDiagnostic[];
  /** Skills left out because the runtime lacks their required tools (`availableTools`). */
  readonly unavailable: readonly HiddenSkill<DiscoveredSkill>[];
  readonly #byName: ReadonlyMap<string, DiscoveredSkill>;
  readonly #bundles = new Map<string, LoadedSkill>();
  readonly #fs: DiscoveryFileSystem;
  readonly #load: { resourceClasses: ResourceClassMap; safety: SafetyFlags };

  /**
   * A discovery result from its lists (frozen copies are kept).
   *
   * @param parts The lists, as {@linkcode discoverSkills} builds them.
   * @param fs The file system the scan used.
   * @param load The class mapping and switches bundles are loaded with, and bundles already
   *   loaded (and checked) by name, handed out by `bundle()` as they are.
   */
  constructor(
    parts: {
      skills: readonly DiscoveredSkill[];
      shadowed: readonly ShadowedSkill[];
      conflicts: readonly NameConflict[];
      skipped: readonly SkippedSkill[];
      diagnostics: readonly SkillDiagnostic[];
      unavailable?: readonly HiddenSkill<DiscoveredSkill>[];
    },
    fs: DiscoveryFileSystem = nodeDiscoveryFileSystem,
    load: {
      resourceClasses?: ResourceClassMap;
      safety?: SafetyFlags;
      bundles?: ReadonlyMap<string, LoadedSkill>;
    } = {},
  ) {
    this.skills = Object.freeze([...parts.skills]);
    this.shadowed = Object.freeze([...parts.shadowed]);
    this.conflicts = Object.freeze([...parts.conflicts]);
    this.skipped = Object.freeze([...parts.skipped]);
    this.diagnostics = Object.freeze([...parts.diagnostics]);
    this.unavailable = Object.freeze([...(parts.unavailable ?? [])]);
    this.#byName = new Map(this.skills.map((s) => [s.name, s]));
    this.#fs = fs;
    this.#load = {
      resourceClasses: load.resourceClasses ?? resourceClassMap(undefined),
      safety: load.safety ?? {},
    };
    for (const [name, bundle] of load.bundles ?? []) {
      if (this.#byName.has(name)) this.#bundles.set(name, bundle);
    }
    Object.freeze(this);
  }

  /**
   * The skill used for a name.
   *
   * @param name A skill name.
   * @returns The winning skill of that name, or `undefined`.
   */
  skill(name: string): DiscoveredSkill | undefined {
    return this.#byName.get(name);
  }

  /**
   * The skill's bundle, loaded (leniently) on first use from the folder
   * discovery found; the folder's real path is its containment root.
   *
   * @param name A skill name.
   * @returns The bundle, or `undefined` for a name discovery did not find.
   * @throws {AgentSkillError} When the folder now leads to another real folder
   *   or another skill than discovery saw, or its SKILL.md no longer loads.
   * @throws {SkillFolderError} When the folder is gone.
   * @throws {ResourceReadError} When its SKILL.md cannot be read as a regular file.
   */
  bundle(name: string): LoadedSkill | undefined {
    const cached = this.#bundles.get(name);
    if (cached !== undefined) return cached;
    const loaded = this.loadBundle(name);
    if (loaded !== undefined) this.#bundles.set(name, loaded);
    return loaded;
  }

  /**
   * The skill's bundle loaded now, from the folder discovery found, and not
   * cached: what a check (a lock, an approval) reads once, hashes and then
   * hands out, so nothing read before the check is used after it. SKILL.md
   * is read once: the bundle's frontmatter, instructions and `SKILL.md` file
   * are those bytes.
   *
   * @param name A skill name.
   * @returns The bundle, or `undefined` for a name discovery did not find.
   * @throws {AgentSkillError} As {@linkcode Discovery.bundle}.
   * @throws {SkillFolderError} As {@linkcode Discovery.bundle}.
   * @throws {ResourceReadError} As {@linkcode Discovery.bundle}.
   */
  loadBundle(name: string): LoadedSkill | undefined {
    const skill = this.#byName.get(name);
    if (skill === undefined) return undefined;
    this.#checkPlace(skill);
    const loaded = loadSkillFolder(skill.alias ? skill.real_path : skill.path, {
      lenient: true,
      ...this.#load,
    });
    this.#checkPlace(skill);
    if (loaded.name !== skill.name) {
      throw new AgentSkillError(
        "name",
        `the skill changed since discovery: its name is now ${JSON.stringify(loaded.name)}, not ${
          JSON.stringify(skill.name)
        }`,
        { file: skill.skill_md },
      );
    }
    return loaded;
  }

  #checkPlace(skill: DiscoveredSkill): void {
    let real: string | undefined;
    try {
      real = skill.alias
        ? dirname(this.#fs.realpath(skill.skill_md))
        : this.#fs.realpath(skill.path);
    } catch {
      real = undefined;
    }
    if (real !== skill.real_path) {
      // The reason names no host path: it may reach a model through the skill tool.
      throw new AgentSkillError(
        "",
        "the skill folder changed since discovery: it now leads to another folder",
        { file: skill.path },
      );
    }
  }
}
