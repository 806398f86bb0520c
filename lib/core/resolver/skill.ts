/**
 * The skill data model (SPEC §2) and its validator for untrusted data.
 *
 * Folder `lib/core/resolver/` — the skill model and the resolver: ordered maps, the include graph, tool sets.
 *
 * @module
 */
import { SkillDefinitionError, type SourceLocation } from "../errors.ts";

/** An included skill: its name, or `{ name }`. */
export type SkillInclude = string | { readonly name: string };

/** An anonymous tool defined inside a skill; every capability flag defaults to false / `[]`. */
export interface InlineTool {
  /** What the tool does. */
  readonly description?: string;
  /** The tool only reads; never true together with `writes`. */
  readonly read_only?: boolean;
  /** The tool writes. */
  readonly writes?: boolean;
  /** The tool's work can be checkpointed. */
  readonly checkpointable?: boolean;
  /** Kinds of side effect, e.g. `network`, `filesystem`. */
  readonly side_effects?: readonly string[];
}

/** An MCP server; only a server with an explicit `tools` list contributes tools. */
export interface McpServer {
  /** The server's name (no `/`). */
  readonly server: string;
  /** The server's tools to contribute, each as `mcp:{server}/{tool}`. */
  readonly tools?: readonly string[];
}

/** Arbitrary metadata attached to a tool ref. */
export type ToolOverrides = Readonly<Record<string, unknown>>;

/** One skill, exactly the YAML/JSON shape of SPEC §2. Every list may be absent. */
export interface Skill {
  /** `namespace/name`; each part matches `[a-z0-9][a-z0-9._-]*`. */
  readonly name: string;
  /** What the skill is for. */
  readonly description?: string;
  /** This skill's safety flag for the resource gate; default true. */
  readonly safety?: boolean;
  /** Other skills, resolved first, in this order. */
  readonly includes?: readonly SkillInclude[];
  /** Names of tools defined elsewhere. */
  readonly tool_refs?: readonly string[];
  /** Anonymous tools defined here, keyed `{skill}/_anon_{i}`. */
  readonly inline_tools?: readonly InlineTool[];
  /** MCP servers whose listed tools this skill contributes. */
  readonly mcp_servers?: readonly McpServer[];
  /** Paths of Agent Skill folders (each holding a SKILL.md). */
  readonly agent_skills?: readonly string[];
  /** Metadata for this skill's own tool refs, keyed by tool name. */
  readonly overrides?: Readonly<Record<string, ToolOverrides>>;
}

/** Options of {@linkcode parseSkill}. */
export interface ParseSkillOptions {
  /** The file the value came from; named in errors. */
  readonly file?: string;
  /**
   * Maps a field path (`["inline_tools", 2, "writes"]`) to its line and column
   * in `file`; the catalog loader passes one built from the YAML document.
   */
  readonly locate?: (
    path: readonly (string | number)[],
  ) => { readonly line: number; readonly column: number } | undefined;
}

const NAME_PART = "[a-z0-9][a-z0-9._-]*";
const SKILL_NAME = new RegExp(`^${NAME_PART}/${NAME_PART}$`);
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Check a skill name.
 *
 * @param name Any value.
 * @returns Whether `name` is a valid skill name, `namespace/name`.
 * @example
 * ```ts
 * import { isSkillName } from "./skill.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(isSkillName("local/pdf-tools"), true);
 * assert.equal(isSkillName("Local/pdf"), false);
 * ```
 */
export function isSkillName(name: unknown): name is string {
  return typeof name === "string" && SKILL_NAME.test(name);
}

/**
 * The name of an include.
 *
 * @param include An include, as a name or `{ name }`.
 * @returns The included skill's name.
 */
export function includeName(include: SkillInclude): string {
  return typeof include === "string" ? include : include.name;
}

type Path = readonly (string | number)[];

const SKILL_FIELDS: ReadonlySet<string> = new Set([
  "name",
  "description",
  "safety",
  "includes",
  "tool_refs",
  "inline_tools",
  "mcp_servers",
  "agent_skills",
  "overrides",
]);
const INLINE_FIELDS: ReadonlySet<string> = new Set([
  "description",
  "read_only",
  "writes",
  "checkpointable",
  "side_effects",
]);
const MCP_FIELDS: ReadonlySet<string> = new Set(["server", "tools"]);
const INCLUDE_FIELDS: ReadonlySet<string> = new Set(["name"]);

/**
 * Write a field path for a message.
 *
 * @param path A field path.
 * @returns It written as in code: `inline_tools[2].writes`, `overrides["a b"]`.
 */
export function formatFieldPath(path: readonly (string | number)[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(part)) out += out === "" ? part : `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

/**
 * Validate untrusted data (parsed from YAML or JSON) into a frozen
 * {@linkcode Skill}. Object keys are read as own properties only, so
 * `__proto__` is an ordinary tool name.
 *
 * @param value The parsed document.
 * @param options Where it came from, for error locations.
 * @returns A deep-frozen copy of `value` with the same shape.
 * @throws {SkillDefinitionError} Naming the skill, the field path and, when
 *   known, the file, line and column of the first problem.
 * @example
 * ```ts
 * import { parseSkill } from "./skill.ts";
 * import { assert } from "../_assert.ts";
 *
 * const skill = parseSkill({ name: "local/pdf", tool_refs: ["read_file"] });
 * assert.deepEqual(skill.tool_refs, ["read_file"]);
 * assert.throws(
 *   () => parseSkill({ name: "local/x", inline_tools: [{ read_only: true, writes: true }] }),
 *   { message: 'Invalid skill "local/x" at inline_tools[0]: read_only and writes are both true' },
 * );
 * ```
 */
export function parseSkill(value: unknown, options: ParseSkillOptions = {}): Skill {
  const rawName = isRecord(value) && Object.hasOwn(value, "name") ? value["name"] : undefined;
  const v = new Validator(isSkillName(rawName) ? rawName : undefined, options);
  const doc = v.record(value, []);
  if (!Object.hasOwn(doc, "name")) v.fail([], 'missing required field "name"');
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(doc)) {
    const path = [key];
    const field = doc[key];
    switch (key) {
      case "name":
        if (!isSkillName(field)) v.fail(path, `${describe(field)} is not a skill name (${RULE})`);
        out[key] = field;
        break;
      case "description":
        out[key] = v.string(field, path);
        break;
      case "safety":
        out[key] = v.boolean(field, path);
        break;
      case "includes":
        out[key] = v.list(field, path, (item, p) => v.include(item, p));
        break;
      case "tool_refs":
        out[key] = v.list(field, path, (item, p) => v.toolName(item, p));
        break;
      case "inline_tools":
        out[key] = v.list(field, path, (item, p) => v.inlineTool(item, p));
        break;
      case "mcp_servers":
        out[key] = v.list(field, path, (item, p) => v.mcpServer(item, p));
        break;
      case "agent_skills":
        out[key] = v.list(field, path, (item, p) => v.toolName(item, p));
        break;
      case "overrides":
        out[key] = v.overrides(field, path);
        break;
      default:
        v.unknownField(key, path, SKILL_FIELDS);
    }
  }
  return Object.freeze(out) as unknown as Skill;
}

const RULE = "namespace/name, each part [a-z0-9][a-z0-9._-]*";

class Validator {
  readonly #skill: string | undefined;
  readonly #options: ParseSkillOptions;

  constructor(skill: string | undefined, options: ParseSkillOptions) {
    this.#skill = skill;
    this.#options = options;
  }

  fail(path: Path, reason: string): never {
    const { file, locate } = this.#options;
    let location: SourceLocation | undefined;
    if (file !== undefined) {
      const at = locate?.(path);
      location = at === undefined ? { file } : { file, line: at.line, column: at.column };
    }
    throw new SkillDefinitionError({
      skill: this.#skill,
      field: formatFieldPath(path),
      reason,
      location,
    });
  }

  unknownField(key: string, path: Path, known: ReadonlySet<string>): never {
    this.fail(path, `unknown field ${JSON.stringify(key)} (known: ${[...known].join(", ")})`);
  }

  record(value: unknown, path: Path): Readonly<Record<string, unknown>> {
    if (!isRecord(value)) this.fail(path, `expected a mapping, got ${describe(value)}`);
    return value;
  }

  string(value: unknown, path: Path): string {
    if (typeof value !== "string") this.fail(path, `expected a string, got ${describe(value)}`);
    return value;
  }

  boolean(value: unknown, path: Path): boolean {
    if (typeof value !== "boolean") {
      this.fail(path, `expected true or false, got ${describe(value)}`);
    }
    return value;
  }

  toolName(value: unknown, path: Path): string {
    const name = this.string(value, path);
    if (name === "") this.fail(path, "expected a non-empty string");
    if (CONTROL.test(name)) this.fail(path, `${JSON.stringify(name)} contains a control character`);
    return name;
  }

  list<T>(value: unknown, path: Path, item: (value: unknown, path: Path) => T): readonly T[] {
    if (!Array.isArray(value)) this.fail(path, `expected a list, got ${describe(value)}`);
    const out: T[] = [];
    for (let i = 0; i < value.length; i++) out.push(item(value[i], [...path, i]));
    return Object.freeze(out);
  }

  include(value: unknown, path: Path): SkillInclude {
    if (typeof value === "string") {
      if (!isSkillName(value)) this.fail(path, `${describe(value)} is not a skill name (${RULE})`);
      return value;
    }
    if (!isRecord(value)) {
      this.fail(path, `expected a skill name or { name }, got ${describe(value)}`);
    }
    this.only(value, path, INCLUDE_FIELDS);
    if (!Object.hasOwn(value, "name")) this.fail(path, 'missing required field "name"');
    const name = value["name"];
    if (!isSkillName(name)) {
      this.fail([...path, "name"], `${describe(name)} is not a skill name (${RULE})`);
    }
    return Object.freeze({ name });
  }

  inlineTool(value: unknown, path: Path): InlineTool {
    const doc = this.record(value, path);
    this.only(doc, path, INLINE_FIELDS);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(doc)) {
      const p = [...path, key];
      out[key] = key === "description"
        ? this.string(doc[key], p)
        : key === "side_effects"
        ? this.list(doc[key], p, (item, ip) => this.toolName(item, ip))
        : this.boolean(doc[key], p);
    }
    if (out["read_only"] === true && out["writes"] === true) {
      this.fail(path, "read_only and writes are both true");
    }
    return Object.freeze(out) as InlineTool;
  }

  mcpServer(value: unknown, path: Path): McpServer {
    const doc = this.record(value, path);
    this.only(doc, path, MCP_FIELDS);
    if (!Object.hasOwn(doc, "server")) this.fail(path, 'missing required field "server"');
    const server = this.toolName(doc["server"], [...path, "server"]);
    if (server.includes("/")) {
      this.fail([...path, "server"], `${JSON.stringify(server)} contains "/"`);
    }
    if (!Object.hasOwn(doc, "tools")) return Object.freeze({ server });
    const tools = this.list(doc["tools"], [...path, "tools"], (item, p) => this.toolName(item, p));
    return Object.freeze({ server, tools });
  }

  overrides(value: unknown, path: Path): Readonly<Record<string, ToolOverrides>> {
    const doc = this.record(value, path);
    const entries: [string, ToolOverrides][] = [];
    for (const key of Object.keys(doc)) {
      const p = [...path, key];
      this.toolName(key, p);
      entries.push([key, deepFreezeCopy(this.record(doc[key], p))]);
    }
    // fromEntries defines own properties, so a "__proto__" key stays a key.
    return Object.freeze(Object.fromEntries(entries));
  }

  only(doc: Readonly<Record<string, unknown>>, path: Path, known: ReadonlySet<string>): void {
    for (const key of Object.keys(doc)) {
      if (!known.has(key)) this.unknownField(key, [...path, key], known);
    }
  }
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return JSON.stringify(value);
  return `${typeof value} ${String(value)}`;
}

/**
 * Copies plain data (JSON-like, possibly deep, shared or even cyclic after YAML
 * aliases) into frozen objects, without recursion. Keys are defined as own
 * properties, so `__proto__` stays an ordinary key.
 */
function deepFreezeCopy<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  const copies = new Map<object, object>([[value, Array.isArray(value) ? [] : {}]]);
  const work: object[] = [value];
  while (work.length > 0) {
    const source = work.pop()! as Record<string, unknown>;
    const target = copies.get(source)!;
    for (const key of Object.keys(source)) {
      let item = source[key];
      if (typeof item === "object" && item !== null) {
        let copy = copies.get(item);
        if (copy === undefined) {
          copy = Array.isArray(item) ? [] : {};
          copies.set(item, copy);
          work.push(item);
        }
        item = copy;
      }
      Object.defineProperty(target, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  for (const copy of copies.values()) Object.freeze(copy);
  return copies.get(value) as T;
}
