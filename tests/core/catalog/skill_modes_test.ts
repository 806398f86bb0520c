/**
 * Per-skill modes (`lib/core/catalog/skill_modes.ts`) through everything that offers
 * skills to a model: the modes file, the prompt block and its report, the
 * skill tool's enum and description, activation by name (the handler's
 * `user` flag, `activateSkill`), and `disable-model-invocation` in SKILL.md.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fc, runs } from "../../_fc.ts";
import { write } from "../../_tree.ts";
import {
  activateSkill,
  createBundle,
  createLockfile,
  fitSkillCatalog,
  handleLockedSkillTool,
  handleSkillTool,
  lockEntry,
  parseSkillModes,
  renderSkillCatalog,
  searchSkills,
  skillManifest,
  type SkillMode,
  skillMode,
  SkillModeError,
  skillToolDefinition,
  skillTools,
  validateAgentSkillFrontmatter,
} from "../../../mod.ts";
import { discoverSkills, loadSkillFolder } from "../../../lib/load.ts";
import { serveSkills } from "../../../lib/mcp.ts";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import type { CatalogReason, CatalogReportEntry, ExcludedSkill } from "../../../mod.ts";

const MODES: readonly SkillMode[] = ["auto", "pinned", "name-only", "manual", "disabled"];
const length = (text: string): number => [...text].length;
const enumOf = (tool: { input_schema: unknown }): string[] | undefined =>
  (tool.input_schema as { properties: { skill: { enum?: string[] } } }).properties.skill.enum;
/** Characters one skill's whole entry takes in the block. */
const entryLength = (s: { name: string; description: string; location?: string }): number =>
  length(renderSkillCatalog([s])) - length("<available_skills>\n</available_skills>");

const skills = [
  { name: "pdf", description: "Fill in PDF forms and check every field" },
  { name: "csv", description: "Clean and join CSV files" },
  { name: "deploy", description: "Deploy the service to production" },
  { name: "web", description: "Browse the web and summarise pages" },
  { name: "old", description: "An old skill nobody should use" },
];
const modes = new Map<string, SkillMode>([
  ["csv", "pinned"],
  ["web", "name-only"],
  ["deploy", "manual"],
  ["old", "disabled"],
]);

describe("parseSkillModes", () => {
  it("reads a map of names to modes, in the file's order, with $schema beside it", () => {
    const text =
      '{ "$schema": "x", "modes": { "pdf": "pinned", "deploy": "manual", "a/b": "auto" } }';
    assert.deepEqual([...parseSkillModes(text, "modes.json")], [
      ["pdf", "pinned"],
      ["deploy", "manual"],
      ["a/b", "auto"],
    ]);
    assert.deepEqual([...parseSkillModes('{"modes":{}}', "m.json")], []);
  });

  it("refuses every malformed file with a typed error at its line and column", () => {
    const cases: [string, string, string][] = [
      ["{", "INVALID_JSON", "m.json:1:2: Not valid JSON: Expected a key in quotes: the text ends"],
      ["[]", "INVALID_FIELD", 'm.json:1:1: The file must hold an object like { "modes": {} }'],
      ["{}", "INVALID_FIELD", 'm.json:1:1: Missing field "modes"'],
      [
        '{"modes": {}, "mode": 1}',
        "INVALID_FIELD",
        'm.json:1:15: Unknown field "mode" (known: $schema, modes)',
      ],
      [
        '{"modes": []}',
        "INVALID_FIELD",
        'm.json:1:11: Field "modes" must be an object of skill names and modes',
      ],
      [
        '{"modes": {\n  "pdf": "Pinned"\n}}',
        "INVALID_FIELD",
        'm.json:2:10: The mode of "pdf" must be one of pinned, auto, name-only, manual, disabled, not "Pinned" (did you mean "pinned"?)',
      ],
      [
        '{"modes": {"pdf": true}}',
        "INVALID_FIELD",
        'm.json:1:19: The mode of "pdf" must be one of pinned, auto, name-only, manual, disabled, not a boolean',
      ],
      [
        '{"modes": {"pdf": "auto", "pdf": "manual"}}',
        "INVALID_JSON",
        'm.json:1:27: Not valid JSON: The key "pdf" is given twice',
      ],
      ['{"modes": {"": "auto"}}', "INVALID_FIELD", "m.json:1:12: A skill name must not be empty"],
      [
        '{"modes": {"__proto__": "banana"}}',
        "INVALID_FIELD",
        'm.json:1:25: The mode of "__proto__" must be one of pinned, auto, name-only, manual, disabled, not "banana"',
      ],
    ];
    for (const [text, code, message] of cases) {
      assert.throws(() => parseSkillModes(text, "m.json"), (e: unknown) => {
        assert.ok(e instanceof SkillModeError, String(e));
        assert.deepEqual([e.code, e.message], [code, message], text);
        return true;
      });
    }
    assert.throws(() => parseSkillModes(" ".repeat((1 << 20) + 1), "m.json"), {
      name: "SkillModeError",
      message: "m.json: The file is over 1048576 bytes",
    });
    // A name that is a property of every object is just a name.
    assert.deepEqual([...parseSkillModes('{"modes":{"__proto__":"pinned"}}', "m.json")], [
      ["__proto__", "pinned"],
    ]);
  });

  it("reads back any map it is given as JSON, and never throws anything but its typed error", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.string({ minLength: 1 }), fc.constantFrom(...MODES)), {
          selector: ([name]) => name,
          maxLength: 20,
        }),
        (pairs) => {
          const text = JSON.stringify({ modes: Object.fromEntries(pairs) }, null, 2);
          const read = parseSkillModes(text, "m.json");
          assert.deepEqual(new Map(read), new Map(pairs));
        },
      ),
      runs(200),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          parseSkillModes(text, "m.json");
        } catch (e) {
          assert.ok(e instanceof SkillModeError, String(e));
        }
      }),
      runs(300),
    );
  });
});

describe("skillMode", () => {
  it("takes the host's mode, else manual for disable-model-invocation: true, else auto", () => {
    const manual = { name: "deploy", frontmatter: { "disable-model-invocation": true } };
    assert.equal(skillMode(manual), "manual");
    assert.equal(skillMode(manual, new Map([["deploy", "pinned"]])), "pinned");
    assert.equal(skillMode(manual, () => undefined), "manual");
    assert.equal(
      skillMode({ name: "x", frontmatter: { "disable-model-invocation": false } }),
      "auto",
    );
    assert.equal(skillMode({ name: "x" }, (n) => (n === "x" ? "disabled" : undefined)), "disabled");
    assert.throws(() => skillMode({ name: "x" }, new Map([["x", "hidden" as SkillMode]])), {
      name: "RangeError",
      message:
        'The mode of "x" must be one of pinned, auto, name-only, manual, disabled, got "hidden"',
    });
  });
});

describe("modes in the prompt block", () => {
  it("lists pinned first and whole, name-only without a description, manual and disabled not at all", () => {
    const fit = fitSkillCatalog(skills, { modes });
    assert.equal(
      fit.block,
      "<available_skills>\n" +
        "<skill>\n<name>csv</name>\n<description>Clean and join CSV files</description>\n</skill>\n" +
        "<skill>\n<name>pdf</name>\n<description>Fill in PDF forms and check every field</description>\n</skill>\n" +
        "<skill>\n<name>web</name>\n</skill>\n" +
        "</available_skills>",
    );
    assert.deepEqual(fit.listed.map((s) => [s.name, s.description]), [
      ["csv", "Clean and join CSV files"],
      ["pdf", "Fill in PDF forms and check every field"],
      ["web", ""],
    ]);
    assert.deepEqual(fit.left_out, []);
    assert.deepEqual(fit.report, [
      {
        name: "deploy",
        shown: "dropped",
        reason: "mode",
        saved: entryLength(skills[2]!),
        detail: "manual",
      },
      {
        name: "web",
        shown: "name-only",
        reason: "mode",
        saved: entryLength(skills[3]!) - length("<skill>\n<name>web</name>\n</skill>\n"),
        detail: "name-only",
      },
      {
        name: "old",
        shown: "dropped",
        reason: "mode",
        saved: entryLength(skills[4]!),
        detail: "disabled",
      },
    ]);
  });

  it("keeps a pinned description whole when the budget cuts the others, and refuses a budget pinned skills cannot fit", () => {
    const long = (name: string) => ({
      name,
      description: `${name} ${"does careful work ".repeat(12)}`.trim(),
    });
    const many = ["a", "b", "c", "d", "e", "f"].map(long);
    const pinned = new Map<string, SkillMode>([["f", "pinned"]]);
    const fit = fitSkillCatalog(many, { budget: 700, modes: pinned });
    assert.equal(fit.listed[0]!.name, "f");
    assert.equal(fit.listed[0]!.description, many[5]!.description);
    assert.ok(length(fit.block) <= 700, fit.block);
    assert.ok(
      fit.report.length > 0 && fit.report.every((r) => r.reason === "budget" && r.name !== "f"),
    );
    // Without the mode, "f" is among the first to go.
    assert.deepEqual(fitSkillCatalog(many, { budget: 700 }).left_out, ["d", "e", "f"]);
    assert.throws(() => fitSkillCatalog(many, { budget: 200, modes: pinned }), {
      name: "RangeError",
      message:
        /^Budget 200 is too small for the <available_skills> block: it needs at least \d+ characters$/,
    });
  });

  it("accounts for the host's excluded skills with their reasons, and checks them", () => {
    const excluded: ExcludedSkill[] = [
      { name: "git", reason: "missing-tools", detail: "needs Bash", description: "Use git" },
      { name: "x", reason: "not-approved" },
      { name: "y", reason: "missing-dependency", detail: "needs pdf-base" },
    ];
    const fit = fitSkillCatalog(skills.slice(0, 2), { excluded });
    assert.deepEqual(fit.report, [
      {
        name: "git",
        shown: "dropped",
        reason: "missing-tools",
        saved: entryLength({ name: "git", description: "Use git" }),
        detail: "needs Bash",
      },
      { name: "x", shown: "dropped", reason: "not-approved", saved: 0 },
      {
        name: "y",
        shown: "dropped",
        reason: "missing-dependency",
        saved: 0,
        detail: "needs pdf-base",
      },
    ]);
    assert.equal(fit.block, renderSkillCatalog(skills.slice(0, 2)));
    assert.throws(
      () => fitSkillCatalog(skills, { excluded: [{ name: "x", reason: "gone" as CatalogReason }] }),
      { name: "TypeError", message: /^Each excluded skill must be \{ name, reason/ },
    );
  });

  it("without modes or exclusions, is the block it always was and reports only what the budget did", () => {
    const fit = fitSkillCatalog(skills, { budget: 300, descriptionFloor: 10 });
    for (const r of fit.report) assert.equal(r.reason, "budget");
    assert.deepEqual(
      fit.report.filter((r) => r.shown === "dropped").map((r) => r.name),
      fit.left_out,
    );
    assert.equal(fit.report.filter((r) => r.shown === "shortened").length, fit.shortened);
  });
});

/** Check a fit's report against the skills, their modes and the exclusions: every skill accounted for once. */
function checkAccount(
  given: readonly { name: string; description: string }[],
  modeOf: ReadonlyMap<string, SkillMode>,
  excluded: readonly ExcludedSkill[],
  fit: ReturnType<typeof fitSkillCatalog>,
): void {
  const byName = new Map<string, CatalogReportEntry>();
  for (const r of fit.report.slice(0, fit.report.length - excluded.length)) {
    assert.ok(!byName.has(r.name), `${r.name} reported twice`);
    byName.set(r.name, r);
  }
  assert.deepEqual(
    fit.report.slice(fit.report.length - excluded.length).map((r) => [r.name, r.reason]),
    excluded.map((x) => [x.name, x.reason]),
  );
  const listed = new Map(fit.listed.map((s) => [s.name, s]));
  for (const s of given) {
    const mode = modeOf.get(s.name) ?? "auto";
    const r = byName.get(s.name);
    const shown = listed.get(s.name);
    const full = entryLength(s);
    if (mode === "manual" || mode === "disabled") {
      assert.deepEqual(r, {
        name: s.name,
        shown: "dropped",
        reason: "mode",
        saved: full,
        detail: mode,
      });
      assert.equal(shown, undefined);
    } else if (mode === "pinned") {
      assert.equal(r, undefined);
      assert.equal(shown?.description, s.description);
    } else if (shown === undefined) {
      assert.deepEqual(r, { name: s.name, shown: "dropped", reason: "budget", saved: full });
    } else if (mode === "name-only") {
      assert.equal(r?.shown, "name-only");
      assert.equal(r?.reason, "mode");
      assert.equal(
        r?.saved,
        full - entryLength({ name: s.name, description: "" }) +
          length("<description></description>\n"),
      );
    } else if (shown.description === s.description) {
      assert.equal(r, undefined, `${s.name} shown whole but reported`);
    } else {
      assert.equal(r?.shown, "shortened");
      assert.equal(r?.reason, "budget");
      assert.equal(r?.saved, full - entryLength(shown));
      assert.ok(r!.saved > 0, `${s.name} saved ${r!.saved}`);
    }
  }
  assert.equal(
    byName.size,
    [...byName.keys()].filter((n) => given.some((s) => s.name === n)).length,
  );
}

describe("the catalog's report", () => {
  it("accounts for every skill not shown in full, once, with the right reason and the characters saved (property)", () => {
    const word = fc.constantFrom(
      "fill",
      "forms",
      "join",
      "tables",
      "deploy",
      "é",
      "技能",
      "🙂",
      "&",
      "<x>",
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({
            name: fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/),
            description: fc.array(word, { minLength: 1, maxLength: 40 }).map((w) => w.join(" ")),
            mode: fc.constantFrom(...MODES),
          }),
          { selector: (s) => s.name, minLength: 1, maxLength: 30 },
        ),
        fc.array(
          fc.record({
            name: fc.stringMatching(/^x-[a-z]{1,6}$/),
            reason: fc.constantFrom<CatalogReason>(
              "missing-tools",
              "not-approved",
              "missing-dependency",
            ),
          }),
          { maxLength: 4 },
        ),
        fc.integer({ min: 100, max: 4000 }),
        fc.option(fc.func(fc.integer({ min: 0, max: 5 })), { nil: undefined }),
        (given, excluded, budget, rankFn) => {
          const modeOf = new Map(given.map((s) => [s.name, s.mode]));
          const plain = given.map(({ name, description }) => ({ name, description }));
          let fit;
          try {
            fit = fitSkillCatalog(plain, {
              budget,
              modes: modeOf,
              excluded,
              descriptionFloor: 10,
              ...(rankFn === undefined ? {} : { rank: (n: string) => rankFn(n) }),
            });
          } catch (e) {
            assert.ok(e instanceof RangeError && /too small/.test(e.message), String(e));
            return;
          }
          assert.ok(length(fit.block) <= budget, `${length(fit.block)} > ${budget}`);
          checkAccount(plain, modeOf, excluded, fit);
        },
      ),
      runs(300),
    );
  });

  it("accounts for every skill of a generated 600-skill library under the default-sized budget", () => {
    // A library shaped like a large public collection: names and descriptions of varied length.
    const random = mulberry32(34);
    const verbs = ["Use", "Build", "Review", "Design", "Audit", "Write", "Test", "Deploy", "Debug"];
    const nouns = ["APIs", "forms", "tables", "docs", "pipelines", "prompts", "agents", "charts"];
    const library = Array.from({ length: 600 }, (_, i) => {
      const words = Array.from(
        { length: 8 + Math.floor(random() * 60) },
        () =>
          random() < 0.5
            ? verbs[Math.floor(random() * verbs.length)]!
            : nouns[Math.floor(random() * nouns.length)]!,
      );
      return { name: `skill-${i}`, description: words.join(" ") };
    });
    const modeOf = new Map<string, SkillMode>();
    library.forEach((s, i) => {
      if (i % 50 === 7) modeOf.set(s.name, "pinned");
      else if (i % 13 === 0) modeOf.set(s.name, "name-only");
      else if (i % 17 === 0) modeOf.set(s.name, "manual");
      else if (i % 19 === 0) modeOf.set(s.name, "disabled");
    });
    const excluded: ExcludedSkill[] = [
      { name: "needs-bash", reason: "missing-tools", detail: "needs Bash" },
      { name: "unapproved", reason: "not-approved" },
      { name: "needs-base", reason: "missing-dependency", detail: "needs base" },
    ];
    const fit = fitSkillCatalog(library, { budget: 16_000, modes: modeOf, excluded, search: true });
    assert.ok(length(fit.block) <= 16_000, `${length(fit.block)}`);
    checkAccount(library, modeOf, excluded, fit);
    const count = (reason: string, shown?: string) =>
      fit.report.filter((r) => r.reason === reason && (shown === undefined || r.shown === shown))
        .length;
    assert.equal(
      count("mode", "dropped"),
      [...modeOf.values()].filter((m) => m === "manual" || m === "disabled").length,
    );
    assert.ok(count("budget", "dropped") > 100, `${count("budget", "dropped")} dropped`);
    assert.equal(count("budget", "dropped"), fit.left_out.length);
    // The left-out line names how many the budget left out of those offered, and points to skill_search.
    const offered = library.filter((s) =>
      !["manual", "disabled"].includes(modeOf.get(s.name) ?? "auto")
    );
    assert.match(
      fit.block,
      new RegExp(
        `<left_out>${fit.left_out.length} of ${offered.length} skills left out to fit the prompt budget; call the skill_search tool`,
      ),
    );
  });
});

describe("modes in the skill tool", () => {
  it("leaves manual and disabled skills out of the enum and the description, names name-only ones bare, pins first", () => {
    const tool = skillToolDefinition(skills, { modes });
    assert.deepEqual(enumOf(tool), ["pdf", "csv", "web"]);
    const list = tool.description.split("Available skills:\n")[1];
    assert.equal(
      list,
      "- csv: Clean and join CSV files\n- pdf: Fill in PDF forms and check every field\n- web",
    );
    assert.ok(!/^- (deploy|old)/m.test(tool.description), tool.description);
    // skill_search cannot find them either.
    const index = skillTools(skills, { modes, search: true }).search_index!;
    assert.deepEqual(searchSkills(index, "deploy production").map((r) => r.name), []);
    assert.deepEqual(searchSkills(index, "browse").map((r) => r.name), ["web"]);
    // The frontmatter's disable-model-invocation keeps a bundle out too, unless the host says otherwise.
    const hidden = createBundle({
      frontmatter: { name: "secret", description: "Rotate keys", "disable-model-invocation": true },
      instructions: "",
    });
    const pdf = createBundle({
      frontmatter: { name: "pdf", description: "PDF" },
      instructions: "",
    });
    assert.deepEqual(enumOf(skillToolDefinition([pdf, hidden])), ["pdf"]);
    assert.deepEqual(
      enumOf(skillToolDefinition([pdf, hidden], { modes: new Map([["secret", "auto"]]) })),
      [
        "pdf",
        "secret",
      ],
    );
    assert.throws(() => skillToolDefinition([hidden]), {
      name: "RangeError",
      message:
        "skillToolDefinition needs at least one skill offered to the model: every skill is manual or disabled",
    });
  });

  it("keeps a pinned description whole while the budget cuts the others, and the whole definition within it", () => {
    const many = Array.from({ length: 300 }, (_, i) => ({
      name: `s-${i}`,
      description: `Skill ${i} ${"does careful work ".repeat(8)}`.trim(),
    }));
    const tools = skillTools(many, { modes: new Map([["s-299", "pinned"]]) });
    const { name, description, input_schema: inputSchema } = tools.skill;
    const sent = length(JSON.stringify({ name, description, inputSchema }));
    assert.ok(sent <= 8000, `${sent}`);
    const list = description.split("Available skills:\n")[1]!.split("\n");
    assert.equal(list[0], `- s-299: ${many[299]!.description}`);
    assert.equal(tools.left_out.includes("s-299"), false);
    assert.equal(enumOf(tools.skill), undefined);
    // Past the budget every call gets the one plain schema object (the MCP SDK compiles each object once).
    assert.equal(skillTools(many.slice(1)).skill.input_schema, inputSchema);
  });
});

describe("activation by name", () => {
  const deploy = createBundle({
    frontmatter: { name: "deploy", description: "Deploy", "disable-model-invocation": true },
    instructions: "Deploy it.",
    files: { "references/steps.md": "1. ship\n" },
  });
  const pdf = createBundle({
    frontmatter: { name: "pdf", description: "PDF" },
    instructions: "Fill.",
  });
  const old = createBundle({
    frontmatter: { name: "old", description: "Old" },
    instructions: "Old.",
  });
  const context = {
    skills: [deploy, pdf, old],
    modes: new Map<string, SkillMode>([["old", "disabled"]]),
  };

  it("activates a manual skill when the user names it, never when the model does; reads its files only once activated", () => {
    assert.deepEqual(handleSkillTool({ skill: "deploy" }, context), {
      content: 'Skill "deploy" is activated only when the user names it',
      is_error: true,
    });
    const byUser = handleSkillTool({ skill: "deploy" }, context, { user: true });
    assert.equal(byUser.is_error, false);
    assert.match(byUser.content, /Deploy it\./);
    // Its files open only once the user or the host activated it (skill_access.ts).
    assert.deepEqual(
      handleSkillTool({ skill: "deploy", resource: "references/steps.md" }, context),
      {
        content: 'The files of skill "deploy" are read only once the user has activated it',
        is_error: true,
      },
    );
    const read = handleSkillTool({ skill: "deploy", resource: "references/steps.md" }, {
      ...context,
      activated: new Set(["deploy"]),
    });
    assert.equal(read.is_error, false);
    // The library call is the host's: it activates whatever it is given.
    assert.equal(activateSkill(deploy).skill, "deploy");
  });

  it("passes the user flag through the locked skill tool", async () => {
    const lock = createLockfile([
      lockEntry(await skillManifest(deploy), { scope: "p", source: "deploy" }),
    ]);
    const byModel = await handleLockedSkillTool({ skill: "deploy" }, { skills: [deploy], lock });
    assert.equal(byModel.content, 'Skill "deploy" is activated only when the user names it');
    const byUser = await handleLockedSkillTool({ skill: "deploy" }, { skills: [deploy], lock }, {
      user: true,
    });
    assert.equal(byUser.is_error, false);
  });

  it("treats a disabled skill as unknown, for the user too, and suggests only names the caller may use", () => {
    for (const call of [{}, { user: true }]) {
      assert.deepEqual(handleSkillTool({ skill: "old" }, context, call), {
        content: 'Unknown skill "old"',
        is_error: true,
      });
    }
    assert.deepEqual(handleSkillTool({ skill: "deplo" }, context), {
      content: 'Unknown skill "deplo"',
      is_error: true,
    });
    assert.deepEqual(handleSkillTool({ skill: "deplo" }, context, { user: true }), {
      content: 'Unknown skill "deplo" (nearest: "deploy")',
      is_error: true,
    });
    assert.deepEqual(handleSkillTool({ skill: "pfd" }, { ...context, search: true }), {
      content:
        'Unknown skill "pfd" (nearest: "pdf"); call skill_search with words from the task to find one',
      is_error: true,
    });
  });
});

describe("disable-model-invocation in SKILL.md", () => {
  let root = "";
  before(() => {
    root = mkdtempSync(join(tmpdir(), "skillset-modes-"));
    write(
      join(root, "skills", "deploy", "SKILL.md"),
      "---\nname: deploy\ndescription: Deploy the service\ndisable-model-invocation: true\n---\nShip it.\n",
    );
    write(
      join(root, "skills", "pdf", "SKILL.md"),
      "---\nname: pdf\ndescription: Fill PDF forms\n---\nFill.\n",
    );
    write(
      join(root, "bad", "odd", "SKILL.md"),
      "---\nname: odd\ndescription: Odd\ndisable-model-invocation: yes please\n---\n",
    );
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("is read as a boolean by the strict and lenient readers, and refused as anything else", () => {
    assert.equal(
      loadSkillFolder(join(root, "skills", "deploy")).frontmatter["disable-model-invocation"],
      true,
    );
    assert.throws(() => loadSkillFolder(join(root, "bad", "odd")), {
      name: "AgentSkillError",
      message:
        /^Invalid SKILL\.md at disable-model-invocation: must be true or false, got string yes please/,
    });
    const lenient = loadSkillFolder(join(root, "bad", "odd"), { lenient: true });
    assert.equal(lenient.frontmatter["disable-model-invocation"], undefined);
    assert.throws(
      () =>
        validateAgentSkillFrontmatter({
          name: "x",
          description: "y",
          "disable-model-invocation": 1,
        }),
      {
        message:
          "Invalid SKILL.md at disable-model-invocation: must be true or false, got number 1",
      },
    );
  });

  it("keeps a discovered skill out of the block and the tool, unless the host's mode says otherwise", () => {
    const found = discoverSkills([{ scope: "project", path: join(root, "skills") }]);
    assert.deepEqual(found.skills.map((s) => s.name).sort(), ["deploy", "pdf"]);
    assert.deepEqual(found.skills.flatMap((s) => s.diagnostics), []);
    const fit = fitSkillCatalog(found.skills);
    assert.deepEqual(fit.listed.map((s) => s.name), ["pdf"]);
    assert.deepEqual(fit.report.map((r) => [r.name, r.detail]), [[
      "deploy",
      "manual (disable-model-invocation: true)",
    ]]);
    assert.deepEqual(enumOf(skillToolDefinition(found.skills)), ["pdf"]);
    const auto = new Map<string, SkillMode>([["deploy", "auto"]]);
    assert.deepEqual(
      fitSkillCatalog(found.skills, { modes: auto }).listed.map((s) => s.name).sort(),
      ["deploy", "pdf"],
    );
    const byUser = handleSkillTool({ skill: "deploy" }, { skills: found }, { user: true });
    assert.equal(byUser.is_error, false);
    assert.equal(handleSkillTool({ skill: "deploy" }, { skills: found }).is_error, true);
  });
});

describe("modes over MCP (serveSkills)", () => {
  it("leaves manual skills out of the skill tool, refuses them to the model, and serves no disabled skill", async () => {
    const root = mkdtempSync(join(tmpdir(), "skillset-modes-serve-"));
    try {
      write(
        join(root, "pdf", "SKILL.md"),
        "---\nname: pdf\ndescription: Fill PDF forms\n---\nFill.\n",
      );
      write(
        join(root, "deploy", "SKILL.md"),
        "---\nname: deploy\ndescription: Deploy\ndisable-model-invocation: true\n---\nShip.\n",
      );
      write(join(root, "old", "SKILL.md"), "---\nname: old\ndescription: Old\n---\nOld.\n");
      const served = await serveSkills([root], {
        onWarning: () => {},
        modes: new Map([["old", "disabled"]]),
      });
      assert.deepEqual(
        served.catalog.entries.map((e) => (e.frontmatter as { name: string }).name).sort(),
        ["deploy", "pdf"],
      );
      const [here, there] = InMemoryTransport.createLinkedPair();
      await served.createServer().connect(there);
      const client = new Client({ name: "test-host", version: "1.0.0" });
      await client.connect(here);
      try {
        const { tools } = await client.listTools();
        const skill = tools.find((t) => t.name === "skill")!;
        assert.deepEqual(
          (skill.inputSchema as unknown as { properties: { skill: { enum: string[] } } }).properties
            .skill.enum,
          ["pdf"],
        );
        assert.ok(!/^- deploy/m.test(skill.description!), skill.description);
        const refused = await client.callTool({ name: "skill", arguments: { skill: "deploy" } });
        assert.equal(refused.isError, true);
      } finally {
        await client.close();
      }
      // Only manual skills: no skill tool at all.
      const none = await serveSkills([join(root, "deploy")], { onWarning: () => {} });
      const [a, b] = InMemoryTransport.createLinkedPair();
      await none.createServer().connect(b);
      const other = new Client({ name: "test-host", version: "1.0.0" });
      await other.connect(a);
      try {
        assert.deepEqual((await other.listTools()).tools.map((t) => t.name), []);
      } finally {
        await other.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

/** A small seeded generator, so the generated library is the same on every run. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
