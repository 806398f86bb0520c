/**
 * Agent Skills frontmatter (SPEC §5): the rules of the Agent Skills
 * specification, checked on already-parsed data. Parsing SKILL.md text (YAML)
 * lives in `skill_md.ts`, outside `mod.ts`'s import graph.
 *
 * Folder `lib/core/activation/` — activation and the model's tools: bodies, the skill tool, skill_search.
 *
 * @module
 */
import { AgentSkillError } from "../errors.ts";
import { readSkillPaths } from "../catalog/skill_paths.ts";

/** The validated frontmatter of a SKILL.md. */
export interface AgentSkillFrontmatter {
  /** 1–64 characters: lowercase letters, digits and hyphens; equal to the folder name. */
  readonly name: string;
  /** 1–1024 characters. */
  readonly description: string;
  /** The license of the skill. */
  readonly license?: string;
  /** 1–500 characters. */
  readonly compatibility?: string;
  /** Free-form string metadata. */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Space-separated tool names. */
  readonly "allowed-tools"?: string;
  /**
   * Not offered to the model, only activated by name (a Claude Code field;
   * the skill's mode is `manual` unless the host says otherwise).
   */
  readonly "disable-model-invocation"?: boolean;
  /**
   * Gitignore-style globs relative to the project root (a Claude Code, Cursor, Qwen Code and
   * Grok CLI field): the skill is listed only when the host passes a matching path.
   */
  readonly paths?: readonly string[];
}

const KNOWN: readonly string[] = [
  "name",
  "description",
  "license",
  "compatibility",
  "metadata",
  "allowed-tools",
];
/** Fields of runtimes' conventions that are read too, though the specification does not list them. */
const CONVENTIONS: readonly string[] = ["disable-model-invocation", "paths"];

/**
 * Check an Agent Skill name.
 *
 * @param name A candidate skill name.
 * @returns Why it breaks the Agent Skills name rule, or `null` when it is valid.
 */
export function agentSkillNameProblem(name: string): string | null {
  const normal = name.normalize("NFKC");
  const length = [...normal].length;
  if (length < 1 || length > 64) return `must be 1 to 64 characters, got ${length}`;
  // Fast path for the common ASCII names; the loop below decides everything else.
  const ascii = /^[a-z0-9-]+$/.test(normal);
  for (const char of ascii ? "" : normal) {
    const ok = char === "-" || /^\p{Nd}$/u.test(char) ||
      (/^\p{L}$/u.test(char) && char.toLowerCase() === char);
    if (!ok) {
      return `${JSON.stringify(char)} is not allowed (lowercase letters, digits and hyphens only)`;
    }
  }
  if (normal.startsWith("-") || normal.endsWith("-")) return "must not start or end with a hyphen";
  if (normal.includes("--")) return "must not contain two hyphens in a row";
  return null;
}

/**
 * Check parsed frontmatter against the Agent Skills rules.
 *
 * @param data The parsed frontmatter.
 * @param folder The skill folder's name, which `name` must equal (both
 *   NFKC-normalised); omit for a skill that has no folder.
 * @param locate Maps a field to its location, for errors.
 * @returns The frontmatter, frozen, with `name` NFKC-normalised.
 * @throws {AgentSkillError} Naming the first field that breaks a rule.
 * @example
 * ```ts
 * import { validateAgentSkillFrontmatter } from "./agent_skill.ts";
 * import { assert } from "../_assert.ts";
 *
 * const fm = validateAgentSkillFrontmatter({ name: "pdf", description: "Fill PDF forms" }, "pdf");
 * assert.equal(fm.name, "pdf");
 * assert.throws(() => validateAgentSkillFrontmatter({ name: "PDF", description: "x" }), {
 *   message: 'Invalid SKILL.md at name: "P" is not allowed (lowercase letters, digits and hyphens only)',
 * });
 * ```
 */
export function validateAgentSkillFrontmatter(
  data: unknown,
  folder?: string,
  locate?: (field: string) => import("../errors.ts").SourceLocation | undefined,
): AgentSkillFrontmatter {
  const fail = (field: string, reason: string): never => {
    throw new AgentSkillError(field, reason, locate?.(field));
  };
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    fail("", "the frontmatter must be a mapping");
  }
  const doc = data as Readonly<Record<string, unknown>>;
  for (const key of Object.keys(doc)) {
    if (!KNOWN.includes(key) && !CONVENTIONS.includes(key)) {
      fail(key, `unknown field ${JSON.stringify(key)} (known: ${KNOWN.join(", ")})`);
    }
  }
  const out: Record<string, unknown> = {};
  const text = (field: string, min: number, max: number): string | undefined => {
    if (!Object.hasOwn(doc, field)) return undefined;
    const value = doc[field];
    if (typeof value !== "string") return fail(field, `must be a string, got ${describe(value)}`);
    const length = [...value].length;
    if (length < min || length > max) {
      fail(field, `must be ${min} to ${max} characters, got ${length}`);
    }
    return value;
  };
  if (!Object.hasOwn(doc, "name")) fail("name", 'missing required field "name"');
  const name = text("name", 0, Infinity)!;
  const problem = agentSkillNameProblem(name);
  if (problem !== null) fail("name", problem);
  out["name"] = name.normalize("NFKC");
  if (folder !== undefined && out["name"] !== folder.normalize("NFKC")) {
    fail("name", `${JSON.stringify(name)} must equal the folder name ${JSON.stringify(folder)}`);
  }
  if (!Object.hasOwn(doc, "description")) {
    fail("description", 'missing required field "description"');
  }
  out["description"] = text("description", 1, 1024);
  const license = text("license", 0, Infinity);
  if (license !== undefined) out["license"] = license;
  const compatibility = text("compatibility", 1, 500);
  if (compatibility !== undefined) out["compatibility"] = compatibility;
  const tools = text("allowed-tools", 0, Infinity);
  if (tools !== undefined) out["allowed-tools"] = tools;
  if (Object.hasOwn(doc, "disable-model-invocation")) {
    const value = doc["disable-model-invocation"];
    if (typeof value !== "boolean") {
      fail("disable-model-invocation", `must be true or false, got ${describe(value)}`);
    }
    out["disable-model-invocation"] = value;
  }
  if (Object.hasOwn(doc, "paths")) {
    const read = readSkillPaths(doc["paths"]);
    if ("problem" in read) fail("paths", read.problem);
    else out["paths"] = read.globs;
  }
  if (Object.hasOwn(doc, "metadata")) {
    const metadata = doc["metadata"];
    if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
      fail("metadata", `must be a mapping of strings, got ${describe(metadata)}`);
    }
    const entries: [string, string][] = [];
    for (const [key, value] of Object.entries(metadata as Record<string, unknown>)) {
      if (typeof value !== "string") {
        fail(`metadata.${key}`, `must be a string, got ${describe(value)}`);
      }
      entries.push([key, value as string]);
    }
    out["metadata"] = Object.freeze(Object.fromEntries(entries));
  }
  return Object.freeze(out) as unknown as AgentSkillFrontmatter;
}

/**
 * The top-level frontmatter key that an {@linkcode AgentSkillError}'s field
 * names: the field itself when the frontmatter has that key (an unknown key
 * may hold a dot, as `a.b` does), else the part before the first dot
 * (`metadata.author` names `metadata`).
 *
 * @param field The error's field.
 * @param has Whether the frontmatter has a top-level key.
 * @returns The key.
 */
export function frontmatterKey(field: string, has: (key: string) => boolean): string {
  return has(field) ? field : field.split(".")[0]!;
}

/**
 * The `allowed-tools` list.
 *
 * @param frontmatter Validated frontmatter.
 * @returns The `allowed-tools` names, split on white space.
 */
export function allowedTools(frontmatter: AgentSkillFrontmatter): readonly string[] {
  const raw = frontmatter["allowed-tools"];
  return Object.freeze(raw === undefined ? [] : raw.split(/\s+/).filter((t) => t !== ""));
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return `${typeof value} ${String(value)}`;
}
