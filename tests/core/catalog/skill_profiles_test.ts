/**
 * Profiles (`lib/core/catalog/skill_profiles.ts`), `paths` (`skill_paths.ts`)
 * and how both shape the catalog (`_selection.ts`, through `fitSkillCatalog`).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs } from "../../_fc.ts";
import {
  compilePathGlob,
  fitSkillCatalog,
  handleSkillSearchTool,
  HostPaths,
  MAX_SEARCH_PATH_LENGTH,
  MAX_SEARCH_PATHS,
  parseSkillProfiles,
  readSearchPaths,
  readSkillPaths,
  resolveSkillProfile,
  SkillPathsError,
  type SkillProfile,
  SkillProfileError,
  skillProfilesFromJson,
  skillTools,
  validateAgentSkillFrontmatter,
} from "../../../mod.ts";

const profiles = (entries: Record<string, SkillProfile>) => new Map(Object.entries(entries));

describe("profiles", () => {
  const all = profiles({
    base: { exclude: ["*-experimental"], modes: new Map([["git-log", "name-only"]]) },
    review: {
      include: ["code-*", "git-*"],
      pinned: ["code-review"],
      extends: "base",
      modes: new Map([["git-log", "auto"]]),
    },
  });

  it("decide in the documented order: disabled, exclude, own mode, pinned, include, the host's mode", () => {
    const review = resolveSkillProfile(all, "review");
    assert.deepEqual(review.chain, ["review", "base"]);
    assert.equal(review.decide({ name: "code-review" }, "disabled"), "disabled");
    assert.equal(review.decide({ name: "code-experimental" }, "pinned"), "out");
    assert.equal(review.decide({ name: "git-log" }, "manual"), "auto"); // its own mode wins over base's
    assert.equal(review.decide({ name: "code-review" }, "auto"), "pinned");
    assert.equal(review.decide({ name: "pdf" }, "auto"), "out");
    assert.equal(review.decide({ name: "code-lint" }, "name-only"), "name-only");
  });

  it("match origins as mcp:<origin>/<path>", () => {
    const docs = resolveSkillProfile(profiles({ docs: { include: ["mcp:docs/**"] } }), "docs");
    assert.equal(docs.decide({ name: "docs:acme/ledger", origin: "docs" }, "auto"), "auto");
    assert.equal(docs.decide({ name: "other:acme/ledger", origin: "other" }, "auto"), "out");
    assert.equal(docs.decide({ name: "ledger" }, "auto"), "out");
  });

  it("an unknown profile names the nearest; a cycle of extends is an error with its path", () => {
    assert.throws(() => resolveSkillProfile(all, "reveiw"), {
      name: "SkillProfileError",
      message: 'Unknown profile "reveiw" (did you mean "review"?)',
      unknown: { name: "reveiw", known: [...all.keys()] },
    });
    const cyclic = profiles({ a: { extends: "b" }, b: { extends: "c" }, c: { extends: "a" } });
    assert.throws(() => resolveSkillProfile(cyclic, "a"), {
      name: "SkillProfileError",
      message: 'Profiles extend each other in a cycle: "a" -> "b" -> "c" -> "a"',
    });
  });

  it("a profiles file is read strictly, with the place of each problem", () => {
    const read = parseSkillProfiles(
      '{ "profiles": { "review": { "include": ["code-*"], "extends": "base" }, "base": {} } }',
      "p.json",
    );
    assert.deepEqual([...read.keys()], ["review", "base"]);
    assert.throws(
      () => parseSkillProfiles('{ "profiles": { "r": { "includes": [] } } }', "p.json"),
      {
        name: "SkillProfileError",
        message:
          'p.json:1:24: Profile "r": unknown field "includes" (known: include, exclude, pinned, modes, extends)',
      },
    );
    assert.throws(
      () =>
        parseSkillProfiles('{ "profiles": { "r": { "extends": "bse" }, "base": {} } }', "p.json"),
      {
        name: "SkillProfileError",
        message: 'Profile "r" extends unknown profile "bse" (did you mean "base"?)',
        unknown: { name: "bse", known: ["r", "base"], extendedBy: "r" },
      },
    );
    assert.throws(
      () => skillProfilesFromJson({ r: { include: [""] } }, 'skillset.json: "profiles"'),
      {
        name: "SkillProfileError",
        message: 'skillset.json: "profiles": Profile "r": "include": a glob must not be empty',
      },
    );
    assert.ok(new SkillProfileError("EMPTY_PROFILE", "x") instanceof Error);
  });
});

describe("paths", () => {
  it("strict in validation: a list of globs", () => {
    const fm = validateAgentSkillFrontmatter({
      name: "ui",
      description: "UI",
      paths: ["**/*.tsx"],
    });
    assert.deepEqual(fm.paths, ["**/*.tsx"]);
    assert.throws(
      () => validateAgentSkillFrontmatter({ name: "ui", description: "UI", paths: [3] }),
      {
        name: "AgentSkillError",
        message: 'Invalid SKILL.md at paths: "paths" must be a list of globs (strings)',
      },
    );
    assert.deepEqual(readSkillPaths("docs/**"), { globs: ["docs/**"] });
  });

  it("the host's paths are normalised and each glob is matched once", () => {
    const host = new HostPaths(["./src/App.tsx", "/README.md", "lib\\x.ts"]);
    assert.equal(host.size, 3);
    assert.equal(host.matches(["lib/*.ts"]), true);
    assert.equal(host.matches(["**/*.tsx"]), true);
    assert.equal(host.matches(["docs/"]), false);
  });

  it("matches a glob as trying it on every path does (only the paths sharing its literal head are tried)", () => {
    // Literal heads that sort next to each other ("a", "a/", "a.", "ab", "b"), and wildcards.
    const segment = fc.constantFrom("a", "b", "ab", "a.b", "B", "a-b");
    const pathArb = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join("/"));
    const globArb = fc.array(fc.constantFrom("a", "b", "/", ".", "*", "?", "**/", "ab"), {
      minLength: 1,
      maxLength: 6,
    }).map((parts) => parts.join("")).filter((g) => g !== "/");
    fc.assert(
      fc.property(
        fc.array(pathArb, { maxLength: 12 }),
        fc.array(globArb, { minLength: 1, maxLength: 3 }),
        (paths, globs) => {
          const tried = globs.some((g) => paths.some((p) => compilePathGlob(g).matches(p)));
          assert.equal(new HostPaths(paths).matches(globs), tried);
        },
      ),
      runs(1000),
    );
  });
});

describe("the catalog under a profile and paths", () => {
  const skills = [
    { name: "code-review", description: "Review code" },
    { name: "git-log", description: "Read git logs" },
    { name: "pdf", description: "Fill PDFs" },
    { name: "ui", description: "React UI", frontmatter: { paths: ["**/*.tsx"] } },
    { name: "code-experimental", description: "Try things" },
  ];
  const review = resolveSkillProfile(all(), "review");
  function all() {
    return profiles({
      review: {
        include: ["code-*", "git-*", "ui"],
        exclude: ["*-experimental"],
        pinned: ["git-log"],
      },
    });
  }

  it("lists only the profile's skills, pinned first, and reports the rest with reason profile", () => {
    const fit = fitSkillCatalog(skills, { profile: review, paths: ["src/App.tsx"] });
    assert.deepEqual(fit.listed.map((s) => s.name), ["git-log", "code-review", "ui"]);
    assert.deepEqual(fit.report.map((r) => [r.name, r.reason, r.detail]), [
      ["pdf", "profile", "review"],
      ["code-experimental", "profile", "review"],
    ]);
  });

  it("a skill with paths is listed only for a matching host path, with reason paths otherwise", () => {
    assert.deepEqual(
      fitSkillCatalog(skills).report.map((r) => [r.name, r.reason, r.detail]),
      [["ui", "paths", "no path given"]],
    );
    assert.deepEqual(
      fitSkillCatalog(skills, { paths: ["README.md"] }).report.map((r) => [r.name, r.detail]),
      [["ui", "no path given matches"]],
    );
    assert.ok(
      fitSkillCatalog(skills, { paths: ["src/App.tsx"] }).listed.some((s) => s.name === "ui"),
    );
  });

  it("the host's disabled mode wins over a profile's pin", () => {
    const fit = fitSkillCatalog(skills, {
      profile: review,
      modes: new Map([["git-log", "disabled"]]),
    });
    assert.ok(!fit.listed.some((s) => s.name === "git-log"));
    assert.deepEqual(fit.report.find((r) => r.name === "git-log")?.reason, "mode");
  });
});

describe("skill_search's paths", () => {
  const skills = [
    { name: "code-review", description: "Review code changes" },
    {
      name: "ui-review",
      description: "Review React UI code",
      frontmatter: { paths: ["**/*.tsx"] },
    },
    { name: "sql-review", description: "Review SQL code", frontmatter: { paths: ["db/**"] } },
  ];
  const names = (content: string) => [...content.matchAll(/^- ([\w-]+)/gm)].map((m) => m[1]);

  it("finds a skill with paths only for a call (or a host) whose paths match", () => {
    const tools = skillTools(skills);
    // The skills waiting for a path are not described, so skill_search is offered for them.
    assert.deepEqual(tools.definitions.map((d) => d.name), ["skill", "skill_search"]);
    const index = tools.search_index!;
    const search = (input: object) => names(handleSkillSearchTool(input, index).content);
    assert.deepEqual(search({ query: "review code" }), ["code-review"]);
    assert.deepEqual(search({ query: "review code", paths: ["src/App.tsx"] }), [
      "code-review",
      "ui-review",
    ]);
    assert.deepEqual(search({ query: "review code", paths: ["./db/schema.sql", "README.md"] }), [
      "code-review",
      "sql-review",
    ]);
    assert.deepEqual(search({ query: "review code", paths: [] }), ["code-review"]);
    // The host's own paths count for every call.
    const hosted = skillTools(skills, { paths: ["db/x.sql"] }).search_index!;
    assert.deepEqual(names(handleSkillSearchTool({ query: "review code" }, hosted).content), [
      "code-review",
      "sql-review",
    ]);
    // A limit counts the skills shown, not those left out for their paths.
    assert.deepEqual(search({ query: "review", limit: 1, paths: ["db/a"] }).length, 1);
  });

  it("decides the no-match threshold over the skills the call can see, not those its paths hide", () => {
    // A strong match among hidden skills does not let a weak visible one (a body word) through,
    // nor does a query naming a hidden skill turn the threshold off.
    const notes = {
      name: "meeting-notes",
      description: "Keep meeting notes tidy",
      body: "Notes may mention terraform or anything else.\n",
    };
    const plan = {
      name: "terraform-plan",
      description: "Plan terraform infrastructure changes",
      frontmatter: { paths: ["infra/**"] },
    };
    const other = { name: "other", description: "Something unrelated entirely" };
    const strong = skillTools([notes, plan, other]).search_index!;
    for (const query of ["terraform plan", "terraform-plan"]) {
      assert.equal(
        handleSkillSearchTool({ query }, strong).content,
        `No skill matches "${query}"; try other words, or a skill's name`,
      );
      assert.deepEqual(
        names(handleSkillSearchTool({ query, paths: ["infra/a.tf"] }, strong).content),
        [
          "terraform-plan",
          "meeting-notes",
        ],
      );
    }
    // Nor does a hidden skill ranked above a plausible visible one (by its body) hold that one
    // back, or the query terms only it holds count against the visible one.
    const secrets = {
      name: "secrets",
      description: "Store your team's credentials and tokens in one place",
    };
    const vault = {
      name: "vault-notes",
      description: "Misc helpers",
      body: "rotate database credentials safely rotate database credentials safely\n",
      frontmatter: { paths: ["secrets/**"] },
    };
    const charts = { name: "charts", description: "Draw charts from tables" };
    const held = skillTools([secrets, vault, other, charts]).search_index!;
    const query = "rotate database credentials safely";
    assert.deepEqual(names(handleSkillSearchTool({ query }, held).content), ["secrets"]);
  });

  it("bounds the paths a call passes, with a typed error", () => {
    assert.deepEqual(readSearchPaths(["a", "b/c.ts"]), ["a", "b/c.ts"]);
    const tooMany = Array.from({ length: MAX_SEARCH_PATHS + 1 }, (_, i) => `f${i}.tsx`);
    assert.throws(() => readSearchPaths(tooMany), {
      name: "SkillPathsError",
      code: "TOO_MANY_PATHS",
      message: `Invalid input: "paths" must hold at most 100 paths, got 101`,
    });
    assert.throws(() => readSearchPaths(["ok", "x".repeat(MAX_SEARCH_PATH_LENGTH + 1)]), {
      name: "SkillPathsError",
      code: "PATH_TOO_LONG",
      message: 'Invalid input: "paths"[1] is longer than 1024 characters',
    });
    for (const bad of ["src/App.tsx", [3], { 0: "a", length: 1 }, null]) {
      assert.throws(
        () => readSearchPaths(bad),
        (e: unknown) =>
          e instanceof SkillPathsError && e.code === "INVALID_PATHS" &&
          e.message === 'Invalid input: "paths" must be a list of paths (strings)',
      );
    }
    // The handler never throws: the model gets the message, and nothing is matched.
    const index = skillTools(skills).search_index!;
    assert.deepEqual(handleSkillSearchTool({ query: "review", paths: tooMany }, index), {
      content: `Invalid input: "paths" must hold at most 100 paths, got 101`,
      is_error: true,
    });
    const schema = skillTools(skills).skill_search!.input_schema as {
      properties: { paths: { maxItems: number; items: { maxLength: number } } };
    };
    assert.equal(schema.properties.paths.maxItems, MAX_SEARCH_PATHS);
    assert.equal(schema.properties.paths.items.maxLength, MAX_SEARCH_PATH_LENGTH);
  });
});
