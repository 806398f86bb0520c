/**
 * The paths a SKILL.md body points a model to — markdown link targets, and
 * paths in backticks or in prose — and which of them the safety gate would
 * refuse (`GATED_REFERENCE` diagnostics). One pass per line, linear in it.
 *
 * Folder `lib/fs/discovery/` — discovery over roots and what it found: walk, diagnostics, validation.
 *
 * @module
 */
import { InvalidResourcePathError } from "../../core/errors.ts";
import { decideAccess, type SafetyFlags } from "../../core/resources/gate.ts";
import {
  classifyResource,
  normalizeResourcePath,
  type ResourceClass,
  type ResourceClassMap,
} from "../../core/resources/resource_path.ts";
import type { SkillDiagnostic } from "./skill_diagnostic.ts";

/** A path a model may follow, found in one line of the body. */
export interface Reference {
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
 *
 * @param line One line of the body.
 * @param topLevel The names at the skill's top level and the standard folders.
 * @param anyExtension Whether a path whose first segment is not in `topLevel`
 *   counts when it ends in a file name with an extension (validate: yes).
 * @returns The references, by column.
 */
export function referencesIn(
  line: string,
  topLevel: ReadonlySet<string>,
  anyExtension = true,
): Reference[] {
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
    if (isPathLike(target, topLevel, anyExtension)) out.push({ target, column, link: false });
  }
  while (next < links.length) out.push(links[next++]!);
  return out;
}

/** Characters that make a token a glob pattern rather than one path. */
const GLOB = /[*?[\]{}]/;

/**
 * Whether the token at `column` (1-based) of `line` is part of a glob pattern
 * (`shared/managed-agents-*`, `docs/{a,b}.md`): a glob character in it or
 * touching it. The token scan stops at `*`, `[`, `{`, so the characters
 * around it count.
 *
 * @param line One line of the body.
 * @param column Where the token starts (1-based).
 * @param length The token's length.
 * @returns Whether it is a pattern.
 */
export function isGlob(line: string, column: number, length: number): boolean {
  const start = column - 1;
  return GLOB.test(line.slice(start, start + length)) || GLOB.test(line[start - 1] ?? "") ||
    GLOB.test(line[start + length] ?? "");
}

/**
 * Whether a path is a placeholder for the user's own (`path/to/data.csv`,
 * `my-bucket/path/to/x`): documentation of a command's shape, not a file.
 *
 * @param target The path.
 * @returns Whether it is a placeholder.
 */
export function isPlaceholder(target: string): boolean {
  return /(?:^|\/)path\/to\//.test(target);
}

/**
 * Whether a path that is missing reads as a stand-in for the user's own
 * (`./your_task/config.yaml`, `data/<sample>.csv`, `example/input.csv`,
 * `src/my-app.py`, `scripts/script_name.py`, `batch/file.h5ad`): a segment
 * starting with `your`/`my` and `_` or `-`, held in angle brackets, named
 * `example` (with or without an extension or a suffix), or a file named
 * `file`, `filename` or `script_name`. Asked only of a path the skill lacks: a file it has is never
 * hidden by its name.
 *
 * @param target The path.
 * @returns Whether it is a stand-in.
 */
export function isUserPlaceholder(target: string): boolean {
  return target.split("/").some((segment) =>
    /^(?:\.?your|my)[_-]/i.test(segment) || /^<.*>$/.test(segment) ||
    /^examples?(?:[_-][^/]*)?(?:\.[A-Za-z0-9]+)?$/i.test(segment) ||
    /^(?:file|file_?name|script_?name)\.[A-Za-z0-9]+$/i.test(segment)
  );
}

/**
 * Before a path in code that names the user's data, not the skill's file:
 * an assignment or keyword argument (`root='./data'`, `key="scrna/x.h5ad"`),
 * a call's argument or a list item (`Planetoid("./data")`, `["a/b.csv", …]`),
 * a mapping's value (`"path": "out/x.json"`), or a shell command that makes
 * or enters the folder (`mkdir -p results/`, `cd data/`, `touch logs/x`),
 * or a flag's value (`--test_data data/test.json`, `--download-dir ./data`).
 */
const CODE_DATA_BEFORE = new RegExp(
  String.raw`(?:[=(,:[]\s*[rRbBuUfF]{0,2}["']` +
    String.raw`|(?:^|[\s;&|])(?:mkdir(?:\s+-p)?|touch|cd|pushd)\s+["']?` +
    String.raw`|(?:^|\s)--?[A-Za-z][\w-]*(?:\s+|=)["']?)$`,
);

/** First folders that hold what a run writes, by wide convention. */
const OUTPUT_FOLDERS: ReadonlySet<string> = new Set(["output", "outputs", "out", "results"]);

/**
 * Whether a path lies in a folder that by convention holds what a run
 * writes (`output/forecast.json`, `./results/x.csv`): asked only of a path
 * the skill lacks, which the model then writes rather than reads.
 *
 * @param target The path.
 * @returns Whether its first folder is `output`, `outputs`, `out` or `results`.
 */
export function isOutputPath(target: string): boolean {
  const parts = target.split("/").filter((p) => p !== "." && p !== "");
  return parts.length > 1 && OUTPUT_FOLDERS.has(parts[0]!.toLowerCase());
}

/**
 * Whether the path at `column` (1-based) of a line of code is data the code
 * reads or makes (see {@linkcode CODE_DATA_BEFORE}) rather than a file of the
 * skill: asked only inside a fenced code block, of a path the skill lacks.
 *
 * @param line One line of a fenced code block.
 * @param column Where the path starts (1-based).
 * @returns Whether it is the code's data.
 */
export function isCodeData(line: string, column: number): boolean {
  return CODE_DATA_BEFORE.test(line.slice(Math.max(0, column - 81), column - 1));
}

/** A Markdown ATX heading: a path there names a topic (`### scripts/`), not a file to open. */
export function isHeading(line: string): boolean {
  return /^ {0,3}#{1,6}(?:[ \t]|$)/.test(line);
}

/**
 * Top-level folders of the documents that are zip archives (Office Open XML,
 * OpenDocument, EPUB, JAR): `word/document.xml` names a part of a `.docx`,
 * not a file of the skill.
 */
const ARCHIVE_PARTS: ReadonlySet<string> = new Set([
  "word",
  "xl",
  "ppt",
  "_rels",
  "docProps",
  "customXml",
  "META-INF",
  "OEBPS",
]);

/**
 * Whether a path names a part inside an archive the skill talks about rather
 * than a file of its own: its first folder is one of an Office, OpenDocument,
 * EPUB or JAR archive's (`word/`, `xl/`, `ppt/`, `_rels/`, `docProps/`,
 * `META-INF/`, …), or it sits in a fenced XML block (attribute values there
 * are the document's own part names).
 *
 * @param target The path.
 * @param inXml Whether the line is inside a fenced `xml` block.
 * @returns Whether it is a part of an archive.
 */
export function isArchivePart(target: string, inXml: boolean): boolean {
  const slash = target.indexOf("/");
  return inXml || (slash > 0 && ARCHIVE_PARTS.has(target.slice(0, slash)));
}

/**
 * What comes right before a path the skill tells the model to write: an
 * output flag (`-o`, `--output`, `--save-to`, …), a shell redirection, the
 * destination of `git clone`, a save call (`savefig(`, `to_csv(`), or prose
 * ("save it to", "writes", "output as").
 */
const WRITE_BEFORE = new RegExp(
  String
    .raw`(?:(?:^|\s)(?:-o|-O|--out|--output[\w-]*|--save[\w-]*|--dest[\w-]*|--export[\w-]*|--out[-_]?(?:dir|file|path)[\w-]*)(?:\s+|=)` +
    String.raw`|>>?\s*|\bgit\s+clone\s+\S+\s+` +
    String.raw`|\b(?:savefig|to_csv|to_excel|to_parquet|to_json|to_file|write_\w+|save\w*)\(\s*` +
    String
      .raw`|\b(?:save[sd]?|saving|write|writes|written|writing|outputs?|export(?:s|ed)?|creates?|generates?|produces?)` +
    String
      .raw`(?:\s+(?:it|them|this|results?|files?|output|figures?|the\s+\w+))?(?:\s+(?:to|as|into|in|at|under))?\s*:?\s*` +
    // A log line or a note: "SAVED: Search results to x.md", "Results in: ./data/x/".
    String
      .raw`|\b(?:save[sd]|written|created|generated|exported):\s+(?:[\w-]+\s+){0,4}(?:to|into|as|in|at)\s+` +
    String.raw`|\bresults?\s+(?:are\s+)?(?:in|at|under):\s*)` +
    String.raw`["'\x60]?$`,
  "i",
);

/**
 * Whether the path at `column` (1-based) of `line` is one the skill tells the
 * model to write (`-o figures/output.png`, `> out.txt`, "save it to
 * results/x.csv"): such a path need not exist in the skill.
 *
 * @param line One line of the body.
 * @param column Where the path starts (1-based).
 * @returns Whether it is written, not read.
 */
export function isWritten(line: string, column: number): boolean {
  // A list of them ("Creates: a/1.jpg, a/2.jpg, and a/3.jpg"): back over the paths before
  // this one, a bounded number, to what comes before the first.
  let start = column - 1;
  for (let back = 0; back < 8; back++) {
    // Only the last 80 characters before a path matter; the expression is anchored at the end.
    if (WRITE_BEFORE.test(line.slice(Math.max(0, start - 80), start))) return true;
    const from = Math.max(0, start - 200);
    const previous = LIST_BEFORE.exec(line.slice(from, start));
    if (previous === null) return false;
    start = from + previous.index;
  }
  return false;
}

/** A path in a list right before another: `a/1.jpg, ` or `a/1.jpg and `. */
const LIST_BEFORE =
  /(?<=^|\s)["'`]?[^\s,`'"]*\/[^\s,`'"]*["'`]?(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+)["'`]?$/;

/** Before a path that a program's option makes unless told otherwise: `(default: ./cache)`. */
const DEFAULT_BEFORE = /\b(?:default:|defaults\s+to|default\s+is)\s*["'\x60]?$/i;

/**
 * Whether the path at `column` (1-based) of `line` is an option's default
 * (`-dd/--data_dir`: Cache directory (default: ./gget_cbio_cache)): a folder
 * the program makes where it runs, not a file of the skill.
 *
 * @param line One line of the body.
 * @param column Where the path starts (1-based).
 * @returns Whether it is a default value.
 */
export function isProgramDefault(line: string, column: number): boolean {
  return DEFAULT_BEFORE.test(line.slice(Math.max(0, column - 41), column - 1));
}

/**
 * Whether a path bare in prose (outside code, backticks and links) reads as
 * words joined by a slash rather than a file: it has no `./` or `../` and no
 * trailing `/`, and its last segment has no extension (`references/appendix`,
 * `input/output`) or is a dotted module name (`CuPy/cupyx.scipy.sparse`:
 * three or more parts, the last a word of six or more letters that is no
 * file extension). Asked only of a path the skill lacks.
 *
 * @param line One line of prose.
 * @param column Where the path starts (1-based).
 * @param target The path.
 * @returns Whether it reads as words.
 */
export function isProseWords(line: string, column: number, target: string): boolean {
  if (/^\.\.?\//.test(target) || target.endsWith("/")) return false;
  let ticks = 0;
  for (let i = line.indexOf("`"); i >= 0 && i < column - 1; i = line.indexOf("`", i + 1)) ticks++;
  if (ticks % 2 === 1) return false;
  const last = target.slice(target.lastIndexOf("/") + 1);
  if (!last.includes(".")) return true;
  const parts = last.split(".");
  return parts.length >= 3 && /^[a-z]{6,}$/.test(parts.at(-1)!) &&
    !LONG_EXTENSIONS.has(parts.at(-1)!);
}

/** File extensions of six or more letters, which a dotted module name's last part is not. */
const LONG_EXTENSIONS: ReadonlySet<string> = new Set([
  "parquet",
  "feather",
  "markdown",
  "geojson",
  "safetensors",
  "pickle",
  "sqlite",
]);

/**
 * The folder a Markdown heading names (`### assets/templates/`, or in backticks):
 * paths listed under it may be relative to it. Null when the heading is no path.
 *
 * @param line A heading line.
 * @returns The folder, without `./` and the trailing `/`, or null.
 */
export function headingFolder(line: string): string | null {
  const m = /^ {0,3}#{1,6}[ \t]+`?(?:\.\/)?([\w.-]+(?:\/[\w.-]+)*)\/?`?[ \t]*#*[ \t]*$/.exec(line);
  return m === null ? null : m[1]!;
}

function withoutTrailingPunctuation(token: string): string {
  let end = token.length;
  while (end > 0 && ".,:;!?".includes(token[end - 1]!)) end--;
  return token.slice(0, end);
}

function isPathLike(token: string, topLevel: ReadonlySet<string>, anyExtension: boolean): boolean {
  const slash = token.indexOf("/");
  if (slash <= 0 || SCHEME.test(token) || token.startsWith("-")) return false;
  if (token.startsWith("./") || token.startsWith("../")) return true;
  const first = token.slice(0, slash);
  if (topLevel.has(first)) return true;
  if (!anyExtension) return false;
  if (first.includes(".") || first.startsWith("~") || first.startsWith("$")) return false;
  // An extension starts with a letter: `claude-opus-4.5` is a version, not a file name; and it
  // follows a name: `FASTA/.txt` names formats, not a file.
  return /^[^.].*\.[A-Za-z][A-Za-z0-9]{0,9}$/.test(token.slice(token.lastIndexOf("/") + 1));
}

function decodeTarget(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * The one wording of a `GATED_REFERENCE`, for discovery (`list`, `to-prompt`,
 * `serve`) and `validate` alike.
 *
 * @param path The normalised path the body points to.
 * @param top Its non-standard top-level folder.
 * @returns The message.
 */
export function gatedReferenceMessage(path: string, top: string): string {
  return `The body points to ${JSON.stringify(path)}, in the non-standard folder ${
    JSON.stringify(top)
  }: the safety gate refuses it while it is closed (open it for this skill, move the file ` +
    `into references/, assets/ or scripts/, or map ${JSON.stringify(top)} to a standard class)`;
}

/** The standard folders, always counted as top-level names. */
export const STANDARD_FOLDERS: readonly string[] = Object.freeze([
  "references",
  "assets",
  "scripts",
]);

/**
 * One `GATED_REFERENCE` warning for each path the body points to (markdown
 * links, backticks, bare paths) inside a top-level folder the skill has,
 * that {@linkcode decideAccess} refuses under `flags` and `classes`; each
 * distinct path once, at its first place.
 *
 * @param body The SKILL.md body.
 * @param bodyLine The file line where the body starts (1-based).
 * @param file The SKILL.md path, named in the diagnostics.
 * @param topLevel The names at the skill's top level (files and folders).
 * @param folders Which of them are folders: a reference to one (`./themes`,
 *   `examples/`) has that folder's class.
 * @param flags The safety switches.
 * @param classes Extra folders mapped to a standard class.
 * @param classOf The class of a normalised path (default: by its requested path and `classes`).
 * @returns The diagnostics, in body order.
 */
export function gatedReferences(
  body: string,
  bodyLine: number,
  file: string,
  topLevel: Iterable<string>,
  folders: ReadonlySet<string>,
  flags: SafetyFlags,
  classes: ResourceClassMap | undefined,
  classOf: (path: string) => ResourceClass = (path) => classifyResource(path, classes),
): SkillDiagnostic[] {
  const out: SkillDiagnostic[] = [];
  if (flags.global_safety === false && flags.skill_safety === false) return out;
  const names = new Set<string>(STANDARD_FOLDERS);
  for (const name of topLevel) names.add(name);
  for (const name of classes?.keys() ?? []) names.add(name);
  const seen = new Set<string>();
  let start = 0;
  for (let line = 0; start <= body.length; line++) {
    let end = body.indexOf("\n", start);
    if (end < 0) end = body.length;
    for (const reference of referencesIn(body.slice(start, end), names, false)) {
      let path: string;
      try {
        path = normalizeResourcePath(reference.target);
      } catch (e) {
        if (!(e instanceof InvalidResourcePathError)) throw e;
        continue;
      }
      if (seen.has(path)) continue;
      seen.add(path);
      // Only into the skill's own folders: `./output/x.json` is the user's, not a file of the skill.
      const slash = path.indexOf("/");
      if (!folders.has(slash < 0 ? path : path.slice(0, slash))) continue;
      const cls = folders.has(path) ? classifyResource(`${path}/-`, classes) : classOf(path);
      if (decideAccess(path, cls, flags, "read") === null) continue;
      const top = folders.has(path) ? path : path.slice(0, path.indexOf("/"));
      out.push(Object.freeze({
        severity: "warning",
        code: "GATED_REFERENCE",
        path: file,
        line: bodyLine + line,
        column: reference.column,
        message: gatedReferenceMessage(path, top),
        target: path,
        class: cls,
      } as SkillDiagnostic));
    }
    start = end + 1;
  }
  return out;
}
