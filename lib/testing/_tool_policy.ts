/**
 * The tool policy's laws, for any policy function a host writes: generated
 * active sets (trusted and untrusted skills, broken `allowed-tools`, resolved
 * tool sets, meta-tools), calls (hostile names, shell commands chained with
 * `;`, `|` or `$(`, expansions, code-running options) and modes; a plain reference of what `allowed-tools`
 * covers; the laws as named fast-check properties and as one assertion.
 *
 * Folder `lib/testing/` — the testing kit behind `lib/testing.ts`: arbitraries, references, laws.
 *
 * @module
 */
import fc from "fast-check";
import assert from "node:assert/strict";
import { deepFreeze } from "../core/_deep_freeze.ts";
import { unapprovedOption } from "../core/policy/options.ts";
import { referenceShellWords } from "./_shell_reference.ts";
import type {
  PolicySkill,
  ToolCall,
  ToolCallQuestion,
  ToolPolicyMode,
  ToolTrust,
  ToolVerdict,
} from "../core/policy/tool_policy.ts";
import { check, type InvariantOptions, type InvariantProperty, law } from "./_invariants.ts";

/**
 * A fast-check arbitrary (`fc.Arbitrary` of the `fast-check` peer dependency).
 *
 * @internal
 */
type Arbitrary<T> = fc.Arbitrary<T>;

/** A policy under test: a question in (as `decideToolCall` takes it), a verdict out. */
export type ToolPolicyUnderTest = (
  question: ToolCallQuestion,
) => { readonly verdict: ToolVerdict };

/** The names of the properties {@linkcode toolPolicyProperties} returns. */
export type ToolPolicyProperty =
  | "advisory never denies"
  | "preapprove never denies"
  | "restrict refuses every call outside the active sets and meta-tools"
  | "a call the trusted allowed-tools cover is allowed (preapprove, restrict)"
  | "adding an active skill never turns an allow or ask into a deny"
  | "an untrusted skill's allowed-tools never change a verdict"
  | "meta-tools are never denied"
  | "the verdict does not depend on the order of the active skills"
  | "is deterministic and leaves its input alone";

/** One `allowed-tools` entry as generated: a tool name (with `*`) and a pattern or `null`. */
export interface GeneratedEntry {
  /** The tool name, possibly with `*`. */
  readonly tool: string;
  /** The pattern, or `null`. */
  readonly pattern: string | null;
}

/** A generated active skill: what the policy sees, and what its value means. */
export interface GeneratedPolicySkill {
  /** The skill as handed to the policy. */
  readonly skill: PolicySkill;
  /** The entries its `allowed-tools` holds; `null` when the value is broken (it grants nothing). */
  readonly entries: readonly GeneratedEntry[] | null;
}

/** A generated question, with the meaning of every skill's `allowed-tools`. */
export interface GeneratedToolQuestion {
  /** The question as handed to the policy. */
  readonly question: ToolCallQuestion;
  /** The active skills, as generated, in the question's order. */
  readonly skills: readonly GeneratedPolicySkill[];
}

const TOOLS = [
  "Read",
  "Write",
  "Bash",
  "Grep",
  "WebFetch",
  "mcp__gh__issue",
  "mcp__gh__pr",
  "mcp:srv/t",
  "local/a/_anon_0",
  "skill",
  "__proto__",
  "constructor",
] as const;
const WILD_TOOLS = ["mcp__gh__*", "*", "B*h", "mcp:srv/*", "Re*d"] as const;
const PATTERNS = [
  "git:*",
  "npm run test:*",
  "mkdir*",
  "ls -la",
  "*",
  "git status",
  "echo *:*",
  "a*b*c",
  "./src/**",
] as const;
const SUBJECTS = [
  "git",
  "git status",
  "git  'status'",
  '"git" status',
  "\tgit status ",
  "gitk",
  "git --version ${x:=\\$\\(id\\)}${x@P}",
  "git --version ${y:=a[\\$\\(id\\)]}${HOME:y}",
  "git -c core.pager=id log",
  "git switch -c topic",
  "GIT_PAGER=id git log",
  "time git status",
  "git status #",
  "git ~/x",
  "git *",
  "git {a,b}",
  "npm run 'test' --watch",
  "printf -v x y",
  "printf %s x",
  "git status; rm -rf ~",
  "git log | sh",
  "git push && curl x",
  "git $(id)",
  "git `id`",
  "git log > out",
  "git\nrm -rf ~",
  "npm run test",
  "npm run test --watch",
  "npm run testing",
  "mkdir -p x",
  "mkdirx",
  "ls -la",
  "ls -lah",
  "echo a:b",
  "aXbYc",
  "./src/a.ts",
  "",
] as const;
const SKILL_NAMES = ["a", "b", "c", "docs:x", "__proto__"] as const;
const NAME_CHARS = "abBR*_-:/.".split("");

const toolName: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...TOOLS) },
  {
    weight: 1,
    arbitrary: fc.string({ unit: fc.constantFrom(...NAME_CHARS), minLength: 1, maxLength: 4 }),
  },
);

const entryArbitrary: fc.Arbitrary<GeneratedEntry> = fc.record({
  tool: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...TOOLS) },
    { weight: 1, arbitrary: fc.constantFrom(...WILD_TOOLS) },
  ),
  pattern: fc.option(fc.constantFrom(...PATTERNS), { nil: null, freq: 2 }),
});

/** Render entries in one of the styles the public collections use. */
const rendered = (entries: readonly GeneratedEntry[]): fc.Arbitrary<string | readonly string[]> => {
  const text = entries.map((e) => (e.pattern === null ? e.tool : `${e.tool}(${e.pattern})`));
  return fc.oneof(
    fc.constantFrom(" ", ", ", ",", "\t", "\n  ").map((sep) => text.join(sep)),
    fc.constant(text as readonly string[]),
  );
};

const BROKEN = ["Read!", "Bash(git:*", "Read,,Write", "Bash()", ",,", 'Read "Write"'];

const skillArbitrary: fc.Arbitrary<GeneratedPolicySkill> = fc.record({
  name: fc.constantFrom(...SKILL_NAMES),
  origin: fc.option(fc.constant("docs"), { nil: undefined, freq: 3 }),
  entries: fc.option(fc.array(entryArbitrary, { maxLength: 4 }), { nil: undefined, freq: 6 }),
  broken: fc.option(fc.constantFrom(...BROKEN), { nil: undefined, freq: 6 }),
  bundle: fc.boolean(),
}).chain(({ name, origin, entries, broken, bundle }) => {
  const origins = origin === undefined ? {} : { origin };
  if (entries === undefined) {
    return fc.constant({ skill: { name, ...origins }, entries: [] as readonly GeneratedEntry[] });
  }
  return rendered(entries).map((value): GeneratedPolicySkill => {
    const v = broken === undefined
      ? value
      : typeof value === "string"
      ? `${value} ${broken}`
      : [...value, broken];
    const skill: PolicySkill = bundle
      ? { name, ...origins, frontmatter: { "allowed-tools": v } }
      : { name, ...origins, allowed_tools: v };
    return { skill, entries: broken === undefined ? entries : null };
  });
});

const trustArbitrary: fc.Arbitrary<ToolTrust> = fc.oneof(
  fc.boolean(),
  fc.uniqueArray(fc.constantFrom(...SKILL_NAMES)).map((names) => new Set(names)),
  fc.uniqueArray(fc.constantFrom(...SKILL_NAMES)).map((names) => {
    const approved = new Set<string>(names);
    return (skill: string) => approved.has(skill);
  }),
);

const subjectArbitrary: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...SUBJECTS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);

const callArbitrary: fc.Arbitrary<ToolCall> = fc.tuple(
  toolName,
  fc.oneof(
    fc.constant(undefined),
    subjectArbitrary,
    subjectArbitrary.map((command) => ({ command })),
    subjectArbitrary.map((file_path) => ({ file_path })),
    fc.constant(42),
    fc.constant(null),
  ),
).map(([name, input]) => (input === undefined ? { name } : { name, input }));

/** What follows a command aimed at a pattern: nothing, an argument, or a chained command. */
const TAILS = [
  "",
  "k",
  "-x",
  " status",
  " x y",
  " 'x y'",
  ' "a b"',
  " -c a=b log",
  " ${HOME}",
  " $'x'",
  " ~",
  " *",
  "; id",
  " | sh",
  " && rm -rf ~",
  " $(id)",
  " `id`",
  "\nid",
  " > f",
];

/** A call aimed at one of the generated entries: its name, and a command built from its pattern. */
function aimedCall(
  skills: readonly GeneratedPolicySkill[],
  fallback: ToolCall,
  [pick, tail, asObject]: [number, string, boolean],
): ToolCall {
  const entries = skills.flatMap((s) => s.entries ?? []);
  if (entries.length === 0) return fallback;
  const entry = entries[pick % entries.length]!;
  const name = entry.tool.replaceAll("*", "x");
  if (entry.pattern === null) return { name };
  const command = entry.pattern.replace(/:\*$/, "").replaceAll("*", "") + tail;
  return { name, input: asObject ? { command } : command };
}

const modeArbitrary = fc.constantFrom<ToolPolicyMode>("advisory", "preapprove", "restrict");

/**
 * Generated questions for a tool policy: up to five active skills (some from
 * an MCP origin, some with a broken `allowed-tools`, some as bundles), their
 * resolved tool sets, who is trusted, the meta-tools (default or named), the
 * mode, and a call whose name and input often hit an entry, a wildcard or a
 * shell command chained past a prefix.
 *
 * @param options `mode` fixes the mode.
 * @returns The arbitrary.
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { toolQuestionArbitrary } from "../testing.ts";
 * import { decideToolCall } from "../../mod.ts";
 *
 * fc.assert(fc.property(toolQuestionArbitrary({ mode: "advisory" }), ({ question }) =>
 *   decideToolCall(question).verdict !== "deny"
 * ), { numRuns: 20 });
 * ```
 */
export function toolQuestionArbitrary(
  options: { readonly mode?: ToolPolicyMode } = {},
): Arbitrary<GeneratedToolQuestion> {
  return fc.record({
    skills: fc.array(skillArbitrary, { maxLength: 5 }),
    resolved: fc.array(
      fc.tuple(fc.constantFrom(...SKILL_NAMES), fc.uniqueArray(toolName, { maxLength: 4 })),
      { maxLength: 4 },
    ),
    trusted: trustArbitrary,
    meta: fc.option(fc.uniqueArray(toolName, { maxLength: 3 }), { nil: undefined }),
    mode: options.mode === undefined ? modeArbitrary : fc.constant(options.mode),
    call: callArbitrary,
    aim: fc.option(fc.tuple(fc.nat(), fc.constantFrom(...TAILS), fc.boolean()), { nil: undefined }),
  }).map(({ skills, resolved, trusted, meta, mode, call, aim }) => ({
    question: {
      call: aim === undefined ? call : aimedCall(skills, call, aim),
      active: skills.map((s) => s.skill),
      mode,
      trusted,
      resolved: new Map(resolved),
      ...(meta === undefined ? {} : { meta_tools: meta }),
    },
    skills,
  }));
}

function globRegExp(glob: string): RegExp {
  const escaped = glob.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"));
  return new RegExp(`^${escaped.join("[\\s\\S]*")}$`);
}

/**
 * What the plain reading of `allowed-tools` says about one entry and one call:
 * the name matches the entry's glob (`*` is any run), and an entry's pattern
 * matches the call's subject — a string input, or an object's `command`
 * string — when the subject is one simple command of literal words
 * ({@linkcode referenceShellWords}) whose words, joined by NUL, match the
 * pattern's words so joined (a trailing `:*` also matches the head's words
 * followed by more), and after the pattern's literal words it uses only
 * operands and the options the pattern names or its program's table approves.
 *
 * @param entry The entry.
 * @param call The call.
 * @returns Whether the entry covers the call.
 * @example
 * ```ts
 * import { referenceCovers } from "../testing.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * assert.equal(referenceCovers({ tool: "Bash", pattern: "git:*" }, { name: "Bash", input: "git log" }), true);
 * assert.equal(referenceCovers({ tool: "Bash", pattern: "git:*" }, { name: "Bash", input: "git log; id" }), false);
 * assert.equal(referenceCovers({ tool: "Bash", pattern: "git:*" }, { name: "Bash", input: "git -c a=b log" }), false);
 * ```
 */
export function referenceCovers(entry: GeneratedEntry, call: ToolCall): boolean {
  if (!globRegExp(entry.tool).test(call.name)) return false;
  if (entry.pattern === null) return true;
  const input = call.input;
  const subject = typeof input === "string" ? input : typeof input === "object" && input !== null &&
      typeof (input as { command?: unknown }).command === "string"
    ? (input as { command: string }).command
    : undefined;
  if (subject === undefined) return false;
  const words = referenceShellWords(subject);
  if (words === undefined) return false;
  const p = entry.pattern;
  const prefix = p.endsWith(":*");
  const head = referenceShellWords(prefix ? p.slice(0, -2) : p, true);
  if (head === undefined) return false;
  const joined = words.join("\u0000");
  const glob = head.join("\u0000");
  const hit = globRegExp(glob).test(joined) ||
    (prefix && globRegExp(`${glob}\u0000*`).test(joined));
  if (!hit) return false;
  // After the pattern's literal words (up to its first `*`), the options rule is the policy's own.
  const starred = head.findIndex((w) => w.includes("*"));
  const literal = head.filter((w) => w.startsWith("-") && !w.includes("*"));
  return unapprovedOption(
    words,
    starred < 0 ? head.length : starred,
    starred < 0 || literal.length === 0 ? null : new Set(literal),
  ) === undefined;
}

function isTrusted(skill: PolicySkill, trusted: ToolTrust): boolean {
  if (typeof trusted === "boolean") return trusted && skill.origin === undefined;
  if (typeof trusted === "function") return trusted(skill.name);
  return trusted.has(skill.name);
}

/** Where a generated call stands: a meta-tool, covered by a trusted entry, in a tool set, or outside. */
type Standing = "meta" | "covered" | "resolved" | "outside";

function standing(g: GeneratedToolQuestion): Standing {
  const { call, trusted, resolved } = g.question;
  const meta = g.question.meta_tools === undefined ? ["skill"] : [...g.question.meta_tools];
  if (meta.includes(call.name)) return "meta";
  for (const s of g.skills) {
    if (s.entries === null || !isTrusted(s.skill, trusted)) continue;
    if (s.entries.some((e) => referenceCovers(e, call))) return "covered";
  }
  const sets = resolved as ReadonlyMap<string, Iterable<string>>;
  for (const s of g.skills) {
    if ([...sets.get(s.skill.name) ?? []].includes(call.name)) return "resolved";
  }
  return "outside";
}

/**
 * The reference verdict: the mode table of `compileToolPolicy`, spelled out
 * over the generated meaning of each skill's `allowed-tools`.
 *
 * @param g A generated question.
 * @returns The verdict.
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { referenceToolVerdict, toolQuestionArbitrary } from "../testing.ts";
 * import { decideToolCall } from "../../mod.ts";
 *
 * fc.assert(fc.property(toolQuestionArbitrary(), (g) =>
 *   decideToolCall(g.question).verdict === referenceToolVerdict(g)
 * ), { numRuns: 50 });
 * ```
 */
export function referenceToolVerdict(g: GeneratedToolQuestion): ToolVerdict {
  const where = standing(g);
  switch (g.question.mode) {
    case "advisory":
      return "ask";
    case "preapprove":
      return where === "meta" || where === "covered" ? "allow" : "ask";
    case "restrict":
      return where === "meta" || where === "covered"
        ? "allow"
        : where === "resolved"
        ? "ask"
        : "deny";
  }
}

const RANK: Readonly<Record<ToolVerdict, number>> = { deny: 0, ask: 1, allow: 2 };

function verdictOf(decide: ToolPolicyUnderTest, question: ToolCallQuestion): ToolVerdict {
  const { verdict } = decide(question);
  if (!(verdict in RANK)) assert.fail(`Not a verdict: ${String(verdict)}`);
  return verdict;
}

/**
 * The tool policy's laws as named fast-check properties, each usable as
 * `fc.assert(p)`: advisory and preapprove never deny; restrict refuses every
 * call outside the active skills' trusted `allowed-tools`, resolved tool sets
 * and meta-tools (a pattern matches only one simple command of literal
 * words, never one chained with `;`, `|` or `&`, expanded with `$` or a
 * backtick, redirected, or using an option that runs code); a call the trusted
 * `allowed-tools` cover is allowed in preapprove and restrict; adding an
 * active skill never turns an allow or ask into a deny; an untrusted skill's
 * `allowed-tools` never change a verdict; meta-tools are never denied; the
 * order of the active skills does not change a verdict; and the policy is
 * deterministic and leaves its (frozen) input alone.
 *
 * @param decide The policy under test.
 * @returns The properties by name.
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { toolPolicyProperties } from "../testing.ts";
 * import { decideToolCall } from "../../mod.ts";
 *
 * for (const p of Object.values(toolPolicyProperties(decideToolCall))) fc.assert(p, { numRuns: 20 });
 * ```
 */
export function toolPolicyProperties(
  decide: ToolPolicyUnderTest,
): Readonly<Record<ToolPolicyProperty, InvariantProperty>> {
  if (typeof decide !== "function") throw new TypeError("decide must be a function");
  const any = toolQuestionArbitrary();
  const strict = fc.oneof(
    toolQuestionArbitrary({ mode: "preapprove" }),
    toolQuestionArbitrary({ mode: "restrict" }),
  );
  const verdict = (g: GeneratedToolQuestion): ToolVerdict => verdictOf(decide, g.question);
  return Object.freeze({
    "advisory never denies": law(toolQuestionArbitrary({ mode: "advisory" }), (g) => {
      assert.notEqual(verdict(g), "deny");
    }),
    "preapprove never denies": law(toolQuestionArbitrary({ mode: "preapprove" }), (g) => {
      assert.notEqual(verdict(g), "deny");
    }),
    "restrict refuses every call outside the active sets and meta-tools": law(
      toolQuestionArbitrary({ mode: "restrict" }),
      (g) => {
        const where = standing(g);
        const got = verdict(g);
        if (where === "outside") assert.equal(got, "deny", "a call outside every set");
        if (got === "allow") {
          assert.ok(where === "meta" || where === "covered", `allowed a call that is ${where}`);
        }
      },
    ),
    "a call the trusted allowed-tools cover is allowed (preapprove, restrict)": law(strict, (g) => {
      const where = standing(g);
      if (where === "covered" || where === "meta") assert.equal(verdict(g), "allow", where);
    }),
    "adding an active skill never turns an allow or ask into a deny": law(
      fc.tuple(strict, skillArbitrary, fc.nat()),
      ([g, extra, at]) => {
        const before = verdict(g);
        const skills = [...g.skills];
        skills.splice(at % (skills.length + 1), 0, extra);
        const after = verdictOf(decide, { ...g.question, active: skills.map((s) => s.skill) });
        if (before !== "deny") assert.notEqual(after, "deny", `${before} became deny`);
      },
    ),
    "an untrusted skill's allowed-tools never change a verdict": law(
      fc.tuple(any, fc.array(skillArbitrary, { minLength: 5, maxLength: 5 })),
      ([g, others]) => {
        const { trusted } = g.question;
        const swapped = g.skills.map((s, i) => {
          if (isTrusted(s.skill, trusted)) return s.skill;
          const o = others[i % others.length]!.skill;
          const { allowed_tools: _a, frontmatter: _f, ...rest } = s.skill;
          const value = o.allowed_tools ?? o.frontmatter?.["allowed-tools"];
          return value === undefined ? rest : { ...rest, allowed_tools: value };
        });
        assert.equal(
          verdictOf(decide, { ...g.question, active: swapped }),
          verdict(g),
          "the untrusted skills' allowed-tools were swapped",
        );
      },
    ),
    "meta-tools are never denied": law(
      fc.tuple(any, fc.nat()),
      ([g, pick]) => {
        const meta = g.question.meta_tools === undefined ? ["skill"] : [...g.question.meta_tools];
        if (meta.length === 0) return;
        const name = meta[pick % meta.length]!;
        const got = verdictOf(decide, { ...g.question, call: { ...g.question.call, name } });
        assert.notEqual(got, "deny", `meta-tool ${JSON.stringify(name)}`);
      },
    ),
    "the verdict does not depend on the order of the active skills": law(
      fc.tuple(any, fc.array(fc.nat(), { minLength: 5, maxLength: 5 })),
      ([g, keys]) => {
        const order = g.skills.map((s, i) => ({ s, k: keys[i % keys.length]! + i / 10 }))
          .sort((x, y) => x.k - y.k).map((x) => x.s.skill);
        assert.equal(verdictOf(decide, { ...g.question, active: order }), verdict(g));
      },
    ),
    "is deterministic and leaves its input alone": law(any, (g) => {
      const frozen = deepFreeze({
        ...g.question,
        active: g.question.active as readonly PolicySkill[],
      });
      const first = verdictOf(decide, frozen);
      assert.equal(verdictOf(decide, frozen), first);
    }),
  });
}

/**
 * Run every property of {@linkcode toolPolicyProperties} once, and throw one
 * error naming each that fails with its shrunk counterexample.
 *
 * @param decide The policy under test.
 * @param options Runs per property and a seed to replay.
 * @throws {InvariantViolationError} When any property fails.
 * @example
 * ```ts
 * import { assertToolPolicyInvariants } from "../testing.ts";
 * import { decideToolCall } from "../../mod.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * assertToolPolicyInvariants(decideToolCall, { numRuns: 20 });
 * // A restrict mode that asks instead of refusing is caught:
 * assert.throws(
 *   () =>
 *     assertToolPolicyInvariants((q) => {
 *       const d = decideToolCall(q);
 *       return d.verdict === "deny" ? { verdict: "ask" } : d;
 *     }, { numRuns: 50 }),
 *   { name: "InvariantViolationError" },
 * );
 * ```
 */
export function assertToolPolicyInvariants(
  decide: ToolPolicyUnderTest,
  options: InvariantOptions = {},
): void {
  check("Tool policy", toolPolicyProperties(decide), options);
}
