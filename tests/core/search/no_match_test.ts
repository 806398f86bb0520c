// Issue 43: search that knows when nothing fits — the no-match threshold, the
// cap on a body-only match, and the typo corrector leaving known words alone.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs } from "../../_fc.ts";
import { createSkillIndex, searchSkills } from "../../../mod.ts";
import { isEnglishWord } from "../../../lib/core/search/_english_words.ts";
import { stem } from "../../../lib/core/search/stem.ts";

const wordArb = fc.oneof(
  fc.constantFrom("pdf", "forms", "draw", "diagram", "deck", "desk", "egg", "boil", "the", "use"),
  fc.stringMatching(/^[a-z]{1,8}$/),
);
const textArb = fc.array(wordArb, { maxLength: 10 }).map((w) => w.join(" "));
const skillsArb = fc.uniqueArray(
  fc.record({
    name: fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/),
    description: textArb,
    body: fc.option(textArb, { nil: undefined }),
  }),
  { selector: (s) => s.name, maxLength: 20 },
).map((list) =>
  list.map(({ body, ...s }) => (body === undefined ? s : { ...s, body: `# Notes\n${body}` }))
);

describe("the no-match threshold", () => {
  it("returns nothing or exactly the unthresholded ranking", () => {
    fc.assert(
      fc.property(skillsArb, textArb, (skills, query) => {
        const index = createSkillIndex(skills);
        const gated = searchSkills(index, query);
        const all = searchSkills(index, query, { threshold: false });
        if (gated.length > 0) assert.deepEqual(gated, all);
      }),
      runs(300),
    );
  });

  it("never answers with a best skill that matched only body words, unless named", () => {
    fc.assert(
      fc.property(skillsArb, textArb, (skills, query) => {
        const index = createSkillIndex(skills);
        const [best] = searchSkills(index, query);
        if (best === undefined || skills.some((s) => s.name === query.trim())) return;
        assert.ok(best.matched.some((m) => m.fields.some((f) => f !== "body")));
      }),
      runs(300),
    );
  });

  it("says nothing fits a request that only skills' bodies mention", () => {
    const index = createSkillIndex([
      { name: "pdf", description: "Fill in PDF forms", body: "Never boil the printer." },
      { name: "csv", description: "Join CSV tables", body: "An egg is not a table." },
      { name: "xlsx", description: "Chart spreadsheet columns" },
    ]);
    assert.deepEqual(searchSkills(index, "how long to boil an egg"), []);
    assert.deepEqual(
      searchSkills(index, "how long to boil an egg", { threshold: false }).map((r) => r.name),
      ["csv", "pdf"],
    );
    assert.deepEqual(searchSkills(index, "join two csv tables").map((r) => r.name), ["csv"]);
  });

  it("says nothing fits when the best skill's fields hold too little of the query", () => {
    // "kitchen" and "faucet" are words of the library (bodies), "fix" a word of one
    // description among many words: the description holds a sliver of the query.
    const long = "Fix and format long reports, tables, charts, outlines, notes and summaries";
    const index = createSkillIndex([
      { name: "reports", description: long },
      { name: "plumbing-notes", description: "Notes", body: "kitchen faucet washer wrench" },
      { name: "home", description: "Home inventory", body: "leaking kitchen sink faucet" },
    ]);
    const query = "fix the leaking kitchen faucet washer under the sink with a wrench";
    assert.notDeepEqual(searchSkills(index, query, { threshold: false }), []);
    assert.deepEqual(searchSkills(index, query), []);
  });

  it("keeps a skill found by its exact name, whatever its score", () => {
    const index = createSkillIndex([
      { name: "x", description: "Nothing to do with the query" },
      { name: "y", description: "Other" },
    ]);
    assert.deepEqual(searchSkills(index, "x").map((r) => r.name), ["x"]);
  });
});

describe("a body-only match is evidence, not a verdict", () => {
  it("ranks a description match above a rare word repeated in a body", () => {
    // As in "draw an architecture diagram" finding a GIF-making skill first: every
    // skill has a body of the same length; "architecture" is in one body, 20 times.
    const steps = (i: number) =>
      `# Steps\n${Array.from({ length: 40 }, (_, k) => `step${(i * 7 + k) % 90}`).join(" ")}`;
    const others = Array.from({ length: 30 }, (_, i) => ({
      name: `tool-${i}`,
      description: i % 5 === 0 ? `Draw a diagram of kind ${i}` : `Charts of kind ${i}`,
      body: steps(i),
    }));
    const index = createSkillIndex([
      ...others,
      {
        name: "slack-gif-creator",
        description: "Make animated GIFs for Slack",
        body: `# Frames\n${"The architecture of the frames. ".repeat(20)}${steps(99)}`,
      },
      {
        name: "diagrams",
        description: "Draw diagrams of systems and their parts",
        body: steps(50),
      },
    ]);
    const ranked = searchSkills(index, "draw an architecture diagram").map((r) => r.name);
    assert.deepEqual(ranked.slice(0, 2), ["diagrams", "slack-gif-creator"]);
  });
});

describe("the typo corrector and known words", () => {
  it('leaves "deck" alone in a library that has "desk" but not "deck"', () => {
    const index = createSkillIndex([
      { name: "help-desk", description: "Answer support tickets at the help desk" },
      { name: "desk-booking", description: "Book a desk in the office" },
      { name: "pptx", description: "Create PowerPoint presentations and slides" },
    ]);
    const results = searchSkills(index, "make a powerpoint deck");
    assert.equal(results[0]?.name, "pptx");
    assert.deepEqual(results.flatMap((r) => r.matched.filter((m) => m.typo_of !== undefined)), []);
    // A word that is no word is still read as the nearest one.
    const [typo] = searchSkills(index, "book a dessk");
    assert.equal(typo?.matched.find((m) => m.term === "dessk")?.typo_of, "desk");
  });

  it("knows common words and their forms, not misspellings", () => {
    for (const w of ["deck", "decks", "diagram", "diagrams", "write", "writing"]) {
      assert.equal(isEnglishWord(w) || isEnglishWord(stem(w)), true, w);
    }
    for (const w of ["dessk", "powerpont", "reveiw", "debuging"]) {
      assert.equal(isEnglishWord(w), false, w);
    }
  });
});
