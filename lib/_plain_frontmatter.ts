/**
 * A fast path for the commonest frontmatter: only `key: value` lines of the
 * known string fields, each value a plain scalar that YAML's core schema reads
 * as exactly that string. Anything else returns `null`, and the caller parses
 * with the `yaml` package; a property test holds the two to the same result.
 *
 * @module
 */

/** The fields the fast path reads; any other key goes to the YAML parser. */
const KEYS: ReadonlySet<string> = new Set([
  "name",
  "description",
  "license",
  "compatibility",
  "allowed-tools",
]);

/** Plain scalars that the core schema reads as something other than a string. */
const NOT_STRINGS: ReadonlySet<string> = new Set([
  "null",
  "Null",
  "NULL",
  "true",
  "True",
  "TRUE",
  "false",
  "False",
  "FALSE",
]);

const LINE = /^([a-z][a-z-]*): ([^\n]*)$/;
/**
 * A value that starts with a letter (so it is no number, `.inf`, `~` or
 * indicator), holds only printable characters other than a tab, and has no
 * `": "` (a nested mapping), no `" #"` (a comment) and no final `:` or space.
 */
const VALUE =
  /^(?:[A-Za-z]|[\u00c0-\u024f])(?:[\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]|[\ud800-\udbff][\udc00-\udfff])*$/;

/** The fields read by the fast path, and the 0-based line of each in the frontmatter. */
export interface PlainFrontmatter {
  readonly data: Readonly<Record<string, string>>;
  readonly lines: ReadonlyMap<string, number>;
}

/**
 * @param source The frontmatter between the `---` lines, each line ending in `\n`.
 * @returns The fields, or `null` when the source needs the YAML parser.
 */
export function parsePlainFrontmatter(source: string): PlainFrontmatter | null {
  if (source === "" || !source.endsWith("\n")) return null;
  const rows = source.slice(0, -1).split("\n");
  const data: Record<string, string> = {};
  const lines = new Map<string, number>();
  for (let i = 0; i < rows.length; i++) {
    const match = LINE.exec(rows[i]!);
    if (match === null) return null;
    const [, key, value] = match as unknown as [string, string, string];
    if (!KEYS.has(key) || lines.has(key)) return null;
    if (
      !VALUE.test(value) || NOT_STRINGS.has(value) || value.includes(": ") ||
      value.includes(" #") || value.endsWith(":") || value.endsWith(" ")
    ) {
      return null;
    }
    data[key] = value;
    lines.set(key, i);
  }
  return { data, lines };
}
