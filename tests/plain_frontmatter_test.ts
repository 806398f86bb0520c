import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LineCounter, parseDocument } from "yaml";
import { fc, runs } from "./_fc.ts";
import { parsePlainFrontmatter } from "../lib/_plain_frontmatter.ts";
import { parseSkillMd } from "../lib/load.ts";

/** What the `yaml` package makes of a frontmatter, with the options parseSkillMd uses. */
function viaYaml(source: string): { data: unknown; lines: Map<string, number> } | null {
  const counter = new LineCounter();
  const doc = parseDocument(source, {
    schema: "core",
    customTags: [],
    uniqueKeys: true,
    strict: true,
    prettyErrors: false,
    lineCounter: counter,
  });
  if (doc.errors.length > 0) return null;
  const lines = new Map<string, number>();
  for (
    const item
      of (doc.contents as { items?: { key?: { value?: unknown; range?: number[] } }[] })?.items ??
        []
  ) {
    lines.set(String(item.key?.value), counter.linePos(item.key!.range![0]!).line - 1);
  }
  return { data: doc.toJS({ maxAliasCount: 100 }), lines };
}

const piece = fc.constantFrom(
  "a",
  "Z",
  "é",
  "技能",
  "🙂",
  "0",
  "9",
  " ",
  " ",
  ":",
  ": ",
  " #",
  "#",
  "\t",
  "-",
  "?",
  "[",
  "]",
  "{",
  "}",
  ",",
  "&",
  "*",
  "!",
  "|",
  ">",
  "'",
  '"',
  "%",
  "@",
  "`",
  ".",
  "~",
  "\\",
  "\u0085",
  "\u2028",
  "\ufeff",
  "\u00a0",
  "\r",
  "null",
  "true",
  "False",
  "0x1F",
  "1e3",
  ".inf",
  "<b>",
  "http://x",
  "C#",
);
const word = fc.constantFrom(
  "Fill",
  "PDF",
  "forms",
  "it's",
  "(a,",
  "b)",
  "x-y",
  "C#",
  "a:b",
  "é",
  "技能",
  "🙂",
  "[1]",
  "{k}",
);
const valueArb = fc.oneof(
  fc.constantFrom(
    "null",
    "Null",
    "NULL",
    "true",
    "True",
    "TRUE",
    "false",
    "False",
    "FALSE",
    "y",
    "no",
  ),
  {
    weight: 3,
    arbitrary: fc.tuple(word, fc.constantFrom("", " ", "  ", ":", " #x", ": x", "\t", "\tx", " x:"))
      .map(([w, tail]) => w + tail),
  },
  {
    weight: 6,
    arbitrary: fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(" ")),
  },
  fc.array(piece, { minLength: 1, maxLength: 8 }).map((p) => p.join("")),
  fc.tuple(fc.constantFrom("a", "Use", "Fill", "é"), fc.array(piece, { maxLength: 8 })).map((
    [h, p],
  ) => h + p.join("")),
  fc.string({ unit: "grapheme", maxLength: 20 }),
);
const keyArb = fc.constantFrom(
  "name",
  "description",
  "license",
  "compatibility",
  "allowed-tools",
  "metadata",
  "colour",
  "__proto__",
  "Name",
);
const sourceArb = fc.array(
  fc.oneof(
    { weight: 8, arbitrary: fc.tuple(keyArb, valueArb).map(([k, v]) => `${k}: ${v}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("", "# comment", "  indented: x", "key:value", "- item"),
    },
  ),
  { maxLength: 6 },
).map((lines) => lines.map((l) => `${l}\n`).join(""));

describe("the plain frontmatter fast path", () => {
  it("reads exactly what the yaml package reads, whenever it reads anything", () => {
    let taken = 0;
    fc.assert(
      fc.property(sourceArb, (source) => {
        const plain = parsePlainFrontmatter(source);
        if (plain === null) return;
        taken++;
        const yaml = viaYaml(source);
        assert.notEqual(yaml, null, `yaml rejects ${JSON.stringify(source)}`);
        assert.deepEqual({ ...plain.data }, yaml!.data);
        assert.deepEqual(plain.lines, yaml!.lines);
      }),
      runs(2000),
    );
    assert.ok(taken > 50, `the fast path took only ${taken} sources`);
  });

  it("gives parseSkillMd the same result and places as the yaml path", () => {
    const quoted =
      '---\nname: pdf\ndescription: "Fill PDF forms, all of them"\nlicense: MIT\n---\n';
    const plain = quoted.replace('"Fill PDF forms, all of them"', "Fill PDF forms, all of them");
    assert.notEqual(parsePlainFrontmatter(plain.slice(4, -4)), null);
    assert.equal(parsePlainFrontmatter(quoted.slice(4, -4)), null);
    const fast = parseSkillMd(plain, { file: "f", folder: "pdf-tools", lenient: true });
    const slow = parseSkillMd(quoted, { file: "f", folder: "pdf-tools", lenient: true });
    assert.equal(fast.frontmatter.description, "Fill PDF forms, all of them");
    assert.deepEqual(fast.diagnostics, slow.diagnostics);
    assert.deepEqual(slow.diagnostics.map((d) => [d.code, d.line, d.column]), [[
      "NAME_MISMATCH",
      2,
      1,
    ]]);
    assert.throws(
      () => parseSkillMd("---\nname: PDF\ndescription: x\n---\n", { file: "pdf/SKILL.md" }),
      {
        message:
          'Invalid SKILL.md at name: "P" is not allowed (lowercase letters, digits and hyphens only) (pdf/SKILL.md:2:1)',
      },
    );
  });
});
