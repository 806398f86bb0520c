/**
 * Where a server's skills come from: skill folders given as paths (each a
 * skill, or a folder of skills), loaded strictly; or a discovery, run again
 * on every reload, loaded leniently.
 *
 * Folder `lib/mcp/` — skills over MCP behind `lib/mcp.ts`: serve, consume, watch, HTTP, remote trust.
 *
 * @module
 */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { Discovery } from "../fs/discovery/discovery.ts";
import { isSkillFolder } from "../fs/load/skill_folder.ts";

/** Where the skills come from: folders loaded strictly, or discovery loaded leniently. */
export type Source =
  | { readonly kind: "folders"; readonly folders: readonly string[] }
  | { readonly kind: "discovery"; readonly discover: () => Discovery };

/**
 * The source of `serveSkills`' first argument, folders resolved from the working folder now.
 *
 * @param folders Skill folders (or folders of skills), a discovery, or a function that discovers.
 * @returns The source.
 */
export function sourceOf(folders: readonly string[] | Discovery | (() => Discovery)): Source {
  return folders instanceof Discovery
    ? { kind: "discovery", discover: () => folders }
    : typeof folders === "function"
    ? { kind: "discovery", discover: folders }
    : { kind: "folders", folders: folders.map((f) => resolve(f)) };
}

/**
 * The skill folders of a source now: for folders, each skill folder given
 * and the skills directly inside the others ({@linkcode skillFolders}); for a
 * discovery, a new discovery's winners (resolved; an alias as its real folder).
 *
 * @param source Where the skills come from.
 * @returns Skill folders, in order.
 */
export function sourceFolders(source: Source): string[] {
  return source.kind === "folders"
    ? skillFolders(source.folders)
    : source.discover().skills.map((s) => resolve(s.alias ? s.real_path : s.path));
}

/**
 * Each argument is a skill folder, or a folder whose direct sub-folders are skills (sorted).
 *
 * @param folders Folders given as paths.
 * @returns The skill folders, in order.
 */
export function skillFolders(folders: readonly string[]): string[] {
  const out: string[] = [];
  for (const folder of folders) {
    if (isSkillFolder(folder)) {
      out.push(folder);
      continue;
    }
    let names: string[];
    try {
      names = readdirSync(folder, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !e.name.startsWith("."))
        .map((e) => e.name)
        .sort();
    } catch {
      // Not a readable folder: loaded as a skill, for the loader's clear error.
      out.push(folder);
      continue;
    }
    // A folder without skills serves none (yet: --watch picks up skills added later).
    out.push(...names.map((n) => join(folder, n)).filter(isSkillFolder));
  }
  return out;
}
