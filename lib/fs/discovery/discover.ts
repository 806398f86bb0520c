/**
 * Discovery: find every Agent Skill a runtime should see under ordered scopes
 * (project `.agents/skills`, user `~/.agents/skills`, configured paths …),
 * within bounds, following symbolic links to skill folders with a cycle guard,
 * in an order that never depends on the order the file system lists entries;
 * resolve name clashes by scope and report every skill that lost. SKILL.md
 * files are read leniently: a rule break is a diagnostic, not a lost skill.
 *
 * This file holds the options and the two entry points, and turns the
 * options into what to scan (roots ordered by precedence, conventional
 * roots expanded, bounds checked); the scan itself is `_walk.ts`, reading
 * each skill found `_read_skill.ts`, and settling name clashes `_settle.ts`.
 *
 * | step | cost |
 * |---|---|
 * | scan a root | one `readdir` per folder (at most `maxFolders`), one `realpath` per linked folder |
 * | each skill | one read of its SKILL.md and one frontmatter parse |
 * | {@linkcode Discovery.bundle} | the first call per name lists the skill folder; later calls are O(1) |
 *
 * Folder `lib/fs/discovery/` — discovery over roots and what it found: walk, diagnostics, validation.
 *
 * @module
 */
import { join, resolve } from "node:path";
import type { SafetyFlags } from "../../core/resources/gate.ts";
import { resourceClassMap } from "../../core/resources/resource_path.ts";
import { skillsAvailable } from "../../core/policy/requirements.ts";
import { dependencyDiagnostics } from "./_dependency_diagnostics.ts";
import { type Found, readSkill, withBody } from "./_read_skill.ts";
import { settle } from "./_settle.ts";
import { aliasTarget, compare, type Limits, type ScanRoot, scanRoot } from "./_walk.ts";
import { Discovery, type DiscoveryFileSystem, nodeDiscoveryFileSystem } from "./discovery.ts";
import type { SkillDiagnostic } from "./skill_diagnostic.ts";

/** One place to look for skills, and the scope it belongs to (e.g. `project`, `user`). */
export interface SkillRoot {
  /** The scope's name: roots of one scope rank together. */
  readonly scope: string;
  /** The folder to scan (relative paths resolve against the working folder). */
  readonly path: string;
}

/** Options of {@linkcode discoverSkills}. */
export interface DiscoverOptions {
  /**
   * The tools the runtime offers: a skill whose `metadata` `requires-tools` /
   * `requires-any-tools` it cannot meet is left out of `skills` and listed in
   * `unavailable` with what it misses (see `skillsAvailable`). Default: no filter.
   * (A skill whose `requires-skills` / `requires-any-skills` the skills offered cannot
   * meet stays in `skills`, with a `MISSING_DEPENDENCY`, `DEPENDENCY_CYCLE` or
   * `INVALID_DEPENDENCY` warning; the catalog decides what to do with it.)
   */
  readonly availableTools?: Iterable<string>;
  /** How deep below each root to look; the root is depth 0. Default 6. */
  readonly maxDepth?: number;
  /** The most folders listed per root (a skill's own sub-folders count). Default 10,000. */
  readonly maxFolders?: number;
  /**
   * Scope names, highest precedence first; scopes not named follow in the
   * order they first appear in `roots`. Default: the order of `roots`.
   */
  readonly precedence?: readonly string[];
  /** The file system; default {@linkcode nodeDiscoveryFileSystem}. */
  readonly fs?: DiscoveryFileSystem;
  /**
   * Folder names never entered (each one met is a `SKIPPED_FOLDER` info
   * diagnostic). Default {@linkcode DEFAULT_SKIP_FOLDERS}: `.git`, `.hg`,
   * `.svn`, `node_modules`; every other folder, dot-folders included, is entered.
   */
  readonly skipFolders?: readonly string[];
  /**
   * Scan, under each root, the conventional client folders that exist there
   * (a project root's own skills) as roots of the same scope placed just
   * before it: `true` for {@linkcode DEFAULT_CONVENTIONAL_ROOTS}, or a list of
   * relative paths. Default false (each root is scanned as given).
   */
  readonly conventionalRoots?: boolean | readonly string[];
  /**
   * Extra top-level folders mapped to a standard class, for every skill (see
   * `resourceClassMap`): applied to the SKILL.md link rule, the
   * `GATED_REFERENCE` diagnostics and every bundle. Default none.
   */
  readonly resourceClasses?:
    | ReadonlyMap<string, string>
    | Iterable<readonly [string, string]>
    | Readonly<Record<string, string>>;
  /** The switches the `GATED_REFERENCE` diagnostics assume; default both true (gate closed). */
  readonly safety?: SafetyFlags;
}

/** The default depth bound of {@linkcode discoverSkills}. */
export const DEFAULT_MAX_DEPTH = 6;
/** The default folder bound (per root) of {@linkcode discoverSkills}. */
export const DEFAULT_MAX_FOLDERS = 10000;
/** The folder names {@linkcode discoverSkills} does not enter by default. */
export const DEFAULT_SKIP_FOLDERS: readonly string[] = Object.freeze([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
]);
/**
 * The client folders scanned under a root with `conventionalRoots: true`,
 * highest precedence first.
 */
export const DEFAULT_CONVENTIONAL_ROOTS: readonly string[] = Object.freeze([
  ".agents/skills",
  ".claude/skills",
]);

/** The instruction file names, in order of preference. */

/**
 * Find the Agent Skills under ordered roots.
 *
 * Each root is scanned breadth-first (so a folder is met at its shallowest
 * depth), entries in code-unit order, down to `maxDepth` and at most
 * `maxFolders` folders. Every folder is entered — dot-folders too — except
 * the names of `skipFolders` (default `.git`, `.hg`, `.svn`, `node_modules`).
 * A folder holding a `SKILL.md` (or `skill.md`) is a skill; its sub-folders
 * are scanned too, and a skill found inside another is reported with
 * `nested: true` and its `parent`. A symbolic link to a folder is followed;
 * the same real folder reached twice counts once (a `SAME_FOLDER`
 * diagnostic), and a link back to a folder that contains it is a
 * `LINK_CYCLE` diagnostic. A `SKILL.md` that is a link to the `SKILL.md` of
 * another folder inside the same root is that folder's skill reached again
 * (`alias: true`, the real folder as containment root, counted once); one
 * that leads anywhere else, or into a non-standard folder of its own skill,
 * is refused with a diagnostic.
 *
 * Every folder not entered or stopped in has a diagnostic naming it or a
 * folder above it: `SKIPPED_FOLDER`, `DEPTH_LIMIT` (per folder whose
 * sub-folders are too deep), `FOLDER_LIMIT`, `FOLDER_UNREADABLE`,
 * `PERMISSION_DENIED`, `BROKEN_LINK`, `LINK_CYCLE`, `SAME_FOLDER`. Each
 * loaded skill carries a `GATED_REFERENCE` warning for every path its body
 * points to that the gate refuses under `safety` and `resourceClasses`.
 *
 * Name clashes: the scope with the higher precedence wins; inside one scope
 * the earlier root wins, then the shallower folder, then the path first in
 * code-unit order — and the clash is also a `NameConflict` (in `conflicts`). Every
 * loser is in `shadowed`.
 *
 * Discovery knows nothing of trust: to narrow what was found by a lockfile
 * or approvals, pass the result to `trustDiscovery` (`trust.ts`), a step after
 * this one.
 *
 * @param roots The roots, in precedence order unless `options.precedence` says otherwise.
 * @param options Bounds, precedence, skip list, conventional roots, class mapping, switches and
 *   the file system.
 * @returns What was found; see {@linkcode Discovery}.
 * @throws {TypeError} When `roots` is not a list of `{ scope, path }` with non-empty strings.
 * @throws {RangeError} When a bound is not a whole number (`maxDepth` ≥ 0,
 *   `maxFolders` ≥ 1), `precedence` names a scope twice or one no root has,
 *   or `resourceClasses` is not a valid mapping.
 * @example
 * ```ts
 * import { discoverSkills } from "./discover.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * const examples = new URL("../../../examples", import.meta.url).pathname;
 * const found = discoverSkills([
 *   { scope: "project", path: examples },
 *   { scope: "user", path: `${examples}/skills` },
 * ]);
 * assert.deepEqual(found.skills.map((s) => [s.name, s.scope]), [["pdf", "project"]]);
 * assert.equal(found.diagnostics[0]?.code, "SAME_FOLDER");
 * assert.equal(found.bundle("pdf")?.files.has("references/forms.md"), true);
 * ```
 */
export function discoverSkills(
  roots: readonly SkillRoot[],
  options: DiscoverOptions = {},
): Discovery {
  const limits = limitsOf(options);
  const classes = resourceClassMap(options.resourceClasses);
  const safety = options.safety ?? {};
  const ordered = expandRoots(orderRoots(roots, options.precedence), options, limits.fs);
  const found: Found[] = [];
  const diagnostics: SkillDiagnostic[] = [];
  ordered.forEach((root, rank) =>
    scanRoot(
      root,
      limits,
      (folder, entry, entries, within) =>
        found.push(
          readSkill(root, rank, folder, entry, entries, within, limits.fs, classes, safety),
        ),
      diagnostics,
    )
  );
  const load = { resourceClasses: classes, safety };
  const settled = settle(found, diagnostics, limits.fs, load);
  const { available, hidden } = options.availableTools === undefined
    ? { available: settled.skills, hidden: [] }
    : skillsAvailable(settled.skills, options.availableTools);
  // A skill whose dependencies are not among the skills offered is listed, with a warning.
  const lacking = dependencyDiagnostics(available, (s) => s.skill_md, "warning");
  if (options.availableTools === undefined && lacking.size === 0) return settled;
  const skills = lacking.size === 0 ? available : available.map((s) => {
    const d = lacking.get(s);
    return d === undefined
      ? s
      : Object.freeze(withBody({ ...s, diagnostics: Object.freeze([...s.diagnostics, d]) }, s));
  });
  return new Discovery({ ...settled, skills, unavailable: hidden }, limits.fs, load);
}

/**
 * The skill folders under one folder, found by the same bounded scan as
 * {@linkcode discoverSkills} but without reading any SKILL.md (for `validate`,
 * which then loads each strictly).
 *
 * @param path The folder to scan (itself a skill folder, or a folder of them at any depth within the bounds).
 * @param options Bounds, skip list, conventional roots and the file system; `precedence` does not apply.
 * @returns The skill folders in scan order (shallower first, then code-unit
 *   order) and what the scan met (bounds, links, unreadable folders).
 * @throws {RangeError} When a bound is not a whole number.
 * @example
 * ```ts
 * import { findSkillFolders } from "./discover.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * const examples = new URL("../../../examples", import.meta.url).pathname;
 * assert.deepEqual(findSkillFolders(examples).folders, [`${examples}/skills/pdf`]);
 * ```
 */
export function findSkillFolders(
  path: string,
  options: Omit<DiscoverOptions, "precedence"> = {},
): { readonly folders: readonly string[]; readonly diagnostics: readonly SkillDiagnostic[] } {
  const limits = limitsOf(options);
  const folders: { path: string; depth: number; rank: number }[] = [];
  const diagnostics: SkillDiagnostic[] = [];
  const seen = new Set<string>();
  expandRoots([{ scope: "", path: resolve(path) }], options, limits.fs).forEach((root, rank) =>
    scanRoot(
      root,
      limits,
      (folder, entry, _entries, within) => {
        // A SKILL.md linked to another folder's SKILL.md in the same root: that folder, once.
        const target = entry.isSymbolicLink()
          ? aliasTarget(folder, entry, within, limits.fs)
          : null;
        const real = target ?? folder.real;
        if (seen.has(real)) return;
        seen.add(real);
        folders.push({ path: target ?? folder.path, depth: folder.depth, rank });
      },
      diagnostics,
    )
  );
  folders.sort((a, b) => a.rank - b.rank || a.depth - b.depth || compare(a.path, b.path));
  return Object.freeze({
    folders: Object.freeze(folders.map((f) => f.path)),
    diagnostics: Object.freeze(diagnostics),
  });
}

function limitsOf(options: Omit<DiscoverOptions, "precedence">): Limits {
  const skipFolders = options.skipFolders ?? DEFAULT_SKIP_FOLDERS;
  if (!Array.isArray(skipFolders) || skipFolders.some((n) => typeof n !== "string")) {
    throw new TypeError("skipFolders must be a list of folder names");
  }
  return {
    maxDepth: bound(options.maxDepth, DEFAULT_MAX_DEPTH, 0, "maxDepth"),
    maxFolders: bound(options.maxFolders, DEFAULT_MAX_FOLDERS, 1, "maxFolders"),
    fs: options.fs ?? nodeDiscoveryFileSystem,
    skip: new Set(skipFolders),
  };
}

/** Each root, preceded by the conventional client folders that exist under it. */
function expandRoots(
  roots: readonly SkillRoot[],
  options: Omit<DiscoverOptions, "precedence">,
  fs: DiscoveryFileSystem,
): ScanRoot[] {
  const conventional = options.conventionalRoots === true
    ? DEFAULT_CONVENTIONAL_ROOTS
    : Array.isArray(options.conventionalRoots)
    ? options.conventionalRoots
    : [];
  const out: ScanRoot[] = [];
  for (const root of roots) {
    const apart = new Set<string>();
    let within: string | null = null;
    for (const relative of conventional) {
      const path = join(root.path, relative);
      let real: string;
      try {
        real = fs.realpath(path);
        if (!fs.isDirectory(real)) continue;
        within ??= fs.realpath(root.path);
      } catch {
        continue;
      }
      if (apart.has(real)) continue;
      apart.add(real);
      out.push({ scope: root.scope, path, within, scannedApart: new Set() });
    }
    out.push({ ...root, within: null, scannedApart: apart });
  }
  return out;
}

function bound(value: number | undefined, fallback: number, min: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${name} must be a whole number of at least ${min}, got ${String(value)}`);
  }
  return value;
}

function orderRoots(
  roots: readonly SkillRoot[],
  precedence: readonly string[] | undefined,
): SkillRoot[] {
  if (!Array.isArray(roots)) throw new TypeError("Roots must be a list of { scope, path }");
  for (const root of roots as readonly unknown[]) {
    const r = root as Partial<SkillRoot> | null;
    if (
      typeof r !== "object" || r === null || typeof r.scope !== "string" || r.scope === "" ||
      typeof r.path !== "string" || r.path === ""
    ) {
      throw new TypeError("Each root must be { scope, path } with non-empty strings");
    }
  }
  const rank = new Map<string, number>();
  for (const scope of precedence ?? []) {
    if (rank.has(scope)) {
      throw new RangeError(`Scope ${JSON.stringify(scope)} is named twice in precedence`);
    }
    if (!roots.some((r) => r.scope === scope)) {
      throw new RangeError(
        `Scope ${JSON.stringify(scope)} in precedence has no root (scopes: ${
          [...new Set(roots.map((r) => r.scope))].map((s) => JSON.stringify(s)).join(", ")
        })`,
      );
    }
    rank.set(scope, rank.size);
  }
  for (const root of roots) if (!rank.has(root.scope)) rank.set(root.scope, rank.size);
  return roots.map((root, i) => ({ root, i })).sort((a, b) =>
    rank.get(a.root.scope)! - rank.get(b.root.scope)! || a.i - b.i
  ).map(({ root }) => ({ scope: root.scope, path: resolve(root.path) }));
}
