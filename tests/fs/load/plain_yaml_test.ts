import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import { linePositions, parsePlainYaml } from "../../../lib/fs/load/_plain_yaml.ts";
import { parseCatalogText, parseSkillMd } from "../../../lib/load.ts";
import { fc, runs } from "../../_fc.ts";

/** The `yaml` package's answer, with the options of the loaders; `undefined` on any error or warning. */
function yamlValue(source: string): { value: unknown; contents: Node | null } | undefined {
  const doc = parseDocument(source, {
    schema: "core",
    customTags: [],
    uniqueKeys: true,
    strict: true,
    prettyErrors: false,
  });
  if (doc.errors.length > 0 || doc.warnings.length > 0) return undefined;
  return { value: doc.toJS({ maxAliasCount: 100 }), contents: doc.contents as Node | null };
}

/** The catalog's locator rule over `yaml` nodes: for a mapping key, the key's offset. */
function nodeOffset(root: Node | null, path: readonly (string | number)[]): number | undefined {
  let node: unknown = root;
  let offset: number | undefined = (root as { range?: number[] } | null)?.range?.[0];
  for (const part of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === part);
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

/** Every path into a value (explicit stack), plus a missing key and index under each container. */
function paths(value: unknown): (string | number)[][] {
  const out: (string | number)[][] = [[]];
  const stack: [unknown, (string | number)[]][] = [[value, []]];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    out.push([...path, "missing"], [...path, 99]);
    for (const [k, v] of Object.entries(node)) {
      const key = Array.isArray(node) ? Number(k) : k;
      out.push([...path, key]);
      stack.push([v, [...path, key]]);
    }
  }
  return out;
}

// Tokens inside the subset.
const plainWord = fc.stringMatching(/^[a-z][a-z0-9 _./-]{0,12}[a-z0-9]$/);
const plainToken = fc.oneof(
  plainWord,
  fc.constantFrom("true", "False", "NULL", "~", "null", "7", "007", "1.0", "1e3", ".5", "+1", "0"),
  fc.constantFrom(
    "a]b",
    "x, y",
    "http://x.y/z",
    "100%",
    "a#b",
    "don't",
    'say "hi"',
    "技能",
    "a  b",
  ),
);
const quotedToken = fc.oneof(
  plainWord.map((s) => `"${s}"`),
  plainWord.map((s) => `'${s}'`),
  fc.constantFrom('"# not a comment"', "'a: b'", '""', "''", '"1.0"', "'true'"),
);
const flowItem = fc.oneof(plainWord, fc.constantFrom("true", "1", "x.y", "a b"));
const flowSeq = fc.array(flowItem, { maxLength: 4 }).map((xs) => `[${xs.join(", ")}]`);
const flowMap = fc.uniqueArray(
  fc.tuple(fc.constantFrom("a", "b", "read_only", "description"), flowItem),
  {
    maxLength: 3,
    selector: ([k]) => k,
  },
).map((xs) => `{ ${xs.map(([k, v]) => `${k}: ${v}`).join(", ")} }`);
const inSubset = fc.oneof(plainToken, quotedToken, flowSeq, flowMap);

// Tokens outside it (each must make the fast path fall back, or agree with yaml).
const outside = fc.constantFrom(
  "&anchor x",
  "*alias",
  "!!str x",
  "!custom x",
  "|",
  ">-",
  "x # trailing comment",
  "a: b",
  "ends:",
  "-5",
  "- x",
  "@at",
  "`tick",
  "%pct",
  '"esc\\n"',
  "'it''s'",
  '"a" b"',
  "[a, [b]]",
  "[a, ]",
  "{ a: 1, a: 2 }",
  "{ a: [b] }",
  "0x1F",
  ".inf",
  ".NaN",
  "123456789012345678",
  "[a, 'b']",
  "? x",
  "[a] # c",
);
const anyToken = fc.oneof({ weight: 4, arbitrary: inSubset }, { weight: 1, arbitrary: outside });
const keyIn = fc.constantFrom(
  "name",
  "description",
  "metadata",
  "a",
  "b_c",
  "tool-refs",
  "x.y",
  "k/1",
);
const keyOut = fc.constantFrom(
  "__proto__",
  "true",
  "1",
  "a b",
  "'q'",
  '"q"',
  "x:y",
  "-k",
  "? k",
  "<<",
);

interface Gen {
  readonly token: fc.Arbitrary<string>;
  readonly key: fc.Arbitrary<string>;
}

/** A block node rendered at `indent`: lines of text (depth-bounded, so this recursion is small). */
function block(g: Gen, depth: number): fc.Arbitrary<(indent: number) => string[]> {
  const leafValue = g.token.map((t) => (_indent: number) => [t]);
  const value: fc.Arbitrary<(indent: number) => string[]> = depth <= 0
    ? leafValue
    : fc.oneof({ weight: 3, arbitrary: leafValue }, { weight: 1, arbitrary: block(g, depth - 1) });
  const mapping = fc.array(fc.tuple(g.key, value, fc.boolean()), { minLength: 1, maxLength: 4 })
    .map(
      (entries) => (indent: number) => {
        const pad = " ".repeat(indent);
        const out: string[] = [];
        for (const [key, render, sameIndentSeq] of entries) {
          const lines = render(indent + 2);
          if (lines.length === 1 && !lines[0]!.startsWith(" ") && !lines[0]!.startsWith("-")) {
            out.push(`${pad}${key}: ${lines[0]}`);
          } else {
            out.push(`${pad}${key}:`);
            // A block sequence may sit at its key's indent.
            const nested = sameIndentSeq && lines[0]!.trimStart().startsWith("- ")
              ? render(indent)
              : lines;
            out.push(...nested);
          }
        }
        return out;
      },
    );
  const sequence = fc.array(value, { minLength: 1, maxLength: 4 }).map(
    (items) => (indent: number) => {
      const pad = " ".repeat(indent);
      const out: string[] = [];
      for (const render of items) {
        const lines = render(indent + 2);
        if (lines.length === 1 && !lines[0]!.startsWith(" ")) out.push(`${pad}- ${lines[0]}`);
        else out.push(`${pad}- ${lines[0]!.slice(indent + 2)}`, ...lines.slice(1));
      }
      return out;
    },
  );
  return fc.oneof(mapping, sequence);
}

/** A document: a block node at indent 0, with blank and comment lines and trailing spaces mixed in. */
function documents(g: Gen): fc.Arbitrary<string> {
  return fc.tuple(block(g, 3), fc.array(fc.nat(), { maxLength: 3 }), fc.boolean()).map(
    ([render, extras, trailing]) => {
      const lines = render(0);
      for (const n of extras) {
        const at = n % (lines.length + 1);
        lines.splice(at, 0, n % 2 === 0 ? "" : `${" ".repeat(n % 5)}# comment ${n}`);
      }
      return lines.map((l) => (trailing ? `${l}  ` : l)).join("\n") + "\n";
    },
  );
}

const subset: Gen = { token: inSubset, key: keyIn };
const hostile: Gen = {
  token: anyToken,
  key: fc.oneof({ weight: 6, arbitrary: keyIn }, { weight: 1, arbitrary: keyOut }),
};

/** Raw-text damage the fast path must fall back on (or agree with yaml about). */
const damage = fc.constantFrom(
  (s: string) => s.replace("\n", "\r\n"),
  (s: string) => s.replace(" ", "\t"),
  (s: string) => `---\n${s}`,
  (s: string) => `${s}...\n`,
  (s: string) => s.replace(/\n(?=.)/, "\n   continued line\n"),
  (s: string) => s.replace(/\n(?=.)/, "\n   deeper: key\n"),
  (s: string) => s.replace(/\n(?=.)/, "\n - deeper item\n"),
  (s: string) => `\uFEFF${s}`,
  (s: string) => s.replace("\n", "\u2028"),
  (s: string) => ` ${s}`,
);

function assertAgrees(source: string): boolean {
  const fast = parsePlainYaml(source);
  if (fast === undefined) return false;
  const reference = yamlValue(source);
  assert.ok(reference !== undefined, `the fast path accepted what yaml rejects:\n${source}`);
  assert.deepEqual(fast.value, reference.value, source);
  assert.deepEqual(parsePlainYaml(source, { offsets: false })?.value, reference.value, source);
  for (const path of paths(reference.value)) {
    assert.equal(
      fast.offset(path),
      nodeOffset(reference.contents, path),
      `${path.join(".")}\n${source}`,
    );
  }
  return true;
}

describe("parsePlainYaml: the fast path for plain YAML", () => {
  it("parses every generated plain document, exactly as yaml does (value and node offsets)", () => {
    fc.assert(
      fc.property(documents(subset), (source) => {
        // The renderer can nest a key twice into one mapping; yaml rejects that, so skip it.
        fc.pre(yamlValue(source) !== undefined);
        assert.ok(assertAgrees(source), `the fast path fell back on a plain document:\n${source}`);
      }),
      runs(300),
    );
  });

  it("never accepts what yaml rejects, and agrees whenever it accepts hostile documents", () => {
    let accepted = 0, total = 0;
    fc.assert(
      fc.property(documents(hostile), fc.option(damage), (source, hurt) => {
        total++;
        if (assertAgrees(hurt === null ? source : hurt(source))) accepted++;
      }),
      // At least 200 runs whatever FC_RUNS says: the check below needs both branches.
      { numRuns: Math.max(200, runs(500).numRuns) },
    );
    // Both branches are exercised.
    assert.ok(accepted > 0 && accepted < total, `${accepted} of ${total}`);
  });

  it("falls back on every construct outside the subset", () => {
    fc.assert(
      fc.property(documents(subset), fc.nat(), outside, (source, n, token) => {
        // Replace one scalar token after a key with the construct.
        const lines = source.split("\n");
        const candidates = lines
          .map((line, i) => [line, i] as const)
          .filter(([line]) => /^ *(?:- )?[A-Za-z_][\w./-]*: \S/.test(line));
        fc.pre(candidates.length > 0);
        const [line, i] = candidates[n % candidates.length]!;
        lines[i] = line.replace(/: .*$/, `: ${token}`);
        const changed = lines.join("\n");
        assert.equal(parsePlainYaml(changed), undefined, changed);
      }),
      runs(300),
    );
    for (
      const damaged of [
        "a: 1\r\n",
        "a:\t1\n",
        "---\na: 1\n",
        "a: 1\n...\n",
        "a: 1\n  b\n",
        "a: 1\n  b: 2\n",
        "- a\n  b\n",
        "- a: 1\n   b: 2\n",
        "a:\n  b: 1\n c: 2\n",
      ]
    ) {
      assert.equal(parsePlainYaml(damaged), undefined, JSON.stringify(damaged));
    }
    for (const key of ["__proto__", "true", "a b", "'q'", "x:y"]) {
      assert.equal(parsePlainYaml(`${key}: 1\n`), undefined, key);
    }
    assert.equal(parsePlainYaml("a: 1\na: 2\n"), undefined, "a duplicate key");
  });

  it("bounds the nesting it handles: deep documents fall back, no recursion limit reached", () => {
    let deep = "";
    for (let i = 0; i < 10_000; i++) deep += `${" ".repeat(i)}k:\n`;
    assert.equal(parsePlainYaml(deep), undefined);
  });

  it("gives lines and columns as yaml's LineCounter does", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "\n", "é") }), fc.nat(), (text, n) => {
        const counter = new LineCounter();
        parseDocument(text, { lineCounter: counter });
        const offset = n % (text.length + 1);
        assert.deepEqual(linePositions(text)(offset), counter.linePos(offset));
      }),
      runs(200),
    );
  });
});

describe("the fast path inside the loaders", () => {
  // A trailing comment on the first line sends the same document through yaml
  // without moving any node: the two results must be the same.
  it("parseCatalogText gives the same skills and locations on both paths", () => {
    const skill = fc.record({
      name: fc.constantFrom("local/a", "local/b", "net/c", "local/__x"),
      includes: fc.subarray(["local/b", "net/c"]),
      refs: fc.subarray(["read_file", "write_file", "true", "x.y"]),
      inline: fc.boolean(),
      description: fc.oneof(plainWord, fc.constantFrom("'quoted: x'", '"1.0"', "7")),
    });
    fc.assert(
      fc.property(fc.array(skill, { minLength: 1, maxLength: 4 }), (skills) => {
        const lines: string[] = [];
        for (const s of skills) {
          lines.push(`- name: ${s.name}`, `  description: ${s.description}`);
          lines.push(`  includes: [${s.includes.join(", ")}]`);
          lines.push(`  tool_refs:`, ...s.refs.map((r) => `    - ${r}`));
          if (s.inline) {
            lines.push(`  inline_tools:`, `    - { description: Tool, read_only: true }`);
          }
        }
        const text = lines.join("\n") + "\n";
        const viaYaml = text.replace("\n", " # comment\n");
        assert.notEqual(parsePlainYaml(text), undefined, text);
        assert.equal(parsePlainYaml(viaYaml), undefined, viaYaml);
        const outcome = (source: string) => {
          try {
            return parseCatalogText(source, "c.yaml").map(({ skill, locate }) => ({
              skill,
              name: locate(["name"]),
              ref: locate(["tool_refs", 0]),
              inline: locate(["inline_tools", 0, "read_only"]),
            }));
          } catch (e) {
            return { error: (e as Error).message };
          }
        };
        assert.deepEqual(outcome(text), outcome(viaYaml), text);
      }),
      runs(200),
    );
  });

  it("parseSkillMd gives the same frontmatter, or the same error, on both paths", () => {
    const field = fc.tuple(
      fc.constantFrom("name", "description", "license", "compatibility", "allowed-tools", "extra"),
      fc.oneof(plainWord, fc.constantFrom("pdf", "'pdf'", "7", "true", "Fill forms", "")),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(field, { minLength: 1, maxLength: 5, selector: ([k]) => k }),
        fc.option(
          fc.array(fc.tuple(plainWord, fc.oneof(plainWord, fc.constantFrom("1.0", "'1.0'"))), {
            maxLength: 3,
          }),
        ),
        (fields, metadata) => {
          const head = fields.map(([k, v]) => `${k}: ${v}`);
          if (metadata !== null) {
            head.push(
              "metadata:",
              ...metadata.map(([k, v]) => `  ${k.replace(/[ ./]/g, "_")}: ${v}`),
            );
          }
          const text = `---\n${head.join("\n")}\n---\n# Body\n`;
          const viaYaml = text.replace(/^(---\n[^\n]*)/, "$1 # comment");
          const outcome = (source: string) => {
            try {
              return parseSkillMd(source, { file: "pdf/SKILL.md", folder: "pdf" });
            } catch (e) {
              return { error: (e as Error).message };
            }
          };
          assert.deepEqual(outcome(text), outcome(viaYaml), text);
        },
      ),
      runs(200),
    );
  });
});
