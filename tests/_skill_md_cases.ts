/**
 * SKILL.md cases for the Agent Skills rules (SPEC §5): the folder name, the
 * file's text, and the expected error (`null` when valid). Shared by the
 * parser tests and the CLI's `validate` tests.
 *
 * @module
 */
export interface SkillMdCase {
  readonly label: string;
  readonly folder: string;
  readonly text: string;
  /** The expected message without the location, or null when valid. */
  readonly error: string | null;
  /** The expected 1-based line of the error, when it has one. */
  readonly line?: number;
  /** `error` is only the start of the message (the rest is the YAML parser's). */
  readonly prefix?: boolean;
}

const fm = (body: string): string => `---\n${body}\n---\n# Instructions\n`;

export const SKILL_MD_CASES: readonly SkillMdCase[] = [
  {
    label: "minimal valid",
    folder: "pdf",
    text: fm("name: pdf\ndescription: Fill PDF forms"),
    error: null,
  },
  {
    label: "all optional fields",
    folder: "pdf-tools",
    text: fm(
      "name: pdf-tools\ndescription: d\nlicense: MIT\ncompatibility: Python 3\nmetadata:\n  author: me\n  version: '1'\nallowed-tools: Read Bash(git:*)",
    ),
    error: null,
  },
  {
    label: "digits and hyphens",
    folder: "a1-b2",
    text: fm("name: a1-b2\ndescription: d"),
    error: null,
  },
  {
    label: "non-ASCII lowercase (CJK)",
    folder: "技能",
    text: fm("name: 技能\ndescription: d"),
    error: null,
  },
  {
    label: "non-ASCII lowercase (Cyrillic)",
    folder: "навык",
    text: fm("name: навык\ndescription: d"),
    error: null,
  },
  {
    label: "non-ASCII uppercase",
    folder: "НАВЫК",
    text: fm("name: НАВЫК\ndescription: d"),
    error:
      'Invalid SKILL.md at name: "Н" is not allowed (lowercase letters, digits and hyphens only)',
    line: 2,
  },
  {
    label: "ASCII uppercase",
    folder: "Pdf",
    text: fm("name: Pdf\ndescription: d"),
    error:
      'Invalid SKILL.md at name: "P" is not allowed (lowercase letters, digits and hyphens only)',
    line: 2,
  },
  {
    label: "underscore",
    folder: "a_b",
    text: fm("name: a_b\ndescription: d"),
    error:
      'Invalid SKILL.md at name: "_" is not allowed (lowercase letters, digits and hyphens only)',
  },
  {
    label: "leading hyphen",
    folder: "-pdf",
    text: fm("name: -pdf\ndescription: d"),
    error: "Invalid SKILL.md at name: must not start or end with a hyphen",
  },
  {
    label: "trailing hyphen",
    folder: "pdf-",
    text: fm("name: pdf-\ndescription: d"),
    error: "Invalid SKILL.md at name: must not start or end with a hyphen",
  },
  {
    label: "double hyphen",
    folder: "a--b",
    text: fm("name: a--b\ndescription: d"),
    error: "Invalid SKILL.md at name: must not contain two hyphens in a row",
  },
  {
    label: "name of 64 characters",
    folder: "a".repeat(64),
    text: fm(`name: ${"a".repeat(64)}\ndescription: d`),
    error: null,
  },
  {
    label: "name of 65 characters",
    folder: "a".repeat(65),
    text: fm(`name: ${"a".repeat(65)}\ndescription: d`),
    error: "Invalid SKILL.md at name: must be 1 to 64 characters, got 65",
  },
  {
    label: "empty name",
    folder: "x",
    text: fm("name: ''\ndescription: d"),
    error: "Invalid SKILL.md at name: must be 1 to 64 characters, got 0",
  },
  {
    label: "name differs from folder",
    folder: "other",
    text: fm("name: pdf\ndescription: d"),
    error: 'Invalid SKILL.md at name: "pdf" must equal the folder name "other"',
    line: 2,
  },
  {
    label: "NFKC-equal name and folder",
    folder: "ｐｄｆ",
    text: fm("name: pdf\ndescription: d"),
    error: null,
  },
  {
    label: "missing name",
    folder: "pdf",
    text: fm("description: d"),
    error: 'Invalid SKILL.md at name: missing required field "name"',
  },
  {
    label: "missing description",
    folder: "pdf",
    text: fm("name: pdf"),
    error: 'Invalid SKILL.md at description: missing required field "description"',
  },
  {
    label: "empty description",
    folder: "pdf",
    text: fm("name: pdf\ndescription: ''"),
    error: "Invalid SKILL.md at description: must be 1 to 1024 characters, got 0",
  },
  {
    label: "description of 1024",
    folder: "pdf",
    text: fm(`name: pdf\ndescription: ${"d".repeat(1024)}`),
    error: null,
  },
  {
    label: "description of 1025",
    folder: "pdf",
    text: fm(`name: pdf\ndescription: ${"d".repeat(1025)}`),
    error: "Invalid SKILL.md at description: must be 1 to 1024 characters, got 1025",
    line: 3,
  },
  {
    label: "compatibility of 501",
    folder: "pdf",
    text: fm(`name: pdf\ndescription: d\ncompatibility: ${"c".repeat(501)}`),
    error: "Invalid SKILL.md at compatibility: must be 1 to 500 characters, got 501",
  },
  {
    label: "metadata not a mapping",
    folder: "pdf",
    text: fm("name: pdf\ndescription: d\nmetadata: [a]"),
    error: "Invalid SKILL.md at metadata: must be a mapping of strings, got a list",
  },
  {
    label: "metadata value not a string",
    folder: "pdf",
    text: fm("name: pdf\ndescription: d\nmetadata:\n  version: 1"),
    error: "Invalid SKILL.md at metadata.version: must be a string, got number 1",
  },
  {
    label: "unknown field",
    folder: "pdf",
    text: fm("name: pdf\ndescription: d\nauthor: me"),
    error:
      'Invalid SKILL.md at author: unknown field "author" (known: name, description, license, compatibility, metadata, allowed-tools)',
    line: 4,
  },
  {
    label: "unknown field holding a dot, located on its own line",
    folder: "pdf",
    text: fm("name: pdf\ndescription: d\nlicense: MIT\nmetadata.author: me"),
    error:
      'Invalid SKILL.md at metadata.author: unknown field "metadata.author" (known: name, description, license, compatibility, metadata, allowed-tools)',
    line: 5,
  },
  {
    label: "allowed-tools not a string",
    folder: "pdf",
    text: fm("name: pdf\ndescription: d\nallowed-tools: [Read]"),
    error: "Invalid SKILL.md at allowed-tools: must be a string, got a list",
  },
  {
    label: "no frontmatter",
    folder: "pdf",
    text: "# Just instructions\n",
    error: 'Invalid SKILL.md: SKILL.md must start with a frontmatter block opened by "---"',
    line: 1,
  },
  {
    label: "unclosed frontmatter",
    folder: "pdf",
    text: "---\nname: pdf\ndescription: d\n",
    error: 'Invalid SKILL.md: the frontmatter is not closed by a "---" line',
    line: 1,
  },
  {
    label: "non-mapping frontmatter",
    folder: "pdf",
    text: fm("- name\n- pdf"),
    error: "Invalid SKILL.md: the frontmatter must be a mapping",
  },
  {
    label: "YAML syntax error",
    folder: "pdf",
    text: fm("name: pdf\ndescription: [unclosed"),
    error: "Invalid SKILL.md: YAML error:",
    prefix: true,
  },
  {
    label: "duplicate key",
    folder: "pdf",
    text: fm("name: pdf\nname: pdf\ndescription: d"),
    error: "Invalid SKILL.md: YAML error: Map keys must be unique",
    line: 3,
  },
  {
    label: "CRLF line ends",
    folder: "pdf",
    text: "---\r\nname: pdf\r\ndescription: d\r\n---\r\nbody\r\n",
    error: null,
  },
];
