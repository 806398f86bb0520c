/**
 * The texts the skill index reads from a skill, field by field: its name,
 * description (and `description-<lang>` translations), the headings of its
 * SKILL.md and the body, bounded to {@linkcode MAX_BODY}.
 *
 * Folder `lib/core/search/` — search over large libraries: the BM25F index and its text analysis.
 *
 * @module
 */
import { localizedDescription } from "../catalog/skill_catalog.ts";

/** The most UTF-16 units of a SKILL.md body the index reads (the first 32 KiB). */
export const MAX_BODY = 32 * 1024;

/** A field of the index. */
export type SkillField = "name" | "description" | "headings" | "body";
/** The fields of the index, in the order of their counts. */
export const FIELDS: readonly SkillField[] = ["name", "description", "headings", "body"];

/** A skill's texts as the index reads them. */
export interface SkillTexts {
  readonly name: string;
  /** The description shown: in the index's language where the skill has one. */
  readonly shown: string;
  /** The description and every `description-<lang>` translation, to index. */
  readonly descriptions: readonly string[];
  readonly headings: readonly string[];
  readonly body: string;
}

type Metadata = Readonly<Record<string, string>> | ReadonlyMap<string, string> | undefined;

/**
 * Read the fields of one skill.
 *
 * @param skill Plain `{ name, description, metadata?, headings?, body? }` or a bundle.
 * @param lang The language shown, if any.
 * @param headingsOn Whether headings are read.
 * @param bodyOn Whether the body is read.
 * @returns The texts.
 * @throws {TypeError} When the skill has no string name and description.
 */
export function readSkill(
  skill: unknown,
  lang: string | undefined,
  headingsOn: boolean,
  bodyOn: boolean,
): SkillTexts {
  if (typeof skill === "object" && skill !== null) {
    const s = skill as Record<string, unknown>;
    const front = s["frontmatter"] as Record<string, unknown> | undefined;
    const description = typeof s["description"] === "string"
      ? s["description"]
      : typeof front?.["description"] === "string"
      ? front["description"]
      : undefined;
    if (typeof s["name"] === "string" && description !== undefined) {
      const metadata = (s["metadata"] ?? front?.["metadata"]) as Metadata;
      const body = bodyOf(s);
      const bounded = body.length > MAX_BODY ? body.slice(0, MAX_BODY) : body;
      const headings = !headingsOn
        ? []
        : Array.isArray(s["headings"])
        ? (s["headings"] as unknown[]).filter((h): h is string => typeof h === "string")
        : markdownHeadings(bounded);
      return {
        name: s["name"],
        shown: localizedDescription(
          { description, ...(metadata === undefined ? {} : { metadata }) },
          lang,
        ),
        descriptions: [description, ...translations(metadata)],
        headings,
        body: bodyOn ? bounded : "",
      };
    }
  }
  throw new TypeError("Each skill must have a string name and description (or be a bundle)");
}

/** The body: `body`, else a bundle's `instructions` (none while a lazy bundle is not loaded). */
function bodyOf(s: Record<string, unknown>): string {
  // Read once: a discovered skill's `body` reads its SKILL.md on each get.
  const body = s["body"];
  if (typeof body === "string") return body;
  try {
    const instructions = s["instructions"];
    return typeof instructions === "string" ? instructions : "";
  } catch {
    return "";
  }
}

function translations(metadata: Metadata): string[] {
  if (metadata === undefined || metadata === null || typeof metadata !== "object") return [];
  const entries = metadata instanceof Map
    ? [...metadata.entries()]
    : Object.entries(metadata as Record<string, unknown>);
  const out: string[] = [];
  for (const [key, value] of entries) {
    if (typeof key === "string" && key.startsWith("description-") && typeof value === "string") {
      out.push(value);
    }
  }
  return out;
}

/**
 * The text of each ATX heading (`# …` to `###### …`) outside fenced code
 * blocks. One pass over each line, no backtracking.
 *
 * @param markdown A SKILL.md body.
 * @returns The headings' texts.
 * @throws Never.
 */
export function markdownHeadings(markdown: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split("\n")) {
    let i = 0;
    while (i < 3 && line[i] === " ") i++;
    const c = line[i];
    if (c === "`" || c === "~") {
      let j = i;
      while (line[j] === c) j++;
      if (j - i >= 3) {
        const f = c.repeat(j - i);
        if (fence === undefined) fence = f;
        else if (f.length >= fence.length && f[0] === fence[0]) fence = undefined;
        continue;
      }
    }
    if (fence !== undefined || c !== "#") continue;
    let j = i;
    while (line[j] === "#") j++;
    if (j - i > 6 || (j < line.length && line[j] !== " " && line[j] !== "\t")) continue;
    // The text, less a closing run of # preceded by a space.
    let end = line.length;
    while (end > j && /\s/.test(line[end - 1]!)) end--;
    let k = end;
    while (k > j && line[k - 1] === "#") k--;
    if (k < end && (k === j || line[k - 1] === " " || line[k - 1] === "\t")) end = k;
    const text = line.slice(j, end).trim();
    if (text !== "") out.push(text);
  }
  return out;
}
