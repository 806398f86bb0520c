/**
 * Catalogs: skills in YAML or JSON files (one skill or a list per document),
 * or a folder of such files read in sorted order. Every error names the file,
 * line and column. Uses `node:fs` and `yaml`; exported from `./load`.
 *
 * Folder `lib/fs/load/` — loading one skill folder: verified listings, SKILL.md and YAML, catalog files.
 *
 * @module
 */
import { closeSync, fstatSync, openSync, readdirSync, type Stats, statSync } from "node:fs";
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
import { formatLocation, SkillDefinitionError, type SourceLocation } from "../../core/errors.ts";
import { OrderedMap } from "../../core/resolver/ordered_map.ts";
import { isSkillName, parseSkill, type Skill } from "../../core/resolver/skill.ts";
import { parseStrictYaml, yamlData, YamlRuleError } from "./_yaml.ts";
import { linePositions, parsePlainYaml } from "./_plain_yaml.ts";
import { O_NOFOLLOW, READ_FLAGS, readFully } from "../_safe_open.ts";

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
  if (stat.isDirectory()) return _loadCatalogFiles(absolute, catalogFiles(absolute));
  return loadFiles(absolute, dirname(absolute), [absolute], true);
}

/**
 * Load some files of a catalog folder as one catalog (for `validate`, which
 * reads only the files {@linkcode isCatalogFile} accepts). Each is opened
 * without following a final link.
 *
 * @param dir The folder (Agent Skill paths are relative to it).
 * @param files The files, in order.
 * @returns The catalog.
 * @throws {SkillDefinitionError} As {@linkcode loadCatalog}.
 */
export function _loadCatalogFiles(dir: string, files: readonly string[]): Catalog {
  return loadFiles(resolve(dir), resolve(dir), files, false);
}

function loadFiles(
  absolute: string,
  base: string,
  files: readonly string[],
  named: boolean,
): Catalog {
  const skills = OrderedMap.builder<string, Skill>();
  const locations = new Map<string, SourceLocation>();
  const locators = new Map<
    string,
    (path: readonly (string | number)[]) => SourceLocation | undefined
  >();
  for (const file of files) {
    // A file named by the caller may be a link; one listed in a folder is opened without following one.
    const parsed = parseCatalogText(readCatalogFile(file, named), file);
    for (const { skill, locate } of parsed) {
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
 * Parse one catalog file, named by the caller: opened once (a final link is
 * followed, the file must be a regular one, a named pipe is refused without
 * waiting) and read through that handle up to the size limit + 1 byte.
 *
 * @param file The file's path.
 * @returns Each skill with a locator.
 * @throws {SkillDefinitionError} As {@linkcode parseCatalogText}, and for a file
 *   that is missing, not a regular file, unreadable, or over {@linkcode MAX_CATALOG_FILE_BYTES}
 *   (also when it grows past it after being opened).
 */
export function parseCatalogFile(file: string): ReturnType<typeof parseCatalogText> {
  return parseCatalogText(readCatalogFile(file, true), file);
}

function catalogError(file: string, reason: string): SkillDefinitionError {
  return new SkillDefinitionError({ skill: undefined, field: "", reason, location: { file } });
}

/** Runs just after a catalog file is opened and checked (tests: where a file grows). */
let afterOpen: ((file: string, fd: number) => void) | null = null;

/**
 * For this module's tests (`lib/load.ts` does not export it): act just after
 * a catalog file is opened, as a file growing between the open and the read.
 *
 * @param hook Called with the path and the handle; `null` to remove it.
 * @returns Nothing.
 * @example
 * ```ts
 * import { _setCatalogAfterOpen, loadCatalog } from "./catalog.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * const opened: string[] = [];
 * _setCatalogAfterOpen((file) => opened.push(file));
 * try {
 *   loadCatalog(new URL("../../../examples/catalog.yaml", import.meta.url).pathname);
 * } finally {
 *   _setCatalogAfterOpen(null);
 * }
 * assert.equal(opened.length, 1);
 * ```
 */
export function _setCatalogAfterOpen(hook: ((file: string, fd: number) => void) | null): void {
  afterOpen = hook;
}

/** A catalog file's text, read once through one handle, at most the limit + 1 byte. */
function readCatalogFile(file: string, followLink: boolean): string {
  let fd: number;
  try {
    fd = openSync(file, READ_FLAGS | (followLink ? 0 : O_NOFOLLOW));
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw catalogError(file, "no such file or folder");
    if (code === "ELOOP" || code === "EMLINK") {
      throw catalogError(file, "the file is a symbolic link; name it to read it");
    }
    if (code === "EACCES" || code === "EPERM") throw catalogError(file, "permission denied");
    if (code === "ENXIO" || code === "ENODEV") {
      throw catalogError(file, "it is a socket or a device, not a regular file");
    }
    throw catalogError(file, `the file cannot be read (${typeof code === "string" ? code : e})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw catalogError(file, "it is not a regular file");
    afterOpen?.(file, fd);
    const cap = MAX_CATALOG_FILE_BYTES + 1;
    const buffer = new Uint8Array(Math.min(Math.max(stat.size, 0) + 1, cap));
    let filled = 0;
    let grown = buffer;
    // Past the size at the open, the buffer doubles up to the cap: a file that grows is read
    // until it ends or passes the limit.
    for (;;) {
      try {
        filled = readFully(fd, grown, filled);
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        throw catalogError(
          file,
          `the file cannot be read (${typeof code === "string" ? code : e})`,
        );
      }
      if (filled < grown.length || grown.length >= cap) break;
      const next = new Uint8Array(Math.min(grown.length * 2, cap));
      next.set(grown);
      grown = next;
    }
    if (filled > MAX_CATALOG_FILE_BYTES) {
      throw catalogError(
        file,
        stat.size > MAX_CATALOG_FILE_BYTES
          ? `the file is ${stat.size} bytes; the limit is ${MAX_CATALOG_FILE_BYTES}`
          : `the file grew past the limit of ${MAX_CATALOG_FILE_BYTES} bytes while it was read`,
      );
    }
    return new TextDecoder().decode(grown.subarray(0, filled));
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether a file found in a folder (rather than named) is a catalog, by the
 * documented convention: a `.yaml`, `.yml` or `.json` regular file (not a
 * link) whose text names the skill schema (`skill.schema.json`, e.g. in a
 * `$schema` key or a `yaml-language-server` comment) or whose first `name`
 * is a scoped skill name (`scope/name`, as every catalog skill's is). So a
 * repository root's `package.json`, `.pre-commit-config.yaml`, `.mcp.json`
 * or `mkdocs.yml` is never read as one.
 *
 * @param file The file's path.
 * @returns Whether it is a catalog; `false` when it cannot be read as a regular file.
 * @example
 * ```ts
 * import { isCatalogFile } from "./catalog.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * assert.equal(isCatalogFile(new URL("../../../examples/catalog.yaml", import.meta.url).pathname), true);
 * assert.equal(isCatalogFile(new URL("../../../deno.json", import.meta.url).pathname), false);
 * ```
 */
export function isCatalogFile(file: string): boolean {
  if (!CATALOG_EXTENSIONS.includes(extname(file).toLowerCase())) return false;
  let text: string;
  try {
    text = readCatalogFile(file, false);
  } catch {
    return false;
  }
  if (text.includes("skill.schema.json")) return true;
  const name = /^[[{ \t,-]*["']?name["']?[ \t]*:[ \t]*["']?([^"'\s,#]*)/m.exec(text);
  return name !== null && isSkillName(name[1]!);
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
