/**
 * Catalogs: skills in YAML or JSON files (one skill or a list per document),
 * or a folder of such files read in sorted order. Every error names the file,
 * line and column. Uses `node:fs` and `yaml`; exported from `./load`.
 *
 * @module
 */
import { readdirSync, readFileSync, type Stats, statSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import {
  type Document,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
} from "yaml";
import { formatLocation, SkillDefinitionError, type SourceLocation } from "../core/errors.ts";
import { OrderedMap } from "../core/ordered_map.ts";
import { parseSkill, type Skill } from "../core/skill.ts";
import { parseStrictYaml, yamlData, YamlRuleError } from "./_yaml.ts";
import { linePositions, parsePlainYaml } from "./_plain_yaml.ts";

/** The largest catalog file read. */
export const MAX_CATALOG_FILE_BYTES = 4 * 1024 * 1024;
/** The file extensions read from a catalog folder. */
export const CATALOG_EXTENSIONS: readonly string[] = Object.freeze([".yaml", ".yml", ".json"]);

/** A place in a file, with line and column. */
export type Position = Required<SourceLocation>;

/** A loaded catalog. */
export interface Catalog {
  /** Where it was loaded from (absolute). */
  readonly path: string;
  /** The folder Agent Skill paths are relative to. */
  readonly base: string;
  /** The skills by name, in file order. */
  readonly skills: OrderedMap<string, Skill>;
  /** Where each skill is defined (its `name` value). */
  readonly locations: ReadonlyMap<string, SourceLocation>;
  /** Locates a field of a skill, e.g. `["overrides", "read_file"]`. */
  locate(skill: string, path: readonly (string | number)[]): SourceLocation | undefined;
}

/**
 * Load a catalog file or folder.
 *
 * @param path A `.yaml`, `.yml` or `.json` file, or a folder of them.
 * @returns The catalog.
 * @throws {SkillDefinitionError} For a missing or unreadable file, a file over
 *   the size limit, a YAML syntax error, an alias bomb, an invalid skill or a
 *   duplicate skill name; with file, line and column.
 */
export function loadCatalog(path: string): Catalog {
  const absolute = resolve(path);
  const stat = statOrFail(absolute);
  const files = stat.isDirectory() ? catalogFiles(absolute) : [absolute];
  const base = stat.isDirectory() ? absolute : dirname(absolute);
  const skills = OrderedMap.builder<string, Skill>();
  const locations = new Map<string, SourceLocation>();
  const locators = new Map<
    string,
    (path: readonly (string | number)[]) => SourceLocation | undefined
  >();
  for (const file of files) {
    for (const { skill, locate } of parseCatalogFile(file)) {
      const here = locate(["name"]) ?? { file };
      const first = locations.get(skill.name);
      if (first !== undefined) {
        throw new SkillDefinitionError({
          skill: skill.name,
          field: "name",
          reason: `duplicate skill name; first defined at ${formatLocation(first)}`,
          location: here,
        });
      }
      skills.set(skill.name, skill);
      locations.set(skill.name, here);
      locators.set(skill.name, locate);
    }
  }
  return Object.freeze({
    path: absolute,
    base,
    skills: skills.freeze(),
    locations,
    locate: (skill: string, at: readonly (string | number)[]) => locators.get(skill)?.(at),
  });
}

/**
 * Parse one catalog file's text.
 *
 * @param text The YAML or JSON text.
 * @param file Its path, named in errors.
 * @returns Each skill with a locator for its fields.
 * @throws {SkillDefinitionError} For a YAML error, an alias bomb or an invalid skill.
 */
export function parseCatalogText(
  text: string,
  file: string,
): { skill: Skill; locate: (path: readonly (string | number)[]) => Position | undefined }[] {
  const plain = parsePlainCatalog(text, file);
  if (plain !== undefined) return plain;
  const lines = new LineCounter();
  const at = (offset: number): Position => {
    const { line, col } = lines.linePos(offset);
    return { file, line, column: col };
  };
  let docs: { data: unknown; doc: Document.Parsed }[];
  try {
    docs = parseCatalogYaml(text, lines);
  } catch (e) {
    if (!(e instanceof YamlRuleError)) throw e;
    throw new SkillDefinitionError({
      skill: undefined,
      field: "",
      reason: e.message,
      location: e.offset === undefined ? { file } : at(e.offset),
    });
  }
  const out: ReturnType<typeof parseCatalogText> = [];
  const keyIndex = new WeakMap<object, Map<unknown, Pair>>();
  for (const { data, doc } of docs) {
    if (data === null || data === undefined) continue;
    const list = Array.isArray(data);
    const items: unknown[] = list ? (data as unknown[]) : [data];
    items.forEach((item, index) => {
      const prefix = list ? [index] : [];
      const locate = (path: readonly (string | number)[]): Position | undefined => {
        const offset = nodeOffset(doc.contents, [...prefix, ...path], keyIndex);
        return offset === undefined ? undefined : at(offset);
      };
      out.push({ skill: parseSkill(item, { file, locate }), locate });
    });
  }
  return out;
}

/**
 * A catalog's YAML parse (strict: see `_yaml.ts`), in one place so a faster
 * parser for a plain subset can sit in front of it.
 *
 * @returns Each document with its data.
 * @throws {YamlRuleError} For a syntax error, a warning, a tag outside the core
 *   schema, a duplicate key or an alias bomb.
 */
function parseCatalogYaml(
  text: string,
  lines: LineCounter,
): { data: unknown; doc: Document.Parsed }[] {
  return parseStrictYaml(text, lines).map((doc) => ({ data: yamlData(doc), doc }));
}

/**
 * Parse one catalog file.
 *
 * @param file The file's path.
 * @returns Each skill with a locator.
 * @throws {SkillDefinitionError} As {@linkcode parseCatalogText}, and for a file
 *   that is missing or over {@linkcode MAX_CATALOG_FILE_BYTES}.
 */
export function parseCatalogFile(file: string): ReturnType<typeof parseCatalogText> {
  const size = statOrFail(file).size;
  if (size > MAX_CATALOG_FILE_BYTES) {
    throw new SkillDefinitionError({
      skill: undefined,
      field: "",
      reason: `the file is ${size} bytes; the limit is ${MAX_CATALOG_FILE_BYTES}`,
      location: { file },
    });
  }
  return parseCatalogText(readFileSync(file, "utf8"), file);
}

/**
 * List a catalog folder's files.
 *
 * @param dir A catalog folder.
 * @returns Its `.yaml`, `.yml` and `.json` files, sorted by name.
 */
export function catalogFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && CATALOG_EXTENSIONS.includes(extname(e.name).toLowerCase()))
    .map((e) => e.name)
    .sort()
    .map((name) => join(dir, name));
}

/**
 * The offset of the node at `path`: for a mapping key, the key itself. Each
 * mapping's keys are indexed once (in `index`), so locating every key of a
 * large mapping stays linear.
 */
function nodeOffset(
  root: Node | null,
  path: readonly (string | number)[],
  index: WeakMap<object, Map<unknown, Pair>>,
): number | undefined {
  let node: unknown = root;
  let offset: number | undefined = (root as { range?: number[] } | null)?.range?.[0];
  for (const part of path) {
    if (isMap(node)) {
      let keys = index.get(node);
      if (keys === undefined) {
        keys = new Map();
        for (const p of node.items) {
          if (isPair(p) && isScalar(p.key) && !keys.has(p.key.value)) keys.set(p.key.value, p);
        }
        index.set(node, keys);
      }
      const pair = keys.get(part);
      if (pair === undefined) return offset;
      offset = (pair.key as { range?: number[] }).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof part === "number") {
      node = node.items[part];
      offset = (node as { range?: number[] } | undefined)?.range?.[0] ?? offset;
    } else {
      return offset;
    }
  }
  return offset;
}

function statOrFail(path: string): Stats {
  try {
    return statSync(path);
  } catch {
    throw new SkillDefinitionError({
      skill: undefined,
      field: "",
      reason: `no such file or folder`,
      location: { file: path },
    });
  }
}

/**
 * The fast path: a catalog in the plain YAML subset whose skills are all
 * valid. Anything else answers `undefined`, and yaml parses and reports it.
 */
function parsePlainCatalog(
  text: string,
  file: string,
): ReturnType<typeof parseCatalogText> | undefined {
  const doc = parsePlainYaml(text);
  if (doc === undefined) return undefined;
  const linePos = linePositions(text);
  const list = Array.isArray(doc.value);
  const items: unknown[] = list ? (doc.value as unknown[]) : [doc.value];
  const out: ReturnType<typeof parseCatalogText> = [];
  try {
    items.forEach((item, index) => {
      const prefix = list ? [index] : [];
      const locate = (path: readonly (string | number)[]): Position | undefined => {
        const offset = doc.offset([...prefix, ...path]);
        if (offset === undefined) return undefined;
        const { line, col } = linePos(offset);
        return { file, line, column: col };
      };
      out.push({ skill: parseSkill(item, { file, locate }), locate });
    });
  } catch {
    return undefined;
  }
  return out;
}
