/**
 * SKILL.md: split the frontmatter from the body, parse the frontmatter with
 * the `yaml` package as data only (core schema, no custom tags, bounded
 * aliases, unique keys) and check it against the Agent Skills rules. Errors
 * carry the line and column in the file.
 *
 * This module imports `yaml`, so it is not part of `mod.ts`'s import graph;
 * it is exported from the `./load` entry point.
 *
 * Folder `lib/fs/load/` — loading one skill folder: verified listings, SKILL.md and YAML, catalog files.
 *
 * @module
 */
import { type Document, isMap, isScalar, LineCounter } from "yaml";
import {
  type AgentSkillFrontmatter,
  frontmatterKey,
  validateAgentSkillFrontmatter,
} from "../../core/activation/agent_skill.ts";
import { AgentSkillError, type SourceLocation } from "../../core/errors.ts";
import { skillVersion } from "../../core/trust/skill_version.ts";
import { validateFrontmatterLeniently } from "./lenient_frontmatter.ts";
import { MAX_ALIAS_COUNT, parseStrictYaml, yamlData, YamlRuleError } from "./_yaml.ts";
import { parsePlainYaml } from "./_plain_yaml.ts";
import { diagnosticFromError, type SkillDiagnostic } from "../discovery/skill_diagnostic.ts";

export { MAX_ALIAS_COUNT };

/** A parsed SKILL.md. */
export interface SkillMd {
  /** The validated frontmatter. */
  readonly frontmatter: AgentSkillFrontmatter;
  /** Everything after the closing `---` line. */
  readonly body: string;
  /** The 1-based line of the file where the body starts. */
  readonly bodyLine: number;
  /** The rule breaks a lenient parse passed over (always empty when strict). */
  readonly diagnostics: readonly SkillDiagnostic[];
  /** The version it states (`metadata.version`, or a top-level `version` read leniently), if any. */
  readonly version?: string;
}

/** Options of {@linkcode parseSkillMd}. */
export interface ParseSkillMdOptions {
  /** The file's path, named in errors. */
  readonly file?: string;
  /** The folder name the frontmatter `name` must equal. */
  readonly folder?: string;
  /**
   * Load despite rule breaks, reporting them in `diagnostics`; only a
   * frontmatter that cannot be parsed or has no description still throws.
   * `"all"`: a missing or broken description is a diagnostic too (for
   * listing every rule break, as `validate` does). Default false.
   */
  readonly lenient?: boolean | "all";
}

const OPEN = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSE = /^---[ \t]*\r?$/m;

/**
 * The body of a SKILL.md, split from its frontmatter as {@linkcode parseSkillMd}
 * splits it, without parsing the frontmatter.
 *
 * @param text The whole file.
 * @returns The body, or `undefined` when the frontmatter is missing or unclosed.
 * @throws Never.
 */
export function skillMdBody(text: string): string | undefined {
  const open = OPEN.exec(text);
  if (open === null) return undefined;
  const rest = text.slice(open[0].length);
  const close = CLOSE.exec(rest);
  if (close === null) return undefined;
  return rest.slice(close.index + close[0].length).replace(/^\n/, "");
}

/**
 * Parse a SKILL.md file's text.
 *
 * @param text The whole file.
 * @param options Its path and folder name.
 * @returns The validated frontmatter and the body.
 * @throws {AgentSkillError} When the frontmatter is missing, unclosed, not
 *   YAML, not a mapping, or breaks an Agent Skills rule; with file, line and column.
 * @example
 * ```ts
 * import { parseSkillMd } from "./skill_md.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * const md = parseSkillMd("---\nname: pdf\ndescription: Fill PDF forms\n---\n# PDF\n", { folder: "pdf" });
 * assert.equal(md.frontmatter.description, "Fill PDF forms");
 * assert.equal(md.body, "# PDF\n");
 * assert.throws(() => parseSkillMd("---\nname: PDF\ndescription: x\n---\n", { file: "pdf/SKILL.md" }), {
 *   message: 'Invalid SKILL.md at name: "P" is not allowed (lowercase letters, digits and hyphens only) (pdf/SKILL.md:2:1)',
 * });
 * ```
 */
export function parseSkillMd(text: string, options: ParseSkillMdOptions = {}): SkillMd {
  const { file, folder } = options;
  const at = (line: number, column: number): SourceLocation | undefined =>
    file === undefined ? undefined : { file, line, column };
  const open = OPEN.exec(text);
  if (open === null) {
    throw new AgentSkillError(
      "",
      'SKILL.md must start with a frontmatter block opened by "---"',
      at(1, 1),
    );
  }
  const rest = text.slice(open[0].length);
  const close = CLOSE.exec(rest);
  if (close === null) {
    throw new AgentSkillError("", 'the frontmatter is not closed by a "---" line', at(1, 1));
  }
  const source = rest.slice(0, close.index);
  const afterClose = close.index + close[0].length;
  const body = rest.slice(afterClose).replace(/^\n/, "");
  const bodyLine = 2 + countLines(source) + 1;
  const lenient = options.lenient === true || options.lenient === "all";
  const all = { all: options.lenient === "all" };
  // The plain subset parses fast; anything else, every error and every rule break (for its
  // position) goes through yaml below.
  const plain = parsePlainYaml(source, { offsets: false });
  if (plain !== undefined) {
    try {
      const frontmatter = lenient
        ? validateFrontmatterLeniently(plain.value, folder, undefined, all)
        : { frontmatter: validateAgentSkillFrontmatter(plain.value, folder), problems: [] };
      if (frontmatter.problems.length === 0) {
        return Object.freeze({
          frontmatter: frontmatter.frontmatter,
          body,
          bodyLine,
          diagnostics: NONE,
          ...versionOf(plain.value),
        });
      }
    } catch {
      // Reported by the yaml path, with its position.
    }
  }
  // Line 1 of the frontmatter is line 2 of the file.
  const { data, locate } = parseYaml(source, at);
  if (!lenient) {
    const frontmatter = validateAgentSkillFrontmatter(data, folder, locate);
    return Object.freeze({ frontmatter, body, bodyLine, diagnostics: NONE, ...versionOf(data) });
  }
  const { frontmatter, problems } = validateFrontmatterLeniently(data, folder, locate, all);
  const diagnostics = problems.map((p) =>
    diagnosticFromError("warning", p.code, p.error, file ?? "SKILL.md")
  );
  return Object.freeze({
    frontmatter,
    body,
    bodyLine,
    diagnostics: Object.freeze(diagnostics),
    ...versionOf(data),
  });
}

/** `{ version }` when the raw frontmatter states a usable one, else nothing. */
function versionOf(data: unknown): { version?: string } {
  const version = skillVersion(data);
  return version === undefined ? {} : { version };
}

/** Parse the frontmatter with the `yaml` package: the data, and where each field is. */
function parseYaml(
  source: string,
  at: (line: number, column: number) => SourceLocation | undefined,
): { data: unknown; locate: (field: string) => SourceLocation | undefined } {
  const lines = new LineCounter();
  const position = (offset: number | undefined): SourceLocation | undefined => {
    if (offset === undefined) return at(2, 1);
    const { line, col } = lines.linePos(offset);
    return at(line + 1, col);
  };
  let parsed: { data: unknown; doc: Document.Parsed | undefined };
  try {
    parsed = parseFrontmatterYaml(source, lines);
  } catch (e) {
    if (!(e instanceof YamlRuleError)) throw e;
    throw new AgentSkillError("", e.message, position(e.offset));
  }
  const { doc } = parsed;
  const data = parsed.data ?? {};
  const locate = (field: string): SourceLocation | undefined => {
    const contents = doc?.contents;
    const items = isMap(contents) ? contents.items : [];
    const find = (key: string) => items.find((i) => isScalar(i.key) && i.key.value === key);
    const item = find(frontmatterKey(field, (key) => find(key) !== undefined));
    const offset = (item?.key as { range?: number[] } | undefined)?.range?.[0];
    return offset === undefined ? at(2, 1) : position(offset);
  };
  return { data, locate };
}

const NONE: readonly SkillDiagnostic[] = Object.freeze([]);
/**
 * The frontmatter's YAML parse (strict: see `_yaml.ts`), in one place so a
 * faster parser for a plain subset can sit in front of it.
 *
 * @returns The data (`undefined` for an empty frontmatter) and the document, for locations.
 * @throws {YamlRuleError} For a syntax error, a warning, a tag outside the core
 *   schema, a duplicate key, more than one document or an alias bomb.
 */
function parseFrontmatterYaml(
  source: string,
  lines: LineCounter,
): { data: unknown; doc: Document.Parsed | undefined } {
  const docs = parseStrictYaml(source, lines);
  if (docs.length > 1) {
    throw new YamlRuleError(
      "YAML error: the frontmatter holds more than one document",
      docs[1]!.range[0],
    );
  }
  const doc = docs[0];
  return { data: doc === undefined ? undefined : yamlData(doc), doc };
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return n;
}
