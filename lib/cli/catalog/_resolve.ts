/**
 * The catalog commands of the `skillset` CLI: `resolve` (a skill's tool set
 * and capability summary) and `graph` (the include graph as Mermaid or DOT).
 *
 * Folder `lib/cli/catalog/` — the commands that show skills: resolve, activate, list, search, stats.
 *
 * @module
 */
import { escapeControls as esc } from "../../core/_text.ts";
import { UsageError } from "../_args.ts";
import { bold, type CliIO, table } from "../_io.ts";
import { type Catalog, loadCatalog } from "../../fs/load/catalog.ts";
import { SkillResolutionError } from "../../core/errors.ts";
import { type IncludeGraph, includeGraph } from "../../core/resolver/include_graph.ts";
import {
  computeCapabilitySummary,
  type ResolvedToolEntry,
} from "../../core/resolver/resolved_tools.ts";
import { resolveTools } from "../../core/resolver/resolve.ts";

/**
 * `resolve <catalog> <skill>`: the skill's tool set as a table (name, kind, source skill,
 * overrides) and its capability summary, or both as JSON.
 *
 * @param catalogPath The catalog file or folder, as typed.
 * @param name The skill.
 * @param json Whether to print JSON.
 * @param io Where to write.
 * @returns The exit code.
 * @throws {SkillResolutionError} For an unknown skill or a catalog that does not resolve.
 */
export function resolveCommand(
  catalogPath: string,
  name: string,
  json: boolean,
  io: CliIO,
): number {
  const catalog = loadCatalog(catalogPath);
  const skill = catalog.skills.get(name);
  if (skill === undefined) throw unknownSkill(name, catalog, catalogPath);
  const tools = resolveTools(skill, catalog.skills);
  const summary = computeCapabilitySummary(skill, tools);
  if (json) {
    io.stdout(`${JSON.stringify({ entries: [...tools.values()], summary }, null, 2)}\n`);
    return 0;
  }
  const rows = [...tools.values()].map((e, i) => [
    String(i + 1),
    esc(e.name),
    e.kind,
    esc(e.source_skill),
    esc(describeOverrides(e)),
  ]);
  const out = [
    bold(`${esc(name)}: ${tools.size} tool${tools.size === 1 ? "" : "s"}`, io),
    "",
    ...table([["#", "name", "kind", "source skill", "overrides"], ...rows]).map((l) => `  ${l}`),
    "",
    bold("Capabilities", io),
    ...table([
      ["total tools", String(summary.total_tools)],
      ["read-only tools", String(summary.read_only_tools)],
      ["write tools", String(summary.write_tools)],
      ["checkpointable tools", String(summary.checkpointable_tools)],
      ["side effects", summary.has_side_effects ? esc(summary.side_effects.join(", ")) : "none"],
      [
        "MCP tools",
        `${summary.mcp_tools} from ${summary.mcp_servers} server${
          summary.mcp_servers === 1 ? "" : "s"
        }`,
      ],
      ["Agent Skills", String(summary.agent_skills)],
    ]).map((l) => `  ${l}`),
  ];
  io.stdout(`${out.join("\n")}\n`);
  return 0;
}

function describeOverrides(entry: ResolvedToolEntry): string {
  return Object.keys(entry.overrides).length === 0 ? "-" : JSON.stringify(entry.overrides);
}

/**
 * `graph <catalog> [skill]`: the include graph as Mermaid, DOT or JSON.
 *
 * @param catalogPath The catalog file or folder, as typed.
 * @param root The skill whose reach is drawn, or the whole catalog.
 * @param format `mermaid` or `dot`.
 * @param json Whether to print JSON.
 * @param io Where to write.
 * @returns The exit code.
 * @throws {UsageError} For a format other than `mermaid` or `dot`.
 * @throws {SkillResolutionError} For an unknown skill.
 */
export function graphCommand(
  catalogPath: string,
  root: string | undefined,
  format: string,
  json: boolean,
  io: CliIO,
): number {
  if (format !== "mermaid" && format !== "dot") {
    throw new UsageError(`--format takes mermaid or dot, got "${esc(format)}"`);
  }
  const catalog = loadCatalog(catalogPath);
  if (root !== undefined && !catalog.skills.has(root)) {
    throw unknownSkill(root, catalog, catalogPath);
  }
  const graph = includeGraph(catalog.skills, root);
  if (json) io.stdout(`${JSON.stringify(graph, null, 2)}\n`);
  else io.stdout(`${format === "dot" ? toDot(graph) : toMermaid(graph)}\n`);
  return 0;
}

function toMermaid(graph: IncludeGraph): string {
  const id = new Map(graph.nodes.map((n, i) => [n.name, `n${i}`]));
  const lines = ["flowchart TD"];
  for (const n of graph.nodes) {
    const label = n.missing ? `${n.name} (missing)` : n.name;
    lines.push(
      `  ${id.get(n.name)}["${label.replaceAll('"', "#quot;")}"]${n.missing ? ":::missing" : ""}`,
    );
  }
  for (const e of graph.edges) {
    lines.push(`  ${id.get(e.from)} ${e.cycle ? "-->|cycle|" : "-->"} ${id.get(e.to)}`);
  }
  const cycleEdges = graph.edges.flatMap((e, i) => (e.cycle ? [i] : []));
  if (cycleEdges.length > 0) {
    lines.push(`  linkStyle ${cycleEdges.join(",")} stroke:red,stroke-width:2px`);
  }
  if (graph.nodes.some((n) => n.missing)) {
    lines.push("  classDef missing stroke-dasharray: 5 5,color:#a00");
  }
  return lines.join("\n");
}

function toDot(graph: IncludeGraph): string {
  const q = (s: string) => JSON.stringify(s);
  const lines = ["digraph includes {", "  rankdir=TB;"];
  for (const n of graph.nodes) {
    lines.push(
      n.missing
        ? `  ${q(n.name)} [label=${q(`${n.name} (missing)`)}, style=dashed, color=red];`
        : `  ${q(n.name)};`,
    );
  }
  for (const e of graph.edges) {
    lines.push(`  ${q(e.from)} -> ${q(e.to)}${e.cycle ? ' [color=red, label="cycle"]' : ""};`);
  }
  lines.push("}");
  return lines.join("\n");
}

function unknownSkill(name: string, catalog: Catalog, typed: string): SkillResolutionError {
  return new SkillResolutionError(
    "UNKNOWN_SKILL",
    `Unknown skill "${name}" in catalog ${typed} (it has: ${
      [...catalog.skills.keys()].join(", ")
    })`,
    [name],
  );
}
