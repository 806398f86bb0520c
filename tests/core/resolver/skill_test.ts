import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs } from "../../_fc.ts";
import { formatFieldPath, isSkillName, parseSkill, SkillDefinitionError } from "../../../mod.ts";

function rejects(value: unknown, message: string, field?: string): void {
  assert.throws(() => parseSkill(value), (e: unknown) => {
    assert.ok(e instanceof SkillDefinitionError);
    assert.equal(e.code, "INVALID_SKILL");
    assert.equal(e.message, message);
    if (field !== undefined) assert.equal(e.field, field);
    return true;
  });
}

describe("parseSkill", () => {
  it("accepts the whole data model and returns a deep-frozen copy", () => {
    const input = {
      name: "local/pdf-tools",
      description: "PDF helpers",
      safety: false,
      includes: ["local/file-ops", { name: "local/net" }],
      tool_refs: ["read_file", "builtin/write_file"],
      inline_tools: [{
        description: "Format a table",
        read_only: true,
        writes: false,
        checkpointable: false,
        side_effects: [],
      }],
      mcp_servers: [{ server: "github", tools: ["create_issue"] }, { server: "fs" }],
      agent_skills: ["skills/pdf"],
      overrides: { read_file: { timeout_s: 5, nested: { list: [1, { deep: true }] } } },
    };
    const skill = parseSkill(input);
    assert.deepEqual(skill, input);
    assert.notEqual(skill, input);
    const stack: unknown[] = [skill];
    while (stack.length > 0) {
      const v = stack.pop();
      if (typeof v !== "object" || v === null) continue;
      assert.ok(Object.isFrozen(v), JSON.stringify(v));
      stack.push(...Object.values(v));
    }
  });

  it("keeps __proto__ and constructor as ordinary override keys", () => {
    const input = JSON.parse(
      '{"name":"a/b","tool_refs":["__proto__"],"overrides":{"__proto__":{"x":1},"constructor":{"y":2}}}',
    );
    const skill = parseSkill(input);
    assert.deepEqual(Object.keys(skill.overrides!), ["__proto__", "constructor"]);
    assert.deepEqual(Object.getOwnPropertyDescriptor(skill.overrides, "__proto__")?.value, {
      x: 1,
    });
    assert.equal(Object.getPrototypeOf(skill.overrides), Object.prototype);
  });

  it("copies shared and cyclic override data without recursion", () => {
    const shared = { a: 1 };
    const cyclic: Record<string, unknown> = { shared };
    cyclic["self"] = cyclic;
    const skill = parseSkill({ name: "a/b", overrides: { t: cyclic } });
    const t = skill.overrides!["t"] as Record<string, unknown>;
    assert.equal(t["self"], t);
    assert.deepEqual(t["shared"], { a: 1 });
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { deep };
    assert.doesNotThrow(() => parseSkill({ name: "a/b", overrides: { t: deep } }));
  });

  it("rejects each kind of bad value with the skill, field and reason", () => {
    rejects(null, "Invalid skill: expected a mapping, got null", "");
    rejects([], "Invalid skill: expected a mapping, got a list");
    rejects({}, 'Invalid skill: missing required field "name"');
    rejects(
      { name: "Local/x" },
      'Invalid skill at name: "Local/x" is not a skill name (namespace/name, each part [a-z0-9][a-z0-9._-]*)',
    );
    rejects(
      { name: "local" },
      'Invalid skill at name: "local" is not a skill name (namespace/name, each part [a-z0-9][a-z0-9._-]*)',
    );
    rejects(
      { name: 7 },
      "Invalid skill at name: number 7 is not a skill name (namespace/name, each part [a-z0-9][a-z0-9._-]*)",
    );
    rejects(
      { name: "a/b", color: "red" },
      'Invalid skill "a/b" at color: unknown field "color" (known: name, description, safety, includes, tool_refs, inline_tools, mcp_servers, agent_skills, overrides)',
    );
    rejects(
      { name: "a/b", description: 1 },
      'Invalid skill "a/b" at description: expected a string, got number 1',
    );
    rejects(
      { name: "a/b", safety: "no" },
      'Invalid skill "a/b" at safety: expected true or false, got "no"',
    );
    rejects(
      { name: "a/b", includes: "c/d" },
      'Invalid skill "a/b" at includes: expected a list, got "c/d"',
    );
    rejects(
      { name: "a/b", includes: ["c/d", "C"] },
      'Invalid skill "a/b" at includes[1]: "C" is not a skill name (namespace/name, each part [a-z0-9][a-z0-9._-]*)',
      "includes[1]",
    );
    rejects(
      { name: "a/b", includes: [{ nam: "c/d" }] },
      'Invalid skill "a/b" at includes[0].nam: unknown field "nam" (known: name)',
    );
    rejects(
      { name: "a/b", includes: [{}] },
      'Invalid skill "a/b" at includes[0]: missing required field "name"',
    );
    rejects(
      { name: "a/b", includes: [{ name: 1 }] },
      'Invalid skill "a/b" at includes[0].name: number 1 is not a skill name (namespace/name, each part [a-z0-9][a-z0-9._-]*)',
    );
    rejects(
      { name: "a/b", includes: [true] },
      'Invalid skill "a/b" at includes[0]: expected a skill name or { name }, got boolean true',
    );
    rejects(
      { name: "a/b", tool_refs: ["ok", 3] },
      'Invalid skill "a/b" at tool_refs[1]: expected a string, got number 3',
    );
    rejects(
      { name: "a/b", tool_refs: [""] },
      'Invalid skill "a/b" at tool_refs[0]: expected a non-empty string',
    );
    rejects(
      { name: "a/b", tool_refs: ["a\u0000"] },
      'Invalid skill "a/b" at tool_refs[0]: "a\\u0000" contains a control character',
    );
    rejects(
      { name: "a/b", inline_tools: [{}, {}, { read_only: true, writes: true }] },
      'Invalid skill "a/b" at inline_tools[2]: read_only and writes are both true',
      "inline_tools[2]",
    );
    rejects(
      { name: "a/b", inline_tools: [{ writes: "yes" }] },
      'Invalid skill "a/b" at inline_tools[0].writes: expected true or false, got "yes"',
      "inline_tools[0].writes",
    );
    rejects(
      { name: "a/b", inline_tools: [{ name: "x" }] },
      'Invalid skill "a/b" at inline_tools[0].name: unknown field "name" (known: description, read_only, writes, checkpointable, side_effects)',
    );
    rejects(
      { name: "a/b", inline_tools: [{ side_effects: "network" }] },
      'Invalid skill "a/b" at inline_tools[0].side_effects: expected a list, got "network"',
    );
    rejects(
      { name: "a/b", mcp_servers: [{ tools: [] }] },
      'Invalid skill "a/b" at mcp_servers[0]: missing required field "server"',
    );
    rejects(
      { name: "a/b", mcp_servers: [{ server: "a/b" }] },
      'Invalid skill "a/b" at mcp_servers[0].server: "a/b" contains "/"',
    );
    rejects(
      { name: "a/b", mcp_servers: [{ server: "s", tools: "t" }] },
      'Invalid skill "a/b" at mcp_servers[0].tools: expected a list, got "t"',
    );
    rejects(
      { name: "a/b", mcp_servers: ["s"] },
      'Invalid skill "a/b" at mcp_servers[0]: expected a mapping, got "s"',
    );
    rejects(
      { name: "a/b", agent_skills: [null] },
      'Invalid skill "a/b" at agent_skills[0]: expected a string, got null',
    );
    rejects(
      { name: "a/b", overrides: { t: 5 } },
      'Invalid skill "a/b" at overrides.t: expected a mapping, got number 5',
    );
    rejects(
      { name: "a/b", overrides: { "a b": [] } },
      'Invalid skill "a/b" at overrides["a b"]: expected a mapping, got a list',
    );
    rejects(
      { name: "a/b", overrides: [] },
      'Invalid skill "a/b" at overrides: expected a mapping, got a list',
    );
  });

  it("names the file, line and column when given a locator", () => {
    assert.throws(
      () =>
        parseSkill({ name: "a/b", inline_tools: [{ writes: 1 }] }, {
          file: "skills/a.yaml",
          locate: (
            path,
          ) => (path.join(".") === "inline_tools.0.writes" ? { line: 7, column: 14 } : undefined),
        }),
      (e: unknown) => {
        assert.ok(e instanceof SkillDefinitionError);
        assert.equal(
          e.message,
          'Invalid skill "a/b" at inline_tools[0].writes: expected true or false, got number 1 (skills/a.yaml:7:14)',
        );
        assert.deepEqual(e.location, { file: "skills/a.yaml", line: 7, column: 14 });
        return true;
      },
    );
    assert.throws(() => parseSkill({ name: "a/b", x: 1 }, { file: "c.json" }), {
      message:
        'Invalid skill "a/b" at x: unknown field "x" (known: name, description, safety, includes, tool_refs, inline_tools, mcp_servers, agent_skills, overrides) (c.json)',
    });
  });

  it("accepts exactly the names of the rule namespace/name", () => {
    const part = /^[a-z0-9][a-z0-9._-]*$/;
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom("a", "Z", "0", ".", "_", "-", "/", " ", "é"),
          maxLength: 8,
        }),
        (name) => {
          const parts = name.split("/");
          const expected = parts.length === 2 && parts.every((p) => part.test(p));
          assert.equal(isSkillName(name), expected);
          assert.equal(
            (() => {
              try {
                parseSkill({ name });
                return true;
              } catch {
                return false;
              }
            })(),
            expected,
          );
        },
      ),
      runs(300),
    );
  });

  it("writes field paths as code", () => {
    assert.equal(formatFieldPath([]), "");
    assert.equal(formatFieldPath(["inline_tools", 2, "writes"]), "inline_tools[2].writes");
    assert.equal(formatFieldPath(["overrides", "read-file"]), "overrides.read-file");
    assert.equal(formatFieldPath(["overrides", "a b"]), 'overrides["a b"]');
    assert.equal(formatFieldPath(["overrides", "__proto__"]), "overrides.__proto__");
  });
});
