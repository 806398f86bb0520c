/**
 * An npm package installed in the project as a skill source
 * (`npm:<package>[/<path>]`): found as Node finds a package — the
 * project's `node_modules`, then each parent folder's — without running
 * any of its code (a package folder that is a link, as pnpm and workspaces
 * make them, must stay inside the folder holding that `node_modules`); its
 * skills are those under `skills/` (the convention
 * pnpm and skills-npm read), or under `<path>` when one is given. What the
 * package holds is as hostile as a cloned repository: its name must be
 * the one asked for, its `package.json` is read raw and capped, the skills
 * folder and every folder on the way to it must be real folders of the
 * package (never links), and the skill folders are then staged with the
 * same defences as any source. The version installed is the package's
 * own; the integrity is the package lock's (`node_modules/.package-lock.json`,
 * else `package-lock.json`), taken only where the lock names that version.
 *
 * Folder `lib/fs/lifecycle/` — the lifecycle: add, outdated, update, remove from git and folder sources.
 *
 * @module
 */
import { lstatSync, realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { isInside, readRegularFile } from "../_safe_open.ts";
import { INTEGRITY_PATTERN, PACKAGE_VERSION_PATTERN } from "../../core/trust/installed_from.ts";
import { SkillSourceError } from "./skill_source_error.ts";

/** The prefix of an npm source. */
export const NPM_PREFIX = "npm:";
/** The most bytes of a package's `package.json` read. */
const PACKAGE_JSON_LIMIT = 1024 * 1024;
/** The most bytes of a package lock read. */
const PACKAGE_LOCK_LIMIT = 128 * 1024 * 1024;
/** The folder a package ships its skills in, by convention. */
export const SKILLS_FOLDER = "skills";
/** npm's package names: lowercase, URL-safe, at most 214 characters, scoped or not. */
const NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/;

/** An npm source as given: the package and the folder of its skills inside it. */
export interface NpmSpec {
  readonly name: string;
  /** `/`-separated, relative to the package's folder. */
  readonly folder: string;
}

/** A package found in `node_modules`. */
export interface NpmPackage extends NpmSpec {
  /** The package's folder, its real path. */
  readonly root: string;
  /** Its `package.json`'s version. */
  readonly version: string;
  /** The package lock's integrity for that version, when it has one. */
  readonly integrity?: string;
}

function unsafe(message: string): SkillSourceError {
  return new SkillSourceError("UNSAFE_SOURCE", message);
}

/**
 * Parse `npm:<package>[/<path>]`.
 *
 * @param url The source, with its prefix.
 * @returns The package's name and the folder of its skills.
 * @throws {SkillSourceError} `UNSAFE_SOURCE` for a name npm would not publish or a path
 *   with empty, `.` or `..` parts, a backslash or a control character.
 */
export function parseNpmSource(url: string): NpmSpec {
  const parts = url.slice(NPM_PREFIX.length).split("/");
  const scoped = parts[0]?.startsWith("@") === true;
  const name = parts.slice(0, scoped ? 2 : 1).join("/");
  const rest = parts.slice(scoped ? 2 : 1);
  if (name.length > 214 || !NAME.test(name)) {
    throw unsafe(`Source ${JSON.stringify(url)} does not name an npm package`);
  }
  const bad = (p: string): boolean =>
    // deno-lint-ignore no-control-regex
    p === "" || p === "." || p === ".." || /[\\\x00-\x1f\x7f]/.test(p);
  if (rest.some(bad)) {
    throw unsafe(
      `Source ${
        JSON.stringify(url)
      } names a folder of the package that is not a plain relative path`,
    );
  }
  return Object.freeze({ name, folder: rest.length === 0 ? SKILLS_FOLDER : rest.join("/") });
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A JSON file of the project, read raw and capped; undefined when absent or not JSON. */
function readJson(path: string, limit: number): unknown {
  let bytes: Uint8Array;
  try {
    bytes = readRegularFile(path, limit);
  } catch {
    return undefined;
  }
  if (bytes.length > limit) return undefined;
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
}

function field(o: unknown, key: string): unknown {
  return typeof o === "object" && o !== null && !Array.isArray(o) && Object.hasOwn(o, key)
    ? (o as Record<string, unknown>)[key]
    : undefined;
}

/** The integrity a package lock of `base` records for `key` at `version`. */
function integrityOf(base: string, key: string, version: string): string | undefined {
  for (
    const lock of [
      join(base, "node_modules", ".package-lock.json"),
      join(base, "package-lock.json"),
    ]
  ) {
    const entry = field(field(readJson(lock, PACKAGE_LOCK_LIMIT), "packages"), key);
    if (entry === undefined) continue;
    const integrity = field(entry, "integrity");
    if (field(entry, "version") !== version || typeof integrity !== "string") return undefined;
    return INTEGRITY_PATTERN.test(integrity) ? integrity : undefined;
  }
  return undefined;
}

/**
 * Find an installed package as Node does (from the project's real path,
 * `node_modules/<name>` in it and then in each parent folder; the package
 * folder may be a link, as pnpm and workspaces make them, if it stays inside
 * the folder holding that `node_modules`) and check it.
 *
 * @param spec The package and the folder of its skills.
 * @param cwd The project.
 * @returns The package, its version and integrity.
 * @throws {SkillSourceError} `NO_SKILL` when no `node_modules` up the tree holds it or its
 *   skills folder is missing; `UNSAFE_SOURCE` when its `package.json` is unreadable, over
 *   1 MiB, or names another package or no version; `LINK_OUT` when the package folder is a
 *   link out of the folder holding its `node_modules`, or the skills folder (or a folder on
 *   the way to it) is a link.
 */
export function findNpmPackage(spec: NpmSpec, cwd: string): NpmPackage {
  let dir: string;
  try {
    dir = realpathSync(cwd);
  } catch {
    dir = cwd;
  }
  let found: { base: string; folder: string } | undefined;
  for (;;) {
    const folder = join(dir, "node_modules", ...spec.name.split("/"));
    if (isFolder(folder)) {
      found = { base: dir, folder };
      break;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const source = `npm:${spec.name}`;
  if (found === undefined) {
    throw new SkillSourceError(
      "NO_SKILL",
      `Package ${JSON.stringify(spec.name)} is not installed in a node_modules folder of ${
        JSON.stringify(cwd)
      } or above`,
    );
  }
  const root = realpathSync(found.folder);
  // A package folder may be a link (pnpm's store, a workspace), but into the project's own tree.
  if (!isInside(found.base, root)) {
    throw new SkillSourceError(
      "LINK_OUT",
      `Package folder of ${JSON.stringify(spec.name)} is a link out of ${
        JSON.stringify(found.base)
      }`,
    );
  }
  const manifest = readJson(join(root, "package.json"), PACKAGE_JSON_LIMIT);
  if (manifest === undefined) {
    throw unsafe(
      `Package ${JSON.stringify(spec.name)} has no readable package.json of at most 1 MiB`,
    );
  }
  const name = field(manifest, "name");
  if (name !== spec.name) {
    throw unsafe(
      `Package folder of ${JSON.stringify(spec.name)} names itself ${JSON.stringify(name ?? null)}`,
    );
  }
  const version = field(manifest, "version");
  if (typeof version !== "string" || !PACKAGE_VERSION_PATTERN.test(version)) {
    throw unsafe(`Package ${JSON.stringify(spec.name)} states no usable version`);
  }
  let at = root;
  for (const part of spec.folder.split("/")) {
    at = join(at, part);
    let stat;
    try {
      stat = lstatSync(at);
    } catch {
      throw new SkillSourceError(
        "NO_SKILL",
        `Package ${JSON.stringify(spec.name)} ${version} has no folder ${
          JSON.stringify(spec.folder)
        }`,
      );
    }
    if (stat.isSymbolicLink()) {
      throw new SkillSourceError(
        "LINK_OUT",
        `Source ${JSON.stringify(source)}: ${JSON.stringify(spec.folder)} passes through a link`,
      );
    }
    if (!stat.isDirectory()) {
      throw new SkillSourceError(
        "NO_SKILL",
        `Package ${JSON.stringify(spec.name)} ${version} has no folder ${
          JSON.stringify(spec.folder)
        }`,
      );
    }
  }
  const key = ["node_modules", ...spec.name.split("/")].join("/");
  const integrity = integrityOf(found.base, key, version);
  return Object.freeze({
    ...spec,
    root,
    version,
    ...integrity === undefined ? {} : { integrity },
  });
}
