/**
 * `validate`: check catalogs and Agent Skill folders, collecting errors and
 * warnings with file, line and column. Exported from `./load`.
 *
 * @module
 */
import { type Stats, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { type Catalog, catalogFiles, loadCatalog } from "./catalog.ts";
import {
  AgentSkillError,
  formatLocation,
  InvalidResourcePathError,
  SkillDefinitionError,
  type SourceLocation,
  withoutLocation,
} from "../core/errors.ts";
import { findSkillFolders } from "./discover.ts";
import { includeGraph } from "../core/include_graph.ts";
import {
  _loadIfSkillMdListed,
  isSkillFolder,
  type LoadedSkill,
  loadSkillFolder,
} from "./skill_folder.ts";
import { classifyResource, effectiveClass, normalizeResourcePath } from "../core/resource_path.ts";
import { includeName } from "../core/skill.ts";

/** One finding. */
export interface Diagnostic {
  /** The file. */
  readonly file: string;
  /** The 1-based line, when known. */
  readonly line?: number;
  /** The 1-based column, when known. */
  readonly column?: number;
  /** How bad it is. */
  readonly severity: "error" | "warning";
  /** What is wrong. */
  readonly message: string;
}

/** SKILL.md bodies longer than this draw a warning. */
export const MAX_BODY_LINES = 500;

/**
 * Validate catalogs (files or folders) and Agent Skill folders (or folders
 * holding them at any depth, scanned like `discoverSkills`: depth 6, 2,000
 * folders; a bound hit is a warning). Each skill and each catalog is checked
 * on its own: one that cannot be
 * read is an error of its own and the others are still checked. Files are
 * named as the path was given: relative (to the working folder) for a
 * relative path, absolute for an absolute one.
 *
 * @param paths What to check.
 * @returns Every finding, in the order met.
 */
export function validatePaths(paths: readonly string[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const path of paths) {
    const first = out.length;
    validatePath(resolve(path), out, seen);
    if (!isAbsolute(path)) {
      for (let i = first; i < out.length; i++) {
        const d = out[i]!;
        if (isAbsolute(d.file)) out[i] = { ...d, file: relative(".", d.file) || "." };
      }
    }
  }
  return out;
}

function validatePath(path: string, out: Diagnostic[], seen: Set<string>): void {
  // The common case, a skill folder, is listed once — for the question and for
  // the load — before any stat: a path that is missing or not a folder declines.
  if (validateSkillFolder(path, out, seen, _loadIfSkillMdListed)) return;
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch {
    out.push({ file: path, severity: "error", message: "no such file or folder" });
    return;
  }
  if (!stat.isDirectory()) {
    const name = basename(path);
    if (name === "SKILL.md" || name === "skill.md") validateSkillFolder(dirname(path), out, seen);
    else validateCatalog(path, out, seen);
    return;
  }
  if (isSkillFolder(path)) {
    validateSkillFolder(path, out, seen);
    return;
  }
  let found = false;
  if (catalogFiles(path).length > 0) {
    found = true;
    validateCatalog(path, out, seen);
  }
  const scan = findSkillFolders(path);
  for (const d of scan.diagnostics) {
    if (d.severity !== "info") out.push({ file: d.path, severity: "warning", message: d.message });
  }
  for (const child of scan.folders) {
    found = true;
    validateSkillFolder(child, out, seen);
  }
  if (!found) {
    out.push({
      file: path,
      severity: "error",
      message: "Nothing to validate: no SKILL.md or skill.md in the folder, no catalog file " +
        "(.yaml, .yml, .json) in it, and no sub-folder holding a SKILL.md",
    });
  }
}

function validateCatalog(path: string, out: Diagnostic[], seen: Set<string>): void {
  let catalog: Catalog;
  try {
    catalog = loadCatalog(path);
  } catch (e) {
    out.push(
      e instanceof SkillDefinitionError ? fromError(e, e.location, path) : unreadable(e, path),
    );
    return;
  }
  const where = (skill: string, at: readonly (string | number)[]): SourceLocation =>
    catalog.locate(skill, at) ?? catalog.locations.get(skill) ?? { file: catalog.path };
  for (const [name, skill] of catalog.skills) {
    (skill.includes ?? []).forEach((include, i) => {
      const target = includeName(include);
      if (!catalog.skills.has(target)) {
        out.push(
          at(
            where(name, ["includes", i]),
            "error",
            `Unknown skill "${target}" included by "${name}"`,
          ),
        );
      }
    });
    const refs = new Set(skill.tool_refs ?? []);
    for (const key of Object.keys(skill.overrides ?? {})) {
      if (!refs.has(key)) {
        out.push(
          at(
            where(name, ["overrides", key]),
            "warning",
            `Override "${key}" of "${name}" matches no tool ref of that skill; it changes nothing`,
          ),
        );
      }
    }
    (skill.agent_skills ?? []).forEach((relative, i) => {
      const folder = resolve(catalog.base, relative);
      if (!isSkillFolder(folder)) {
        out.push(
          at(
            where(name, ["agent_skills", i]),
            "error",
            `Agent Skill folder "${relative}" of "${name}" not found (no SKILL.md in ${folder})`,
          ),
        );
      } else {
        validateSkillFolder(folder, out, seen);
      }
    });
  }
  for (const cycle of includeGraph(catalog.skills).cycles) {
    out.push(
      at(
        where(cycle[0]!, ["includes", includeIndex(catalog, cycle[0]!, cycle[1]!)]),
        "error",
        `Cycle detected in skill includes: ${cycle.join(" -> ")}`,
      ),
    );
  }
}

function includeIndex(catalog: Catalog, from: string, to: string): number {
  return (catalog.skills.get(from)?.includes ?? []).findIndex((inc) => includeName(inc) === to);
}

/**
 * Validate one Agent Skill folder: its SKILL.md, the entries the loader passed
 * over, the body's length, and links in the body. `load` may decline (return
 * `null`) before deciding anything: then nothing is reported and the result
 * is false.
 */
function validateSkillFolder(
  dir: string,
  out: Diagnostic[],
  seen: Set<string>,
  load: (dir: string) => LoadedSkill | null = loadSkillFolder,
): boolean {
  if (seen.has(dir)) return true;
  let skill: LoadedSkill | null;
  try {
    skill = load(dir);
  } catch (e) {
    seen.add(dir);
    out.push(
      e instanceof AgentSkillError
        ? fromError(e, e.location, join(dir, "SKILL.md"))
        : unreadable(e, dir),
    );
    return true;
  }
  if (skill === null) return false;
  seen.add(dir);
  for (const w of skill.warnings) {
    out.push({ file: join(skill.location, w.path), severity: "warning", message: w.message });
  }
  const lines = skill.instructions.split("\n");
  if (lines.length > MAX_BODY_LINES) {
    out.push({
      file: skill.skillMdPath,
      line: skill.bodyLine + MAX_BODY_LINES,
      column: 1,
      severity: "warning",
      message: `The SKILL.md body is ${lines.length} lines; keep it under ${MAX_BODY_LINES} ` +
        "and move detail into references/",
    });
  }
  const index = folderIndex(skill);
  const problems = new Map<string, string | null>(); // a path met again is checked once
  lines.forEach((text, i) => {
    for (const reference of referencesIn(text, index.topLevel)) {
      const here = { file: skill.skillMdPath, line: skill.bodyLine + i, column: reference.column };
      let problem = problems.get(reference.target);
      if (problem === undefined) {
        problem = referenceProblem(skill, index, reference.target);
        problems.set(reference.target, problem);
      }
      if (problem !== null) {
        const subject = reference.link
          ? `Link to ${JSON.stringify(reference.target)}`
          : `Path ${JSON.stringify(reference.target)}`;
        out.push(at(here, "warning", `${subject} ${problem}`));
      }
    }
  });
  return true;
}

/** What `validate` needs to know of a skill's files, built once per skill. */
interface FolderIndex {
  /** Every folder that holds a file, e.g. `references` and `references/x`. */
  readonly folders: ReadonlySet<string>;
  /** Files and folders by their lower-cased path. */
  readonly lowerCase: ReadonlyMap<string, string>;
  /** Names at the top level (files and folders), and the three standard folders. */
  readonly topLevel: ReadonlySet<string>;
}

function folderIndex(skill: LoadedSkill): FolderIndex {
  const folders = new Set<string>();
  const lowerCase = new Map<string, string>();
  const topLevel = new Set<string>(["references", "assets", "scripts"]);
  for (const path of skill.files.keys()) {
    lowerCase.set(path.toLowerCase(), path);
    const slash = path.indexOf("/");
    topLevel.add(slash < 0 ? path : path.slice(0, slash));
    for (let i = path.lastIndexOf("/"); i > 0; i = path.lastIndexOf("/", i - 1)) {
      const folder = path.slice(0, i);
      if (folders.has(folder)) break;
      folders.add(folder);
      lowerCase.set(folder.toLowerCase(), folder);
    }
  }
  return { folders, lowerCase, topLevel };
}

/** Why a referenced path would fail a model that follows it, or `null` when it is fine. */
function referenceProblem(skill: LoadedSkill, index: FolderIndex, target: string): string | null {
  // A listed path is already normal (the loader keys files by normal paths), so
  // the usual reference, to a file that is there, skips the normalising.
  let path = target;
  if (!skill.files.has(target) && !index.folders.has(target)) {
    try {
      path = normalizeResourcePath(target);
    } catch (e) {
      if (!(e instanceof InvalidResourcePathError)) throw e;
      return `is not a path inside the skill: ${e.message}`;
    }
  }
  const file = skill.files.get(path);
  if (file !== undefined) {
    if (file.outside_root === true) {
      return "leads outside the skill folder; it is never readable";
    }
    return effectiveClass(path, file.real_path) === "nonstandard" ? GATED : null;
  }
  if (index.folders.has(path)) {
    return classifyResource(`${path}/-`) === "nonstandard" ? GATED : null;
  }
  const other = index.lowerCase.get(path.toLowerCase());
  if (other !== undefined) {
    return `points to a missing file; ${JSON.stringify(other)} differs only in case`;
  }
  return "points to a missing file";
}

const GATED = "points into a non-standard folder; it is hidden while the safety gate is closed";

/** A path a model may follow, found in one line of the body. */
interface Reference {
  readonly target: string;
  /** 1-based. */
  readonly column: number;
  /** A markdown link target rather than a path in the text. */
  readonly link: boolean;
}

/** After `](`: an optional `<`, then the target (no brackets, so matches never overlap). */
const LINK_TARGET = /[ \t]*<?([^()\s<>[\]]+)/y;
/** Runs of characters that can be part of a path in prose or code spans. */
const TOKEN = /[^\s`'"()<>[\]{},;*|]+/g;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * The paths a model may follow in one line of markdown: markdown link targets
 * (relative, decoded, without `#…`/`?…`), and — in prose or in backticks —
 * relative paths with a `/` that start with `./` or `../`, start with a name
 * the folder has at its top level (or a standard folder), or end in a file
 * name with an extension. One pass each, linear in the line.
 */
function referencesIn(line: string, topLevel: ReadonlySet<string>): Reference[] {
  // Both scans meet columns in increasing order; the two lists are merged, not sorted.
  const links: Reference[] = [];
  for (let i = line.indexOf("]("); i >= 0; i = line.indexOf("](", i + 2)) {
    LINK_TARGET.lastIndex = i + 2;
    const m = LINK_TARGET.exec(line);
    if (m === null) continue;
    const raw = m[1]!;
    if (SCHEME.test(raw) || raw.startsWith("#") || raw.startsWith("/")) continue;
    const target = decodeTarget(raw.replace(/[#?].*$/, ""));
    const column = m.index + m[0].length - raw.length + 1;
    if (target !== "") links.push({ target, column, link: true });
  }
  const out: Reference[] = [];
  let next = 0;
  for (const m of line.matchAll(TOKEN)) {
    const column = m.index! + 1;
    while (next < links.length && links[next]!.column < column) out.push(links[next++]!);
    if (next < links.length && links[next]!.column === column) continue;
    const target = withoutTrailingPunctuation(m[0]);
    if (isPathLike(target, topLevel)) out.push({ target, column, link: false });
  }
  while (next < links.length) out.push(links[next++]!);
  return out;
}

function withoutTrailingPunctuation(token: string): string {
  let end = token.length;
  while (end > 0 && ".,:;!?".includes(token[end - 1]!)) end--;
  return token.slice(0, end);
}

function isPathLike(token: string, topLevel: ReadonlySet<string>): boolean {
  const slash = token.indexOf("/");
  if (slash <= 0 || SCHEME.test(token)) return false;
  if (token.startsWith("./") || token.startsWith("../")) return true;
  const first = token.slice(0, slash);
  if (topLevel.has(first)) return true;
  if (first.includes(".") || first.startsWith("~") || first.startsWith("$")) return false;
  return /\.[A-Za-z0-9]{1,10}$/.test(token.slice(token.lastIndexOf("/") + 1));
}

function decodeTarget(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function at(
  location: SourceLocation,
  severity: Diagnostic["severity"],
  message: string,
): Diagnostic {
  return {
    file: location.file,
    ...(location.line === undefined ? {} : { line: location.line }),
    ...(location.column === undefined ? {} : { column: location.column }),
    severity,
    message,
  };
}

/** A skill or catalog that failed in another way than a rule: this module's message, or a system error's code. */
function unreadable(error: unknown, path: string): Diagnostic {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  const message = error instanceof Error && typeof syscall !== "string"
    ? error.message
    : `Cannot be read (${typeof code === "string" ? code : String(error)})`;
  return { file: path, severity: "error", message };
}

function fromError(
  error: Error,
  location: SourceLocation | undefined,
  fallback: string,
): Diagnostic {
  return at(location ?? { file: fallback }, "error", withoutLocation(error.message, location));
}

/**
 * Write a finding as editors link it.
 *
 * @param d A finding.
 * @returns `file:line:col: error|warning: message`.
 */
export function formatDiagnostic(d: Diagnostic): string {
  return `${formatLocation(d)}: ${d.severity}: ${d.message}`;
}
