// Issue 43: trigger evaluations and confusable descriptions over the index.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs } from "../../_fc.ts";
import {
  confusableSkills,
  createSkillIndex,
  evaluateTriggers,
  parseTriggerEvals,
} from "../../../mod.ts";

describe("evaluateTriggers", () => {
  const skills = [
    { name: "pdf", description: "Fill in PDF forms" },
    { name: "csv", description: "Join CSV tables" },
    { name: "xlsx", description: "Chart spreadsheet columns" },
  ];
  const queryArb = fc.constantFrom(
    "fill a pdf form",
    "join csv",
    "chart columns",
    "nothing at all",
    "pdf csv",
  );
  it("counts every case once, and recall and precision follow the counts", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ query: queryArb, should_trigger: fc.boolean() }), { maxLength: 20 }),
        (list) => {
          const index = createSkillIndex(skills);
          const [r] = evaluateTriggers(index, new Map([["pdf", list]]));
          const total = r!.true_positives + r!.false_positives + r!.false_negatives +
            r!.true_negatives;
          assert.equal(total, list.length);
          const tp = r!.true_positives;
          assert.equal(
            r!.recall,
            tp + r!.false_negatives === 0 ? 1 : tp / (tp + r!.false_negatives),
          );
          assert.equal(
            r!.precision,
            tp + r!.false_positives === 0 ? 1 : tp / (tp + r!.false_positives),
          );
          for (const c of r!.cases) {
            assert.equal(c.passed, (c.winner === "pdf") === c.should_trigger);
          }
        },
      ),
      runs(100),
    );
  });

  it("checks the format", () => {
    assert.throws(() => parseTriggerEvals({}, "f.json"), {
      name: "TypeError",
      message: 'Trigger evals in "f.json" must be a list of { query, should_trigger }',
    });
    assert.throws(() => parseTriggerEvals([{ query: "x", should_trigger: "yes" }], "f.json"), {
      name: "TypeError",
      message:
        'Trigger eval 1 in "f.json" must have a "query" of 1 to 4000 characters and a boolean "should_trigger"',
    });
  });

  it("finds no confusable pair among distinct descriptions", () => {
    assert.deepEqual(confusableSkills(createSkillIndex(skills), skills), []);
  });
});
