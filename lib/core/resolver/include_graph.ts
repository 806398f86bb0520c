/**
 * The include graph of a catalog: nodes, edges, every edge that lies on a
 * cycle, and unknown includes as missing nodes. Iterative throughout.
 *
 * Folder `lib/core/resolver/` — the skill model and the resolver: ordered maps, the include graph, tool sets.
 *
 * @module
 */
import { includeName, type Skill } from "./skill.ts";

/** A skill in the graph; `missing` when something includes it but the catalog lacks it. */
export interface GraphNode {
  /** The skill's name. */
  readonly name: string;
  /** Whether the catalog lacks it. */
  readonly missing: boolean;
}

/** An include edge; `cycle` when it lies on a cycle. */
export interface GraphEdge {
  /** The including skill. */
  readonly from: string;
  /** The included skill. */
  readonly to: string;
  /** Whether the edge lies on a cycle. */
  readonly cycle: boolean;
}

/** The include graph. */
export interface IncludeGraph {
  /** The skills, in discovery order. */
  readonly nodes: readonly GraphNode[];
  /** The includes, in declaration order. */
  readonly edges: readonly GraphEdge[];
  /** One cycle per strongly connected group of skills, as a path whose last name repeats its first. */
  readonly cycles: readonly (readonly string[])[];
}

/**
 * Build the include graph of `skills`, or only of what `root` reaches.
 *
 * @param skills The catalog's skills by name.
 * @param root Restrict the graph to the skills this one reaches.
 * @returns Nodes (in discovery order), edges (with cycle marks) and cycles.
 * @throws {RangeError} When `root` is not in `skills`.
 * @example
 * ```ts
 * import { includeGraph } from "./include_graph.ts";
 * import { assert } from "../_assert.ts";
 *
 * const skills = new Map([
 *   ["a/x", { name: "a/x", includes: ["a/y", "a/gone"] }],
 *   ["a/y", { name: "a/y", includes: ["a/x"] }],
 * ]);
 * const graph = includeGraph(skills);
 * assert.deepEqual(graph.cycles, [["a/x", "a/y", "a/x"]]);
 * assert.deepEqual(graph.nodes.find((n) => n.name === "a/gone"), { name: "a/gone", missing: true });
 * ```
 */
export function includeGraph(skills: ReadonlyMap<string, Skill>, root?: string): IncludeGraph {
  if (root !== undefined && !skills.has(root)) {
    throw new RangeError(`Unknown skill ${JSON.stringify(root)}`);
  }
  // Nodes in discovery order: the root's reach, or every skill in catalog order.
  const ids = new Map<string, number>();
  const names: string[] = [];
  const out: number[][] = [];
  const add = (name: string): number => {
    let id = ids.get(name);
    if (id === undefined) {
      id = names.length;
      ids.set(name, id);
      names.push(name);
      out.push([]);
    }
    return id;
  };
  const todo = root === undefined ? [...skills.keys()] : [root];
  for (const start of todo) add(start);
  for (let i = 0; i < names.length; i++) {
    const skill = skills.get(names[i]!);
    for (const include of skill?.includes ?? []) out[i]!.push(add(includeName(include)));
  }
  const component = stronglyConnected(out);
  const size = new Map<number, number>();
  for (const c of component) size.set(c, (size.get(c) ?? 0) + 1);
  const onCycle = (from: number, to: number): boolean =>
    component[from] === component[to] && (from === to || size.get(component[from]!)! > 1);
  const edges: GraphEdge[] = [];
  out.forEach((targets, from) => {
    for (const to of targets) {
      edges.push(Object.freeze({ from: names[from]!, to: names[to]!, cycle: onCycle(from, to) }));
    }
  });
  const cycles: string[][] = [];
  const reported = new Set<number>();
  for (let v = 0; v < names.length; v++) {
    const c = component[v]!;
    if (reported.has(c)) continue;
    const path = cycleFrom(v, out, (w) => component[w] === c);
    if (path === null) continue;
    reported.add(c);
    cycles.push(path.map((id) => names[id]!));
  }
  return Object.freeze({
    nodes: Object.freeze(names.map((name) => Object.freeze({ name, missing: !skills.has(name) }))),
    edges: Object.freeze(edges),
    cycles: Object.freeze(cycles.map((c) => Object.freeze(c))),
  });
}

/** Tarjan's algorithm with an explicit stack: the component number of every node. */
function stronglyConnected(out: readonly (readonly number[])[]): number[] {
  const n = out.length;
  const index = new Array<number>(n).fill(-1);
  const low = new Array<number>(n).fill(0);
  const onStack = new Array<boolean>(n).fill(false);
  const component = new Array<number>(n).fill(-1);
  const stack: number[] = [];
  let counter = 0, components = 0;
  for (let start = 0; start < n; start++) {
    if (index[start] !== -1) continue;
    const frames: [node: number, next: number][] = [[start, 0]];
    index[start] = low[start] = counter++;
    stack.push(start);
    onStack[start] = true;
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const [v, next] = frame;
      if (next < out[v]!.length) {
        frame[1]++;
        const w = out[v]![next]!;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = true;
          frames.push([w, 0]);
        } else if (onStack[w]) {
          low[v] = Math.min(low[v]!, index[w]!);
        }
        continue;
      }
      frames.pop();
      if (frames.length > 0) {
        const parent = frames[frames.length - 1]![0];
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
      if (low[v] === index[v]) {
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = false;
          component[w] = components;
        } while (w !== v);
        components++;
      }
    }
  }
  return component;
}

/** A shortest cycle from `start` back to itself inside its component, or null. */
function cycleFrom(
  start: number,
  out: readonly (readonly number[])[],
  inside: (node: number) => boolean,
): number[] | null {
  const parent = new Map<number, number>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head]!;
    for (const w of out[v]!) {
      if (!inside(w)) continue;
      if (w === start) {
        const path: number[] = [];
        for (let u = v; u !== start; u = parent.get(u)!) path.push(u);
        path.push(start);
        path.reverse();
        path.push(start);
        return path;
      }
      if (!parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return null;
}
