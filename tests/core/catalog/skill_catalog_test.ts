import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs } from "../../_fc.ts";
import { type CatalogSkill, fitSkillCatalog, renderSkillCatalog } from "../../../mod.ts";

/** Length in code points, as the budget counts. */
const length = (text: string): number => [...text].length;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const wordArb = fc.oneof(
  fc.constantFrom(
    "the",
    "PDF",
    "forms",
    "a",
    "use",
    "when",
    "—",
    "&",
    "<b>",
    "'q'",
    "é",
    "技能",
    "🙂",
  ),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }),
  fc.string({ minLength: 20, maxLength: 90 }).map((s) => s.replace(/\s/g, "x")),
);
const descriptionArb = fc.oneof(
  fc.array(wordArb, { minLength: 1, maxLength: 60 }).map((w) => w.join(" ")),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 300 }),
);
const skillArb: fc.Arbitrary<CatalogSkill> = fc.record(
  {
    name: fc.oneof(
      fc.constantFrom("pdf", "__proto__", "a<b>&c", "x\u202e\u2028y", "技能"),
      fc.string({ minLength: 1, maxLength: 20 }),
    ),
    description: descriptionArb,
    location: fc.string({ maxLength: 40 }).map((s) => `/skills/${s}/SKILL.md`),
  },
  { requiredKeys: ["name", "description"] },
);
const catalogArb = fc.array(skillArb, { maxLength: 25 });

/** The left-out line the block ends with, if any. */
function leftOutLine(block: string): string | undefined {
  return /\n(<left_out>[^\n]*<\/left_out>)\n<\/available_skills>$/.exec(block)?.[1];
}

describe("renderSkillCatalog within a budget", () => {
  it("fits the budget, never cuts a name, and counts what it left out exactly", () => {
    fc.assert(
      fc.property(
        catalogArb,
        fc.nat({ max: 6000 }),
        fc.option(fc.nat({ max: 150 }), { nil: undefined }),
        (skills, budget, floor) => {
          const options = floor === undefined ? { budget } : { budget, descriptionFloor: floor };
          let fit;
          try {
            fit = fitSkillCatalog(skills, options);
          } catch (e) {
            assert.ok(e instanceof RangeError);
            const least = Number(/needs at least (\d+) characters/.exec(e.message)![1]);
            assert.ok(budget < least);
            assert.ok(
              length(fitSkillCatalog(skills, { ...options, budget: least }).block) <= least,
            );
            return;
          }
          // The block fits.
          assert.ok(length(fit.block) <= budget, `${length(fit.block)} > ${budget}`);
          // Skills are kept from the front and left out from the back.
          const k = fit.listed.length;
          assert.deepEqual(fit.listed.map((s) => s.name), skills.slice(0, k).map((s) => s.name));
          assert.deepEqual(fit.left_out, skills.slice(k).map((s) => s.name));
          // The block is the unbudgeted block of what is listed, plus the left-out line.
          const line = leftOutLine(fit.block);
          const without = line === undefined ? fit.block : fit.block.replace(`\n${line}`, "");
          assert.equal(without, renderSkillCatalog(fit.listed));
          if (fit.left_out.length === 0) {
            assert.equal(line, undefined);
          } else {
            const noun = skills.length === 1 ? "skill" : "skills";
            assert.ok(
              line!.startsWith(
                `<left_out>${fit.left_out.length} of ${skills.length} ${noun} left out`,
              ),
              line,
            );
          }
          // Names and locations are whole; descriptions are whole or cut on a word and marked.
          let shortened = 0;
          fit.listed.forEach((shown, i) => {
            const original = skills[i]!;
            assert.equal(shown.location, original.location);
            if (shown.description === original.description) return;
            shortened++;
            assert.ok(shown.description.endsWith("…"));
            const kept = shown.description.slice(0, -1);
            assert.ok(original.description.startsWith(kept));
            const next = [...original.description.slice(kept.length)][0]!;
            const firstWord = !/\s/u.test(original.description.slice(0, kept.length));
            assert.ok(
              /\s/u.test(next) || firstWord || kept === "",
              `cut on a word: ${JSON.stringify(shown.description)}`,
            );
          });
          assert.equal(fit.shortened, shortened);
          // Nothing that could break out of the block or rewrite a terminal gets through raw.
          const text = fit.block.replace(
            /<\/?(available_skills|skill|name|description|location|left_out)>/g,
            "",
          );
          assert.ok(![..."<>\u202e\u2028\x1b"].some((c) => text.includes(c)));
          if (!skills.some((s) => LONE_SURROGATE.test(s.description))) {
            assert.ok(!LONE_SURROGATE.test(fit.block));
          }
        },
      ),
      runs(300),
    );
  });

  it("gives the unbudgeted block byte for byte when the budget is large enough", () => {
    fc.assert(
      fc.property(catalogArb, fc.nat({ max: 1000 }), (skills, slack) => {
        const full = renderSkillCatalog(skills);
        assert.equal(renderSkillCatalog(skills, { budget: length(full) + slack }), full);
        assert.deepEqual(fitSkillCatalog(skills, { budget: length(full) }).left_out, []);
      }),
      runs(200),
    );
  });

  it("never lists fewer skills for a larger budget", () => {
    fc.assert(
      fc.property(catalogArb, fc.nat({ max: 5000 }), fc.nat({ max: 2000 }), (skills, a, more) => {
        const listed = (budget: number): number => {
          try {
            return fitSkillCatalog(skills, { budget }).listed.length;
          } catch {
            return -1;
          }
        };
        assert.ok(listed(a) <= listed(a + more));
      }),
      runs(200),
    );
  });
});

describe("renderSkillCatalog examples", () => {
  const skills = [
    { name: "pdf", description: "Fill in PDF forms from structured data, then check every field" },
    { name: "csv", description: "Clean and join CSV files", location: "/s/csv/SKILL.md" },
    { name: "web", description: "Browse the web" },
  ];

  it("shortens descriptions before leaving skills out, and leaves out from the end", () => {
    const full = renderSkillCatalog(skills);
    assert.equal(
      full,
      [
        "<available_skills>",
        "<skill>",
        "<name>pdf</name>",
        "<description>Fill in PDF forms from structured data, then check every field</description>",
        "</skill>",
        "<skill>",
        "<name>csv</name>",
        "<description>Clean and join CSV files</description>",
        "<location>/s/csv/SKILL.md</location>",
        "</skill>",
        "<skill>",
        "<name>web</name>",
        "<description>Browse the web</description>",
        "</skill>",
        "</available_skills>",
      ].join("\n"),
    );
    const shorter = fitSkillCatalog(skills, { budget: length(full) - 10, descriptionFloor: 10 });
    assert.deepEqual(shorter.left_out, []);
    assert.deepEqual(shorter.listed.map((s) => s.description), [
      "Fill in PDF forms from structured data, then check…",
      "Clean and join CSV files",
      "Browse the web",
    ]);
    const long = [...skills.slice(0, 2), {
      name: "web",
      description: `Browse the web ${"and more ".repeat(40)}`.trim(),
    }];
    // At 447 characters every skill fits once "web" is shortened to 100; at 446 it is left out.
    assert.deepEqual(
      fitSkillCatalog(long, { budget: 447, descriptionFloor: 100 }).listed[2]!.description,
      `Browse the web ${"and more ".repeat(9)}and…`,
    );
    const dropped = fitSkillCatalog(long, { budget: 446, descriptionFloor: 100 });
    assert.deepEqual(dropped.left_out, ["web"]);
    assert.deepEqual(dropped.shortened, 0);
    assert.equal(
      dropped.block.split("\n").at(-2),
      "<left_out>1 of 3 skills left out to fit the prompt budget; call the skill tool with a skill " +
        "name to use one of them</left_out>",
    );
    const hinted = fitSkillCatalog(skills, { budget: 200, reachHint: "ask for <them>" });
    assert.deepEqual(hinted.left_out, ["pdf", "csv", "web"]);
    assert.equal(
      hinted.block,
      "<available_skills>\n<left_out>3 of 3 skills left out to fit the prompt budget; ask for " +
        "&lt;them&gt;</left_out>\n</available_skills>",
    );
  });

  it("cuts a single long word hard and never splits a surrogate pair", () => {
    const fit = fitSkillCatalog([{ name: "x", description: "🙂".repeat(200) }], {
      budget: 120,
      descriptionFloor: 5,
    });
    assert.equal(
      fit.listed[0]!.description,
      `${"🙂".repeat(fit.listed[0]!.description.length / 2 - 0.5)}…`,
    );
    assert.ok(length(fit.block) <= 120);
  });

  it("rejects a bad budget or skill with a typed error", () => {
    assert.throws(() => renderSkillCatalog(skills, { budget: -1 }), {
      name: "RangeError",
      message: "budget must be a whole number of at least 0, got -1",
    });
    assert.throws(() => renderSkillCatalog(skills, { descriptionFloor: 1.5 }), {
      name: "RangeError",
      message: "descriptionFloor must be a whole number of at least 0, got 1.5",
    });
    assert.throws(() => renderSkillCatalog(skills, { budget: 10 }), {
      name: "RangeError",
      message:
        "Budget 10 is too small for the <available_skills> block: it needs at least 165 characters",
    });
    assert.throws(() => renderSkillCatalog([{ name: 1 } as never]), {
      name: "TypeError",
      message:
        "Each skill must be { name, description, location?, metadata?, frontmatter? } with strings",
    });
  });
});

describe("renderSkillCatalog with a rank, a token budget and a language", () => {
  const rankedArb = fc.uniqueArray(skillArb, { selector: (s) => s.name, maxLength: 25 }).chain((
    skills,
  ) =>
    fc.tuple(
      fc.constant(skills),
      fc.array(
        fc.oneof(
          fc.integer({ min: -5, max: 5 }),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
        ),
        {
          minLength: skills.length,
          maxLength: skills.length,
        },
      ),
    )
  );

  it("fits any budget for any rank, never lists a lower-ranked skill over a higher one left out, and counts exactly", () => {
    fc.assert(
      fc.property(
        rankedArb,
        fc.nat({ max: 6000 }),
        fc.boolean(),
        ([skills, scores], budget, search) => {
          const rank = new Map(skills.map((s, i) => [s.name, scores[i]!]));
          let fit;
          try {
            fit = fitSkillCatalog(skills, { budget, rank, search });
          } catch (e) {
            assert.ok(e instanceof RangeError);
            assert.match(e.message, /^Budget \d+ is too small/);
            return;
          }
          assert.ok(length(fit.block) <= budget, `${length(fit.block)} > ${budget}`);
          const listed = new Set(fit.listed.map((s) => s.name));
          assert.equal(listed.size + fit.left_out.length, skills.length);
          assert.deepEqual(
            fit.left_out,
            skills.filter((s) => !listed.has(s.name)).map((s) => s.name),
          );
          // Listed in the given order.
          assert.deepEqual(
            fit.listed.map((s) => s.name),
            skills.filter((s) => listed.has(s.name)).map((s) => s.name),
          );
          // No listed skill ranks below a left-out one (ties: the earlier is kept).
          for (const out of fit.left_out) {
            const o = skills.findIndex((s) => s.name === out);
            for (const s of fit.listed) {
              const i = skills.findIndex((x) => x.name === s.name);
              const [ri, ro] = [rank.get(s.name)!, rank.get(out)!];
              assert.ok(ri > ro || (ri === ro && i < o), `${s.name} listed, ${out} left out`);
            }
          }
          // A higher-ranked description is never shorter than a lower-ranked one's cut allows.
          const cut = fit.listed.filter((s) =>
            s.description !== skills.find((x) => x.name === s.name)!.description
          );
          for (const s of cut) {
            for (const t of fit.listed) {
              const full = skills.find((x) => x.name === t.name)!;
              if (rank.get(t.name)! < rank.get(s.name)! && t.description === full.description) {
                assert.ok(
                  length(full.description) <= DEFAULT_FLOOR,
                  `${t.name} whole while ${s.name} cut`,
                );
              }
            }
          }
          const line = leftOutLine(fit.block);
          if (fit.left_out.length === 0) assert.equal(line, undefined);
          else {
            assert.ok(
              line!.startsWith(`<left_out>${fit.left_out.length} of ${skills.length} skill`),
            );
            assert.equal(line!.includes("skill_search"), search);
          }
        },
      ),
      runs(300),
    );
  });

  it("keeps the highest-ranked skill whole while the lowest loses its description", () => {
    const skills = [
      { name: "rare", description: "Rarely used ".repeat(20).trim() },
      { name: "often", description: "Often used ".repeat(20).trim() },
    ];
    const full = renderSkillCatalog(skills);
    const fit = fitSkillCatalog(skills, {
      budget: length(full) - 100,
      rank: new Map([["often", 10], ["rare", 1]]),
      descriptionFloor: 20,
    });
    assert.equal(fit.listed[1]!.description, skills[1]!.description);
    assert.ok(fit.listed[0]!.description.endsWith("…"));
    const five = ["a", "b", "c", "d", "e"].map((name) => ({
      name,
      description: `Skill ${name} ${"does things ".repeat(10)}`.trim(),
    }));
    const ranks = new Map([["a", 1], ["b", 5], ["c", 3], ["d", 4], ["e", 2]]);
    const dropped = fitSkillCatalog(five, { budget: 571, rank: (name) => ranks.get(name) });
    assert.deepEqual(dropped.left_out, ["a", "c", "e"]);
    assert.deepEqual(dropped.listed.map((s) => s.name), ["b", "d"]);
    assert.throws(() => fitSkillCatalog(skills, { budget: 200, rank: () => NaN }), {
      name: "RangeError",
      message: 'The rank of "rare" must be a finite number, got NaN',
    });
  });

  it("takes a budget as a share of a context window, at 4 characters per token", () => {
    const skills = Array.from({ length: 1000 }, (_, i) => ({
      name: `skill-${i}`,
      description: `Does task ${i} with care; ${"words ".repeat(30)}`.trim(),
    }));
    const fit = fitSkillCatalog(skills, { budget: { contextTokens: 200_000, share: 0.02 } });
    assert.ok(length(fit.block) <= 16_000);
    assert.ok(fit.left_out.length > 0);
    assert.equal(fit.listed.length + fit.left_out.length, 1000);
    assert.throws(() => fitSkillCatalog(skills, { budget: { contextTokens: 1000, share: 0 } }), {
      name: "RangeError",
      message: "budget.share must be a number more than 0 and at most 1, got 0",
    });
    assert.throws(() => fitSkillCatalog(skills, { budget: "16k" as never }), {
      name: "RangeError",
      message: "budget must be a number of characters or { contextTokens, share }, got 16k",
    });
    assert.throws(() => fitSkillCatalog(skills, { budget: { contextTokens: -1, share: 0.5 } }), {
      name: "RangeError",
      message: "budget.contextTokens must be a whole number of at least 0, got -1",
    });
  });

  it("shows the description in the host's language, falling back along the tag, then to the base", () => {
    const skills = [
      {
        name: "pdf",
        description: "Fill in PDF forms",
        metadata: { "description-de": "PDF-Formulare ausfüllen", "Description-PT-br": "Preencher" },
      },
      {
        name: "csv",
        description: "Join CSV tables",
        metadata: new Map([["description-de", "CSV verbinden"]]),
      },
      { name: "web", description: "Browse" },
    ];
    const de = fitSkillCatalog(skills, { lang: "de-AT" });
    assert.deepEqual(de.listed.map((s) => s.description), [
      "PDF-Formulare ausfüllen",
      "CSV verbinden",
      "Browse",
    ]);
    assert.equal(de.shortened, 0);
    assert.equal(fitSkillCatalog(skills, { lang: "pt-BR" }).listed[0]!.description, "Preencher");
    assert.equal(
      fitSkillCatalog(skills, { lang: "fr" }).listed[0]!.description,
      "Fill in PDF forms",
    );
    assert.throws(() => fitSkillCatalog(skills, { lang: "de_DE" }), {
      name: "RangeError",
      message: 'lang must be a BCP 47 language tag, got "de_DE"',
    });
  });
});

const DEFAULT_FLOOR = 80;
