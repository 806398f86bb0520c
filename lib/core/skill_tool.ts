/**
 * The skill tool (SPEC §7): the one tool a model calls to activate a skill or
 * read one of its bundled files. Its definition converts to the shapes of the
 * MCP, OpenAI and Anthropic tool APIs; its handler turns every request into
 * text and never throws for anything a model can send.
 *
 * @module
 */
import { deepFreeze } from "./_deep_freeze.ts";
import { escapeControls, foldDescription, quoteShort } from "./_text.ts";
import { activateSkill, renderActivation } from "./activate.ts";
import type { SkillBundle } from "./bundle.ts";
import { formatLocation, type SourceLocation, withoutLocation } from "./errors.ts";
import type { SafetyFlags } from "./gate.ts";
import {
  isTrustedSkill,
  type PolicySkill,
  type ToolPolicyMode,
  type ToolTrust,
} from "./policy/tool_policy.ts";
import {
  DEFAULT_MAX_PAGE_BYTES,
  MIN_PAGE_BYTES,
  readResource,
  renderResourceRead,
} from "./read.ts";

/** A JSON Schema object (plain data). */
export type JsonSchema = { readonly [key: string]: unknown };

/** The tool definition: a name, a description for the model and a JSON Schema for its input. */
export interface SkillToolDefinition {
  /** Always `skill`. */
  readonly name: "skill";
  /** What the model is told about the tool. */
  readonly description: string;
  /** The JSON Schema of the input. */
  readonly input_schema: JsonSchema;
}

/** What the model sends. */
export interface SkillToolInput {
  /** The skill to activate or read from. */
  readonly skill: string;
  /** A path inside the skill; absent to activate. */
  readonly resource?: string;
  /** A line or byte of the file; `"L+B"` inside a long line; without `resource`, the first manifest entry of each class. */
  readonly offset?: number | string;
  /** Lines or bytes in the page. */
  readonly limit?: number;
}

/** What the handler returns: text for the model, and whether it is an error. */
export interface SkillToolResult {
  /** The text for the model. */
  readonly content: string;
  /** Whether the request failed (the text says why). */
  readonly is_error: boolean;
}

/**
 * Anything that loads bundles by name, such as a discovery result
 * (`discoverSkills` in `./load`), which loads each skill on first use.
 */
export interface SkillBundleSource {
  /** The bundle of that name, or `undefined` for an unknown name. */
  bundle(name: string): SkillBundle | undefined;
}

/** Where the handler finds skills and their safety settings. */
export interface SkillToolContext {
  /**
   * The skills: a list, a map by name, or a loader returning `undefined` for an unknown name.
   * A loader is only asked for names made of `/`-separated segments that start with a letter or
   * digit (never `..`, an absolute path or a control character), and its answer is used only when
   * the bundle's `name` is the name asked for.
  if (isBundleSource(skills)) {
    // A discovery result looks names up in its own map; the same rule holds for its answer.
    const bundle = skills.bundle(name) ?? undefined;
    return bundle?.name === name ? bundle : undefined;
  }
   */
  readonly skills:
    | Iterable<SkillBundle>
    | ReadonlyMap<string, SkillBundle>
    | ((name: string) => SkillBundle | undefined)
    | SkillBundleSource;
  /** The runtime's global safety; default true. */
  readonly global_safety?: boolean;
  /** Each skill's safety by name (default true): a map, a record or a function. */
  readonly skill_safety?:
    | ReadonlyMap<string, boolean>
    | Readonly<Record<string, boolean>>
    | ((name: string) => boolean | undefined);
  /** The most bytes of content in one page (at least 4); default 262144. Pass the same value to {@linkcode skillToolDefinition}. */
  readonly max_page_bytes?: number;
  /** The most manifest entries per class in an activation; default 500. */
  readonly max_manifest_entries?: number;
  /** The host's tool policy mode: an activation then lists the skill's allowed tools and the mode. */
  readonly tool_policy?: ToolPolicyMode;
  /** Whose `allowed-tools` count, as the policy's `trusted`; default `true` (local skills only). */
  readonly trusted?: ToolTrust;
}

/** Options of {@linkcode skillToolDefinition}. */
export interface SkillToolOptions {
  /** The page cap the handler uses (its context's `max_page_bytes`); default 262144. */
  readonly max_page_bytes?: number;
}

/** A skill as the definition needs it: a name, or a name with a description. */
export type SkillSummary = string | { readonly name: string; readonly description?: string };

const FIELDS = ["skill", "resource", "offset", "limit"] as const;

/**
 * The definition of the `skill` tool for the given skills.
 *
 * @param skills The skills the model may use: names, bundles, or `{ name, description }`.
 * @param options The page cap, stated in the description and bounding `limit`.
 * @returns A frozen definition whose `input_schema.properties.skill.enum` lists their names.
 * @throws {RangeError} When `skills` is empty or `max_page_bytes` is not a whole number of at least 4.
 * @example
 * ```ts
 * import { skillToolDefinition } from "./skill_tool.ts";
 * import { assert } from "./_assert.ts";
 *
 * const tool = skillToolDefinition([{ name: "pdf", description: "Fill PDF forms" }]);
 * assert.equal(tool.name, "skill");
 * assert.deepEqual((tool.input_schema.properties as any).skill.enum, ["pdf"]);
 * ```
 */
export function skillToolDefinition(
  skills: Iterable<SkillSummary>,
  options: SkillToolOptions = {},
): SkillToolDefinition {
  const cap = pageCap(options.max_page_bytes);
  const listed: { name: string; description?: string }[] = [];
  for (const s of skills) {
    if (typeof s === "string") listed.push({ name: s });
    else {
      const description = "frontmatter" in s
        ? (s as SkillBundle).frontmatter.description
        : s.description;
      listed.push(description === undefined ? { name: s.name } : { name: s.name, description });
    }
  }
  if (listed.length === 0) throw new RangeError("skillToolDefinition needs at least one skill");
  // One entry per name (the first); names and descriptions on one line each, so
  // a description cannot add lines or entries of its own.
  const byName = new Map<string, { name: string; description?: string }>();
  for (const s of listed) if (!byName.has(s.name)) byName.set(s.name, s);
  const names = [...byName.keys()];
  const catalog = [...byName.values()].map((s) =>
    `- ${escapeControls(s.name)}${
      s.description === undefined ? "" : `: ${escapeControls(foldDescription(s.description))}`
    }`
  );
  const description = [
    "Use a skill: a folder of instructions and bundled files for a task.",
    "Call with only `skill` to activate it: you get its instructions and a manifest of its bundled files, " +
    "grouped as references/ (documentation to read when needed), assets/ (templates, images, data) " +
    "and scripts/ (source code), plus files at the top level.",
    "Call with `skill` and `resource` (a path from the manifest) to read a file. Text comes back decoded; " +
    "binary assets come back as base64. Long files come in pages: pass `offset` (a line for text, " +
    "a byte for base64) and `limit`, and follow `next_offset` until it says none. " +
    `No page holds more than ${cap} bytes: a longer line comes in pieces, and \`next_offset\` ` +
    'then reads like "1200+262144" (line 1200 from byte 262144 of it); pass it back as `offset` as it is.',
    "A manifest lists at most a few hundred files per folder and says how many more there are: " +
    "call with `skill` and `offset` (no `resource`) to list the next ones.",
    "Scripts are only read as source: this tool never runs anything.",
    "Files in non-standard folders (anything other than references/, assets/ and scripts/) are gated by the " +
    "safety settings: they are not listed and cannot be read unless both the global and the skill's safety " +
    "are off.",
    "Available skills:",
    ...catalog,
  ].join("\n");
  const input_schema: JsonSchema = {
    type: "object",
    properties: {
      skill: { type: "string", enum: names, description: "The skill to activate or read from." },
      resource: {
        type: "string",
        minLength: 1,
        description:
          "A file path inside the skill, as listed in its manifest (e.g. references/forms.md). " +
          "Omit to activate the skill.",
      },
      offset: {
        anyOf: [
          { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
          { type: "string", pattern: LINE_BYTE_PATTERN },
        ],
        description: "Where the page starts: a line (text) or a byte (base64), from 0, or a " +
          'next_offset such as "1200+262144" (line 1200 from byte 262144 of it). Default 0. ' +
          "Without resource: the first manifest entry of each folder to list.",
      },
      limit: {
        type: "integer",
        minimum: 1,
        maximum: cap,
        description: "Page size: lines for text (default 2000), bytes for base64 " +
          `(default 49152, rounded down to a multiple of 3); a page never holds more than ${cap} bytes.`,
      },
    },
    required: ["skill"],
    dependencies: { limit: ["resource"] },
    additionalProperties: false,
  };
  return deepFreeze({ name: "skill", description, input_schema });
}

/**
 * Handle one call of the `skill` tool: activate a skill, or read one page of a
 * bundled file through the safety gate. Anything wrong with the request —
 * invalid input, an unknown skill or file, a refusal — comes back as text with
 * `is_error: true`; the handler never throws.
 *
 * @param input What the model sent (any JSON value).
 * @param context The skills and the safety settings.
 * @returns The activation, the `[SKILL_RESOURCE_READ]` envelope, or an error text.
 * @example
 * ```ts
 * import { createBundle, handleSkillTool } from "../../mod.ts";
 * import { assert } from "./_assert.ts";
 *
 * const pdf = createBundle({
 *   frontmatter: { name: "pdf", description: "Fill PDF forms" },
 *   instructions: "Fill the form.",
 *   files: { "assets/form.txt": "Name: ____\n", "secret/key.txt": "k" },
 * });
 * const context = { skills: [pdf] };
 * assert.equal(handleSkillTool({ skill: "pdf" }, context).is_error, false);
 * const refused = handleSkillTool({ skill: "pdf", resource: "secret/key.txt" }, context);
 * assert.deepEqual(refused, {
 *   content: 'Refused to read non-standard resource "secret/key.txt": global safety is true, skill safety is true (both must be false)',
 *   is_error: true,
 * });
 * ```
 */
export function handleSkillTool(input: unknown, context: SkillToolContext): SkillToolResult {
  try {
    const cap = pageCap(context.max_page_bytes);
    const request = parseSkillToolInput(input, cap);
    const bundle = findSkill(context, request.skill);
    if (bundle === undefined) {
      return failure(`Unknown skill ${quoteShort(request.skill)}`);
    }
    const flags: SafetyFlags = {
      global_safety: context.global_safety !== false,
      skill_safety: skillSafety(context, request.skill),
    };
    if (request.resource === undefined) {
      if (typeof request.offset === "string") {
        return failure(
          `Offset ${
            JSON.stringify(request.offset)
          } addresses a line of a file; to page the manifest, pass a whole number`,
        );
      }
      return success(renderActivation(activateSkill(bundle, {
        ...flags,
        ...(request.offset === undefined ? {} : { offset: request.offset }),
        ...(context.max_manifest_entries === undefined
          ? {}
          : { max_entries: context.max_manifest_entries }),
        ...(context.tool_policy === undefined ? {} : {
          tool_policy: context.tool_policy,
          trusted: isTrustedSkill(bundle as PolicySkill, context.trusted ?? true),
        }),
      })));
    }
    const page = readResource(bundle, request.resource, {
      ...flags,
      max_page_bytes: cap,
      ...(request.offset === undefined ? {} : { offset: request.offset }),
      ...(request.limit === undefined ? {} : { limit: request.limit }),
    });
    return success(renderResourceRead(page));
  } catch (e) {
    return failure(
      shortenQuotes(e instanceof Error ? modelMessage(e) : `Unexpected error: ${String(e)}`),
    );
  }
}

/**
 * Error texts quote at most {@linkcode MAX_QUOTED} characters of any value:
 * each JSON-quoted value in the message that is longer is cut (one pass, no
 * regular expression, so a 10 MB value costs nothing more than reading it).
 */
function shortenQuotes(message: string): string {
  let out = "";
  let from = 0;
  for (let open = message.indexOf('"'); open >= 0; open = message.indexOf('"', from)) {
    let close = open + 1;
    while (close < message.length && message[close] !== '"') {
      close += message[close] === "\\" ? 2 : 1;
    }
    if (close >= message.length) break;
    const quoted = message.slice(open, close + 1);
    let value: unknown = null;
    try {
      value = quoted.length > MAX_QUOTED + 2 ? JSON.parse(quoted) : null;
    } catch {
      value = null;
    }
    out += message.slice(from, open) + (typeof value === "string" ? quoteShort(value) : quoted);
    from = close + 1;
  }
  return out + message.slice(from);
}

const MAX_QUOTED = 200;

/**
 * An error's message without host paths: a location keeps only its file's
 * name, a raw file-system error (from a caller's loader) only its code.
 */
function modelMessage(e: Error): string {
  const { location, syscall, code } = e as {
    location?: SourceLocation;
    syscall?: unknown;
    code?: unknown;
  };
  if (typeof syscall === "string") {
    return `Cannot load the skill: the file system refused (${String(code)})`;
  }
  if (location === undefined || typeof location?.file !== "string") return e.message;
  const file = location.file.slice(
    Math.max(location.file.lastIndexOf("/"), location.file.lastIndexOf("\\")) + 1,
  );
  return `${withoutLocation(e.message, location)} (${formatLocation({ ...location, file })})`;
}

/**
 * Check a model's input against the same rules as the definition's schema.
 *
 * @param input Any value.
 * @param maxPageBytes The page cap, which bounds `limit`; default 262144.
 * @returns The typed input.
 * @throws {TypeError} Naming the first field that breaks a rule.
 */
export function parseSkillToolInput(
  input: unknown,
  maxPageBytes: number = DEFAULT_MAX_PAGE_BYTES,
): SkillToolInput {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new TypeError('Invalid input: expected an object with a "skill" field');
  }
  const fields = input as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!(FIELDS as readonly string[]).includes(key)) {
      throw new TypeError(
        `Invalid input: unknown field ${quoteShort(key)} (known: ${FIELDS.join(", ")})`,
      );
    }
  }
  if (!Object.hasOwn(fields, "skill")) throw new TypeError('Invalid input: "skill" is required');
  const { skill, resource, offset, limit } = fields;
  if (typeof skill !== "string") throw new TypeError('Invalid input: "skill" must be a string');
  const out: { skill: string; resource?: string; offset?: number | string; limit?: number } = {
    skill,
  };
  if (Object.hasOwn(fields, "resource")) {
    if (typeof resource !== "string" || resource === "") {
      throw new TypeError('Invalid input: "resource" must be a non-empty string');
    }
    out.resource = resource;
  }
  if (Object.hasOwn(fields, "offset")) {
    out.offset = typeof offset === "string" && LINE_BYTE.test(offset)
      ? offset
      : integer(offset, "offset", 0, 'or a "line+byte" next_offset');
  }
  if (Object.hasOwn(fields, "limit")) {
    out.limit = integer(limit, "limit", 1);
    if (out.limit > maxPageBytes) {
      throw new TypeError(`Invalid input: "limit" must be at most ${maxPageBytes}`);
    }
    // An offset without a resource pages the manifest; a limit without one means nothing.
    if (out.resource === undefined) {
      throw new TypeError(
        'Invalid input: "limit" needs "resource" (it sizes a page of a file; omit it to activate the skill)',
      );
    }
  }
  return out;
}

/**
 * The definition as an MCP tool.
 *
 * @param definition The skill tool's definition.
 * @returns An MCP `tools/list` entry.
 */
export function toMcpTool(definition: SkillToolDefinition): {
  name: string;
  description: string;
  inputSchema: JsonSchema;
} {
  return {
    name: definition.name,
    description: definition.description,
    inputSchema: definition.input_schema,
  };
}

/**
 * The definition as an OpenAI function tool.
 *
 * @param definition The skill tool's definition.
 * @returns An OpenAI function tool.
 */
export function toOpenAITool(definition: SkillToolDefinition): {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
} {
  return {
    type: "function",
    function: {
      name: definition.name,
      description: definition.description,
      parameters: definition.input_schema,
    },
  };
}

/**
 * The definition as an Anthropic tool.
 *
 * @param definition The skill tool's definition.
 * @returns An Anthropic tool.
 */
export function toAnthropicTool(definition: SkillToolDefinition): {
  name: string;
  description: string;
  input_schema: JsonSchema;
} {
  return {
    name: definition.name,
    description: definition.description,
    input_schema: definition.input_schema,
  };
}

function integer(value: unknown, name: string, min: number, or = ""): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    throw new TypeError(
      `Invalid input: "${name}" must be a whole number of at least ${min}${
        or === "" ? "" : ` ${or}`
      }`,
    );
  }
  return value;
}

/** The `"line+byte"` offset form (as in `readResource`): at most 15 digits each. */
const LINE_BYTE_PATTERN = "^(0|[1-9][0-9]{0,14})\\+(0|[1-9][0-9]{0,14})$";
const LINE_BYTE = new RegExp(LINE_BYTE_PATTERN);

function pageCap(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_PAGE_BYTES;
  if (!Number.isSafeInteger(value) || value < MIN_PAGE_BYTES) {
    throw new RangeError(
      `max_page_bytes must be a whole number of at least ${MIN_PAGE_BYTES}, got ${String(value)}`,
    );
  }
  return value;
}

/**
 * Names handed to a caller's loader: segments separated by `/` (MCP-served skills are
 * `origin:path`), each starting with a letter or digit and holding only letters, digits, `.`,
 * `_`, `:` and `-`. So no `..`, no absolute path, no backslash, no space, no control or bidi
 * character reaches a loader.
 */
const LOADER_SAFE_NAME = /^[\p{L}\p{N}][\p{L}\p{N}._:-]*(?:\/[\p{L}\p{N}][\p{L}\p{N}._:-]*)*$/u;

/**
 * The bundle the handler would use for a skill name, found the way
 * {@linkcode handleSkillTool} finds it (for wrappers that check a skill
 * first, such as a lock).
 *
 * @param context The handler's context.
 * @param name The skill name the model sent.
 * @returns The bundle, or `undefined` for an unknown name.
 * @throws Whatever a loader or a discovery's `bundle` throws.
 * @example
 * ```ts
 * import { findSkillBundle } from "./skill_tool.ts";
 * import { createBundle } from "./bundle.ts";
 * import { assert } from "./_assert.ts";
 *
 * const pdf = createBundle({ frontmatter: { name: "pdf", description: "PDF" }, instructions: "" });
 * assert.equal(findSkillBundle({ skills: [pdf] }, "pdf"), pdf);
 * assert.equal(findSkillBundle({ skills: () => pdf }, "../pdf"), undefined);
 * ```
 */
export function findSkillBundle(context: SkillToolContext, name: string): SkillBundle | undefined {
  return findSkill(context, name);
}

function findSkill(context: SkillToolContext, name: string): SkillBundle | undefined {
  const { skills } = context;
  if (typeof skills === "function") {
    // The name is the model's: a loader never sees one that could walk a path, and
    // its answer counts only when it is the skill that was asked for.
    if (!LOADER_SAFE_NAME.test(name)) return undefined;
    const bundle = skills(name) ?? undefined;
    return bundle?.name === name ? bundle : undefined;
  }
  if (isBundleSource(skills)) {
    // A discovery result looks names up in its own map; the same rule holds for its answer.
    const bundle = skills.bundle(name) ?? undefined;
    return bundle?.name === name ? bundle : undefined;
  }
  if (isMap(skills)) return skills.get(name);
  for (const bundle of skills) if (bundle.name === name) return bundle;
  return undefined;
}

function skillSafety(context: SkillToolContext, name: string): boolean {
  const table = context.skill_safety;
  let value: boolean | undefined;
  if (table === undefined) value = undefined;
  else if (typeof table === "function") value = table(name);
  else if (isMap(table)) value = table.get(name);
  else value = Object.hasOwn(table, name) ? table[name] : undefined;
  return value !== false;
}

function isBundleSource(value: unknown): value is SkillBundleSource {
  return typeof value === "object" && value !== null &&
    typeof (value as SkillBundleSource).bundle === "function";
}

function isMap<V>(value: unknown): value is ReadonlyMap<string, V> {
  return typeof value === "object" && value !== null &&
    typeof (value as ReadonlyMap<string, V>).get === "function" &&
    typeof (value as ReadonlyMap<string, V>).has === "function";
}

function success(content: string): SkillToolResult {
  return Object.freeze({ content, is_error: false });
}

function failure(content: string): SkillToolResult {
  return Object.freeze({ content, is_error: true });
}
