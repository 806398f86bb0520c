import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs } from "../../_fc.ts";
import { AgentSkillError, validateAgentSkillFrontmatter } from "../../../mod.ts";
import { validateFrontmatterLeniently } from "../../../lib/load.ts";

const text = fc.oneof(
  fc.constantFrom("", "pdf", "PDF", "-x", "a--b", "技能", "x".repeat(70), "d".repeat(1100)),
  fc.string({ maxLength: 12 }),
);
const value = fc.oneof(
  { weight: 4, arbitrary: text },
  fc.constant(null),
  fc.integer(),
  fc.boolean(),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.oneof(fc.string(), fc.integer()), { maxKeys: 2 }),
);
const frontmatterArb = fc.dictionary(
  fc.constantFrom(
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
    "colour",
    "__proto__",
    // Unknown keys holding a dot, which the strict reading names as they are.
    "a.b",
    "metadata.author",
    "name.x",
    ".",
  ),
  value,
  { maxKeys: 7 },
);

describe("validateFrontmatterLeniently", () => {
  it("equals the strict reading whenever that succeeds, and gives up only without a description", () => {
    fc.assert(
      fc.property(
        frontmatterArb,
        fc.option(fc.constantFrom("pdf", "技能", "My Skill"), { nil: undefined }),
        (data, folder) => {
          let strict;
          try {
            strict = validateAgentSkillFrontmatter(data, folder);
          } catch (e) {
            assert.ok(e instanceof AgentSkillError);
          }
          const description = Object.hasOwn(data, "description") ? data["description"] : undefined;
          const hasDescription = typeof description === "string" && description !== "";
          const name = Object.hasOwn(data, "name") ? data["name"] : undefined;
          const nameable = (typeof name === "string" && name !== "") || folder !== undefined;
          let lenient;
          try {
            lenient = validateFrontmatterLeniently(data, folder);
          } catch (e) {
            assert.ok(e instanceof AgentSkillError);
            assert.ok(!hasDescription || !nameable, `gave up on ${JSON.stringify(data)}`);
            return;
          }
          assert.ok(hasDescription && nameable);
          if (strict !== undefined) {
            assert.deepEqual(lenient, { frontmatter: strict, problems: [] });
            return;
          }
          // A rule break: reported, and the skill keeps its description and a name.
          assert.ok(lenient.problems.length > 0);
          // Each unknown key is set aside once, by its own name.
          const known = [
            "name",
            "description",
            "license",
            "compatibility",
            "metadata",
            "allowed-tools",
          ];
          const unknown = Object.keys(data).filter((k) => !known.includes(k));
          assert.deepEqual(
            lenient.problems.filter((p) => p.code === "UNKNOWN_FIELD").map((p) => p.error.field),
            unknown,
          );
          assert.equal(lenient.frontmatter.description, description);
          const expectedName = typeof name === "string" && name !== "" ? name : folder!;
          assert.equal(lenient.frontmatter.name, expectedName.normalize("NFKC"));
          // What it kept beyond name and description passes the strict rules.
          const { name: _, description: __, ...rest } = lenient.frontmatter;
          const { compatibility, ...others } = rest as Record<string, unknown>;
          validateAgentSkillFrontmatter({ name: "x", description: "x", ...others });
          // Over-long or empty-free strings are kept as written; strings of any length for the rest.
          const given = (key: string) => Object.hasOwn(data, key) ? data[key] : undefined;
          const c = given("compatibility");
          assert.equal(compatibility, typeof c === "string" && c !== "" ? c : undefined);
          for (const key of ["license", "allowed-tools"]) {
            const v = given(key);
            if (typeof v === "string") assert.equal((rest as Record<string, unknown>)[key], v);
          }
        },
      ),
      runs(500),
    );
  });
});
