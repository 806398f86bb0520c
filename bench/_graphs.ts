/**
 * Seeded include-graph generators for the benchmarks (and a cheap test that
 * the resolvers agree on them): chain, diamond ladder, wide fan-out, random
 * DAG and a realistic skill library. Each takes a target number of declared
 * tools; the same arguments always give the same catalog.
 *
 * @module
 */
import type { InlineTool, Skill } from "../mod.ts";

/** A generated catalog and the skill to resolve. */
export interface Workload {
  /** The family: "chain", "ladder", "fan-out", "random-dag" or "library". */
  readonly family: Family;
  /** The target number of declared tools (the x axis of the scaling plots). */
  readonly size: number;
  readonly root: Skill;
  readonly catalog: ReadonlyMap<string, Skill>;
  /** Tools declared by the skills reachable from the root (keys written, with repeats). */
  readonly declared: number;
  /** The skills reachable from the root, each once (the input of floor (b)). */
  readonly reachable: readonly Skill[];
}

/** The generator families. */
export type Family = "chain" | "ladder" | "fan-out" | "random-dag" | "library";

/** Every family, in report order. */
export const FAMILIES: readonly Family[] = ["chain", "ladder", "fan-out", "random-dag", "library"];

/** A small seeded generator (xorshift32): `random(n)` is in [0, n). */
export function seeded(seed: number): (bound: number) => number {
  let state = seed >>> 0 || 0x9e3779b9;
  return (bound: number): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % bound;
  };
}

/** Tools per skill in the chain, ladder and random DAG. */
const TOOLS_PER_SKILL = 10;

/**
 * A chain: each skill includes the next; 10 tools each, one of them shared by all.
 *
 * @param size Declared tools wanted.
 */
export function chain(size: number): Workload {
  const n = Math.max(1, Math.round(size / TOOLS_PER_SKILL));
  const skills: Skill[] = [];
  for (let i = 0; i < n; i++) {
    const refs = ["shared"];
    for (let k = 1; k < TOOLS_PER_SKILL; k++) refs.push(`c${i}_${k}`);
    skills.push({
      name: `chain/s${i}`,
      ...(i + 1 < n ? { includes: [`chain/s${i + 1}`] } : {}),
      tool_refs: refs,
    });
  }
  return workload("chain", size, skills[0]!, skills);
}

/**
 * A diamond ladder: rungs of two skills, each including both skills of the
 * next rung, so the naive recursion visits 2^depth paths. 10 tools per skill
 * (one shared, one inline); the root includes the first rung.
 *
 * @param size Declared tools wanted (20 per rung).
 */
export function ladder(size: number): Workload {
  const depth = Math.max(1, Math.round(size / (2 * TOOLS_PER_SKILL)));
  const skills: Skill[] = [];
  for (let i = 1; i <= depth; i++) {
    for (const side of ["a", "b"]) {
      const refs = ["shared"];
      for (let k = 2; k < TOOLS_PER_SKILL; k++) refs.push(`${side}${i}_${k}`);
      skills.push({
        name: `ladder/${side}${i}`,
        ...(i < depth ? { includes: [`ladder/a${i + 1}`, `ladder/b${i + 1}`] } : {}),
        tool_refs: refs,
        inline_tools: [{ read_only: true }],
      });
    }
  }
  const root: Skill = { name: "ladder/root", includes: ["ladder/a1", "ladder/b1"] };
  return workload("ladder", size, root, [root, ...skills]);
}

/**
 * A wide fan-out: the root includes every leaf; each leaf declares three own
 * tool refs, one shared ref and one MCP tool on a shared server.
 *
 * @param size Declared tools wanted (5 per leaf).
 */
export function fanOut(size: number): Workload {
  const n = Math.max(1, Math.round(size / 5));
  const leaves: Skill[] = [];
  for (let i = 0; i < n; i++) {
    leaves.push({
      name: `fan/leaf${i}`,
      tool_refs: [`f${i}_a`, `f${i}_b`, `f${i}_c`, "shared"],
      mcp_servers: [{ server: "github", tools: [i % 2 === 0 ? "create_issue" : `tool${i}`] }],
    });
  }
  const root: Skill = { name: "fan/root", includes: leaves.map((s) => s.name) };
  return workload("fan-out", size, root, [root, ...leaves]);
}

/** Options of {@linkcode randomDag}. */
export interface RandomDagOptions {
  /** Includes per skill (to later skills within a window of 50). Default 3. */
  readonly density?: number;
  /** The share of tool names drawn from a small common pool (repeated keys). Default 0.5. */
  readonly repeated?: number;
  readonly seed?: number;
}

/**
 * A seeded random DAG: skills of 10 tool refs each, `density` includes each to
 * later skills, a `repeated` share of tool names drawn from a pool of
 * size/20 names (the rest unique).
 *
 * @param size Declared tools wanted.
 * @param options Edge density, repeated share, seed.
 */
export function randomDag(size: number, options: RandomDagOptions = {}): Workload {
  const { density = 3, repeated = 0.5, seed = 0x9e3779b9 } = options;
  const random = seeded(seed);
  const n = Math.max(1, Math.round(size / TOOLS_PER_SKILL));
  const pool = Math.max(1, Math.round(size / 20));
  const skills: Skill[] = [];
  for (let i = 0; i < n; i++) {
    const includes = new Set<string>();
    for (let k = 0; k < density && i + 1 < n; k++) {
      includes.add(`dag/s${i + 1 + random(Math.min(50, n - i - 1))}`);
    }
    const refs: string[] = [];
    for (let k = 0; k < TOOLS_PER_SKILL; k++) {
      refs.push(random(1000) < repeated * 1000 ? `pool${random(pool)}` : `d${i}_${k}`);
    }
    skills.push({ name: `dag/s${i}`, includes: [...includes], tool_refs: refs });
  }
  return workload("random-dag", size, skills[0]!, skills);
}

const COMMON_TOOLS = [
  "read_file",
  "write_file",
  "list_dir",
  "search",
  "fetch_url",
  "run_tests",
  "git_diff",
  "git_commit",
];
const SIDE_EFFECTS = ["network", "filesystem", "process"];

/**
 * A realistic library: about size/17.5 skills, each with 2–5 includes (one to a
 * nearby later skill; a tenth of the skills are shared helpers that many include), 5–30 tools of every
 * kind — tool refs (some common names, with overrides), inline tools, MCP
 * servers for a tenth of the skills and an Agent Skill folder for a twentieth.
 * The root is `lib/s0`; includes go to later skills, so it reaches nearly all.
 *
 * @param size Declared tools wanted (about 17.5 per skill).
 * @param seed The seed.
 */
export function library(size: number, seed = 12345): Workload {
  const random = seeded(seed);
  const n = Math.max(2, Math.round(size / 17.5));
  const helpers = Math.max(1, Math.round(n / 10));
  const helperStart = n - helpers;
  const skills: Skill[] = [];
  for (let i = 0; i < n; i++) {
    const includes = new Set<string>();
    const wanted = 2 + random(4);
    for (let k = 0; k < wanted && i + 1 < n; k++) {
      // The first include goes to a nearby later skill; then half to shared helpers.
      const target = k > 0 && i < helperStart && random(2) === 0
        ? helperStart + random(helpers)
        : i + 1 + random(Math.min(20, n - i - 1));
      if (target > i && target < n) includes.add(`lib/s${target}`);
    }
    const tools = 5 + random(26);
    const refs: string[] = [];
    const inline: InlineTool[] = [];
    const overrides: Record<string, Record<string, unknown>> = {};
    let mcp: string[] = [];
    const agentSkills: string[] = [];
    if (random(10) === 0) mcp = [`create_issue`, `list_issues`, `tool${i}`].slice(0, 1 + random(3));
    if (random(20) === 0) agentSkills.push(`skills/s${i}`);
    for (let t = mcp.length + agentSkills.length; t < tools; t++) {
      const r = random(10);
      if (r < 2) {
        inline.push({
          description: `Tool ${t} of skill ${i}`,
          read_only: r === 0,
          side_effects: r === 1 ? [SIDE_EFFECTS[random(3)]!] : [],
        });
      } else if (r < 4) {
        const name = COMMON_TOOLS[random(COMMON_TOOLS.length)]!;
        refs.push(name);
        if (random(4) === 0) overrides[name] = { timeout_s: 1 + random(30) };
      } else {
        refs.push(`s${i}_tool${t}`);
      }
    }
    skills.push({
      name: `lib/s${i}`,
      description: `Skill ${i}`,
      ...(includes.size > 0 ? { includes: [...includes] } : {}),
      tool_refs: refs,
      ...(inline.length > 0 ? { inline_tools: inline } : {}),
      ...(mcp.length > 0 ? { mcp_servers: [{ server: `srv${i % 7}`, tools: mcp }] } : {}),
      ...(agentSkills.length > 0 ? { agent_skills: agentSkills } : {}),
      ...(Object.keys(overrides).length > 0 ? { overrides } : {}),
    });
  }
  return workload("library", size, skills[0]!, skills);
}

/**
 * The generator of a family.
 *
 * @param family The family.
 * @param size Declared tools wanted.
 */
export function generate(family: Family, size: number): Workload {
  switch (family) {
    case "chain":
      return chain(size);
    case "ladder":
      return ladder(size);
    case "fan-out":
      return fanOut(size);
    case "random-dag":
      return randomDag(size);
    case "library":
      return library(size);
  }
}

function declaredBy(skill: Skill): number {
  let n = (skill.tool_refs?.length ?? 0) + (skill.inline_tools?.length ?? 0) +
    (skill.agent_skills?.length ?? 0);
  for (const server of skill.mcp_servers ?? []) n += server.tools?.length ?? 0;
  return n;
}

function includeName(include: string | { readonly name: string }): string {
  return typeof include === "string" ? include : include.name;
}

function workload(family: Family, size: number, root: Skill, skills: Skill[]): Workload {
  const catalog = new Map(skills.map((s) => [s.name, s]));
  const reachable: Skill[] = [];
  const seen = new Set<string>([root.name]);
  const stack = [root];
  let declared = 0;
  while (stack.length > 0) {
    const skill = stack.pop()!;
    reachable.push(skill);
    declared += declaredBy(skill);
    for (const include of skill.includes ?? []) {
      const name = includeName(include);
      if (seen.has(name)) continue;
      seen.add(name);
      stack.push(catalog.get(name)!);
    }
  }
  return { family, size, root, catalog, declared, reachable };
}

/**
 * The number of keys the naive recursion writes (it re-enters a shared
 * include on every path), computed without running it; `Infinity` past 2^53.
 *
 * @param w A workload.
 * @returns Writes of the naive reference.
 */
export function naiveWrites(w: Workload): number {
  // writes(s) = own(s) + the sum of writes(include), includes before includers.
  const writes = new Map<string, number>();
  for (const skill of postOrder(w)) {
    let total = declaredBy(skill);
    for (const include of skill.includes ?? []) total += writes.get(includeName(include)) ?? 0;
    writes.set(skill.name, Math.min(total, Number.MAX_SAFE_INTEGER));
  }
  const total = writes.get(w.root.name) ?? 0;
  return total >= Number.MAX_SAFE_INTEGER ? Infinity : total;
}

/**
 * The deepest include path from the root (the naive recursion's stack depth).
 *
 * @param w A workload.
 * @returns The depth in skills.
 */
export function includeDepth(w: Workload): number {
  const depth = new Map<string, number>();
  for (const skill of postOrder(w)) {
    let d = 1;
    for (const include of skill.includes ?? []) {
      d = Math.max(d, 1 + (depth.get(includeName(include)) ?? 0));
    }
    depth.set(skill.name, d);
  }
  return depth.get(w.root.name) ?? 1;
}

/** The reachable skills, includes before includers (explicit stack; the graphs are DAGs). */
function postOrder(w: Workload): Skill[] {
  const post: Skill[] = [];
  const state = new Map<string, 1 | 2>();
  const pending: Skill[] = [w.root];
  while (pending.length > 0) {
    const skill = pending[pending.length - 1]!;
    const s = state.get(skill.name);
    if (s === undefined) {
      state.set(skill.name, 1);
      for (const include of skill.includes ?? []) {
        const name = includeName(include);
        if (!state.has(name)) pending.push(w.catalog.get(name)!);
      }
      continue;
    }
    pending.pop();
    if (s === 1) {
      state.set(skill.name, 2);
      post.push(skill);
    }
  }
  return post;
}
