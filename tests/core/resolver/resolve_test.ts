// @slow: properties over large include graphs, and the CLI as a subprocess (left out of `npm run test:quick`)
import { describe, it } from "node:test";
import { checkChain, runLarge } from "../../_large.ts";
import assert from "node:assert/strict";
import { fc, runs } from "../../_fc.ts";
import {
  catalogArbitrary,
  referenceResolve,
  resolverProperties,
  type ResolverProperty,
} from "../../../lib/testing.ts";
import { deepFreeze } from "../../../lib/core/_deep_freeze.ts";
import {
  computeCapabilitySummary,
  type ResolvedToolEntry,
  type ResolvedTools,
  resolveTools,
  type Skill,
  SkillCycleError,
  type SkillLookup,
  SkillResolutionError,
  SkillResolver,
} from "../../../mod.ts";

type Outcome =
  | { ok: true; entries: ResolvedToolEntry[] }
  | { ok: false; error: { class: string; code: string; message: string; path: readonly string[] } };

function outcome(run: () => Iterable<ResolvedToolEntry>): Outcome {
  try {
    return { ok: true, entries: [...run()] };
  } catch (e) {
    if (!(e instanceof SkillResolutionError)) throw e;
    return {
      ok: false,
      error: { class: e.constructor.name, code: e.code, message: e.message, path: e.path },
    };
  }
}

function lookupForms(skills: readonly Skill[]): Record<"map" | "record" | "fn", SkillLookup> {
  const map = new Map(skills.map((s) => [s.name, s]));
  return {
    map,
    record: Object.fromEntries(skills.map((s) => [s.name, s])),
    fn: (name: string) => map.get(name),
  };
}

const anyCatalog = catalogArbitrary();
const dagCatalog = catalogArbitrary({ cycles: false, unknown: false, maxSkills: 12 });
const RUNS: Record<ResolverProperty, number> = {
  "agrees with the reference": 300,
  "keeps first position": 200,
  "takes last metadata": 200,
  "takes overrides from the declaring skill": 200,
  "forms keys by kind": 200,
  "reports a cycle with its path": 300,
  "is deterministic and leaves its input alone": 200,
  "has no recursion limit (100k chain)": 20,
};

describe("resolveTools guarded by the testing kit", () => {
  const properties = resolverProperties((root, lookup) => resolveTools(root, lookup).values());
  for (const [name, property] of Object.entries(properties)) {
    it(`resolveTools ${name}`, () => {
      fc.assert(property, runs(RUNS[name as ResolverProperty]));
    });
  }

  it("returns the reference's entries or error class and code, for every lookup form", () => {
    fc.assert(
      fc.property(
        anyCatalog,
        fc.constantFrom("map", "record", "fn") as fc.Arbitrary<"map" | "record" | "fn">,
        (c, form) => {
          assert.deepEqual(
            outcome(() => resolveTools(c.root, lookupForms(c.skills)[form]).values()),
            outcome(() => referenceResolve(c.root, new Map(c.skills.map((s) => [s.name, s])))),
          );
        },
      ),
      runs(300),
    );
  });

  it("returns frozen entries in a frozen map, also for deep-frozen input", () => {
    fc.assert(
      fc.property(dagCatalog, (c) => {
        deepFreeze(c.skills);
        const tools = resolveTools(c.root, lookupForms(c.skills).map);
        assert.ok(Object.isFrozen(tools));
        for (const entry of tools.values()) {
          assert.ok(Object.isFrozen(entry));
          assert.ok(Object.isFrozen(entry.overrides) || entry.kind === "tool_ref");
        }
      }),
      runs(100),
    );
  });
});

describe("computeCapabilitySummary", () => {
  it("counts equal counts recomputed from the entries", () => {
    fc.assert(
      fc.property(dagCatalog, (c) => {
        const entries = [...resolveTools(c.root, lookupForms(c.skills).map).values()];
        const summary = new SkillResolver().computeCapabilitySummary(c.root, entries);
        const inline = entries.filter((e) => e.inline_tool !== null).map((e) => e.inline_tool!);
        const effects = [...new Set(inline.flatMap((t) => t.side_effects ?? []))].sort();
        const mcp = entries.filter((e) => e.kind === "mcp");
        assert.deepEqual(summary, {
          total_tools: entries.length,
          read_only_tools: inline.filter((t) => t.read_only).length,
          write_tools: inline.filter((t) => t.writes).length,
          checkpointable_tools: inline.filter((t) => t.checkpointable).length,
          has_side_effects: effects.length > 0,
          side_effects: effects,
          mcp_tools: mcp.length,
          mcp_servers: new Set(mcp.map((e) => e.name.split("/")[0])).size,
          agent_skills: entries.filter((e) => e.kind === "agent_skill").length,
        });
        const tools = resolveTools(c.root, lookupForms(c.skills).map);
        assert.deepEqual(computeCapabilitySummary(c.root, tools), summary);
        // any container of entries: a Map of them, a Set, a generator
        assert.deepEqual(computeCapabilitySummary(c.root, new Map(tools)), summary);
        assert.deepEqual(computeCapabilitySummary(c.root, new Set(entries)), summary);
        assert.deepEqual(
          computeCapabilitySummary(
            c.root,
            (function* () {
              yield* entries;
            })(),
          ),
          summary,
        );
      }),
      runs(200),
    );
  });
});

function catalogOf(...skills: Skill[]): Map<string, Skill> {
  return new Map(skills.map((s) => [s.name, s]));
}

function summaryOf(tools: Iterable<ResolvedToolEntry>): [string, string, string][] {
  return [...tools].map((e) => [e.name, e.kind, e.source_skill]);
}

describe("the seed, section by section", () => {
  it("resolves includes depth-first before the skill's own tools", () => {
    const catalog = catalogOf(
      { name: "local/deep", tool_refs: ["deep_tool"] },
      { name: "local/a", includes: ["local/deep"], tool_refs: ["a_tool"] },
      { name: "local/b", tool_refs: ["b_tool"] },
    );
    const root: Skill = {
      name: "local/root",
      includes: ["local/a", { name: "local/b" }],
      tool_refs: ["own"],
    };
    assert.deepEqual([...resolveTools(root, catalog).keys()], [
      "deep_tool",
      "a_tool",
      "b_tool",
      "own",
    ]);
  });

  it("replaces an included tool by a tool ref of the same name, keeping its position", () => {
    const catalog = catalogOf(
      { name: "local/files", tool_refs: ["read_file", "write_file"] },
    );
    const root: Skill = {
      name: "local/root",
      includes: ["local/files"],
      tool_refs: ["grep", "read_file"],
    };
    assert.deepEqual(summaryOf(resolveTools(root, catalog).values()), [
      ["read_file", "tool_ref", "local/root"],
      ["write_file", "tool_ref", "local/files"],
      ["grep", "tool_ref", "local/root"],
    ]);
  });

  it("keys anonymous tools {skill}/_anon_{i} in definition order", () => {
    const tool0 = { description: "Format a table", read_only: true };
    const tool1 = { description: "Write", writes: true, side_effects: ["filesystem"] };
    const tools = resolveTools({ name: "local/t", inline_tools: [tool0, tool1] }, {});
    assert.deepEqual([...tools.values()], [
      {
        name: "local/t/_anon_0",
        kind: "inline",
        source_skill: "local/t",
        is_inline: true,
        inline_tool: tool0,
        overrides: {},
      },
      {
        name: "local/t/_anon_1",
        kind: "inline",
        source_skill: "local/t",
        is_inline: true,
        inline_tool: tool1,
        overrides: {},
      },
    ]);
  });

  it("keys MCP tools mcp:{server}/{tool}; a server without a tool list contributes nothing", () => {
    const tools = resolveTools({
      name: "local/m",
      mcp_servers: [{ server: "github", tools: ["create_issue", "list"] }, { server: "fs" }, {
        server: "x",
        tools: [],
      }],
    }, {});
    assert.deepEqual(summaryOf(tools.values()), [
      ["mcp:github/create_issue", "mcp", "local/m"],
      ["mcp:github/list", "mcp", "local/m"],
    ]);
  });

  it("keys Agent Skill folders agent_skill:{path}", () => {
    const tools = resolveTools({ name: "local/s", agent_skills: ["skills/pdf", "skills/csv"] }, {});
    assert.deepEqual([...tools.keys()], ["agent_skill:skills/pdf", "agent_skill:skills/csv"]);
    assert.equal(tools.get("agent_skill:skills/pdf")?.is_inline, false);
  });

  it("applies overrides to the skill's own tool refs only", () => {
    const catalog = catalogOf({
      name: "local/inc",
      tool_refs: ["read_file", "grep"],
      overrides: { grep: { timeout_s: 1 } },
    });
    const root: Skill = {
      name: "local/root",
      includes: ["local/inc"],
      tool_refs: ["read_file", "__proto__"],
      overrides: { read_file: { timeout_s: 5 }, unused: { x: 1 }, ["__proto__"]: { y: 2 } },
    };
    // A literal `["__proto__"]: …` key is an own property, as JSON.parse and YAML make it.
    const tools = resolveTools(root, catalog);
    assert.deepEqual(tools.get("read_file")?.overrides, { timeout_s: 5 });
    assert.deepEqual(tools.get("grep")?.overrides, { timeout_s: 1 });
    assert.deepEqual(tools.get("__proto__")?.overrides, { y: 2 });
    assert.equal(tools.has("unused"), false);
  });

  it("names the whole path in the cycle message", () => {
    const catalog = catalogOf(
      { name: "local/a", includes: ["local/b"] },
      { name: "local/b", includes: ["local/c"] },
      { name: "local/c", includes: ["local/a"] },
    );
    const root: Skill = { name: "local/root", includes: ["local/a"] };
    assert.throws(() => resolveTools(root, catalog), (e: unknown) => {
      assert.ok(e instanceof SkillCycleError);
      assert.ok(e instanceof SkillResolutionError);
      assert.ok(e instanceof Error);
      assert.equal(e.name, "SkillCycleError");
      assert.equal(e.code, "CYCLE");
      assert.equal(
        e.message,
        "Cycle detected in skill includes: local/root -> local/a -> local/b -> local/c -> local/a",
      );
      assert.deepEqual(e.path, ["local/root", "local/a", "local/b", "local/c", "local/a"]);
      return true;
    });
    assert.throws(
      () =>
        resolveTools(
          { name: "local/self", includes: ["local/self"] },
          catalogOf({ name: "local/self" }),
        ),
      {
        message: "Cycle detected in skill includes: local/self -> local/self",
      },
    );
  });

  it("names an unknown include, its includer and the path", () => {
    const catalog = catalogOf({ name: "local/a", includes: ["local/b", "local/x"] }, {
      name: "local/b",
    });
    assert.throws(
      () => resolveTools({ name: "local/root", includes: ["local/a"] }, catalog),
      (e: unknown) => {
        assert.ok(e instanceof SkillResolutionError);
        assert.equal(e.code, "UNKNOWN_SKILL");
        assert.equal(
          e.message,
          'Unknown skill "local/x" included by "local/a" (path: local/root -> local/a -> local/x)',
        );
        assert.deepEqual(e.path, ["local/root", "local/a", "local/x"]);
        return true;
      },
    );
  });

  it("reads a record lookup by own keys only", () => {
    assert.throws(
      () => resolveTools({ name: "local/r", includes: ["toString", "constructor"] }, {}),
      {
        message: 'Unknown skill "toString" included by "local/r" (path: local/r -> toString)',
      },
    );
  });

  it("refuses a lookup that answers with another skill", () => {
    assert.throws(
      () => resolveTools({ name: "local/r", includes: ["local/a"] }, () => ({ name: "local/b" })),
      {
        name: "SkillResolutionError",
        message:
          'Lookup answered "local/a" with a skill named "local/b" (path: local/r -> local/a)',
      },
    );
    // a name no template can print (a symbol) is still a typed refusal
    assert.throws(
      () =>
        resolveTools(
          { name: "local/r", includes: ["local/a"] },
          () => ({ name: Symbol("local/a") }) as never,
        ),
      {
        name: "SkillResolutionError",
        message:
          'Lookup answered "local/a" with a skill named "Symbol(local/a)" (path: local/r -> local/a)',
      },
    );
  });

  it("rejects a lookup that is neither a map, a record nor a function", () => {
    assert.throws(() => resolveTools({ name: "local/r" }, null as never), {
      name: "TypeError",
      message: "lookup must be a Map, a record of skills or a function",
    });
  });
});

describe("resolveTools at scale (correctness, not timing)", () => {
  it("resolves a 1,000,000-skill include chain without recursion (a 10,000 chain first)", () => {
    checkChain(10_000);
    runLarge("_large.ts", "checkChain", [1_000_000]);
  });

  it("resolves a 40-level diamond ladder (2^40 naive paths)", () => {
    const depth = 40;
    const skills = new Map<string, Skill>();
    for (let i = 1; i <= depth; i++) {
      for (const side of ["a", "b"]) {
        const below = i < depth ? { includes: [`ladder/a${i + 1}`, `ladder/b${i + 1}`] } : {};
        skills.set(`ladder/${side}${i}`, {
          name: `ladder/${side}${i}`,
          ...below,
          tool_refs: ["shared", `${side}${i}`],
        });
      }
    }
    const root: Skill = {
      name: "ladder/root",
      includes: ["ladder/a1", "ladder/b1"],
      tool_refs: ["top"],
    };
    const tools = resolveTools(root, skills);
    const expected = ["shared"];
    for (let i = depth; i >= 1; i--) expected.push(`a${i}`, `b${i}`);
    expected.push("top");
    assert.deepEqual([...tools.keys()], expected);
    assert.equal(tools.get("shared")?.source_skill, "ladder/b1");
    const cycle = new Map(skills);
    cycle.set("ladder/b40", { name: "ladder/b40", includes: ["ladder/a1"] });
    assert.throws(() => resolveTools(root, cycle), SkillCycleError);
  });
});

describe("resolveTools on malformed skills handed over in code", () => {
  it("names the skill and field instead of misreading them", () => {
    const cases: [unknown, string][] = [
      [null, "Invalid skill: expected a skill object, got null"],
      [{ name: 3 }, "Invalid skill at name: expected a string"],
      [
        { name: "a/r", tool_refs: "read_file" },
        'Invalid skill "a/r" at tool_refs: expected a list',
      ],
      [
        { name: "a/r", tool_refs: ["x", 1] },
        'Invalid skill "a/r" at tool_refs[1]: expected a string',
      ],
      [
        { name: "a/r", includes: [{ nam: "a/b" }] },
        'Invalid skill "a/r" at includes[0]: expected a skill name or { name }',
      ],
      [
        { name: "a/r", inline_tools: ["t"] },
        'Invalid skill "a/r" at inline_tools[0]: expected an inline tool object',
      ],
      [
        { name: "a/r", mcp_servers: [{ server: "s", tools: "t" }] },
        'Invalid skill "a/r" at mcp_servers[0]: expected { server, tools? } with string tool names',
      ],
      [
        { name: "a/r", agent_skills: [{}] },
        'Invalid skill "a/r" at agent_skills[0]: expected a string',
      ],
      [{ name: "a/r", overrides: [] }, 'Invalid skill "a/r" at overrides: expected a mapping'],
      [
        { name: "a/r", overrides: { x: 5 } },
        'Invalid skill "a/r" at overrides.x: expected a mapping',
      ],
    ];
    for (const [skill, message] of cases) {
      assert.throws(() => resolveTools(skill as Skill, {}), {
        name: "SkillDefinitionError",
        message,
      });
    }
    // an included skill is checked when it is entered
    assert.throws(
      () =>
        resolveTools({ name: "a/r", includes: ["a/b"] }, {
          "a/b": { name: "a/b", tool_refs: "x" } as never,
        }),
      {
        message: 'Invalid skill "a/b" at tool_refs: expected a list',
      },
    );
  });

  it("refuses a skill whose lists answer differently from one read to the next", () => {
    // A getter that declares "x" twice while the checks and the forward pass read it,
    // then "y" twice (as many names, of the right kind): the backward pass can never settle "x".
    let reads = 0;
    const skill = {
      name: "a/r",
      get tool_refs() {
        return ++reads <= 2 ? ["x", "x"] : ["y", "y"];
      },
    };
    assert.throws(() => resolveTools(skill, {}), {
      name: "TypeError",
      message: `A skill's declarations changed while it was resolved: "x" was declared, then not`,
    });
    // Read the same way each time, the same skill resolves.
    const steady = { name: "a/r", tool_refs: ["x", "x"] };
    assert.deepEqual([...resolveTools(steady, {}).keys()], ["x"]);
  });

  it("refuses, with a TypeError, getters and proxies whose lists grow, shrink or change kind", () => {
    // Arrange: each field answers its list when checked, then something else.
    const changed = (name: string) => ({
      name: "TypeError",
      message:
        `A skill's declarations changed while it was resolved: "${name}" answered differently from one read to the next`,
    });
    function twoFaced(skill: Record<string, unknown>, later: Record<string, unknown>): Skill {
      const out = {};
      for (const [field, value] of Object.entries(skill)) {
        let reads = 0;
        Object.defineProperty(out, field, {
          enumerable: true,
          get: () => (++reads === 1 || !(field in later) ? value : later[field]),
        });
      }
      return out as Skill;
    }
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      // a string, once iterated as characters
      [{ name: "a/r", tool_refs: ["x"] }, { tool_refs: "abc" }],
      // a list of nulls or numbers, once an untyped crash or a misread
      [{ name: "a/r", mcp_servers: [] }, { mcp_servers: [null] }],
      [{ name: "a/r", inline_tools: [] }, { inline_tools: [5, null] }],
      [{ name: "a/r", agent_skills: ["p"] }, { agent_skills: [{}] }],
      [{ name: "a/r", tool_refs: ["x"], overrides: {} }, { overrides: 5 }],
      [{ name: "a/r", tool_refs: ["x"], overrides: { x: {} } }, { overrides: { x: 5 } }],
      // an endless list, once an endless loop
      [{ name: "a/r", tool_refs: ["x"] }, { tool_refs: { length: Infinity } }],
      // a shorter list: a key the checks counted is never written
      [{ name: "a/r", tool_refs: ["x", "y"] }, { tool_refs: ["x"] }],
    ];
    for (const [skill, later] of cases) {
      // Act, Assert
      assert.throws(() => resolveTools(twoFaced(skill, later), {}), changed("a/r"));
    }
    // A list that grows to 2^53 valid names where the checks counted one is refused before
    // its items are read again (followed, it would never end).
    let itemReads = 0;
    const endless = new Proxy(["x"], {
      get: (target, key) => {
        if (key === "length") return Number.MAX_SAFE_INTEGER;
        if (!/^\d+$/.test(String(key))) return Reflect.get(target, key);
        itemReads++;
        return "x";
      },
    });
    assert.throws(
      () => resolveTools(twoFaced({ name: "a/r", tool_refs: ["x"] }, { tool_refs: endless }), {}),
      changed("a/r"),
    );
    assert.equal(itemReads, 0);
    // An include { name } that stops being a name after the checks.
    let reads = 0;
    const include = {
      get name() {
        return ++reads === 1 ? "a/x" : 42;
      },
    };
    assert.throws(
      () => resolveTools({ name: "a/s", includes: [include] } as never, {}),
      changed("a/s"),
    );
    // A lookup that edits a skill already entered: its includes were read once, and are followed as read.
    const root: Skill = { name: "a/r", includes: ["a/x"], tool_refs: ["t"] };
    const tools = resolveTools(root, (name) => {
      (root.includes as string[]).push("a/y");
      return name === "a/x" ? { name, tool_refs: ["x"] } : undefined;
    });
    assert.deepEqual([...tools.keys()], ["x", "t"]);
  });

  it("never hands out a placeholder: each entry is named by its key, or a changing skill is refused", () => {
    const swapped = ["x"]; // as long as some lists, and of the right kind: not always detectable
    fc.assert(
      fc.property(
        anyCatalog,
        fc.constantFrom<unknown>("abc", [null], [5], { length: 2 }, undefined, [], swapped),
        fc.integer({ min: 1, max: 3 }),
        (c, hostile, honest) => {
          // Every field answers its value `honest` times, then `hostile`.
          const faced = new Map<string, Skill>();
          for (const skill of c.skills) {
            const out = {};
            for (const [field, value] of Object.entries(skill)) {
              let reads = 0;
              Object.defineProperty(out, field, {
                enumerable: true,
                get: () => (++reads <= honest || field === "name" ? value : hostile),
              });
            }
            faced.set(skill.name, out as Skill);
          }
          const reference = outcome(() =>
            referenceResolve(c.root, lookupForms(c.skills).map as never)
          );
          let tools: ResolvedTools;
          try {
            tools = resolveTools(faced.get(c.root.name)!, (name) => faced.get(name));
          } catch (e) {
            if (e instanceof TypeError && e.message.startsWith("A skill's declarations changed")) {
              return;
            }
            // The includes are read once, so an include error is the reference's.
            assert.deepEqual(
              outcome(() => {
                throw e;
              }),
              reference,
            );
            return;
          }
          for (const [key, entry] of tools) {
            assert.equal(typeof key, "string");
            assert.equal(entry.name, key);
          }
          // A list that changed length or kind is refused: what resolves is what was declared.
          if (hostile !== swapped) assert.deepEqual(outcome(() => tools.values()), reference);
        },
      ),
      runs(300),
    );
  });
});
