// @slow: runs the testing kit's laws at full size (left out of `npm run test:quick`)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs, seed } from "../_fc.ts";
import {
  assertGateInvariants,
  assertResolverInvariants,
  bundleInputArbitrary,
  catalogArbitrary,
  type GateProperty,
  type GateVerdict,
  includeChain,
  type InvariantFailure,
  type InvariantOptions,
  InvariantViolationError,
  referenceNormalize,
  referenceWriteLog,
  type ResolverProperty,
  type ResolverUnderTest,
  resourcePathArbitrary,
} from "../../lib/testing.ts";
import {
  createBundle,
  decodeBase64,
  normalizeResourcePath,
  readResource,
  type ResolvedToolEntry,
  resolveTools,
  type Skill,
  SkillCycleError,
  SkillResolutionError,
} from "../../mod.ts";

type ResolverBug =
  | "last position wins"
  | "first metadata wins"
  | "overrides from the including skill"
  | "_anon_ 1-based"
  | "MCP server without a tool list adds an entry"
  | "cycle path without its closing repeat"
  | "output in a plain object";

/** The seed's recursion with one bug switched on (or none). */
function naiveResolver(bug?: ResolverBug): ResolverUnderTest {
  return (root, lookup) => {
    const out = new Map<string, ResolvedToolEntry>();
    // A plain object for the output, as a hurried JavaScript resolver might keep it: wrong only
    // for names such as "__proto__" and "toString".
    const record: Record<string, ResolvedToolEntry> = {};
    const write = (entry: ResolvedToolEntry): void => {
      if (bug === "output in a plain object") {
        if (!(entry.name in record)) out.set(entry.name, entry);
        record[entry.name] = entry;
        return;
      }
      if (bug === "first metadata wins" && out.has(entry.name)) return;
      if (bug === "last position wins") out.delete(entry.name);
      out.set(entry.name, entry);
    };
    // One mutable path (push/pop), so a deep chain overflows the stack quickly.
    const here: string[] = [];
    const onPath = new Set<string>();
    const visit = (skill: Skill, includer: Skill | undefined): void => {
      if (onPath.has(skill.name)) {
        throw new SkillCycleError(
          bug === "cycle path without its closing repeat" ? [...here] : [...here, skill.name],
        );
      }
      here.push(skill.name);
      onPath.add(skill.name);
      for (const include of skill.includes ?? []) {
        const name = typeof include === "string" ? include : include.name;
        const child = lookup.get(name);
        if (child === undefined) {
          throw new SkillResolutionError(
            "UNKNOWN_SKILL",
            `Unknown skill "${name}" included by "${skill.name}" (path: ${
              [...here, name].join(" -> ")
            })`,
            [...here, name],
          );
        }
        visit(child, skill);
      }
      here.pop();
      onPath.delete(skill.name);
      const entry = (name: string, kind: ResolvedToolEntry["kind"]) => ({
        name,
        kind,
        source_skill: skill.name,
        is_inline: kind === "inline",
        inline_tool: null,
        overrides: {},
      });
      const owner = bug === "overrides from the including skill" ? includer ?? skill : skill;
      for (const ref of skill.tool_refs ?? []) {
        const overrides = owner.overrides !== undefined && Object.hasOwn(owner.overrides, ref)
          ? owner.overrides[ref]!
          : {};
        write({ ...entry(ref, "tool_ref"), overrides });
      }
      const base = bug === "_anon_ 1-based" ? 1 : 0;
      (skill.inline_tools ?? []).forEach((tool, i) => {
        write({ ...entry(`${skill.name}/_anon_${i + base}`, "inline"), inline_tool: tool });
      });
      for (const server of skill.mcp_servers ?? []) {
        if (server.tools === undefined && bug === "MCP server without a tool list adds an entry") {
          write(entry(`mcp:${server.server}/*`, "mcp"));
        }
        for (const tool of server.tools ?? []) write(entry(`mcp:${server.server}/${tool}`, "mcp"));
      }
      for (const p of skill.agent_skills ?? []) write(entry(`agent_skill:${p}`, "agent_skill"));
    };
    visit(root, undefined);
    if (bug === "output in a plain object") return [...out.keys()].map((name) => record[name]!);
    return out.values();
  };
}

type GateBug = "open when either switch is false" | "no .. check in the last segment";

/** SPEC §4's gate written plainly, with one bug switched on (or none). */
function plainGate(bug?: GateBug) {
  return (
    { path, flags, files, classes }: {
      path: string;
      flags: { global_safety?: boolean; skill_safety?: boolean };
      files: ReadonlySet<string>;
      classes: ReadonlyMap<string, string>;
    },
  ): GateVerdict => {
    let normal: string;
    if (bug === "no .. check in the last segment" && path.endsWith("/..")) {
      const head = referenceNormalize(path.slice(0, -3));
      if (!head.ok) return { verdict: "invalid" };
      normal = `${head.path}/..`;
    } else {
      const checked = referenceNormalize(path);
      if (!checked.ok) return { verdict: "invalid" };
      normal = checked.path;
    }
    const top = normal.includes("/") ? normal.slice(0, normal.indexOf("/")) : "";
    const open = bug === "open when either switch is false"
      ? flags.global_safety === false || flags.skill_safety === false
      : flags.global_safety === false && flags.skill_safety === false;
    if (!["", "references", "assets", "scripts"].includes(top) && !classes.has(top) && !open) {
      return { verdict: "refused" };
    }
    return files.has(normal) ? { verdict: "allowed", path: normal } : { verdict: "missing" };
  };
}

function failedProperties(run: () => void): string[] {
  try {
    run();
  } catch (e) {
    assert.ok(e instanceof InvariantViolationError, String(e));
    assert.equal(e.code, "INVARIANT_VIOLATED");
    return e.failures.map((f) => f.property);
  }
  return [];
}

const RESOLVER_BUGS: [ResolverBug, ResolverProperty][] = [
  ["last position wins", "keeps first position"],
  ["first metadata wins", "takes last metadata"],
  ["overrides from the including skill", "takes overrides from the declaring skill"],
  ["_anon_ 1-based", "forms keys by kind"],
  ["MCP server without a tool list adds an entry", "forms keys by kind"],
  ["cycle path without its closing repeat", "reports a cycle with its path"],
];

/** The names the generator uses as decoys: prototype keys and look-alikes. */
const DECOYS = /"(__proto__|toString|hasOwnProperty|constructor|local\/constructor)"/;

/** The failure of `law` in what `run` threw. */
function failureOf(run: () => void, law: ResolverProperty): InvariantFailure {
  try {
    run();
  } catch (e) {
    assert.ok(e instanceof InvariantViolationError, String(e));
    const failure = e.failures.find((f) => f.property === law);
    assert.ok(failure !== undefined, `failed: ${e.failures.map((f) => f.property).join(", ")}`);
    return failure;
  }
  assert.fail(`"${law}" held`);
}

/**
 * Run the kit on `resolve`, counting its calls; with `law`, the failure of that law (which must
 * fail).
 */
function callsOf(
  resolve: ResolverUnderTest,
  options: InvariantOptions,
  law?: ResolverProperty,
): { calls: number; failure: InvariantFailure | undefined } {
  let calls = 0;
  const counted: ResolverUnderTest = (root, lookup) => {
    calls++;
    return resolve(root, lookup);
  };
  const run = () => assertResolverInvariants(counted, options);
  if (law === undefined) {
    failedProperties(run);
    return { calls, failure: undefined };
  }
  const failure = failureOf(run, law);
  return { calls, failure };
}

describe("the testing kit catches broken resolvers", () => {
  it("passes the plain recursion except for its recursion limit (sanity check of the kit)", () => {
    assert.deepEqual(
      failedProperties(() => assertResolverInvariants(naiveResolver(), { seed, numRuns: 200 })),
      ["has no recursion limit (100k chain)"],
    );
  });

  /** How often the kit calls a resolver that passes (but for the chain), with the bugs' options. */
  let passing: number | undefined;
  const passingCalls = (): number => {
    if (passing === undefined) passing = callsOf(naiveResolver(), { seed, numRuns: 200 }).calls;
    return passing;
  };

  for (const [bug, law] of RESOLVER_BUGS) {
    it(`catches "${bug}" by "${law}", shrunk without decoy names, in at most twice the calls`, () => {
      const { calls, failure } = callsOf(naiveResolver(bug), { seed, numRuns: 200 }, law);
      assert.doesNotMatch(JSON.stringify(failure!.counterexample), DECOYS);
      assert.ok(calls <= 2 * passingCalls(), `${calls} calls against ${passingCalls()} passing`);
    });
  }

  it("bounds shrinking: with few runs too, a failing run calls the resolver at most twice as often", () => {
    const options = { seed, numRuns: 10 };
    const passing = callsOf(resolveTools, options).calls;
    const reversed: ResolverUnderTest = (root, lookup) =>
      [...resolveTools(root, lookup).values()].reverse();
    const failing = callsOf(reversed, options, "keeps first position").calls;
    assert.ok(failing <= 2 * passing, `${failing} calls against ${passing} passing`);
  });

  it("reports a shrunk counterexample, the reason and a replay seed", () => {
    assert.throws(
      () => assertResolverInvariants(naiveResolver("_anon_ 1-based"), { seed: 42, numRuns: 200 }),
      (e: unknown) => {
        assert.ok(e instanceof InvariantViolationError);
        const failure = e.failures.find((f) => f.property === "forms keys by kind")!;
        // shrunk: one inline tool in the whole catalog, and nothing else declared
        const catalog = failure.counterexample as { skills: Skill[] };
        const declared = catalog.skills.flatMap((s) => [
          ...(s.inline_tools ?? []),
          ...(s.tool_refs ?? []),
          ...(s.mcp_servers ?? []),
          ...(s.agent_skills ?? []),
        ]);
        assert.equal(declared.length, 1);
        assert.match(failure.reason, /_anon_1" is a key of kind inline of "/);
        assert.equal(failure.replay.seed, 42);
        assert.match(e.message, /^Resolver invariants failed: \d of 8\n- "/);
        assert.ok(e.message.includes('- "forms keys by kind" on {"root":'));
        return true;
      },
    );
  });

  it("accepts this project's resolver", () => {
    assertResolverInvariants((root, lookup) => resolveTools(root, lookup).values(), {
      seed,
      numRuns: 50,
    });
  });
});

describe("the testing kit takes what users pass it", () => {
  const entries = (root: Skill, lookup: ReadonlyMap<string, Skill>) =>
    resolveTools(root, lookup).values();
  const shapes: [string, ResolverUnderTest][] = [
    ["the OrderedMap resolveTools returns", resolveTools],
    ["a Map", (root, lookup) => new Map(resolveTools(root, lookup))],
    ["an iterator of entries", entries],
    ["an array of entries", (root, lookup) => [...entries(root, lookup)]],
    ["an iterator of [name, entry] pairs", (root, lookup) => resolveTools(root, lookup).entries()],
    ["a generator of [name, entry] pairs", function* (root, lookup) {
      for (const entry of entries(root, lookup)) yield [entry.name, entry] as const;
    }],
  ];
  for (const [shape, resolve] of shapes) {
    it(`accepts a resolver returning ${shape}`, () => {
      assertResolverInvariants(resolve, { seed, numRuns: 20 });
    });
  }

  it("refuses a result of another shape with a TypeError saying what came back", () => {
    const expected =
      "expected an OrderedMap or Map of entries, an iterable of entries (such as a Map's values()) " +
      "or an iterable of [name, entry] pairs";
    const wrong: [string, unknown][] = [
      ["undefined", undefined],
      ["null", null],
      ['the string "read_file"', "read_file"],
      ["the number 3", 3],
      ["a plain object", { read_file: {} }],
      ["an object of class Promise", Promise.resolve([])],
      ['an iterable holding the string "read_file" at position 0', ["read_file"]],
      ["an iterable holding an array of 3 items at position 1", [
        { name: "a" },
        ["b", { name: "b" }, 1],
      ]],
      ["an iterable holding undefined at position 0", [undefined]],
    ];
    for (const [what, result] of wrong) {
      assert.throws(
        () => assertResolverInvariants(() => result as never, { seed, numRuns: 5 }),
        { name: "TypeError", message: `Resolver returned ${what}; ${expected}` },
        what,
      );
    }
    // Also when only some inputs give the wrong shape: the TypeError, not a broken law.
    assert.throws(
      () =>
        assertResolverInvariants(
          (root, lookup) => root.includes === undefined ? resolveTools(root, lookup) : undefined!,
          { seed, numRuns: 50 },
        ),
      { name: "TypeError", message: `Resolver returned undefined; ${expected}` },
    );
  });

  it("reports a pair whose name is not its entry's as a broken law", () => {
    const failure = failureOf(
      () =>
        assertResolverInvariants(
          (root, lookup) => [...entries(root, lookup)].map((e) => [`${e.name}!`, e] as const),
          { seed, numRuns: 20 },
        ),
      "agrees with the reference",
    );
    assert.match(failure.reason, /the entry under key ".*!" is named the same/);
  });

  it("keeps the decoy names a failure needs", () => {
    const failure = failureOf(
      () => assertResolverInvariants(naiveResolver("output in a plain object"), { seed }),
      "agrees with the reference",
    );
    assert.match(JSON.stringify(failure.counterexample), DECOYS);
  });

  it("replays a failure from its { seed, path }", () => {
    const bug = naiveResolver("last position wins");
    const first = failureOf(
      () => assertResolverInvariants(bug, { seed, numRuns: 200 }),
      "keeps first position",
    );
    assert.equal(first.replay.seed, seed);
    assert.match(first.replay.path, /^\d+(:\d+)*$/);
    const again = failureOf(
      () => assertResolverInvariants(bug, first.replay),
      "keeps first position",
    );
    assert.deepEqual(again.counterexample, first.counterexample);
    assert.equal(again.reason, first.reason);
    // Without the law's name, every law whose values the path reaches starts from it.
    const { property: _, ...seedAndPath } = first.replay;
    const fromAll = failureOf(
      () => assertResolverInvariants(bug, seedAndPath),
      "keeps first position",
    );
    assert.deepEqual(fromAll.counterexample, first.counterexample);
    assert.throws(() => assertResolverInvariants(bug, { property: "keeps last position" }), {
      name: "RangeError",
      message: 'Unknown property "keeps last position"',
    });
  });
});

const GATE_BUGS: [GateBug, GateProperty][] = [
  ["open when either switch is false", "is open only when both switches are false"],
  ["no .. check in the last segment", "never allows a .. segment"],
];

describe("the testing kit catches broken gates", () => {
  it("passes the plain gate (sanity check of the kit)", () => {
    assertGateInvariants(plainGate(), { seed, numRuns: 200 });
  });

  for (const [bug, law] of GATE_BUGS) {
    it(`catches "${bug}" by "${law}"`, () => {
      const failed = failedProperties(() =>
        assertGateInvariants(plainGate(bug), { seed, numRuns: 200 })
      );
      assert.ok(failed.includes(law), `failed: ${failed.join(", ")}`);
    });
  }

  it("catches a gate that ignores the class mapping, and one that opens every folder", () => {
    const plain = plainGate();
    const ignoring = failedProperties(() =>
      assertGateInvariants((r) => plain({ ...r, classes: new Map() }), { seed, numRuns: 200 })
    );
    assert.ok(ignoring.includes("treats a mapped folder exactly as its class"), ignoring.join());
    const everything = failedProperties(() =>
      assertGateInvariants(
        (r) => {
          const normal = referenceNormalize(r.path);
          const top = normal.ok && normal.path.includes("/") ? normal.path.split("/")[0]! : "";
          return plain({ ...r, classes: new Map([[top, "references"]]) });
        },
        { seed, numRuns: 200 },
      )
    );
    assert.ok(everything.includes("is open only when both switches are false"), everything.join());
  });

  it("catches a gate that looks the file up before refusing", () => {
    const leaky = plainGate();
    const failed = failedProperties(() =>
      assertGateInvariants((r) => {
        const verdict = leaky(r);
        return verdict.verdict === "refused" && !r.files.has(r.path)
          ? { verdict: "missing" }
          : verdict;
      }, { seed, numRuns: 200 })
    );
    assert.ok(failed.includes("refuses regardless of whether the file exists"), failed.join(", "));
  });
});

describe("the kit's arbitraries and references", () => {
  it("referenceNormalize agrees with normalizeResourcePath on hostile paths", () => {
    fc.assert(
      fc.property(resourcePathArbitrary(), (path) => {
        let ours: { ok: true; path: string } | { ok: false };
        try {
          ours = { ok: true, path: normalizeResourcePath(path) };
        } catch {
          ours = { ok: false };
        }
        assert.deepEqual(referenceNormalize(path), ours);
      }),
      runs(500),
    );
  });

  it("catalogArbitrary honours its knobs", () => {
    fc.assert(
      fc.property(
        catalogArbitrary({
          cycles: false,
          unknown: false,
          diamonds: false,
          minDepth: 3,
          prototypeNames: false,
          collisions: false,
        }),
        (c) => {
          const names = c.skills.map((s) => s.name);
          assert.ok(names.length >= 4);
          const targets = [...c.edges.values()].flat();
          assert.equal(new Set(targets).size, targets.length, "no skill is included twice");
          for (const [from, to] of c.edges) {
            for (const t of to) {
              assert.ok(names.indexOf(t) > names.indexOf(from), `${from} -> ${t}`);
            }
          }
          for (let i = 0; i < 3; i++) assert.ok(c.edges.get(names[i]!)!.includes(names[i + 1]!));
          assert.ok(!names.some((n) => ["__proto__", "toString"].includes(n)));
          // a DAG: the reference resolves it
          assert.doesNotThrow(() =>
            referenceWriteLog(c.root, new Map(c.skills.map((s) => [s.name, s])))
          );
        },
      ),
      runs(100),
    );
    assert.throws(() => catalogArbitrary({ maxSkills: 0 }), {
      name: "RangeError",
      message: "maxSkills must be an integer from 1 to 20, got 0",
    });
  });

  it("bundleInputArbitrary gives bundles createBundle takes, every file reading back whole", () => {
    fc.assert(
      fc.property(bundleInputArbitrary(), (input) => {
        const bundle = createBundle(input);
        const open = { global_safety: false, skill_safety: false };
        for (const [path, content] of input.files) {
          const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
          const page = readResource(bundle, path, { ...open, limit: 1_000_000 });
          const got = page.encoding === "base64"
            ? decodeBase64(page.content)
            : new TextEncoder().encode(page.content);
          assert.deepEqual(got, bytes, path);
        }
      }),
      runs(100),
    );
  });

  it("rejects knobs out of range with a RangeError naming the value", () => {
    assert.throws(() => catalogArbitrary({ maxSkills: 3, minDepth: 3 }), {
      name: "RangeError",
      message: "minDepth must be an integer from 0 to maxSkills - 1, got 3",
    });
    assert.throws(() => catalogArbitrary({ maxSkills: 17, prototypeNames: false }), {
      name: "RangeError",
      message: "maxSkills must be an integer from 1 to 16, got 17",
    });
    assert.throws(() => includeChain(0), {
      name: "RangeError",
      message: "length must be a positive integer, got 0",
    });
  });

  it("referenceWriteLog refuses a lookup that answers with another skill", () => {
    assert.throws(
      () => referenceWriteLog({ name: "a/r", includes: ["a/x"] }, () => ({ name: "a/y" })),
      {
        name: "SkillResolutionError",
        message: 'Lookup answered "a/x" with a skill named "a/y" (path: a/r -> a/x)',
      },
    );
  });
});
