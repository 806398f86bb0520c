import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { discoverSkills } from "../../../lib/load.ts";
import { runInProcess } from "../../_cli.ts";
import { write } from "../../_tree.ts";
import { parse as parseYaml } from "yaml";
import { fc, runs, seed } from "../../_fc.ts";
import {
  activateSkill,
  type AllowedToolEntry,
  AllowedToolsError,
  compileToolPolicy,
  createBundle,
  decideToolCall,
  formatAllowedTools,
  handleSkillTool,
  matchesAllowedTool,
  parseAllowedTools,
  type PolicySkill,
  renderActivation,
  type ResolvedToolEntry,
  resolveTools,
  type Skill,
  SkillResolutionError,
  skillsAvailable,
  type ToolCallQuestion,
  toolRequirements,
  toolsForActiveSkills,
  type ToolVerdict,
} from "../../../mod.ts";
import {
  assertToolPolicyInvariants,
  catalogArbitrary,
  InvariantViolationError,
  referenceCovers,
  referenceResolve,
  referenceToolVerdict,
  type ToolPolicyProperty,
  type ToolPolicyUnderTest,
  toolQuestionArbitrary,
} from "../../../lib/testing.ts";

const FIXTURES = resolve(import.meta.dirname ?? ".", "../../fixtures", "allowed-tools");

const simple = (entries: readonly AllowedToolEntry[]) =>
  entries.map((e) => (e.pattern === null ? e.tool : [e.tool, e.pattern]));

describe("parseAllowedTools", () => {
  it("reads names, patterns, wildcards, commas, tabs and line breaks", () => {
    const entries = parseAllowedTools(
      "Read, Bash(git:*)\tmcp__issues__*,Bash(npm run test:*)\n  Read(./src/**)",
    );
    assert.deepEqual(simple(entries), [
      "Read",
      ["Bash", "git:*"],
      "mcp__issues__*",
      ["Bash", "npm run test:*"],
      ["Read", "./src/**"],
    ]);
    assert.deepEqual(entries.map((e) => e.column), [1, 7, 19, 34, 57]);
    assert.ok(Object.isFrozen(entries) && Object.isFrozen(entries[0]));
    assert.deepEqual(parseAllowedTools(""), []);
    assert.deepEqual(parseAllowedTools(" \n "), []);
  });

  it("reads a list value item by item, with the item in each entry", () => {
    const entries = parseAllowedTools(["Bash", "Write(a b)", "Read Grep"]);
    assert.deepEqual(entries.map((e) => [e.tool, e.pattern, e.item, e.column]), [
      ["Bash", null, 0, 1],
      ["Write", "a b", 1, 1],
      ["Read", null, 2, 1],
      ["Grep", null, 2, 6],
    ]);
  });

  it("keeps balanced parentheses, commas and spaces inside a pattern", () => {
    assert.deepEqual(simple(parseAllowedTools("Bash(echo $(date), ok) Read")), [
      ["Bash", "echo $(date), ok"],
      "Read",
    ]);
  });

  const cases: [string | readonly string[], string, number, number | null, string][] = [
    ["Read Bash(git:*", "UNCLOSED_PATTERN", 10, null, '"(" is never closed'],
    ["Bash((a)", "UNCLOSED_PATTERN", 5, null, '"(" is never closed'],
    ["Bash()", "EMPTY_PATTERN", 5, null, 'empty pattern "()" after "Bash"'],
    [" , Read", "EMPTY_ENTRY", 2, null, 'expected a tool name before ","'],
    ["Read,, Write", "EMPTY_ENTRY", 6, null, 'expected a tool name before ","'],
    ["Read, ", "EMPTY_ENTRY", 5, null, 'expected a tool name after ","'],
    [
      "Read!",
      "UNEXPECTED_CHARACTER",
      5,
      null,
      'unexpected "!" after "Read" (a tool name holds letters, digits and _ - . : / *)',
    ],
    [
      "Bash(a)(b)",
      "UNEXPECTED_CHARACTER",
      8,
      null,
      'unexpected "(" after "Bash(a)" (entries are separated by spaces or commas)',
    ],
    [
      "Read )",
      "UNEXPECTED_CHARACTER",
      6,
      null,
      'unexpected ")" (a tool name starts with a letter, a digit, "_" or "*")',
    ],
    [
      'Read "Write"',
      "UNEXPECTED_CHARACTER",
      6,
      null,
      'unexpected "\\"" (a tool name starts with a letter, a digit, "_" or "*")',
    ],
    [
      "Bash(é🙂) Wr!te",
      "UNEXPECTED_CHARACTER",
      12,
      null,
      'unexpected "!" after "Wr" (a tool name holds letters, digits and _ - . : / *)',
    ],
    [
      "Bash(a\u0007b)",
      "UNEXPECTED_CHARACTER",
      7,
      null,
      'unexpected control character "\\u0007" in the pattern of "Bash"',
    ],
    [["Read", "Bash("], "UNCLOSED_PATTERN", 5, 1, '"(" is never closed'],
    [["Read", 7 as unknown as string], "INVALID_VALUE", 1, 1, "expected a string, got number"],
  ];
  for (const [value, code, column, item, reason] of cases) {
    it(`refuses ${JSON.stringify(value)} with ${code} at column ${column}`, () => {
      const where = item === null ? "" : `item ${item + 1}, `;
      assert.throws(() => parseAllowedTools(value), (e: unknown) => {
        assert.ok(e instanceof AllowedToolsError);
        assert.equal(e.name, "AllowedToolsError");
        assert.equal(e.message, `Invalid allowed-tools at ${where}column ${column}: ${reason}`);
        assert.deepEqual([e.code, e.column, e.item], [code, column, item ?? 0]);
        return true;
      });
    });
  }

  it("refuses a value that is neither a string nor a list", () => {
    assert.throws(() => parseAllowedTools(3 as unknown as string), {
      name: "AllowedToolsError",
      message:
        "Invalid allowed-tools at column 1: expected a string or a list of strings, got number",
    });
  });

  const name = fc.string({
    unit: fc.constantFrom(..."aZ09_.:/*-".split("")),
    minLength: 1,
    maxLength: 6,
  }).filter((n) => /^[A-Za-z0-9_*]/.test(n));
  const patternText = fc.string({
    unit: fc.constantFrom(..."ab :*,é🙂$.-/".split(""), "(x)", "()x"),
    minLength: 1,
    maxLength: 8,
  }).filter((p) => p !== "");
  const entry = fc.record({ tool: name, pattern: fc.option(patternText, { nil: null }) });
  const separator = fc.constantFrom(" ", ", ", ",", "\t", "\n", " ,  ");

  it("round-trips: formatting then parsing gives the same entries", () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), fc.array(separator), (entries, seps) => {
        const written = entries.map((
          e,
        ) => (e.pattern === null ? e.tool : `${e.tool}(${e.pattern})`))
          .reduce(
            (
              acc,
              text,
              i,
            ) => (i === 0 ? text : `${acc}${seps[i % (seps.length || 1)] ?? " "}${text}`),
            "",
          );
        const parsed = parseAllowedTools(written);
        assert.deepEqual(
          parsed.map((e) => ({ tool: e.tool, pattern: e.pattern })),
          entries.map((e) => ({ tool: e.tool, pattern: e.pattern })),
        );
        const canonical = formatAllowedTools(parsed);
        assert.equal(formatAllowedTools(parseAllowedTools(canonical)), canonical);
        // Each entry's column points at its first character (columns count characters).
        const chars = [...written];
        for (const e of parsed) {
          assert.equal(chars.slice(e.column - 1).join("").startsWith(e.tool), true);
        }
      }),
      runs(300),
    );
  });

  it("points at the exact column of a character that breaks the grammar", () => {
    const bad = fc.constantFrom("!", '"', ";", "é", "🙂", "=", ")", "[");
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 5 }), fc.nat(), bad, fc.boolean(), (
        entries,
        at,
        char,
        glued,
      ) => {
        const texts = entries.map((e) => (e.pattern === null ? e.tool : `${e.tool}(${e.pattern})`));
        const k = at % texts.length;
        const before = texts.slice(0, k + 1).join(" ") + (glued ? "" : " ");
        const value = `${before}${char} ${texts.slice(k + 1).join(" ")}`;
        const column = [...before].length + 1;
        assert.throws(() => parseAllowedTools(value), (e: unknown) => {
          assert.ok(e instanceof AllowedToolsError, String(e));
          assert.equal(e.code, "UNEXPECTED_CHARACTER");
          assert.equal(e.column, column, e.message);
          return true;
        });
      }),
      runs(300),
    );
  });

  it("parses every allowed-tools value of the public collections in tests/fixtures", () => {
    const values = new Map<string, string>();
    const stack = [FIXTURES];
    while (stack.length > 0) {
      const dir = stack.pop()!;
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) {
          stack.push(path);
          continue;
        }
        const text = readFileSync(path, "utf8");
        const yaml = name.endsWith(".md") && text.startsWith("---\n")
          ? text.slice(4, text.indexOf("\n---", 3))
          : /```yaml\n([\s\S]*?)```/.exec(text)?.[1];
        if (yaml === undefined) continue;
        const doc = parseYaml(yaml) as Record<string, unknown>;
        if (!Object.hasOwn(doc, "allowed-tools")) continue;
        values.set(JSON.stringify(doc["allowed-tools"]), path.slice(FIXTURES.length + 1));
      }
    }
    assert.equal(values.size, 20);
    for (const [value, file] of values) {
      const entries = parseAllowedTools(JSON.parse(value));
      assert.ok(entries.length > 0, file);
    }
    const news = parseAllowedTools(
      "Task, WebFetch, Read, Write, Bash(mkdir*), Bash(date*), Bash(ls*), mcp__chrome-devtools__*",
    );
    assert.deepEqual(simple(news).slice(4), [
      ["Bash", "mkdir*"],
      ["Bash", "date*"],
      ["Bash", "ls*"],
      "mcp__chrome-devtools__*",
    ]);
  });
});

describe("matching a call", () => {
  const [git] = parseAllowedTools("Bash(git:*)");
  const call = (input: unknown) => ({ name: "Bash", input });

  it("matches the prefix form on a word boundary, never across shell control syntax", () => {
    for (const ok of ["git", "git status", "git  log", "git commit -m 'x y'", " git status"]) {
      assert.equal(matchesAllowedTool(git!, call({ command: ok })), true, ok);
    }
    for (
      const no of [
        "gitk",
        "git;id",
        "git status; rm -rf ~",
        "git log | sh",
        "git log && id",
        "git $(id)",
        "git `id`",
        "git log > /etc/passwd",
        "git log < x",
        "git status\nrm -rf ~",
        "git status\r",
        "git\u0000",
        "git ${x@P}",
        "git -c core.pager=id log",
        "GIT_PAGER=id git log",
      ]
    ) {
      assert.equal(matchesAllowedTool(git!, call(no)), false, JSON.stringify(no));
    }
    assert.equal(matchesAllowedTool(git!, call({ file_path: "git" })), false);
    assert.equal(matchesAllowedTool(git!, call(undefined)), false);
    assert.equal(matchesAllowedTool(git!, { name: "bash", input: "git" }), false);
  });

  it("agrees with the reference on generated entries and calls", () => {
    fc.assert(
      fc.property(toolQuestionArbitrary(), (g) => {
        for (const s of g.skills) {
          for (const e of s.entries ?? []) {
            assert.equal(
              matchesAllowedTool(e, g.question.call),
              referenceCovers(e, g.question.call),
            );
          }
        }
      }),
      runs(500),
    );
  });
});

const compiled: ToolPolicyUnderTest = (q) => compileToolPolicy(q).decide(q.call);

describe("decideToolCall and compileToolPolicy", () => {
  it(`agree with the reference on every generated question (seed ${seed})`, () => {
    fc.assert(
      fc.property(toolQuestionArbitrary(), (g) => {
        const want = referenceToolVerdict(g);
        assert.equal(decideToolCall(g.question).verdict, want);
        assert.equal(compiled(g.question).verdict, want);
      }),
      runs(2000),
    );
  });

  it("keep every law of assertToolPolicyInvariants", () => {
    assertToolPolicyInvariants(decideToolCall, { seed, ...runs(300) });
    assertToolPolicyInvariants(compiled, { seed: seed + 1, ...runs(300) });
  });

  it("one compiled policy answers a stream of calls as the reference (names seen before included)", () => {
    fc.assert(
      fc.property(
        toolQuestionArbitrary(),
        fc.array(toolQuestionArbitrary().map((g) => g.question.call), { maxLength: 20 }),
        (g, calls) => {
          const policy = compileToolPolicy(g.question);
          for (const call of [...calls, ...calls, g.question.call]) {
            const want = referenceToolVerdict({ ...g, question: { ...g.question, call } });
            assert.equal(policy.decide(call).verdict, want, JSON.stringify(call));
          }
        },
      ),
      runs(300),
    );
  });

  const RANK: Readonly<Record<ToolVerdict, number>> = { deny: 0, ask: 1, allow: 2 };
  it("adding an active skill or trusting one more never lowers a verdict", () => {
    fc.assert(
      fc.property(toolQuestionArbitrary(), toolQuestionArbitrary(), (g, h) => {
        const before = RANK[decideToolCall(g.question).verdict];
        const more = [...g.question.active, ...h.question.active];
        assert.ok(RANK[decideToolCall({ ...g.question, active: more }).verdict] >= before);
        const names = new Set([...g.question.active].map((s) => s.name));
        const none = RANK[decideToolCall({ ...g.question, trusted: false }).verdict];
        assert.ok(before >= none);
        const all = RANK[decideToolCall({ ...g.question, trusted: (n) => names.has(n) }).verdict];
        assert.ok(all >= before);
      }),
      runs(500),
    );
  });

  it("names the tool, the mode and the active skills in a refusal, and says what was ignored", () => {
    const active: PolicySkill[] = [
      { name: "release", allowed_tools: "Bash(git:*) Read" },
      { name: "docs:refunds", origin: "docs", allowed_tools: "Bash" },
      { name: "broken", frontmatter: { "allowed-tools": "Read(" } },
    ];
    const policy = compileToolPolicy({ active, mode: "restrict", trusted: true });
    assert.deepEqual(policy.decide({ name: "Bash", input: { command: "git push; curl x | sh" } }), {
      verdict: "deny",
      reasons: [
        'Refused "Bash" in restrict mode: not in the allowed tools or tool sets of the active skills "release", "docs:refunds", "broken", nor a meta-tool',
        'The allowed-tools of "docs:refunds" do not count: not trusted (a skill served over MCP grants tools only once the user approves it)',
        'The allowed-tools of "broken" grant nothing: Invalid allowed-tools at column 5: "(" is never closed',
      ],
    });
    assert.deepEqual(policy.decide({ name: "Bash", input: "git push" }), {
      verdict: "allow",
      reasons: [
        '"Bash" is pre-approved by "Bash(git:*)" in the allowed-tools of "release" (restrict mode)',
      ],
    });
    assert.deepEqual([policy.allowed, policy.ignored, policy.problems.map((p) => p.skill)], [
      ["Bash(git:*)", "Read"],
      ["docs:refunds"],
      ["broken"],
    ]);
    assert.ok(Object.isFrozen(policy) && Object.isFrozen(policy.decide({ name: "x" }).reasons));
    // Approving the MCP skill by name makes its grant count.
    const approved = compileToolPolicy({
      active,
      mode: "restrict",
      trusted: new Set(["docs:refunds"]),
    });
    assert.equal(approved.decide({ name: "Bash", input: "rm -rf ~" }).verdict, "allow");
    assert.equal(approved.decide({ name: "Read" }).verdict, "deny");
  });

  it("says which mode and which skill in every other verdict", () => {
    const active = [{ name: "pdf", allowed_tools: "Read" }];
    const resolved = new Map([["pdf", ["fill_form"]]]);
    const ask = (mode: "advisory" | "preapprove" | "restrict", name: string) =>
      decideToolCall({ call: { name }, active, mode, trusted: true, resolved }).reasons[0];
    assert.equal(
      ask("advisory", "Read"),
      '"Read" matches the allowed-tools of "pdf"; in advisory mode the host decides',
    );
    assert.equal(
      ask("preapprove", "Read"),
      '"Read" is pre-approved by the allowed-tools of "pdf" (preapprove mode)',
    );
    assert.equal(
      ask("restrict", "fill_form"),
      '"fill_form" is in the tool set of "pdf" but not pre-approved; the host decides (restrict mode)',
    );
    assert.equal(
      ask("preapprove", "Edit"),
      '"Edit" is not pre-approved by the allowed tools of the active skills "pdf"; the host decides (preapprove mode)',
    );
    assert.equal(
      ask("advisory", "skill"),
      '"skill" is a meta-tool; in advisory mode the host decides',
    );
    assert.equal(ask("restrict", "skill"), '"skill" is a meta-tool: never blocked (restrict mode)');
    assert.equal(
      decideToolCall({ call: { name: "x" }, active: [], mode: "restrict", trusted: false })
        .reasons[0],
      'Refused "x" in restrict mode: not in the allowed tools or tool sets of the active skills (none), nor a meta-tool',
    );
  });

  it("reads resolved tool sets from resolveTools, a function, or names; hostile names are plain keys", () => {
    const catalog = new Map<string, Skill>([
      ["local/a", { name: "local/a", tool_refs: ["__proto__", "read_file"], inline_tools: [{}] }],
    ]);
    const tools = resolveTools(catalog.get("local/a")!, catalog);
    for (
      const resolved of [
        new Map([["local/a", tools]]),
        (n: string) => (n === "local/a" ? tools : undefined),
      ]
    ) {
      const policy = compileToolPolicy({
        active: [{ name: "local/a" }],
        mode: "restrict",
        trusted: true,
        resolved,
      });
      assert.equal(policy.decide({ name: "__proto__" }).verdict, "ask");
      assert.equal(policy.decide({ name: "local/a/_anon_0" }).verdict, "ask");
      assert.equal(policy.decide({ name: "constructor" }).verdict, "deny");
      assert.equal(policy.decide({ name: "hasOwnProperty" }).verdict, "deny");
    }
  });

  it("allows a command that is exactly a prefix pattern's words, and nothing that only starts like them", () => {
    const policy = compileToolPolicy({
      active: [{ name: "a", allowed_tools: "Bash(npm run test:*) Bash(git log:*) Bash(ls:*)" }],
      mode: "restrict",
      trusted: true,
    });
    const verdict = (command: string) => policy.decide({ name: "Bash", input: command }).verdict;
    for (const exact of ["npm run test", "git log", "ls", "npm  run test", "'npm' run test"]) {
      assert.equal(verdict(exact), "allow", exact);
    }
    for (
      const other of [
        "npm run tests",
        "npm run tes",
        "npm run",
        "git logs",
        "lsof",
        "npm run test;",
      ]
    ) {
      assert.equal(verdict(other), "deny", other);
    }
  });

  it("decides correctly past the memo of names, and a long command in one pass", () => {
    const policy = compileToolPolicy({
      active: [{ name: "a", allowed_tools: "t1* Bash(git:*)" }],
      mode: "restrict",
      trusted: true,
    });
    for (let i = 0; i < 6000; i++) {
      assert.equal(
        policy.decide({ name: `t${i}` }).verdict,
        String(i).startsWith("1") ? "allow" : "deny",
      );
    }
    const long = `git log ${"a".repeat(1 << 20)}`;
    assert.equal(policy.decide({ name: "Bash", input: long }).verdict, "allow");
    assert.equal(policy.decide({ name: "Bash", input: `${long};` }).verdict, "deny");
  });

  it("meta_tools replaces the default set", () => {
    const q = { call: { name: "skill" }, active: [], mode: "restrict" as const, trusted: true };
    assert.equal(decideToolCall({ ...q, meta_tools: ["read_skill_file"] }).verdict, "deny");
    assert.equal(
      decideToolCall({ ...q, call: { name: "read_skill_file" }, meta_tools: ["read_skill_file"] })
        .verdict,
      "allow",
    );
  });

  it("refuses misuse with built-in errors", () => {
    const q = { call: { name: "x" }, active: [], mode: "restrict" as const, trusted: true };
    assert.throws(() => decideToolCall({ ...q, mode: "strict" as "restrict" }), {
      name: "RangeError",
      message: 'mode must be one of advisory, preapprove, restrict, got "strict"',
    });
    assert.throws(() => decideToolCall({ ...q, trusted: undefined as unknown as boolean }), {
      name: "TypeError",
      message: "trusted must be a boolean, a set of skill names or a function, got undefined",
    });
    assert.throws(() => decideToolCall({ ...q, call: { name: 3 as unknown as string } }), {
      name: "TypeError",
      message: "call.name must be a string",
    });
    assert.throws(() => decideToolCall({ ...q, active: [{}] as unknown as PolicySkill[] }), {
      name: "TypeError",
      message: "Each active skill must be an object with a string name",
    });
    assert.throws(() => decideToolCall({ ...q, active: 5 as unknown as PolicySkill[] }), {
      name: "TypeError",
      message: "active must be an iterable of skills",
    });
    assert.throws(
      () =>
        decideToolCall({
          ...q,
          active: [{ name: "a" }],
          resolved: new Map([["a", [1 as unknown as string]]]),
        }),
      { name: "TypeError", message: 'The resolved tools of "a" must be names' },
    );
    assert.throws(() => decideToolCall({ ...q, resolved: 3 as unknown as Map<string, string[]> }), {
      name: "TypeError",
      message: "resolved must be a map or a function of skill names",
    });
    assert.throws(() => decideToolCall({ ...q, meta_tools: [1 as unknown as string] }), {
      name: "TypeError",
      message: "meta_tools must be names",
    });
    assert.throws(() => compileToolPolicy(null as unknown as ToolCallQuestion), {
      name: "TypeError",
      message: "compileToolPolicy needs { active, mode, trusted }",
    });
  });
});

/** Which property names fail for a policy. */
function failing(decide: ToolPolicyUnderTest): ToolPolicyProperty[] {
  try {
    // A mutant-kill test keeps its runs under FC_RUNS: fewer might miss the mutant.
    assertToolPolicyInvariants(decide, { seed, numRuns: 600 });
  } catch (e) {
    assert.ok(e instanceof InvariantViolationError, String(e));
    return e.failures.map((f) => f.property as ToolPolicyProperty);
  }
  return [];
}

describe("assertToolPolicyInvariants catches each broken policy", () => {
  const broken: [string, ToolPolicyProperty, ToolPolicyUnderTest][] = [
    [
      "advisory that denies like restrict",
      "advisory never denies",
      (q) => decideToolCall(q.mode === "advisory" ? { ...q, mode: "restrict" } : q),
    ],
    [
      "preapprove that denies like restrict",
      "preapprove never denies",
      (q) => decideToolCall(q.mode === "preapprove" ? { ...q, mode: "restrict" } : q),
    ],
    [
      "restrict that asks instead of refusing",
      "restrict refuses every call outside the active sets and meta-tools",
      (q) => decideToolCall(q.mode === "restrict" ? { ...q, mode: "preapprove" } : q),
    ],
    [
      "a prefix that matches across a shell operator",
      "restrict refuses every call outside the active sets and meta-tools",
      (q) => {
        const input = q.call.input;
        const cut = (s: string) => s.split(/[;&|`<>\n\r]|\$\(/)[0]!;
        const stripped = typeof input === "string"
          ? cut(input)
          : typeof input === "object" && input !== null &&
              typeof (input as { command?: unknown }).command === "string"
          ? { command: cut((input as { command: string }).command) }
          : input;
        return decideToolCall({ ...q, call: { ...q.call, input: stripped } });
      },
    ],
    [
      "preapprove that ignores allowed-tools",
      "a call the trusted allowed-tools cover is allowed (preapprove, restrict)",
      (q) => decideToolCall({ ...q, trusted: false }),
    ],
    [
      "a policy that honours an MCP skill's allowed-tools",
      "an untrusted skill's allowed-tools never change a verdict",
      (q) => decideToolCall({ ...q, trusted: () => true }),
    ],
    [
      "a policy without meta-tools",
      "meta-tools are never denied",
      (q) => decideToolCall({ ...q, meta_tools: [] }),
    ],
    [
      "a policy where only the last active skill counts",
      "the verdict does not depend on the order of the active skills",
      (q) => decideToolCall({ ...q, active: [...q.active].slice(-1) }),
    ],
    [
      "a policy that refuses everything once three skills are active",
      "adding an active skill never turns an allow or ask into a deny",
      (q) => ([...q.active].length >= 3 ? { verdict: "deny" } : decideToolCall(q)),
    ],
    [
      "a policy that answers at random",
      "is deterministic and leaves its input alone",
      () => ({ verdict: (["allow", "ask"] as const)[Math.floor(Math.random() * 2)]! }),
    ],
  ];
  for (const [what, law, decide] of broken) {
    it(`${what}: "${law}"`, () => {
      assert.ok(failing(decide).includes(law), `expected "${law}" to fail`);
    });
  }

  it("a policy answering something that is not a verdict fails every law", () => {
    assert.equal(failing(() => ({ verdict: "maybe" as ToolVerdict })).length, 9);
  });

  it("refuses a policy that is not a function", () => {
    assert.throws(() => assertToolPolicyInvariants(3 as unknown as ToolPolicyUnderTest), {
      name: "TypeError",
      message: "decide must be a function",
    });
  });
});

describe("toolsForActiveSkills", () => {
  it("is the union of the resolved sets: first position, last metadata, in activation order", () => {
    fc.assert(
      fc.property(
        catalogArbitrary({ cycles: false, unknown: false }),
        fc.array(fc.nat(), { maxLength: 4 }),
        (c, picks) => {
          const lookup = new Map(c.skills.map((s) => [s.name, s]));
          const active = picks.map((p) => c.skills[p % c.skills.length]!.name);
          const want = new Map<string, ResolvedToolEntry>();
          for (const name of active) {
            for (const e of referenceResolve(lookup.get(name)!, (n) => lookup.get(n))) {
              want.set(e.name, e);
            }
          }
          const got = toolsForActiveSkills(active, lookup);
          assert.deepEqual([...got.keys()], [...want.keys()]);
          assert.deepEqual(
            [...got.values()].map((e) => e.source_skill),
            [...want.values()].map((e) => e.source_skill),
          );
          // The set of names does not depend on the order of activation.
          const reversed = toolsForActiveSkills([...active].reverse(), lookup);
          assert.deepEqual(new Set(reversed.keys()), new Set(got.keys()));
        },
      ),
      runs(200),
    );
  });

  it("takes skills or names, and names an unknown active skill", () => {
    const a: Skill = { name: "local/a", tool_refs: ["x"] };
    assert.deepEqual([...toolsForActiveSkills([a], {}).keys()], ["x"]);
    assert.deepEqual([
      ...toolsForActiveSkills(["local/a"], (n) => (n === "local/a" ? a : undefined)).keys(),
    ], ["x"]);
    assert.throws(() => toolsForActiveSkills(["local/b"], { "local/a": a }), (e: unknown) => {
      assert.ok(e instanceof SkillResolutionError);
      assert.equal(e.code, "UNKNOWN_SKILL");
      assert.equal(e.message, 'Unknown skill "local/b" among the active skills');
      return true;
    });
    assert.throws(() => toolsForActiveSkills([3 as unknown as string], {}), {
      name: "TypeError",
      message: "Each active skill must be a skill or a name",
    });
  });
});

describe("skillsAvailable", () => {
  const skill = (name: string, metadata?: Record<string, string>) => ({
    name,
    frontmatter: metadata === undefined ? {} : { metadata },
  });

  it("hides the skills whose required tools are missing, and says which", () => {
    const skills = [
      skill("plain"),
      skill("release", { "requires-tools": "Bash(git:*), Read Write" }),
      skill("search", { "requires-any-tools": "WebSearch mcp__brave__*" }),
      skill("web", { "requires-any-tools": "WebSearch WebFetch" }),
      skill("bad", { "requires-tools": "Bash(" }),
    ];
    const { available, hidden } = skillsAvailable(skills, ["Read", "mcp__brave__search"]);
    assert.deepEqual(available.map((s) => s.name), ["plain", "search"]);
    assert.deepEqual(hidden.map(({ skill: _s, ...h }) => h), [
      { name: "release", missing: ["Bash", "Write"], missing_any: [] },
      { name: "web", missing: [], missing_any: ["WebSearch", "WebFetch"] },
      {
        name: "bad",
        missing: [],
        missing_any: [],
        problem: 'metadata.requires-tools: Invalid allowed-tools at column 5: "(" is never closed',
      },
    ]);
    assert.equal(hidden[0]!.skill, skills[1]);
    assert.deepEqual(toolRequirements(undefined), { all: [], any: [] });
    assert.throws(() => skillsAvailable([], [3 as unknown as string]), {
      name: "TypeError",
      message: "availableTools must be tool names",
    });
  });

  it("shows a skill exactly when every required and one of the any-tools are available", () => {
    const pool = ["Read", "Bash", "Grep", "x__*"];
    fc.assert(
      fc.property(
        fc.subarray(pool),
        fc.subarray(pool),
        fc.subarray(["Read", "Bash", "Grep", "x__a"]),
        (all, any, tools) => {
          const metadata: Record<string, string> = {};
          if (all.length > 0) metadata["requires-tools"] = all.join(" ");
          if (any.length > 0) metadata["requires-any-tools"] = any.join(", ");
          const has = (
            t: string,
          ) => (t.endsWith("*")
            ? tools.some((x) => x.startsWith(t.slice(0, -1)))
            : tools.includes(t));
          const want = all.every(has) && (any.length === 0 || any.some(has));
          const { available } = skillsAvailable([skill("s", metadata)], tools);
          assert.equal(available.length === 1, want);
        },
      ),
      runs(200),
    );
  });
});

describe("an activation lists the skill's allowed tools and the policy mode", () => {
  const bundle = (allowed?: string, origin?: string) => {
    const b = createBundle({
      frontmatter: {
        name: "release",
        description: "Cut a release",
        ...(allowed === undefined ? {} : { "allowed-tools": allowed }),
      },
      instructions: "Tag it.",
      files: {},
    });
    return origin === undefined ? b : { ...b, origin };
  };

  it("says what runs without asking, per mode, and what is refused in restrict", () => {
    const b = bundle("Bash(git:*), Read");
    const restrict = activateSkill(b, { tool_policy: "restrict" });
    assert.deepEqual(restrict.tools, {
      mode: "restrict",
      allowed: ["Bash(git:*)", "Read"],
      counted: true,
    });
    const text = renderActivation(restrict);
    assert.ok(
      text.includes(
        "Tool policy: restrict. These run without asking while this skill is active: Bash(git:*) Read.\n" +
          "Tools outside the active skills' allowed and resolved tools are refused; the skill tool always works.\n",
      ),
      text,
    );
    assert.ok(
      renderActivation(activateSkill(b, { tool_policy: "advisory" })).includes(
        "Tool policy: advisory. This skill expects to use: Bash(git:*) Read. The host's usual permissions apply.",
      ),
    );
    assert.ok(
      renderActivation(activateSkill(b, { tool_policy: "preapprove" })).includes(
        "Tool policy: preapprove. These run without asking while this skill is active: Bash(git:*) Read. Other tools need confirmation.",
      ),
    );
    assert.equal(activateSkill(b).tools, undefined);
    assert.ok(!renderActivation(activateSkill(b)).includes("Tool policy"));
  });

  it("says when the allowed tools do not count: an MCP skill not approved, a broken value, none", () => {
    const mcp = activateSkill(bundle("Bash", "docs"), { tool_policy: "restrict" });
    assert.deepEqual(mcp.tools, {
      mode: "restrict",
      allowed: [],
      counted: false,
      note: "not trusted: a skill served over MCP grants tools only once the user approves it",
    });
    assert.equal(
      activateSkill(bundle("Bash", "docs"), { tool_policy: "restrict", trusted: true }).tools
        ?.counted,
      true,
    );
    assert.equal(
      activateSkill(bundle("Bash"), { tool_policy: "restrict", trusted: false }).tools?.counted,
      false,
    );
    const broken = activateSkill(bundle("Bash("), { tool_policy: "preapprove" });
    assert.equal(broken.tools?.note, 'Invalid allowed-tools at column 5: "(" is never closed');
    assert.ok(
      renderActivation(broken).includes(
        'Tool policy: preapprove. This skill\'s allowed-tools do not count (Invalid allowed-tools at column 5: "(" is never closed).',
      ),
    );
    assert.ok(
      renderActivation(activateSkill(bundle(), { tool_policy: "advisory" })).includes(
        "Tool policy: advisory. This skill declares no allowed-tools.",
      ),
    );
    assert.throws(() => activateSkill(bundle(), { tool_policy: "strict" as "restrict" }), {
      name: "RangeError",
      message: 'tool_policy must be one of advisory, preapprove, restrict, got "strict"',
    });
  });

  it("the skill tool passes the mode and the trust on", () => {
    const skills = [bundle("Read"), { ...bundle("Bash", "docs"), name: "docs:release" }];
    const text = (skill: string, trusted?: Set<string>) =>
      handleSkillTool({ skill }, {
        skills,
        tool_policy: "restrict",
        ...(trusted === undefined ? {} : { trusted }),
      }).content;
    assert.ok(
      text("release").includes("These run without asking while this skill is active: Read."),
    );
    assert.ok(text("docs:release").includes("do not count (not trusted"));
    assert.ok(
      text("docs:release", new Set(["docs:release"])).includes(
        "without asking while this skill is active: Bash.",
      ),
    );
    assert.ok(!handleSkillTool({ skill: "release" }, { skills }).content.includes("Tool policy"));
  });
});

describe("the discovery result and to-prompt --tools apply the requirements", () => {
  const tree = () => {
    const root = mkdtempSync(join(tmpdir(), "skillset-tools-"));
    const skill = (name: string, extra: string) =>
      write(
        join(root, name, "SKILL.md"),
        `---\nname: ${name}\ndescription: Skill ${name}\n${extra}---\nBody\n`,
      );
    skill("pdf", "");
    skill("release", "metadata:\n  requires-tools: Bash Read\n");
    skill("search", 'metadata:\n  requires-any-tools: "WebSearch, mcp__brave__*"\n');
    return root;
  };

  it("discoverSkills with availableTools leaves out what the runtime cannot serve", () => {
    const root = tree();
    try {
      const all = discoverSkills([{ scope: "project", path: root }]);
      assert.deepEqual(all.skills.map((s) => s.name), ["pdf", "release", "search"]);
      assert.deepEqual(all.unavailable, []);
      const some = discoverSkills([{ scope: "project", path: root }], {
        availableTools: ["Read", "mcp__brave__web"],
      });
      assert.deepEqual(some.skills.map((s) => s.name), ["pdf", "search"]);
      assert.deepEqual(some.unavailable.map((h) => [h.name, h.missing]), [["release", ["Bash"]]]);
      assert.equal(some.bundle("release"), undefined);
      assert.equal(some.bundle("search")?.name, "search");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("to-prompt --tools lists only the servable skills and warns about the others", () => {
    const root = tree();
    try {
      const text = runInProcess(["to-prompt", root, "--tools", "Read,Grep", "--verbose"]);
      assert.equal(text.code, 0);
      assert.ok(
        text.stdout.includes("<name>pdf</name>") && !text.stdout.includes("<name>release</name>"),
      );
      assert.equal(
        text.stderr,
        `${
          join(root, "release", "SKILL.md")
        }: warning: left out, the runtime lacks its tools: needs Bash\n` +
          `${
            join(root, "search", "SKILL.md")
          }: warning: left out, the runtime lacks its tools: needs one of WebSearch, mcp__brave__*\n` +
          "skillset: 2 findings: 2 warnings (2 MISSING_TOOLS)\n",
      );
      const json = JSON.parse(
        runInProcess(["to-prompt", root, "--tools", "Bash Read", "--json"]).stdout,
      );
      assert.deepEqual(json.skills.map((s: { name: string }) => s.name), ["pdf", "release"]);
      assert.deepEqual(json.unavailable, [
        { name: "search", missing: [], missing_any: ["WebSearch", "mcp__brave__*"] },
      ]);
      const plain = JSON.parse(runInProcess(["to-prompt", root, "--json"]).stdout);
      assert.equal(plain.unavailable, undefined);
      assert.equal(plain.skills.length, 3);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
