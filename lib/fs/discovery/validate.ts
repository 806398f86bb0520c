/**
 * `validate`: check catalogs and Agent Skill folders, collecting errors and
 * warnings with file, line and column. Exported from `./load`.
 *
 * Folder `lib/fs/discovery/` — discovery over roots and what it found: walk, diagnostics, validation.
 *
 * @module
 */
import { type Stats, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import {
  _loadCatalogFiles,
  type Catalog,
  catalogFiles,
  isCatalogFile,
  loadCatalog,
} from "../load/catalog.ts";
import {
  gatedReferenceMessage,
  headingFolder,
  isArchivePart,
  isCodeData,
  isGlob,
  isHeading,
  isOutputPath,
  isPlaceholder,
  isProgramDefault,
  isProseWords,
  isUserPlaceholder,
  isWritten,
  referencesIn,
} from "./_references.ts";
import { decideAccess, type SafetyFlags } from "../../core/resources/gate.ts";
import { type ResourceClassMap, resourceClassMap } from "../../core/resources/resource_path.ts";
import {
  AgentSkillError,
  formatLocation,
  InvalidResourcePathError,
  SkillDefinitionError,
  type SourceLocation,
  withoutLocation,
} from "../../core/errors.ts";
import { findSkillFolders } from "./discover.ts";
import { includeGraph } from "../../core/resolver/include_graph.ts";
import {
  _loadIfSkillMdListed,
  isSkillFolder,
  type LoadedSkill,
  loadSkillFolder,
} from "../load/skill_folder.ts";
import {
  classifyResource,
  effectiveClass,
  normalizeResourcePath,
} from "../../core/resources/resource_path.ts";
import type { SkillDiagnosticCode } from "./skill_diagnostic.ts";
import { dependencyDiagnostics } from "./_dependency_diagnostics.ts";
import { includeName } from "../../core/resolver/skill.ts";

/** One finding. */
export interface Diagnostic {
  /** The file. */
  readonly file: string;
  /** The 1-based line, when known. */
  readonly line?: number;
  /** The 1-based column, when known. */
  readonly column?: number;
  /**
   * How bad it is: `info` is for the record (a path the skill tells the model
   * to write, which need not exist yet).
   */
  readonly severity: "error" | "warning" | "info";
  /** What is wrong. */
  readonly message: string;
  /** What it is about, when it has a code (`GATED_REFERENCE`, …). */
  readonly code?: SkillDiagnosticCode;
}

/** Options of {@linkcode validatePaths}. */
export interface ValidateOptions {
  /** Extra top-level folders mapped to a standard class (see `resourceClassMap`). */
  readonly resourceClasses?:
    | ReadonlyMap<string, string>
    | Iterable<readonly [string, string]>
    | Readonly<Record<string, string>>;
  /** The switches gated references are judged under; default both true (gate closed). */
  readonly safety?: SafetyFlags;
}

interface Context {
  readonly out: Diagnostic[];
  /** Every skill read, and whether the path it came from was given relative. */
  readonly skills: { skill: LoadedSkill; relative: boolean }[];
  /** Whether the path being checked was given relative. */
  relative: boolean;
  readonly seen: Set<string>;
  readonly classes: ResourceClassMap;
  readonly safety: SafetyFlags;
}

/** SKILL.md bodies longer than this draw a warning. */
export const MAX_BODY_LINES = 500;

/**
 * Validate catalogs and Agent Skill folders (or folders holding them at any
 * depth, scanned like `discoverSkills`: depth 6, 10,000 folders, dot-folders
 * entered but not `.git`, `.hg`, `.svn`, `node_modules`, a project root's
 * `.agents/skills` and `.claude/skills` first; a bound hit is a warning).
 * A file named in `paths` is a catalog (or a SKILL.md); in a folder, only
 * files {@linkcode isCatalogFile} accepts are read as catalogs, so
 * `package.json`, `.mcp.json` or `mkdocs.yml` never are. Every frontmatter
 * rule break of a SKILL.md is reported with its line and column, and the body
 * is checked even when the frontmatter breaks rules. Each skill and each
 * catalog is checked on its own: one that cannot be read is an error of its
 * own and the others are still checked. Then the skills' dependencies
 * (`requires-skills`, `requires-any-skills`) are resolved among every skill
 * read: a value that breaks the grammar or a cycle is an error, a missing
 * skill a warning (it may be installed elsewhere). Files are named as the
 * path was given: relative (to the working folder) for a relative path,
 * absolute for an absolute one.
 *
 * @param paths What to check.
 * @param options The class mapping and switches gated references are judged under.
 * @returns Every finding, in the order met.
 * @throws {RangeError} When `resourceClasses` is not a valid mapping.
 */
export function validatePaths(
  paths: readonly string[],
  options: ValidateOptions = {},
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const context: Context = {
    out,
    seen: new Set<string>(),
    skills: [],
    relative: false,
    classes: resourceClassMap(options.resourceClasses),
    safety: options.safety ?? {},
  };
  for (const path of paths) {
    const first = out.length;
    context.relative = !isAbsolute(path);
    validatePath(resolve(path), context);
    if (!isAbsolute(path)) {
      for (let i = first; i < out.length; i++) {
        const d = out[i]!;
        if (isAbsolute(d.file)) out[i] = { ...d, file: relative(".", d.file) || "." };
      }
    }
  }
  // Dependencies among every skill read: a missing one may be installed elsewhere (a
  // warning); a cycle or a value that breaks the grammar never activates (an error).
  const read = new Map(context.skills.map((s) => [s.skill, s.relative]));
  const lacking = dependencyDiagnostics([...read.keys()], (s) => s.skillMdPath, "warning");
  for (const [skill, d] of lacking) {
    out.push({
      file: read.get(skill) === true ? relative(".", d.path) : d.path,
      severity: d.code === "MISSING_DEPENDENCY" ? "warning" : "error",
      message: d.message,
      code: d.code,
    });
  }
  return out;
}

function validatePath(path: string, context: Context): void {
  const { out } = context;
  // The common case, a skill folder, is listed once — for the question and for
  // the load — before any stat: a path that is missing or not a folder declines.
  if (validateSkillFolder(path, context, true)) return;
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (e) {
    const { code, name } = (e ?? {}) as { code?: unknown; name?: unknown };
    const denied = code === "EACCES" || code === "EPERM" || name === "NotCapable" ||
      name === "PermissionDenied";
    out.push(
      denied
        ? {
          file: path,
          severity: "error",
          code: "PERMISSION_DENIED",
          message: "Permission denied: it cannot be read",
        }
        : { file: path, severity: "error", message: "no such file or folder" },
    );
    return;
  }
  if (!stat.isDirectory()) {
    const name = basename(path);
    if (name === "SKILL.md" || name === "skill.md") validateSkillFolder(dirname(path), context);
    else validateCatalog(path, context);
    return;
  }
  if (isSkillFolder(path)) {
    validateSkillFolder(path, context);
    return;
  }
  let found = false;
  const catalogs = catalogFiles(path).filter(isCatalogFile);
  if (catalogs.length > 0) {
    found = true;
    validateCatalog(path, context, catalogs);
  }
  const scan = findSkillFolders(path, { conventionalRoots: true });
  for (const d of scan.diagnostics) {
    if (d.severity !== "info") out.push({ file: d.path, severity: "warning", message: d.message });
  }
  for (const child of scan.folders) {
    found = true;
    validateSkillFolder(child, context);
  }
  if (!found) {
    out.push({
      file: path,
      severity: "error",
      message: "Nothing to validate: no SKILL.md or skill.md in the folder, no catalog file " +
        "(.yaml, .yml, .json naming the skill schema or a scope/name skill) in it, and no " +
        "sub-folder holding a SKILL.md",
    });
  }
}

function validateCatalog(path: string, context: Context, files?: readonly string[]): void {
  const { out } = context;
  let catalog: Catalog;
  try {
    catalog = files === undefined ? loadCatalog(path) : _loadCatalogFiles(path, files);
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
        validateSkillFolder(folder, context);
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
 * Validate one Agent Skill folder: every rule break of its SKILL.md, the
 * entries the loader passed over, the body's length, and links in the body.
 * With `onlyListed`, a folder whose top-level listing shows no SKILL.md
 * declines (returns false) before anything is decided.
 */
function validateSkillFolder(dir: string, context: Context, onlyListed = false): boolean {
  const { out, seen } = context;
  if (seen.has(dir)) return true;
  const options = { lenient: "all", resourceClasses: context.classes } as const;
  let skill: LoadedSkill | null;
  try {
    skill = onlyListed ? _loadIfSkillMdListed(dir, options) : loadSkillFolder(dir, options);
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
  context.skills.push({ skill, relative: context.relative });
  // Every rule break, in the order of the file (the strict reading meets them in another).
  const rules = skill.diagnostics.filter((d) => d.code !== "GATED_REFERENCE").sort((a, b) =>
    (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0)
  );
  for (const d of rules) {
    out.push({
      file: d.path,
      ...(d.line === null ? {} : { line: d.line }),
      ...(d.column === null ? {} : { column: d.column }),
      severity: "error",
      message: d.message,
      code: d.code,
    });
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
      code: "LONG_BODY",
    });
  }
  const index = folderIndex(skill, context.classes);
  const problems = new Map<string, string | null>(); // a path met again is checked once
  const reported = new Map<string, { readonly at: number; more: number }>();
  let fence: string | null = null; // the opening fence of the code block the line is in
  let xml = false;
  let prose = true; // outside code, or in a fenced markdown or text block
  let section: string | null = null; // the folder the heading above names (`### assets/x/`)
  let written: ReadonlySet<string> | null = null; // built when first needed
  lines.forEach((text, i) => {
    const marker = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)/.exec(text);
    if (marker !== null) {
      if (fence === null) {
        [fence, xml] = [marker[1]!, /^(?:xml|html)$/i.test(marker[2]!)];
        prose = /^(?:markdown|md|text|txt)$/i.test(marker[2]!);
      } else if (marker[1]!.startsWith(fence) && marker[2] === "") {
        [fence, xml, prose] = [null, false, true];
      }
      return;
    }
    const heading = fence === null && isHeading(text);
    if (heading) {
      const folder = headingFolder(text);
      section = folder !== null && index.folders.has(folder) ? folder : null;
    }
    for (const reference of referencesIn(text, index.topLevel)) {
      const { target, column, link } = reference;
      // Not a file to open: a pattern, a heading's topic, a placeholder, `](` in code (not a
      // link: SMARTS `[C:1](=[O:2])`), a part inside an archive.
      if (link ? fence !== null : heading || isGlob(text, column, target.length)) continue;
      if (isPlaceholder(target)) continue;
      let problem = problems.get(target);
      if (problem === undefined) {
        problem = referenceProblem(skill, index, target, context);
        problems.set(target, problem);
      }
      if (problem === null) continue;
      const missing = problem.startsWith(MISSING);
      if (missing && isArchivePart(target, xml)) continue;
      const here = { file: skill.skillMdPath, line: skill.bodyLine + i, column };
      const subject = link ? `Link to ${JSON.stringify(target)}` : `Path ${JSON.stringify(target)}`;
      // Listed under a heading that names a folder of the skill, relative to it.
      if (missing && section !== null && !/^\.\.?\//.test(target)) {
        const inSection = `${section}/${target}`;
        if (referenceProblem(skill, index, inSection, context) === null) continue;
      }
      if (
        missing && !link &&
        (isWritten(text, column) || isOutputPath(target) ||
          (written ??= writtenPaths(lines)).has(plainPath(target)))
      ) {
        out.push({
          ...at(here, "info", `${subject} is written by the model, not a file of the skill`),
          code: "WRITTEN_PATH",
        });
        continue;
      }
      // A stand-in for the user's own path, or data the code reads or makes: not the skill's.
      if (
        missing && (isUserPlaceholder(target) || isProgramDefault(text, column) ||
          (prose ? !link && isProseWords(text, column, target) : isCodeData(text, column)))
      ) {
        continue;
      }
      if (problem === GATED) {
        // Worded as discovery words it (list, to-prompt and serve show the same line).
        const path = normalizeResourcePath(target);
        const message = gatedReferenceMessage(path, path.split("/")[0]!);
        out.push({ ...at(here, "warning", message), code: "GATED_REFERENCE" });
        continue;
      }
      const code = missing ? "MISSING_REFERENCE" : "OUTSIDE_REFERENCE";
      // One finding per path the skill lacks, at its first place, counting the others.
      const first = reported.get(target);
      if (first !== undefined) {
        first.more++;
        continue;
      }
      reported.set(target, { at: out.length, more: 0 });
      out.push({ ...at(here, "warning", `${subject} ${problem}`), code });
    }
  });
  for (const { at, more } of reported.values()) {
    if (more > 0) {
      const d = out[at]!;
      out[at] = { ...d, message: `${d.message} (and ${more} more place${more === 1 ? "" : "s"})` };
    }
  }
  return true;
}

/**
 * Every path the body tells the model to write, with or without a folder
 * (`-o qc.sh`, `> out/x.txt`), without a leading `./`: a later `./qc.sh` runs
 * what the model made. One pass over the body's tokens.
 */
function writtenPaths(lines: readonly string[]): ReadonlySet<string> {
  const out = new Set<string>();
  for (const text of lines) {
    if (!WRITE_CUE.test(text)) continue;
    for (const m of text.matchAll(/[^\s`'"()<>[\]{},;*|]+/g)) {
      if (/[\w/]/.test(m[0]) && isWritten(text, m.index! + 1)) out.add(plainPath(m[0]));
    }
  }
  return out;
}

/**
 * What every line that tells the model to write holds (a flag, `>`, `git clone`, a save call, a
 * verb): a line without it writes nothing, so its tokens are not looked at.
 */
const WRITE_CUE = /-o|--|>|clone|sav|writ|to_|output|export|creat|generat|produc|result/i;

/** A path without a leading `./` and trailing punctuation. */
function plainPath(path: string): string {
  return path.replace(/^(?:\.\/)+/, "").replace(/[.,:;!?]+$/, "");
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

function folderIndex(skill: LoadedSkill, classes: ResourceClassMap): FolderIndex {
  const folders = new Set<string>();
  const lowerCase = new Map<string, string>();
  const topLevel = new Set<string>(["references", "assets", "scripts", ...classes.keys()]);
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
function referenceProblem(
  skill: LoadedSkill,
  index: FolderIndex,
  target: string,
  context: Context,
): string | null {
  const refused = (path: string, cls: ReturnType<typeof classifyResource>): string | null =>
    decideAccess(path, cls, context.safety, "read") === null ? null : GATED;
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
    return refused(path, effectiveClass(path, file.real_path, context.classes));
  }
  if (index.folders.has(path)) {
    return refused(path, classifyResource(`${path}/-`, context.classes));
  }
  const other = index.lowerCase.get(path.toLowerCase());
  if (other !== undefined) {
    return `${MISSING}; ${JSON.stringify(other)} differs only in case`;
  }
  return MISSING;
}

const MISSING = "points to a missing file";

const GATED = "points into a non-standard folder; it is hidden while the safety gate is closed";

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
