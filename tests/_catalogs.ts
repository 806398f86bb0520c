/**
 * fast-check arbitraries that generate skill catalogs: DAGs with shared
 * includes (diamonds), deep chains, self-includes, cycles reachable and
 * unreachable from the root, unknown includes, names that collide across
 * kinds, overrides present and absent, and names like `__proto__`.
 *
 * @module
 */
import { fc } from "./_fc.ts";
import type { InlineTool, McpServer, Skill, SkillInclude, SkillLookup } from "../mod.ts";

/** Skill names; the resolver treats names as map keys, so odd ones are welcome here. */
const SKILL_NAMES = [
  "local/root",
  "local/a",
  "local/b",
  "local/constructor",
  "__proto__",
  "toString",
  "hasOwnProperty",
  "net/c",
  "net/d",
  "x/e",
  "x/f",
  "x/g",
];
/** Tool names that collide with each other and with generated keys of other kinds. */
const TOOL_NAMES = [
  "read_file",
  "write_file",
  "__proto__",
  "constructor",
  "toString",
  "mcp:github/create_issue",
  "local/a/_anon_0",
  "agent_skill:skills/pdf",
];

export interface Catalog {
  readonly root: Skill;
  readonly skills: readonly Skill[];
  /** include edges by skill name, for the independent checks */
  readonly edges: ReadonlyMap<string, readonly string[]>;
}

export interface CatalogOptions {
  /** Allow edges to earlier skills (cycles and self-includes). */
  readonly cycles?: boolean;
  /** Allow includes of names no skill has. */
  readonly unknown?: boolean;
  readonly maxSkills?: number;
  readonly maxIncludes?: number;
}

const inlineTool: fc.Arbitrary<InlineTool> = fc.record({
  description: fc.string({ maxLength: 5 }),
  read_only: fc.boolean(),
  writes: fc.boolean(),
  checkpointable: fc.boolean(),
  side_effects: fc.subarray(["network", "filesystem", "process", "__proto__"]),
}, { requiredKeys: [] });

const mcpServer: fc.Arbitrary<McpServer> = fc.record({
  server: fc.constantFrom("github", "fs", "__proto__"),
  tools: fc.array(fc.constantFrom("create_issue", "read", "toString"), { maxLength: 3 }),
}, { requiredKeys: ["server"] });

const overrides = fc.dictionary(
  fc.constantFrom(...TOOL_NAMES, "unused"),
  fc.record({ timeout_s: fc.nat(9) }),
  { maxKeys: 3 },
).map((o) => Object.fromEntries(Object.entries(o)));

interface Body {
  description?: string;
  tool_refs?: string[];
  inline_tools?: InlineTool[];
  mcp_servers?: McpServer[];
  agent_skills?: string[];
  overrides?: Record<string, Record<string, unknown>>;
}

const body: fc.Arbitrary<Body> = fc.record({
  tool_refs: fc.array(fc.constantFrom(...TOOL_NAMES), { maxLength: 4 }),
  inline_tools: fc.array(inlineTool, { maxLength: 2 }),
  mcp_servers: fc.array(mcpServer, { maxLength: 2 }),
  agent_skills: fc.array(fc.constantFrom("skills/pdf", "skills/x", "__proto__"), { maxLength: 2 }),
  overrides,
}, { requiredKeys: [] });

/** A catalog whose first skill is the root. */
export function catalogArbitrary(options: CatalogOptions = {}): fc.Arbitrary<Catalog> {
  const { cycles = true, unknown = true, maxSkills = 9, maxIncludes = 3 } = options;
  return fc.integer({ min: 1, max: maxSkills }).chain((n) => {
    const names = SKILL_NAMES.slice(0, n);
    const target = (i: number): fc.Arbitrary<string> => {
      const choices: fc.Arbitrary<string>[] = [];
      const later = names.slice(i + 1);
      if (later.length > 0) choices.push(fc.constantFrom(...later));
      if (cycles) choices.push(fc.constantFrom(...names.slice(0, i + 1)));
      if (unknown) {
        choices.push(fc.constantFrom("missing/one", "toString", "__proto__", "constructor"));
      }
      return choices.length === 0 ? fc.constant("") : fc.oneof(...choices);
    };
    const includes = (i: number): fc.Arbitrary<SkillInclude[]> =>
      fc.array(
        fc.tuple(target(i), fc.boolean()).map(([name, short]) => short ? name : { name }),
        { maxLength: maxIncludes },
      ).map((list) => list.filter((inc) => (typeof inc === "string" ? inc : inc.name) !== ""));
    return fc.tuple(...names.map((_, i) => fc.tuple(includes(i), body))).map((parts) => {
      const skills = parts.map(([inc, b], i): Skill => ({
        name: names[i]!,
        ...(inc.length > 0 ? { includes: inc } : {}),
        ...b,
      }));
      const edges = new Map(skills.map((s) => [
        s.name,
        (s.includes ?? []).map((inc) => typeof inc === "string" ? inc : inc.name),
      ]));
      return { root: skills[0]!, skills, edges };
    });
  });
}

/** The three forms a lookup may take, over the same skills. */
export function lookupForms(skills: readonly Skill[]): {
  map: SkillLookup;
  record: SkillLookup;
  fn: (name: string) => Skill | undefined;
} {
  const map = new Map(skills.map((s) => [s.name, s]));
  return {
    map,
    record: Object.fromEntries(skills.map((s) => [s.name, s])),
    fn: (name) => map.get(name),
  };
}

export { deepFreeze } from "../lib/_deep_freeze.ts";
