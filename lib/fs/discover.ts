/**
 * Discovery: find every Agent Skill a runtime should see under ordered scopes
 * (project `.agents/skills`, user `~/.agents/skills`, configured paths …),
 * within bounds, following symbolic links to skill folders with a cycle guard,
 * in an order that never depends on the order the file system lists entries;
 * resolve name clashes by scope and report every skill that lost. SKILL.md
 * files are read leniently: a rule break is a diagnostic, not a lost skill.
 *
 * | step | cost |
 * |---|---|
 * | scan a root | one `readdir` per folder (at most `maxFolders`), one `realpath` per linked folder |
 * | each skill | one read of its SKILL.md and one frontmatter parse |
 * | {@linkcode Discovery.bundle} | the first call per name lists the skill folder; later calls are O(1) |
 *
 * @module
 */
import { basename, dirname, join, resolve, sep } from "node:path";
import { AgentSkillError } from "../core/errors.ts";
import type { SafetyFlags } from "../core/gate.ts";
import { effectiveClass, type ResourceClassMap, resourceClassMap } from "../core/resource_path.ts";
import { gatedReferences } from "./_references.ts";
import {
  diagnostic,
  diagnosticFromError,
  type SkillDiagnostic,
  type SkillDiagnosticCode,
} from "./skill_diagnostic.ts";
import { MAX_SKILL_MD_BYTES } from "./skill_folder.ts";
import { parseSkillMd } from "./skill_md.ts";
import { skillsAvailable } from "../core/policy/requirements.ts";
import {
  type DiscoveredSkill,
  Discovery,
  type DiscoveryEntry,
  type DiscoveryFileSystem,
  type NameConflict,
  nodeDiscoveryFileSystem,
  type ShadowedSkill,
  type SkillPlace,
  type SkippedSkill,
} from "./discovery.ts";

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
const SKILL_MD_NAMES = ["SKILL.md", "skill.md"] as const;

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
 * code-unit order — and the clash is also a {@linkcode NameConflict}. Every
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
 * import { assert } from "../core/_assert.ts";
 *
 * const examples = new URL("../../examples", import.meta.url).pathname;
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
  if (options.availableTools === undefined) return settled;
  const { available, hidden } = skillsAvailable(settled.skills, options.availableTools);
  return new Discovery({ ...settled, skills: available, unavailable: hidden }, limits.fs, load);
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
 * import { assert } from "../core/_assert.ts";
 *
 * const examples = new URL("../../examples", import.meta.url).pathname;
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

/** A skill folder met by the scan. */
interface Found {
  readonly place: SkillPlace;
  readonly rank: number;
  readonly depth: number;
  /** The loaded skill, or `null` when skipped. */
  readonly skill: DiscoveredSkill | null;
  readonly diagnostics: readonly SkillDiagnostic[];
}

/** A folder waiting to be listed. */
interface Folder {
  readonly path: string;
  readonly real: string;
  readonly depth: number;
  readonly parent: Folder | null;
  /** The nearest skill folder above it (as reached), or `null`. */
  readonly skill: string | null;
}

interface Limits {
  readonly maxDepth: number;
  readonly maxFolders: number;
  readonly fs: DiscoveryFileSystem;
  readonly skip: ReadonlySet<string>;
}

/** A root as scanned: a conventional root knows the root it lies in (links may lead anywhere inside that). */
interface ScanRoot extends SkillRoot {
  /** The real path a SKILL.md link must stay inside to be an alias (`null`: the root's own real path). */
  readonly within: string | null;
  /** Real folders scanned as roots of their own (conventional roots): not entered again, silently. */
  readonly scannedApart: ReadonlySet<string>;
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

function scanRoot(
  root: ScanRoot,
  limits: Limits,
  onSkill: (
    folder: Folder,
    skillMd: DiscoveryEntry,
    entries: readonly DiscoveryEntry[],
    within: string,
  ) => void,
  diagnostics: SkillDiagnostic[],
): void {
  const { fs, maxDepth, maxFolders, skip } = limits;
  let real: string;
  try {
    real = fs.realpath(root.path);
    if (!fs.isDirectory(real)) throw new Error("not a folder");
  } catch (e) {
    diagnostics.push(
      isPermissionError(e)
        ? diagnostic(
          "error",
          "PERMISSION_DENIED",
          root.path,
          `Permission denied: ${JSON.stringify(root.path)} cannot be read; scope ${
            JSON.stringify(root.scope)
          } has nothing from there`,
        )
        : diagnostic(
          "info",
          "ROOT_NOT_FOUND",
          root.path,
          `No folder at ${JSON.stringify(root.path)}; scope ${
            JSON.stringify(root.scope)
          } has nothing there`,
        ),
    );
    return;
  }
  const within = root.within ?? real;
  const visited = new Set<string>([real]);
  const queue: Folder[] = [{ path: root.path, real, depth: 0, parent: null, skill: null }];
  for (let head = 0; head < queue.length; head++) {
    if (head === maxFolders) {
      const left = queue.length - head;
      diagnostics.push(
        diagnostic(
          "warning",
          "FOLDER_LIMIT",
          root.path,
          `Stopped after listing ${maxFolders} folders under ${
            JSON.stringify(root.path)
          }: ${left} more ${left === 1 ? "was" : "were"} not scanned, from ${
            JSON.stringify(queue[head]!.path)
          } on (raise maxFolders to see them)`,
        ),
      );
      break;
    }
    const folder = queue[head]!;
    let entries: readonly DiscoveryEntry[];
    try {
      entries = fs.readdir(folder.real);
    } catch (e) {
      diagnostics.push(
        isPermissionError(e)
          ? diagnostic(
            folder.depth === 0 ? "error" : "warning",
            "PERMISSION_DENIED",
            folder.path,
            `Permission denied: folder ${JSON.stringify(folder.path)} cannot be listed; skipped`,
          )
          : diagnostic(
            "warning",
            "FOLDER_UNREADABLE",
            folder.path,
            `Folder ${JSON.stringify(folder.path)} could not be listed (${errorCode(e)}); skipped`,
          ),
      );
      continue;
    }
    const skillMd = skillMdEntry(entries);
    if (skillMd !== undefined) onSkill(folder, skillMd, entries, within);
    const skillAbove = skillMd !== undefined ? folder.path : folder.skill;
    // Only folders and links can lead further: files are not sorted or joined.
    const sorted = entries.filter((e) => e !== skillMd && (e.isDirectory() || e.isSymbolicLink()))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let tooDeep = 0;
    for (const entry of sorted) {
      const name = entry.name;
      const path = join(folder.path, name);
      let childReal: string;
      if (entry.isDirectory()) {
        childReal = `${folder.real}${folder.real.endsWith(sep) ? "" : sep}${name}`;
      } else if (entry.isSymbolicLink()) {
        try {
          childReal = fs.realpath(path);
        } catch (e) {
          const why = errorCode(e) === "ELOOP" ? "loops" : "is broken";
          diagnostics.push(
            diagnostic(
              "warning",
              "BROKEN_LINK",
              path,
              `Link ${JSON.stringify(path)} ${why}; skipped`,
            ),
          );
          continue;
        }
        if (!isDirectory(fs, childReal)) continue;
      } else {
        continue;
      }
      if (skip.has(name)) {
        diagnostics.push(
          diagnostic(
            "info",
            "SKIPPED_FOLDER",
            path,
            `Folder ${JSON.stringify(path)} is on the skip list; not entered`,
          ),
        );
        continue;
      }
      if (root.scannedApart.has(childReal)) continue; // scanned as a root of its own
      if (visited.has(childReal)) {
        if (isAncestor(folder, childReal)) {
          diagnostics.push(
            diagnostic(
              "warning",
              "LINK_CYCLE",
              path,
              `Link ${JSON.stringify(path)} leads back to ${
                JSON.stringify(childReal)
              }, which contains it; not followed`,
            ),
          );
        } else {
          diagnostics.push(
            diagnostic(
              "info",
              "SAME_FOLDER",
              path,
              `${JSON.stringify(path)} is a folder already reached under ${
                JSON.stringify(root.path)
              }; scanned once`,
            ),
          );
        }
        continue;
      }
      if (folder.depth + 1 > maxDepth) {
        tooDeep++;
        continue;
      }
      visited.add(childReal);
      queue.push({
        path,
        real: childReal,
        depth: folder.depth + 1,
        parent: folder,
        skill: skillAbove,
      });
    }
    if (tooDeep > 0) {
      diagnostics.push(
        diagnostic(
          // Below a skill, the folders cut off are its resources (and at most nested skills): info.
          skillAbove === null ? "warning" : "info",
          "DEPTH_LIMIT",
          folder.path,
          `${tooDeep} sub-folder${tooDeep === 1 ? "" : "s"} of ${JSON.stringify(folder.path)} ${
            tooDeep === 1 ? "is" : "are"
          } deeper than ${maxDepth} under ${
            JSON.stringify(root.path)
          }; not scanned (raise maxDepth to see them)`,
        ),
      );
    }
  }
}

/** Whether an error says permission was refused (EACCES, EPERM, or Deno's missing `--allow-read`). */
function isPermissionError(e: unknown): boolean {
  const { code, name } = (e ?? {}) as { code?: unknown; name?: unknown };
  return code === "EACCES" || code === "EPERM" || name === "NotCapable" ||
    name === "PermissionDenied";
}

function skillMdEntry(entries: readonly DiscoveryEntry[]): DiscoveryEntry | undefined {
  let lower: DiscoveryEntry | undefined;
  for (const entry of entries) {
    if (entry.name === SKILL_MD_NAMES[0]) return entry;
    if (entry.name === SKILL_MD_NAMES[1]) lower = entry;
  }
  return lower;
}

function isDirectory(fs: DiscoveryFileSystem, path: string): boolean {
  try {
    return fs.isDirectory(path);
  } catch {
    return false;
  }
}

/** Whether `real` is the real path of `folder` or of a folder the walk passed to reach it. */
function isAncestor(folder: Folder, real: string): boolean {
  for (let f: Folder | null = folder; f !== null; f = f.parent) if (f.real === real) return true;
  return false;
}

/** The real folder whose SKILL.md a linked SKILL.md leads to, when it is another folder inside `within`. */
function aliasTarget(
  folder: Folder,
  entry: DiscoveryEntry,
  within: string,
  fs: DiscoveryFileSystem,
): string | null {
  let real: string;
  try {
    real = fs.realpath(join(folder.real, entry.name));
  } catch {
    return null;
  }
  return !inside(folder.real, real) && inside(within, real) &&
      (SKILL_MD_NAMES as readonly string[]).includes(basename(real))
    ? dirname(real)
    : null;
}

function inside(folder: string, real: string): boolean {
  return real.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

function readSkill(
  root: SkillRoot,
  rank: number,
  folder: Folder,
  entry: DiscoveryEntry,
  entries: readonly DiscoveryEntry[],
  within: string,
  fs: DiscoveryFileSystem,
  classes: ResourceClassMap,
  safety: SafetyFlags,
): Found {
  const skillMd = join(folder.path, entry.name);
  let place: SkillPlace = Object.freeze({
    scope: root.scope,
    path: folder.path,
    real_path: folder.real,
    skill_md: skillMd,
    nested: folder.skill !== null,
    parent: folder.skill,
    alias: false,
  });
  const skip = (code: SkillDiagnosticCode, d: SkillDiagnostic | string): Found => ({
    place,
    rank,
    depth: folder.depth,
    skill: null,
    diagnostics: Object.freeze([typeof d === "string" ? diagnostic("error", code, skillMd, d) : d]),
  });
  let real = `${folder.real}${folder.real.endsWith(sep) ? "" : sep}${entry.name}`;
  let topLevel: readonly DiscoveryEntry[] = entries;
  if (entry.isSymbolicLink()) {
    try {
      real = fs.realpath(real);
    } catch (e) {
      return skip(
        "SKILL_MD_UNREADABLE",
        `Skipped: ${entry.name} is a broken link (${errorCode(e)})`,
      );
    }
    if (inside(folder.real, real)) {
      // The loader's rule: instructions from a folder the gate guards are refused, whatever the switches.
      const relative = real.slice(folder.real.length + (folder.real.endsWith(sep) ? 0 : 1));
      const normal = sep === "/" ? relative : relative.split(sep).join("/");
      if (effectiveClass(entry.name, normal, classes) === "nonstandard") {
        return skip(
          "SKILL_MD_UNREADABLE",
          `Skipped: ${entry.name} is a link into the non-standard folder ${
            JSON.stringify(normal.split("/")[0])
          }, which the safety gate guards`,
        );
      }
    } else if (
      inside(within, real) && (SKILL_MD_NAMES as readonly string[]).includes(basename(real))
    ) {
      // Another folder's SKILL.md in the same root: that folder's skill, reached again.
      const target = dirname(real);
      place = Object.freeze({ ...place, real_path: target, alias: true });
      let targetEntries: readonly DiscoveryEntry[];
      try {
        targetEntries = fs.readdir(target);
      } catch (e) {
        return skip(
          "SKILL_MD_UNREADABLE",
          `Skipped: ${entry.name} links to a folder that could not be listed (${errorCode(e)})`,
        );
      }
      topLevel = targetEntries;
    } else {
      return skip(
        "SKILL_MD_UNREADABLE",
        `Skipped: ${entry.name} is a link that leads outside the skill folder, and not to the ` +
          "SKILL.md of another folder of the same root",
      );
    }
  }
  let bytes: Uint8Array;
  try {
    bytes = fs.readFile(real, MAX_SKILL_MD_BYTES);
  } catch (e) {
    if (isPermissionError(e)) {
      return skip(
        "PERMISSION_DENIED",
        `Skipped: permission denied reading ${entry.name}`,
      );
    }
    return skip(
      "SKILL_MD_UNREADABLE",
      `Skipped: ${entry.name} could not be read (${errorCode(e)})`,
    );
  }
  if (bytes.length > MAX_SKILL_MD_BYTES) {
    return skip(
      "SKILL_MD_UNREADABLE",
      `Skipped: ${entry.name} is larger than the limit of ${MAX_SKILL_MD_BYTES} bytes`,
    );
  }
  try {
    const md = parseSkillMd(new TextDecoder().decode(bytes), {
      file: skillMd,
      folder: basename(place.alias ? place.real_path : folder.path),
      lenient: true,
    });
    const fm = md.frontmatter;
    const gated = gatedReferences(
      md.body,
      md.bodyLine,
      skillMd,
      topLevel.map((e) => e.name),
      new Set(topLevel.filter((e) => e.isDirectory()).map((e) => e.name)),
      safety,
      classes,
    );
    const all = gated.length === 0 ? md.diagnostics : Object.freeze([...md.diagnostics, ...gated]);
    return {
      place,
      rank,
      depth: folder.depth,
      skill: Object.freeze({
        name: fm.name,
        description: fm.description,
        ...place,
        frontmatter: fm,
        diagnostics: all,
      }),
      diagnostics: all,
    };
  } catch (e) {
    if (!(e instanceof AgentSkillError)) throw e;
    return skip("SKILL_SKIPPED", diagnosticFromError("error", "SKILL_SKIPPED", e, skillMd));
  }
}

function errorCode(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === "string") return code;
  return e instanceof Error ? e.message : String(e);
}

/** Order what the scan met, count each real folder once and settle name clashes. */
function settle(
  found: Found[],
  diagnostics: SkillDiagnostic[],
  fs: DiscoveryFileSystem,
  load: { resourceClasses: ResourceClassMap; safety: SafetyFlags },
): Discovery {
  found.sort((a, b) => a.rank - b.rank || a.depth - b.depth || compare(a.place.path, b.place.path));
  const byReal = new Map<string, Found>();
  const skills: DiscoveredSkill[] = [];
  const shadowed: ShadowedSkill[] = [];
  const skipped: SkippedSkill[] = [];
  const winners = new Map<string, { skill: DiscoveredSkill; index: number }>();
  const groups = new Map<string, string[]>();
  for (const f of found) {
    const first = byReal.get(f.place.real_path);
    if (first !== undefined) {
      diagnostics.push(
        diagnostic(
          "info",
          "SAME_FOLDER",
          f.place.path,
          `${JSON.stringify(f.place.path)} (scope ${
            JSON.stringify(f.place.scope)
          }) is the skill folder ${JSON.stringify(first.place.path)} (scope ${
            JSON.stringify(first.place.scope)
          }) again; counted once`,
        ),
      );
      continue;
    }
    byReal.set(f.place.real_path, f);
    if (f.skill === null) {
      skipped.push(Object.freeze({ ...f.place, diagnostics: f.diagnostics }));
      continue;
    }
    const skill = f.skill;
    const groupKey = JSON.stringify([skill.scope, skill.name]);
    const group = groups.get(groupKey);
    if (group === undefined) groups.set(groupKey, [skill.path]);
    else group.push(skill.path);
    const winner = winners.get(skill.name);
    if (winner === undefined) {
      winners.set(skill.name, { skill, index: skills.length });
      skills.push(skill);
      continue;
    }
    shadowed.push(Object.freeze({
      ...skill,
      winner: Object.freeze({ scope: winner.skill.scope, path: winner.skill.path }),
      same_scope: winner.skill.scope === skill.scope,
    }));
  }
  const conflicts: NameConflict[] = [];
  for (const [key, paths] of groups) {
    if (paths.length < 2) continue;
    const [scope, name] = JSON.parse(key) as [string, string];
    conflicts.push(Object.freeze({ name, scope, paths: Object.freeze(paths) }));
    const winner = winners.get(name)!;
    if (winner.skill.scope !== scope) continue;
    const others = paths.slice(1).map((p) => JSON.stringify(p)).join(", ");
    skills[winner.index] = Object.freeze({
      ...winner.skill,
      diagnostics: Object.freeze([
        ...winner.skill.diagnostics,
        diagnostic(
          "warning",
          "NAME_CONFLICT",
          winner.skill.skill_md,
          `${paths.length} skills of scope ${JSON.stringify(scope)} are named ${
            JSON.stringify(name)
          }; this one is used, not ${others}`,
        ),
      ]),
    });
  }
  return new Discovery({ skills, shadowed, conflicts, skipped, diagnostics }, fs, load);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
