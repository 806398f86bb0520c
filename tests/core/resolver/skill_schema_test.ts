import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import { fc, runs } from "../../_fc.ts";
import { parseSkill } from "../../../mod.ts";
import { parseCatalogText } from "../../../lib/load.ts";

const schema = JSON.parse(
  readFileSync(new URL("../../../skill.schema.json", import.meta.url), "utf8"),
);
const ajv = new Ajv({ strict: false });
const validateFile = ajv.compile(schema);
const validateSkill = ajv.getSchema(`${schema.$id}#/definitions/skill`)!;

function parses(value: unknown): boolean {
  try {
    parseSkill(value);
    return true;
  } catch {
    return false;
  }
}

const name = fc.constantFrom(
  "local/pdf",
  "a/b",
  "x.y/z_1",
  "Local/pdf",
  "a",
  "a/b/c",
  "",
  "_x/y",
  "a/-b",
);
const tool = fc.constantFrom(
  "read_file",
  "__proto__",
  "a/b",
  "mcp:x/y",
  "",
  "bad\u0000",
  "tab\there",
  "é",
);
const value = fc.constantFrom<unknown>(true, false, 1, null, "s", [], {}, ["x"], { x: 1 });

const validName = fc.constantFrom("local/pdf", "a/b", "x.y/z_1");
const validTool = fc.constantFrom("read_file", "__proto__", "a/b", "mcp:x/y", "é");

/** A valid skill document. */
const validDoc = fc.record({
  name: validName,
  description: fc.string({ maxLength: 3 }),
  safety: fc.boolean(),
  includes: fc.array(fc.oneof(validName, validName.map((n) => ({ name: n }))), { maxLength: 2 }),
  tool_refs: fc.array(validTool, { maxLength: 2 }),
  inline_tools: fc.array(
    fc.record({
      description: fc.string({ maxLength: 2 }),
      read_only: fc.constant(false),
      writes: fc.boolean(),
    }, {
      requiredKeys: [],
    }),
    { maxLength: 2 },
  ),
  mcp_servers: fc.array(
    fc.record({ server: fc.constantFrom("gh", "fs"), tools: fc.array(validTool) }, {
      requiredKeys: ["server"],
    }),
    {
      maxLength: 2,
    },
  ),
  agent_skills: fc.array(validTool, { maxLength: 2 }),
  overrides: fc.dictionary(validTool, fc.constant({ t: 1 }), { maxKeys: 2 }).map((o) =>
    Object.fromEntries(Object.entries(o))
  ),
}, { requiredKeys: ["name"] });

/** One field set to something that may or may not break the rule for that field. */
const mutation: fc.Arbitrary<[string, unknown]> = fc.oneof(
  fc.tuple(fc.constant("name"), fc.oneof(name, value)),
  fc.tuple(fc.constant("description"), value),
  fc.tuple(fc.constant("safety"), value),
  fc.tuple(
    fc.constant("includes"),
    fc.oneof(
      value,
      fc.array(fc.oneof(name, name.map((n) => ({ name: n })), value, fc.constant({ nam: "a/b" }))),
    ),
  ),
  fc.tuple(fc.constant("tool_refs"), fc.oneof(value, fc.array(fc.oneof(tool, value)))),
  fc.tuple(
    fc.constant("inline_tools"),
    fc.oneof(
      value,
      fc.array(fc.record({ read_only: fc.boolean(), writes: fc.boolean() }), { maxLength: 3 }),
      fc.array(fc.oneof(value, fc.record({ checkpointable: fc.oneof(fc.boolean(), value) })), {
        maxLength: 2,
      }),
      fc.array(
        fc.record({ side_effects: fc.oneof(value, fc.array(tool)), extra: value }, {
          requiredKeys: [],
        }),
        {
          maxLength: 2,
        },
      ),
    ),
  ),
  fc.tuple(
    fc.constant("mcp_servers"),
    fc.oneof(
      value,
      fc.array(fc.record({ server: tool }), { maxLength: 2 }),
      fc.array(
        fc.record({ server: fc.oneof(tool, value), tools: fc.oneof(value, fc.array(tool)) }, {
          requiredKeys: [],
        }),
      ),
    ),
  ),
  fc.tuple(fc.constant("agent_skills"), fc.oneof(value, fc.array(fc.oneof(tool, value)))),
  fc.tuple(
    fc.constant("overrides"),
    fc.oneof(
      value,
      fc.dictionary(tool, fc.oneof(fc.constant({ t: 1 }), value), { maxKeys: 2 }).map((o) =>
        Object.fromEntries(Object.entries(o))
      ),
    ),
  ),
  fc.tuple(fc.constant("color"), value),
);

/** Skill documents: valid ones with zero to two fields changed, and now and then not a mapping at all. */
const skillDoc = fc.oneof(
  {
    weight: 19,
    arbitrary: fc.tuple(validDoc, fc.array(mutation, { maxLength: 2 })).map(([doc, changes]) => {
      const out: Record<string, unknown> = { ...doc };
      for (const [field, v] of changes) out[field] = v;
      return out;
    }),
  },
  { weight: 1, arbitrary: value },
);

describe("skill.schema.json", () => {
  it("is a valid JSON Schema", () => {
    assert.equal(ajv.validateSchema(schema), true, JSON.stringify(ajv.errors));
  });

  it("accepts and rejects the same documents as parseSkill", () => {
    fc.assert(
      fc.property(skillDoc, (doc) => {
        const ok = parses(doc);
        assert.equal(
          validateSkill(doc),
          ok,
          `${JSON.stringify(doc)}: ${JSON.stringify(validateSkill.errors)}`,
        );
        // a catalog file is one skill or a list of them
        assert.equal(validateFile([doc, doc]), ok);
        if (!Array.isArray(doc)) assert.equal(validateFile(doc), ok);
      }),
      runs(1000),
    );
  });

  it("accepts the example catalog, which parses", () => {
    const text = readFileSync(new URL("../../../examples/catalog.yaml", import.meta.url), "utf8");
    const skills = parseCatalogText(text, "examples/catalog.yaml").map((s) => s.skill);
    assert.equal(validateFile(JSON.parse(JSON.stringify(skills))), true);
  });
});
