import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs, seed } from "./_fc.ts";
import {
  assertGateInvariants,
  assertResolverInvariants,
  bundleInputArbitrary,
  catalogArbitrary,
  type GateProperty,
  type GateVerdict,
  includeChain,
  InvariantViolationError,
  referenceNormalize,
  referenceWriteLog,
  type ResolverProperty,
  type ResolverUnderTest,
  resourcePathArbitrary,
} from "../lib/testing.ts";
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
} from "../mod.ts";

type ResolverBug =
  | "last position wins"
  | "first metadata wins"
  | "overrides from the including skill"
  | "_anon_ 1-based"
  | "MCP server without a tool list adds an entry";

/** The seed's recursion with one bug switched on (or none). */
function naiveResolver(bug?: ResolverBug): ResolverUnderTest {
  return (root, lookup) => {
    const out = new Map<string, ResolvedToolEntry>();
    const write = (entry: ResolvedToolEntry): void => {
      if (bug === "first metadata wins" && out.has(entry.name)) return;
      if (bug === "last position wins") out.delete(entry.name);
      out.set(entry.name, entry);
    };
    // One mutable path (push/pop), so a deep chain overflows the stack quickly.
    const here: string[] = [];
    const onPath = new Set<string>();
    const visit = (skill: Skill, includer: Skill | undefined): void => {
      if (onPath.has(skill.name)) throw new SkillCycleError([...here, skill.name]);
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
];

describe("the testing kit catches broken resolvers", () => {
  it("passes the plain recursion except for its recursion limit (sanity check of the kit)", () => {
    assert.deepEqual(
      failedProperties(() => assertResolverInvariants(naiveResolver(), { seed, numRuns: 100 })),
      ["has no recursion limit (100k chain)"],
    );
  });

  for (const [bug, law] of RESOLVER_BUGS) {
    it(`catches "${bug}" by "${law}"`, () => {
      const failed = failedProperties(() =>
        assertResolverInvariants(naiveResolver(bug), { seed, numRuns: 200 })
      );
      assert.ok(failed.includes(law), `failed: ${failed.join(", ")}`);
    });
  }

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
