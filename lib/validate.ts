/**
 * `validate`: check catalogs and Agent Skill folders, collecting errors and
 * warnings with file, line and column. Exported from `./load`.
 *
 * @module
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { type Catalog, catalogFiles, loadCatalog } from "./catalog.ts";
import {
  AgentSkillError,
  formatLocation,
  InvalidResourcePathError,
  SkillDefinitionError,
  type SourceLocation,
  withoutLocation,
} from "./errors.ts";
import { includeGraph } from "./include_graph.ts";
import { isSkillFolder, type LoadedSkill, loadSkillFolder } from "./skill_folder.ts";
import { effectiveClass, normalizeResourcePath } from "./resource_path.ts";
import { includeName } from "./skill.ts";

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
 * Validate catalogs (files or folders) and Agent Skill folders (or folders of them).
 *
 * @param paths What to check.
 * @returns Every finding, in the order met.
 */
export function validatePaths(paths: readonly string[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const path of paths) validatePath(resolve(path), out, seen);
  return out;
}

function validatePath(path: string, out: Diagnostic[], seen: Set<string>): void {
  if (!existsSync(path)) {
    out.push({ file: path, severity: "error", message: "no such file or folder" });
    return;
  }
  if (!statSync(path).isDirectory()) {
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
  for (const child of subfolders(path)) {
    if (isSkillFolder(child)) {
      found = true;
      validateSkillFolder(child, out, seen);
    }
  }
  if (!found) {
    out.push({
      file: path,
      severity: "warning",
      message: "nothing to validate (no catalog files and no skill folders)",
    });
  }
}

/** Sub-folders of `dir`, sorted, so the output is stable. */
function subfolders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => join(dir, name));
}

function validateCatalog(path: string, out: Diagnostic[], seen: Set<string>): void {
  let catalog: Catalog;
  try {
    catalog = loadCatalog(path);
  } catch (e) {
    if (!(e instanceof SkillDefinitionError)) throw e;
    out.push(fromError(e, e.location, path));
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
 * over, the body's length, and links in the body.
 */
function validateSkillFolder(dir: string, out: Diagnostic[], seen: Set<string>): void {
  if (seen.has(dir)) return;
  seen.add(dir);
  let skill: LoadedSkill;
  try {
    skill = loadSkillFolder(dir);
  } catch (e) {
    if (!(e instanceof AgentSkillError)) throw e;
    out.push(fromError(e, e.location, join(dir, "SKILL.md")));
    return;
  }
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
  lines.forEach((text, i) => {
    for (const { target, column } of linksIn(text)) {
      const here = { file: skill.skillMdPath, line: skill.bodyLine + i, column };
      let path: string;
      try {
        path = normalizeResourcePath(target);
      } catch (e) {
        if (!(e instanceof InvalidResourcePathError)) throw e;
        out.push(
          at(here, "warning", `Link to "${target}" is not a path inside the skill: ${e.message}`),
        );
        continue;
      }
      const file = skill.files.get(path);
      if (file === undefined) {
        if (!isFolderPrefix(skill, path)) {
          out.push(at(here, "warning", `Link to "${target}" points to a missing file`));
        }
        continue;
      }
      if (file.outside_root === true) {
        out.push(
          at(
            here,
            "warning",
            `Link to "${target}" leads outside the skill folder; it is never readable`,
          ),
        );
      } else if (effectiveClass(path, file.real_path) === "nonstandard") {
        out.push(
          at(
            here,
            "warning",
            `Link to "${target}" points into a non-standard folder; it is hidden while the safety gate is closed`,
          ),
        );
      }
    }
  });
}

function isFolderPrefix(skill: LoadedSkill, path: string): boolean {
  for (const key of skill.files.keys()) if (key.startsWith(`${path}/`)) return true;
  return false;
}

const MARKDOWN_LINK = /\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const BARE_PATH = /(?<![\w./-])((?:references|assets|scripts)\/[^\s`'"()<>\]]+)/g;

/** Relative link targets in one line of markdown, with their 1-based columns. */
function linksIn(line: string): { target: string; column: number }[] {
  const found = new Map<number, string>();
  for (const m of line.matchAll(MARKDOWN_LINK)) {
    const raw = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith("#") || raw.startsWith("/")) continue;
    const target = decodeTarget(raw.replace(/[#?].*$/, ""));
    if (target !== "") found.set(m.index! + m[0].indexOf(raw) + 1, target);
  }
  for (const m of line.matchAll(BARE_PATH)) {
    const column = m.index! + 1;
    if ([...found.keys()].some((c) => c === column)) continue;
    const target = m[1]!.replace(/[.,;:!?]+$/, "");
    if (!line.slice(0, m.index).endsWith("](")) found.set(column, target);
  }
  return [...found].sort((a, b) => a[0] - b[0]).map(([column, target]) => ({ target, column }));
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
