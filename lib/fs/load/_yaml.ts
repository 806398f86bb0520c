/**
 * The one strict YAML parse that SKILL.md frontmatter and catalogs go through:
 * the `yaml` package's core schema, and on top of it, in time linear in the
 * input, the rules that make a document plain data —
 *
 * - every syntax error and every warning of `yaml` is an error;
 * - any tag outside the core schema (`!!set`, `!!binary`, `!custom`, …) is an
 *   error, even one `yaml` knows how to build;
 * - a key repeated in one mapping is an error. Keys are compared as the
 *   property names they become (`1` and `"1"` collide), with a set per
 *   mapping: `yaml`'s own `uniqueKeys` compares each key with every earlier
 *   one, which is quadratic.
 *
 * Internal: `skill_md.ts` and `catalog.ts` turn {@linkcode YamlRuleError} into
 * their own typed errors with file, line and column.
 *
 * Folder `lib/fs/load/` — loading one skill folder: verified listings, SKILL.md and YAML, catalog files.
 *
 * @module
 */
import { SkillsetError } from "../../core/errors.ts";
import {
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  type LineCounter,
  parseAllDocuments,
} from "yaml";

/** The most aliases a document may expand (a guard against alias bombs). */
export const MAX_ALIAS_COUNT = 100;

/** The tags of the YAML 1.2 core schema. */
const CORE_TAGS: ReadonlySet<string> = new Set(
  ["str", "int", "float", "bool", "null", "map", "seq"].map((t) => `tag:yaml.org,2002:${t}`),
);

/** A broken rule, at an offset of the parsed text (`undefined`: the whole document). */
export class YamlRuleError extends SkillsetError {
  override readonly name = "YamlRuleError";
  readonly code = "YAML_RULE" as const;
  readonly offset: number | undefined;

  /**
   * @param message What is wrong.
   * @param offset Where, as an offset of the text.
   */
  constructor(message: string, offset: number | undefined) {
    super(message);
    this.offset = offset;
  }
}

/**
 * Parse YAML text (one or more documents) under the strict rules above.
 *
 * @param text The YAML text.
 * @param lines Collects line starts, to turn offsets into line and column.
 * @returns The parsed documents.
 * @throws {YamlRuleError} For the first error, warning, non-core tag or duplicate key.
 */
export function parseStrictYaml(text: string, lines: LineCounter): Document.Parsed[] {
  const parsed = parseAllDocuments(text, {
    schema: "core",
    customTags: [],
    uniqueKeys: false,
    strict: true,
    prettyErrors: false,
    lineCounter: lines,
  });
  const docs = "empty" in parsed ? [] : parsed;
  for (const doc of docs) {
    const [problem] = [...doc.errors, ...doc.warnings];
    if (problem !== undefined) {
      throw new YamlRuleError(`YAML error: ${firstLine(problem.message)}`, problem.pos[0]);
    }
    checkNodes(doc.contents);
  }
  return docs;
}

/**
 * @param doc A document from {@linkcode parseStrictYaml}.
 * @returns Its plain JavaScript value, aliases expanded at most {@linkcode MAX_ALIAS_COUNT} times.
 * @throws {YamlRuleError} For an alias bomb.
 */
export function yamlData(doc: Document.Parsed): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    throw new YamlRuleError(`YAML error: ${firstLine((e as Error).message)}`, undefined);
  }
}

/** Tags and duplicate keys, with an explicit stack (no recursion over user data). */
function checkNodes(root: unknown): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || node === undefined || isAlias(node)) continue;
    const tagged = node as { tag?: string; range?: [number, number, number] };
    if (tagged.tag !== undefined && !CORE_TAGS.has(tagged.tag)) {
      throw new YamlRuleError(
        `YAML error: the tag ${JSON.stringify(shortTag(tagged.tag))} is outside the core schema`,
        tagged.range?.[0],
      );
    }
    if (isMap(node)) {
      const keys = new Set<string>();
      for (const pair of node.items) {
        const key = pair.key;
        if (isScalar(key)) {
          const name = String(key.value);
          if (keys.has(name)) {
            throw new YamlRuleError("YAML error: Map keys must be unique", key.range?.[0]);
          }
          keys.add(name);
        }
        stack.push(pair.value, key);
      }
    } else if (isSeq(node)) {
      for (let i = node.items.length - 1; i >= 0; i--) {
        const item = node.items[i];
        if (isPair(item)) stack.push(item.value, item.key);
        else stack.push(item);
      }
    }
  }
}

function shortTag(tag: string): string {
  return tag.startsWith("tag:yaml.org,2002:") ? `!!${tag.slice(18)}` : tag;
}

function firstLine(message: string): string {
  return message.split("\n")[0]!.trim();
}
