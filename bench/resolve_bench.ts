/**
 * resolveTools against its baselines, in one run per runtime:
 * - the naive reference (the seed's recursion; where it finishes),
 * - the floor (walk each skill once, one plain entry per declared tool, a native Map),
 * - the same algorithm on Immutable.js OrderedMap.
 * Run: `npm run bench -- resolve`.
 *
 * @module
 */
import { bench, group, run, summary } from "mitata";
import { resolveTools, type Skill } from "../mod.ts";
import { referenceResolve } from "../lib/testing.ts";
import { floorResolve, immutableResolve } from "./_baselines.ts";

interface Workload {
  readonly label: string;
  readonly root: Skill;
  readonly catalog: ReadonlyMap<string, Skill>;
}

function catalogOf(skills: Skill[]): Map<string, Skill> {
  return new Map(skills.map((s) => [s.name, s]));
}

function chain(n: number): Workload {
  const skills: Skill[] = [];
  for (let i = 0; i < n; i++) {
    skills.push({
      name: `chain/s${i}`,
      ...(i + 1 < n ? { includes: [`chain/s${i + 1}`] } : {}),
      tool_refs: [`t${i}`, "shared"],
    });
  }
  return { label: `chain of ${n} skills`, root: skills[0]!, catalog: catalogOf(skills) };
}

function ladder(depth: number): Workload {
  const skills: Skill[] = [];
  for (let i = 1; i <= depth; i++) {
    for (const side of ["a", "b"]) {
      skills.push({
        name: `ladder/${side}${i}`,
        ...(i < depth ? { includes: [`ladder/a${i + 1}`, `ladder/b${i + 1}`] } : {}),
        tool_refs: ["shared", `${side}${i}`],
        inline_tools: [{ read_only: true }],
      });
    }
  }
  const root: Skill = { name: "ladder/root", includes: ["ladder/a1", "ladder/b1"] };
  return { label: `diamond ladder of depth ${depth}`, root, catalog: catalogOf([root, ...skills]) };
}

function fanOut(n: number): Workload {
  const leaves: Skill[] = [];
  for (let i = 0; i < n; i++) {
    leaves.push({
      name: `fan/leaf${i}`,
      tool_refs: [`t${i}`, "shared"],
      mcp_servers: [{ server: "github", tools: ["create_issue"] }],
    });
  }
  const root: Skill = { name: "fan/root", includes: leaves.map((s) => s.name) };
  return { label: `fan-out of ${n} includes`, root, catalog: catalogOf([root, ...leaves]) };
}

/** A seeded random DAG: `n` skills, `refs` tool refs in all, ~3 includes each to later skills. */
function randomDag(n: number, refs: number): Workload {
  let state = 0x9e3779b9;
  const random = (bound: number): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % bound;
  };
  const skills: Skill[] = [];
  for (let i = 0; i < n; i++) {
    const includes = new Set<string>();
    for (let k = 0; k < 3 && i + 1 < n; k++) {
      includes.add(`dag/s${i + 1 + random(Math.min(50, n - i - 1))}`);
    }
    const toolRefs = Array.from({ length: refs / n }, () => `tool${random(refs / 2)}`);
    skills.push({ name: `dag/s${i}`, includes: [...includes], tool_refs: toolRefs });
  }
  return {
    label: `random DAG of ${n} skills, ${refs} tool refs`,
    root: skills[0]!,
    catalog: catalogOf(skills),
  };
}

function finishes(f: () => unknown): boolean {
  try {
    f();
    return true;
  } catch {
    return false; // the naive recursion overflows the stack on deep chains
  }
}

// The naive reference re-resolves shared includes: exponential on the random DAG
// (thousands of diamonds), so it runs only where it can finish.
const naiveFeasible = new Set(["chain", "ladder", "fan-out"]);

for (const w of [chain(100_000), ladder(20), fanOut(10_000), randomDag(10_000, 100_000)]) {
  const lookup = (name: string) => w.catalog.get(name);
  const kind = w.label.startsWith("chain")
    ? "chain"
    : w.label.startsWith("diamond")
    ? "ladder"
    : w.label.startsWith("fan")
    ? "fan-out"
    : "dag";
  group(w.label, () => {
    summary(() => {
      bench("floor (walk once, native Map)", () => floorResolve(w.root, w.catalog)).baseline(true);
      bench("resolveTools", () => resolveTools(w.root, w.catalog));
      bench("same algorithm on Immutable.js OrderedMap", () => immutableResolve(w.root, w.catalog));
      if (!naiveFeasible.has(kind)) {
        console.log(`${w.label}: the naive reference is exponential here; left out`);
      } else if (finishes(() => referenceResolve(w.root, lookup))) {
        bench("naive reference (the seed's recursion)", () => referenceResolve(w.root, lookup));
      } else {
        console.log(`${w.label}: the naive reference overflows the stack; left out`);
      }
    });
  });
}

await run();
