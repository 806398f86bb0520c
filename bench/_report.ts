/**
 * Turns the results files of the three runtimes into `RESULTS.md` (tables,
 * log–log slopes, the targets with the worst runtime's ratio) and one SVG
 * plot per graph family (time against declared tools, log–log, every
 * resolver; solid Node, dashed Deno, dotted Bun). Pure functions plus one
 * writer; the SVG is written by hand.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Row } from "./_harness.ts";
import { FAMILIES } from "./_graphs.ts";

/** The runtimes, in report order. */
export const RUNTIMES = ["node", "deno", "bun"] as const;
/** One of {@linkcode RUNTIMES}. */
export type Runtime = (typeof RUNTIMES)[number];

/** `bench/results/<runtime>.json`. */
export interface ResultsFile {
  readonly runtime: Runtime;
  readonly version: string;
  readonly date: string;
  readonly machine: string;
  readonly quick: boolean;
  readonly rows: readonly Row[];
}

/** The sizes the scaling slopes are fitted on. */
export const SCALING_SIZES: readonly number[] = [1e3, 1e4, 1e5, 1e6];
/** The resolvers of the resolve bench, in plot order. */
const RESOLVERS = ["resolveTools", "floor (a)", "floor (b)", "Immutable.js", "naive reference"];

/**
 * The least-squares slope of log(time) against log(size).
 *
 * @param points [size, time] pairs (at least two distinct sizes).
 * @returns The slope, or `null` with fewer than two points.
 */
export function logLogSlope(points: readonly (readonly [number, number])[]): number | null {
  if (points.length < 2) return null;
  const xs = points.map(([x]) => Math.log(x));
  const ys = points.map(([, y]) => Math.log(y));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0, den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? null : num / den;
}

function time(ns: number | null | undefined): string {
  if (ns === null || ns === undefined) return "—";
  if (ns < 1e3) return `${ns.toFixed(0)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(1)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toFixed(1)} ms`;
  return `${(ns / 1e9).toFixed(2)} s`;
}

function ratio(r: number | null | undefined): string {
  return r === null || r === undefined ? "—" : `${r.toFixed(2)}×`;
}

function size(n: number): string {
  const e = Math.log10(n);
  return Number.isInteger(e) && n >= 1000 ? `10^${e}` : n.toLocaleString("en-US");
}

function find(
  file: ResultsFile,
  bench: string,
  workload: string,
  at: number,
  name: string,
): Row | undefined {
  return file.rows.find((r) =>
    r.bench === bench && r.workload === workload && r.size === at && r.case === name
  );
}

/** A ratio of two cases' medians in one run (same process, same group). */
function between(
  file: ResultsFile,
  bench: string,
  workload: string,
  at: number,
  a: string,
  b: string,
): number | null {
  const x = find(file, bench, workload, at, a)?.median;
  const y = find(file, bench, workload, at, b)?.median;
  return x === null || x === undefined || y === null || y === undefined || y === 0 ? null : x / y;
}

/** A resolver's slope on a family in one runtime. */
function slope(file: ResultsFile, family: string, name: string): number | null {
  const points: [number, number][] = [];
  for (const at of SCALING_SIZES) {
    const m = find(file, "resolve", family, at, name)?.median;
    if (m !== null && m !== undefined) points.push([at, m]);
  }
  return logLogSlope(points);
}

/** One target: the worst runtime's value against the bound. */
interface Target {
  readonly what: string;
  readonly bound: number;
  /** Per runtime: the worst value and where. */
  readonly values: Map<Runtime, { value: number; where: string } | null>;
  /** The bound is a least value (recall), not a most. */
  readonly atLeast?: boolean;
}

function worst(
  values: readonly { value: number | null; where: string }[],
): { value: number; where: string } | null {
  let out: { value: number; where: string } | null = null;
  for (const v of values) {
    if (v.value !== null && (out === null || v.value > out.value)) {
      out = { value: v.value, where: v.where };
    }
  }
  return out;
}

/** Benches whose `value` rows are bytes (shown in MiB). */
const BYTE_BENCHES: ReadonlySet<string> = new Set(["read_memory", "resolve_memory"]);

/** A serve-load row of this project's server, not of the SDK-only peer run beside it for scale. */
const ours = (row: Row): boolean => !row.case.startsWith(`${SERVE_PEER}: `);

/** The first row of a workload in any runtime's results. */
function file0(
  files: readonly ResultsFile[],
  workload: string,
  keep: (row: Row) => boolean = () => true,
): Row | undefined {
  for (const f of files) {
    const row = f.rows.find((r) => r.workload === workload && keep(r));
    if (row !== undefined) return row;
  }
  return undefined;
}

/** The adapters bench's group and cases (bench/adapters_bench.ts; not imported: it runs on import). */
const ADAPTERS_WORKLOAD = "skill tool call: activate, then read a 2,000-line page";
const ADAPTERS_BASE = "handleSkillTool directly";
const ADAPTERS_AI = "skillset/ai: tool.execute";
const ADAPTERS_LANGCHAIN = "skillset/langchain: the tool's function";

/** The run_script bench's Python group and its bare baseline (bench/run_script_bench.ts). */
const RUN_WORKLOAD = "run a trivial Python script";
const RUN_BARE_CASE = "bare bubblewrap command line (no skillset)";

function targets(files: readonly ResultsFile[]): Target[] {
  const big = [1e5, 1e6];
  const per = (f: (file: ResultsFile) => { value: number; where: string } | null) =>
    new Map(files.map((file) => [file.runtime, f(file)]));
  const overFamilies = (
    value: (family: string, at: number) => number | null,
    sizes: readonly number[],
  ) =>
    worst(
      FAMILIES.flatMap((family) =>
        sizes.map((at) => ({ value: value(family, at), where: `${family} @ ${size(at)}` }))
      ),
    );
  const overFloor = (floor: string, bound: number): Target => ({
    what: `resolveTools ÷ ${floor}, every family at 10^5 and 10^6`,
    bound,
    values: per((file) =>
      overFamilies((fam, at) => between(file, "resolve", fam, at, "resolveTools", floor), big)
    ),
  });
  const lib = (file: ResultsFile, workload: string, a: string, b: string) => {
    const row = file.rows.find((r) => r.workload === workload && r.case === a);
    if (row === undefined) return null;
    const value = between(file, row.bench, workload, row.size, a, b);
    return value === null ? null : { value, where: `${workload} @ ${row.size}` };
  };
  return [
    overFloor("floor (a)", 2.0),
    overFloor("floor (b)", 3.0),
    {
      what: "resolveTools log–log slope, 10^3…10^6, every family",
      bound: 1.1,
      values: per((file) =>
        worst(FAMILIES.map((fam) => ({ value: slope(file, fam, "resolveTools"), where: fam })))
      ),
    },
    {
      what: "name+description index of 5,000 skills ÷ bare read of every SKILL.md",
      bound: 3.0,
      values: per((file) => lib(file, SKILLS_WORKLOAD, INDEX_CASE, BARE_READ_CASE)),
    },
    {
      what: "validate of 5,000 skills ÷ bare read of every SKILL.md",
      bound: 5.0,
      values: per((file) => lib(file, SKILLS_WORKLOAD, VALIDATE_CASE, BARE_READ_CASE)),
    },
    {
      what: "discoverSkills of 5,000 skills over 3 roots ÷ bare recursive readdir + SKILL.md reads",
      bound: 3.0,
      values: per((file) => lib(file, DISCOVER_WORKLOAD, DISCOVER_CASE, DISCOVER_BARE_CASE)),
    },
    ...[AB_VALIDATE_WORKLOAD, AB_DISCOVER_WORKLOAD, AB_LOAD_WORKLOAD].map((workload) => ({
      what: workload,
      bound: 1.1,
      values: per((file) => lib(file, workload, AB_NOW_CASE, AB_BEFORE_CASE)),
    })),
    {
      what: "skillset --version through the installed bin ÷ node -e 0 (Node processes)",
      bound: 1.5,
      values: per((file) =>
        lib(file, CLI_START_WORKLOAD, "skillset --version (installed bin)", "node -e 0")
      ),
    },
    {
      what: `MCP host connect (the mcpServers entry) ÷ ${MCP_CONNECT_PEER}`,
      bound: 1.5,
      values: per((file) => lib(file, MCP_CONNECT_WORKLOAD, MCP_CONNECT_OURS, MCP_CONNECT_PEER)),
    },
    {
      what: "fitSkillCatalog of 10,000 skills with modes and the report ÷ before issue 34",
      bound: 2.0,
      values: per((file) =>
        lib(file, PROMPT_CATALOG_WORKLOAD, CATALOG_MODES_CASE, CATALOG_BASELINE)
      ),
    },
    {
      what: "…and ranked by use (the rank tallied once from the log) ÷ before issue 34",
      bound: 2.0,
      values: per((file) =>
        lib(file, PROMPT_CATALOG_WORKLOAD, CATALOG_RANKED_CASE, CATALOG_BASELINE)
      ),
    },
    {
      what: "…and ranked by use, tallied from 100,000 events in every render, ÷ before issue 34",
      bound: 2.0,
      values: per((file) => lib(file, PROMPT_CATALOG_WORKLOAD, CATALOG_ALL_CASE, CATALOG_BASELINE)),
    },
    {
      what:
        "fitSkillCatalog of 10,000 skills under a 20-glob profile, 1,000 skills with paths and " +
        "1,000 host paths ÷ today's catalog (issue 44)",
      bound: 1.2,
      values: per((file) =>
        lib(file, PROMPT_CATALOG_WORKLOAD, PROFILE_CATALOG_CASE, PROFILE_CATALOG_BASELINE)
      ),
    },
    {
      what: "…the same, the profile and the paths keeping every skill, ÷ today's catalog",
      bound: 1.2,
      values: per((file) =>
        lib(file, PROMPT_CATALOG_WORKLOAD, PROFILE_CATALOG_ALL_CASE, PROFILE_CATALOG_BASELINE)
      ),
    },
    {
      what: "createSkillIndex of 10,000 skills ÷ tokenizing the same texts",
      bound: 3.0,
      values: per((file) =>
        lib(file, SEARCH_SCALE_WORKLOAD, SEARCH_BUILD_CASE, SEARCH_BUILD_FLOOR)
      ),
    },
    {
      what: "searchSkills p99 ÷ the posting-walk floor's p99, 10,000 skills",
      bound: 5.0,
      values: per((file) => {
        const row = file.rows.find((r) =>
          r.workload === SEARCH_QUERY_WORKLOAD && r.case === SEARCH_QUERY_CASE
        );
        return row?.value === undefined ? null : { value: row.value, where: `@ ${row.size}` };
      }),
    },
    {
      what: "skillset eval of 1,000 skills × 20 trigger queries, CPU seconds of one run",
      bound: 10,
      values: per((file) => {
        const row = file.rows.find((r) => r.workload === EVAL_WORKLOAD && r.case === EVAL_CPU_CASE);
        return row?.value === undefined ? null : { value: row.value, where: `@ ${row.size}` };
      }),
    },
    {
      what:
        "createSkillIndex of 1,000 discovered skills (bodies read lazily) ÷ tokenizing the same texts, CPU time",
      bound: 3.0,
      values: per((file) =>
        lib(file, LAZY_BUILD_WORKLOAD, LAZY_BUILD_CPU_CASE, LAZY_BUILD_CPU_FLOOR)
      ),
    },
    {
      what: "searchSkills recall@5, 100 held-out queries over 929 skills",
      bound: 0.9,
      atLeast: true,
      values: per((file) => {
        const row = file.rows.find((r) =>
          r.workload === SEARCH_EVAL_WORKLOAD && r.case === "BM25 (searchSkills) recall@5 (eval)"
        );
        return row?.value === undefined ? null : { value: row.value, where: "eval split" };
      }),
    },
    {
      what: "searchSkills recall@5, held-out user-phrased requests over five collections",
      bound: 0.9,
      atLeast: true,
      values: per((file) => userValue(file, "recall@5 (eval, all)")),
    },
    {
      what: "searchSkills MRR, held-out user-phrased requests over five collections",
      bound: 0.8,
      atLeast: true,
      values: per((file) => userValue(file, "MRR (eval, all)")),
    },
    {
      what: "searchSkills recall@5 of the weakest collection, held-out user-phrased requests",
      bound: 0.8,
      atLeast: true,
      values: per((file) => {
        const rows = file.rows.filter((r) =>
          r.workload === SEARCH_USER_WORKLOAD &&
          /^searchSkills \(bodies\) recall@5 \(eval, [^)]*\/[^)]*\)$/.test(r.case)
        );
        if (rows.length === 0) return null;
        const worst = rows.reduce((a, b) => ((b.value ?? 1) < (a.value ?? 1) ? b : a));
        return { value: worst.value!, where: /, ([^)]*)\)$/.exec(worst.case)![1]! };
      }),
    },
    {
      what: "lock of 1,000 skills (200 MiB) ÷ sha256sum of the same files",
      bound: 1.5,
      values: per((file) => lib(file, LOCK_WORKLOAD, LOCK_CASE, LOCK_FLOOR_CASE)),
    },
    {
      what: "verify of the unchanged 1,000 skills (200 MiB) ÷ sha256sum of the same files",
      bound: 1.5,
      values: per((file) => lib(file, LOCK_WORKLOAD, VERIFY_CASE, LOCK_FLOOR_CASE)),
    },
    {
      what:
        "runSkillScript of a trivial Python script (bubblewrap, its cgroup made and removed) ÷ " +
        "the same bubblewrap command line spawned bare",
      bound: 1.3,
      values: per((file) => lib(file, RUN_WORKLOAD, "runSkillScript (bubblewrap)", RUN_BARE_CASE)),
    },
    ...[ADAPTERS_AI, ADAPTERS_LANGCHAIN].map((adapter) => ({
      what: `${adapter} ÷ ${ADAPTERS_BASE} (${ADAPTERS_WORKLOAD})`,
      bound: 1.05,
      values: per((file) => lib(file, ADAPTERS_WORKLOAD, adapter, ADAPTERS_BASE)),
    })),
    {
      what: "add of 1,000 skills to 3 agent targets ÷ add to one (bench/agent_targets_bench.ts)",
      bound: 1.2,
      values: per((file) =>
        lib(
          file,
          "add: 1,000 skills to agent targets",
          "addSkills --agent claude-code,cursor,windsurf (3 targets)",
          "addSkills --agent claude-code (1 target)",
        )
      ),
    },
    {
      what: "catalog parse ÷ resolve, 10,000-skill catalog",
      bound: 10.0,
      values: per((file) => lib(file, CATALOG_WORKLOAD, PARSE_CASE, RESOLVE_CASE)),
    },
    {
      what: "encodeBase64 ÷ the runtime's fastest built-in encoder, 16 MiB",
      bound: 1.3,
      values: per((file) => {
        const rows = file.rows.filter((r) => r.workload === BASE64_WORKLOAD);
        const builtIns = rows.filter((r) => r.case.startsWith("built-in") && r.median !== null);
        const ours = rows.find((r) => r.case === BASE64_CASE)?.median;
        if (builtIns.length === 0 || ours === null || ours === undefined) return null;
        const fastest = builtIns.reduce((a, b) => (a.median! <= b.median! ? a : b));
        return { value: ours / fastest.median!, where: `vs ${fastest.case}` };
      }),
    },
    ...[SERVE_READ_1, SERVE_READ_32].flatMap((workload) => [
      {
        what: `${SERVE_OURS} ÷ ${SERVE_PEER}: ${workload}`,
        bound: 1.0,
        values: per((file) => lib(file, workload, SERVE_OURS, SERVE_PEER)),
      },
      {
        what: `${SERVE_OURS} ÷ ${SERVE_PEER}: ${SERVE_CPU[workload]}`,
        bound: 1.0,
        values: per((file) => lib(file, SERVE_CPU[workload]!, SERVE_OURS, SERVE_PEER)),
      },
      {
        what: `${SERVE_OURS} ÷ ${SERVE_PEER}: p99 latency, ${workload.replace(/ \(.*\)$/, "")}`,
        bound: 1.2,
        values: per((file) => {
          const p99 = (name: string) =>
            file.rows.find((r) => r.workload === workload && r.case === name)?.p99 ?? null;
          const ours = p99(SERVE_OURS), peer = p99(SERVE_PEER);
          return ours === null || peer === null || peer === 0
            ? null
            : { value: ours / peer, where: workload };
        }),
      },
    ]),
    {
      what: `${SERVE_OURS} ÷ ${SERVE_PEER}: ${SERVE_COLD}`,
      bound: 1.2,
      values: per((file) => lib(file, SERVE_COLD, SERVE_OURS, SERVE_PEER)),
    },
    ...([
      [SERVE_LOAD_REQUESTS, 1.1],
      [SERVE_LOAD_ABANDONED, 1.1],
      [SERVE_LOAD_HALF_SENT, 1000],
      [SERVE_LOAD_STALLED, 100],
    ] as const).map(([workload, bound]) => ({
      what: `load test: ${file0(files, workload, ours)?.case ?? workload}`,
      bound,
      values: per((file) => {
        const row = file.rows.find((r) => r.workload === workload && ours(r));
        if (row?.value === undefined) return null;
        // The same load on the SDK-only server, for scale, where the bench ran it.
        const peer = file.rows.find((r) => r.workload === workload && !ours(r));
        const scale = peer?.value === undefined
          ? ""
          : `; SDK only ${peer.value.toFixed(2)}${
            peer.note === undefined ? "" : ` (${peer.note})`
          }`;
        return { value: row.value, where: `${row.note ?? workload}${scale}` };
      }),
    })),
    {
      what:
        "ToolPolicy.decide of 1,000 calls (50 skills, 2,000 tools) ÷ one Set.has + one prefix test per call",
      bound: 3.0,
      values: per((file) =>
        lib(file, POLICY_DECIDE_WORKLOAD, POLICY_DECIDE_CASE, POLICY_DECIDE_FLOOR)
      ),
    },
    {
      what: "compileToolPolicy (50 skills, 2,000 tools) ÷ building a Set of the same names",
      bound: 2.0,
      values: per((file) =>
        lib(file, POLICY_COMPILE_WORKLOAD, POLICY_COMPILE_CASE, POLICY_COMPILE_FLOOR)
      ),
    },
    {
      what: "peak heap resolving the 10^6 random DAG ÷ the same entries in a Map",
      bound: 2.0,
      values: per((file) => {
        const rows = file.rows.filter((r) => r.workload === MEMORY_WORKLOAD);
        const ours = rows.find((r) => r.case === MEMORY_CASE)?.value;
        const map = rows.find((r) => r.case === MEMORY_BASELINE)?.value;
        if (ours === undefined || map === undefined || map === 0) return null;
        return { value: ours / map, where: `at ${size(rows[0]!.size)}` };
      }),
    },
  ];
}

/** The trust workload: 1,000 skill folders, 200 MiB in all. */
export const LOCK_WORKLOAD = "lock: 1,000 skills, 200 MiB";
/** Its floor: `sha256sum` of the same files, one process. */
export const LOCK_FLOOR_CASE = "floor: sha256sum of every file";
/** `skillset lock`: discover, hash, write the lockfile. */
export const LOCK_CASE = "lockSkills + writeLockfile";
/** `skillset verify --frozen` of the unchanged tree. */
export const VERIFY_CASE = "verifySkills (unchanged tree)";

/** The A/B guard of `bench/before_after_bench.ts`: the commit it times against, its groups and cases. */
export const AB_COMMIT = "570f430";
export const AB_VALIDATE_WORKLOAD = "validate of 5,000 skill folders, this code ÷ 570f430";
export const AB_DISCOVER_WORKLOAD = "discovery of 5,000 skills over 3 roots, this code ÷ 570f430";
export const AB_LOAD_WORKLOAD = "full loads of 5,000 skill folders, this code ÷ 570f430";
export const AB_BEFORE_CASE = "570f430 (before issue 41)";
export const AB_NOW_CASE = "this checkout";

/** Workload and case names shared with the bench files (the report finds rows by them). */
export const SKILLS_WORKLOAD = "Agent Skill folders";
/** The discovery workload: skills at depths 2–4 under 3 roots. */
export const DISCOVER_WORKLOAD = "discovery over 3 roots";
/** Its baseline: a bare recursive readdir of the trees plus a read of each SKILL.md. */
export const DISCOVER_BARE_CASE = "bare: recursive readdir + read every SKILL.md";
/** Its measured case. */
export const DISCOVER_CASE = "discoverSkills";
export const BARE_READ_CASE = "bare: read every SKILL.md";
export const INDEX_CASE = "name+description index";
export const VALIDATE_CASE = "validatePaths";
export const LISTING_CASE = "bound: readdir of each skill's 4 folders";
export const FS_FLOOR_CASE = "bound: readdir of 4 folders + stat of each file + read of SKILL.md";
export const CATALOG_WORKLOAD = "skill catalog: load + resolve";
/** The MCP host's connect of `bench/mcp_connect_bench.ts`, and its cases. */
export const MCP_CONNECT_WORKLOAD =
  "MCP host connect over stdio: spawn to the first resources/list answer (Node processes)";
export const MCP_CONNECT_PEER = "SDK only (skills extension over nodeSkillFiles, stdio)";
export const MCP_CONNECT_OURS = "node dist/bin/skillset.mjs serve (the mcpServers entry)";
export const MCP_CONNECT_TSX = "for scale: the sources through tsx (lib/cli.ts serve)";
/** The CLI start workload of `bench/cli_start_bench.ts`. */
export const CLI_START_WORKLOAD = "CLI start to exit (Node processes)";
export const PARSE_CASE = "parse (loadCatalog)";
export const RESOLVE_CASE = "resolve (resolveTools)";
/** The tool policy: deciding calls on a compiled policy, against its floor. */
export const POLICY_DECIDE_WORKLOAD = "tool policy: decide 1,000 calls, 50 skills, 2,000 tools";
export const POLICY_DECIDE_FLOOR = "floor: Set.has + one prefix test per call";
export const POLICY_DECIDE_CASE = "ToolPolicy.decide";
/** The tool policy: compiling it once per active set, against building a Set of its names. */
export const POLICY_COMPILE_WORKLOAD = "tool policy: compile, 50 skills, 2,000 tools";
export const POLICY_COMPILE_FLOOR = "floor: a Set of the same names";
export const POLICY_COMPILE_CASE = "compileToolPolicy";
export const BASE64_WORKLOAD = "base64 (bytes)";
export const BASE64_CASE = "encodeBase64";
export const MEMORY_WORKLOAD = "peak heap, random DAG";
export const MEMORY_CASE = "resolveTools (peak)";
export const MEMORY_BASELINE = "entries in a Map (peak)";
/** Skill search (bench/search_bench.ts): quality on the held-out queries, cost on 10,000 skills. */
export const SEARCH_EVAL_WORKLOAD = "skill search evaluation";
export const SEARCH_USER_WORKLOAD = "skill search evaluation, user-phrased requests";
/** The same evaluation's requests no skill serves (size: how many). */
export const SEARCH_NOMATCH_WORKLOAD = "skill search evaluation, requests no skill serves";
export const SEARCH_SCALE_WORKLOAD = "skill index build";
export const SEARCH_BUILD_FLOOR = "floor: tokenize every name, description and body";
export const SEARCH_BUILD_CASE = "createSkillIndex";
export const SEARCH_QUERY_WORKLOAD = "skill search query";
export const SEARCH_QUERY_FLOOR = "floor: walk the query's postings, sum counts";
export const SEARCH_QUERY_CASE = "searchSkills (limit 10)";
export const EVAL_WORKLOAD = "skillset eval, 20 trigger queries per skill";
export const EVAL_FLOOR = "floor: discover, index, one searchSkills per query";
export const EVAL_CASE = "skillset eval --json (in process)";
export const EVAL_CPU_CASE = "skillset eval --json, CPU seconds of one run";
export const LAZY_BUILD_WORKLOAD = "skill index build, bodies read lazily from disk";
export const LAZY_BUILD_FLOOR = "floor: tokenize every name, description and body (in memory)";
export const LAZY_BUILD_CASE = "createSkillIndex(discovery.skills)";
export const LAZY_BUILD_CPU_FLOOR = "floor, CPU time: tokenize every name, description and body";
export const LAZY_BUILD_CPU_CASE = "createSkillIndex(discovery.skills), CPU time";
/** The prompt catalog (bench/catalog_bench.ts): with modes and the report, against before them. */
export const PROMPT_CATALOG_WORKLOAD = "prompt catalog, 16,000-character budget";
export const CATALOG_BASELINE = "fitSkillCatalog before issue 34";
export const CATALOG_MODES_CASE = "fitSkillCatalog with modes, exclusions and the report";
export const CATALOG_RANKED_CASE =
  "fitSkillCatalog with modes, exclusions, the report and a usage rank tallied once";
export const CATALOG_ALL_CASE =
  "fitSkillCatalog with modes, exclusions, the report and usage rank (100,000 events)";
/** The prompt catalog under a profile and paths (bench/catalog_profile_bench.ts), against today's. */
export const PROFILE_CATALOG_BASELINE = "fitSkillCatalog, no profile, no paths (today)";
export const PROFILE_CATALOG_CASE =
  "with a 20-glob profile, 1,000 skills with paths, 1,000 host paths";
export const PROFILE_CATALOG_ALL_CASE =
  "with a 20-glob profile keeping every skill, 1,000 skills with paths, all matching";

const COLORS: Record<string, string> = {
  "resolveTools": "#d62728",
  "floor (a)": "#1f77b4",
  "floor (b)": "#17becf",
  "Immutable.js": "#9467bd",
  "naive reference": "#ff7f0e",
};
const DASH: Record<Runtime, string> = { node: "", deno: "8 4", bun: "2 3" };

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * One family's chart: median time against size, log–log, every resolver and runtime.
 *
 * @param files The results files.
 * @param family The family.
 * @returns The SVG text.
 */
export function familySvg(files: readonly ResultsFile[], family: string): string {
  const series: { name: string; runtime: Runtime; points: [number, number][] }[] = [];
  for (const file of files) {
    for (const name of RESOLVERS) {
      const points = file.rows
        .filter((r) =>
          r.bench === "resolve" && r.workload === family && r.case === name && r.median !== null
        )
        .map((r): [number, number] => [r.size, r.median!])
        .sort((a, b) => a[0] - b[0]);
      if (points.length > 0) series.push({ name, runtime: file.runtime, points });
    }
  }
  const W = 640, H = 420, left = 70, right = 170, top = 30, bottom = 50;
  const all = series.flatMap((s) => s.points);
  const xs = all.map(([x]) => Math.log10(x)), ys = all.map(([, y]) => Math.log10(y));
  const x0 = Math.floor(Math.min(...xs, 3)), x1 = Math.ceil(Math.max(...xs, 4));
  const y0 = Math.floor(Math.min(...ys, 3)), y1 = Math.ceil(Math.max(...ys, 4));
  const px = (x: number) => left + ((Math.log10(x) - x0) / (x1 - x0)) * (W - left - right);
  const py = (y: number) => H - bottom - ((Math.log10(y) - y0) / (y1 - y0)) * (H - top - bottom);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${left}" y="18" font-size="14">${
      escapeXml(family)
    }: median time against declared tools (log–log)</text>`,
  ];
  for (let e = x0; e <= x1; e++) {
    const x = px(10 ** e);
    out.push(
      `<line x1="${x}" y1="${top}" x2="${x}" y2="${H - bottom}" stroke="#ddd"/>`,
      `<text x="${x}" y="${H - bottom + 16}" text-anchor="middle">10^${e}</text>`,
    );
  }
  for (let e = y0; e <= y1; e++) {
    const y = py(10 ** e);
    out.push(
      `<line x1="${left}" y1="${y}" x2="${W - right}" y2="${y}" stroke="#ddd"/>`,
      `<text x="${left - 6}" y="${y + 4}" text-anchor="end">${time(10 ** e)}</text>`,
    );
  }
  out.push(
    `<text x="${(left + W - right) / 2}" y="${H - 12}" text-anchor="middle">declared tools</text>`,
  );
  for (const s of series) {
    const d = s.points.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(" ");
    const dash = DASH[s.runtime] === "" ? "" : ` stroke-dasharray="${DASH[s.runtime]}"`;
    out.push(
      `<polyline points="${d}" fill="none" stroke="${COLORS[s.name]}" stroke-width="2"${dash}/>`,
    );
    for (const [x, y] of s.points) {
      out.push(
        `<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="2.5" fill="${
          COLORS[s.name]
        }"/>`,
      );
    }
  }
  let ly = top + 10;
  for (const name of RESOLVERS) {
    out.push(
      `<line x1="${W - right + 12}" y1="${ly}" x2="${W - right + 36}" y2="${ly}" stroke="${
        COLORS[name]
      }" stroke-width="2"/>`,
      `<text x="${W - right + 42}" y="${ly + 4}">${escapeXml(name)}</text>`,
    );
    ly += 18;
  }
  ly += 8;
  for (const runtime of RUNTIMES) {
    const dash = DASH[runtime] === "" ? "" : ` stroke-dasharray="${DASH[runtime]}"`;
    out.push(
      `<line x1="${W - right + 12}" y1="${ly}" x2="${
        W - right + 36
      }" y2="${ly}" stroke="black" stroke-width="2"${dash}/>`,
      `<text x="${W - right + 42}" y="${ly + 4}">${runtime}</text>`,
    );
    ly += 18;
  }
  out.push("</svg>");
  return out.join("\n") + "\n";
}

/** Options of {@linkcode renderResults}. */
export interface ReportOptions {
  readonly quick: boolean;
  readonly elapsedSeconds?: number;
  /** The bench names asked for (`npm run bench -- NAME…`); empty for a full run. */
  readonly only?: readonly string[];
  /** Where the plots are, relative to the report. */
  readonly plots: string;
}

/**
 * The whole `RESULTS.md`.
 *
 * @param files The results files (one per runtime).
 * @param options Quick or full, elapsed time, the plots' folder.
 * @returns The Markdown.
 */
export function renderResults(files: readonly ResultsFile[], options: ReportOptions): string {
  const md: string[] = [];
  const first = files[0];
  md.push("# Benchmark results", "");
  const only = options.only ?? [];
  const args = [...(options.quick ? ["--quick"] : []), ...only].join(" ");
  const took = options.elapsedSeconds === undefined
    ? ""
    : ` in ${(options.elapsedSeconds / 60).toFixed(1)} min`;
  md.push(
    (only.length === 0
      ? `Written by \`npm run bench${args === "" ? "" : ` -- ${args}`}\` (bench/run.ts)${took}. `
      : `Last updated by \`npm run bench -- ${args}\` (bench/run.ts)${took}; the other ` +
        "benches' rows are kept from earlier runs (each runtime's date below is its last run). ") +
      `Machine: ${first?.machine ?? "unknown"} — a 2-core virtual machine on a ` +
      "shared host, so absolute times are noisy; " +
      "every ratio compares cases timed one after another in the same process. Times are " +
      "medians (p75 and p99 are in the JSON files).",
    "",
    "The full run is kept under 20 minutes on 2 cores (it took 28 min with the serve benches " +
      "added): Immutable.js (8 s a run) and `ordered_map` (20 s a runtime) stop at 10^5, the " +
      "naive reference's ladders at 14 rungs, `lock` takes 4 rounds instead of 7, the serve " +
      "reads 5 instead of 6, `parse_scaling` 3 to 5 samples instead of 5 to 20, and a fast " +
      "case 250 ms of samples instead of 400.",
    "",
  );
  md.push("| runtime | version | date |", "|---|---|---|");
  for (const f of files) md.push(`| ${f.runtime} | ${f.version} | ${f.date} |`);
  md.push("");

  // Headline.
  md.push("## Headline", "");
  md.push(
    "resolveTools on the 10^6 random DAG (or the largest size run), as a ratio of the floors measured in the same run:",
    "",
  );
  md.push(
    "| runtime | size | resolveTools | floor (a) | floor (b) | ÷ floor (a) | ÷ floor (b) | Immutable.js ÷ floor (a) |",
    "|---|---|---|---|---|---|---|---|",
  );
  for (const f of files) md.push(headlineRow(f));
  md.push("");

  // Targets.
  md.push("## Targets (worst runtime)", "");
  md.push(
    `| target | bound | ${files.map((f) => f.runtime).join(" | ")} | met |`,
    `|---|---|${files.map(() => "---|").join("")}---|`,
  );
  for (const t of targets(files)) {
    const cells = files.map((f) => {
      const v = t.values.get(f.runtime);
      return v === null || v === undefined ? "—" : `${v.value.toFixed(2)} (${v.where})`;
    });
    const measured = [...t.values.values()].filter((v) => v !== null && v !== undefined);
    const met = measured.length === 0
      ? "not measured"
      : measured.every((v) => (t.atLeast === true ? v!.value >= t.bound : v!.value <= t.bound))
      ? "yes"
      : "**no**";
    md.push(
      `| ${t.what} | ${t.atLeast === true ? "≥" : "≤"} ${t.bound} | ${
        cells.join(" | ")
      } | ${met} |`,
    );
  }
  md.push("");
  md.push(...searchEvaluation(files));
  md.push(...userEvaluation(files));

  md.push(...bounds(files), "");

  // Slopes.
  md.push("## Scaling: log–log slope of time against declared tools (10^3…10^6)", "");
  md.push("A slope above 1.15 for resolveTools is a regression to explain.", "");
  md.push(
    `| family | resolver | ${files.map((f) => f.runtime).join(" | ")} |`,
    `|---|---|${files.map(() => "---|").join("")}`,
  );
  for (const family of FAMILIES) {
    for (const name of RESOLVERS.slice(0, 4)) {
      const cells = files.map((f) => {
        const s = slope(f, family, name);
        return s === null ? "—" : s.toFixed(2);
      });
      md.push(`| ${family} | ${name} | ${cells.join(" | ")} |`);
    }
    const excess = files.map((f) => {
      const ours = slope(f, family, "resolveTools"), floor = slope(f, family, "floor (a)");
      return ours === null || floor === null ? "—" : (ours - floor).toFixed(2);
    });
    md.push(`| ${family} | *resolveTools − floor (a)* | ${excess.join(" | ")} |`);
  }
  md.push("");

  // Plots.
  md.push("## Plots", "");
  // The ladder's extra sizes, below the family sizes: 20 declared tools a rung.
  const ladders = [
    ...new Set(
      files.flatMap((f) =>
        f.rows.filter((r) => r.bench === "resolve" && r.workload === "ladder" && r.size < 1e3)
          .map((r) => r.size)
      ),
    ),
  ].sort((a, b) => a - b);
  md.push(
    "Median time against declared tools, log–log; colour = resolver, line style = runtime (solid Node, dashed Deno, dotted Bun)." +
      (ladders.length === 0
        ? ""
        : ` The ladder's extra sizes (${ladders[0]}–${ladders.at(-1)} declared tools, ${
          ladders[0]! / 20
        }–${
          ladders.at(-1)! / 20
        } rungs) are where the naive reference can still finish: its time doubles per rung.`),
    "",
  );
  for (const family of FAMILIES) md.push(`![${family}](${options.plots}/${family}.svg)`, "");

  // Every group.
  md.push("## Every measurement", "");
  md.push(
    "Median per runtime, with the ratio to the group's baseline (the first case marked *baseline*) in the same run.",
    "",
  );
  const groups = new Map<string, { bench: string; workload: string; size: number }>();
  for (const f of files) {
    for (const r of f.rows) {
      groups.set(`${r.bench}\u0000${r.workload}\u0000${r.size}`, r);
    }
  }
  let bench = "";
  for (const g of groups.values()) {
    if (g.bench !== bench) {
      bench = g.bench;
      md.push(`### ${bench}`, "");
    }
    md.push(`**${g.workload} @ ${size(g.size)}**`, "");
    md.push(
      `| case | ${files.map((f) => f.runtime).join(" | ")} |`,
      `|---|${files.map(() => "---|").join("")}`,
    );
    const names: string[] = [];
    for (const f of files) {
      for (const r of f.rows) {
        if (
          r.bench === g.bench && r.workload === g.workload && r.size === g.size &&
          !names.includes(r.case)
        ) names.push(r.case);
      }
    }
    for (const name of names) {
      let isBase = false;
      const cells = files.map((f) => {
        const r = find(f, g.bench, g.workload, g.size, name);
        if (r === undefined) return "—";
        if (r.baseline === name) isBase = true;
        if (r.value !== undefined) {
          // Only the memory benches record bytes; other values are ratios, counts or milliseconds.
          const shown = BYTE_BENCHES.has(r.bench)
            ? `${(r.value / 2 ** 20).toFixed(1)} MiB`
            : Number(r.value.toPrecision(4)).toString();
          return `${shown}${r.note === undefined ? "" : ` (${r.note})`}`;
        }
        if (r.median === null) return `skipped: ${r.note}`;
        return `${time(r.median)} (${ratio(r.ratio)})`;
      });
      md.push(`| ${name}${isBase ? " *baseline*" : ""} | ${cells.join(" | ")} |`);
    }
    md.push("");
  }
  return md.join("\n");
}

/** A row of the user-phrased search evaluation, for the targets. */
function userValue(file: ResultsFile, metric: string): { value: number; where: string } | null {
  const row = file.rows.find((r) =>
    r.workload === SEARCH_USER_WORKLOAD && r.case === `searchSkills (bodies) ${metric}`
  );
  return row?.value === undefined ? null : { value: row.value, where: `${row.size} requests` };
}

/** The user-phrased search evaluation: per split, group and ranker (the same on every runtime). */
function userEvaluation(files: readonly ResultsFile[]): string[] {
  const file = files.find((f) => f.rows.some((r) => r.workload === SEARCH_USER_WORKLOAD));
  if (file === undefined) return [];
  const rows = file.rows.filter((r) => r.workload === SEARCH_USER_WORKLOAD);
  const out = [
    `## Skill search on user-phrased requests (${file.runtime}; deterministic)`,
    "",
    "Requests written the way users ask for tasks (bench/search_eval/requests.json: plain, in other languages, with typos; `n` is how many each row counts), over five public collections, each with the skills that would serve it, chosen by reading the skills; recall and MRR count only requests some skill serves. The split is fixed by a hash of the query; only the tune split was looked at while choosing parameters. Each collection is its own library. `searchSkills (bodies)` indexes each SKILL.md body and applies the no-match threshold; `old ranker` is the index before issue 30 (names and descriptions).",
    "",
    "| split | requests | n | ranker | recall@1 | recall@5 | MRR |",
    "|---|---|---|---|---|---|---|",
  ];
  const seen = new Set<string>();
  for (const r of rows) {
    const m = /^(.*) (recall@1|recall@5|MRR) \((eval|tune), (.*)\)$/.exec(r.case);
    if (m === null || seen.has(`${m[1]}|${m[3]}|${m[4]}`)) continue;
    seen.add(`${m[1]}|${m[3]}|${m[4]}`);
    const get = (metric: string) =>
      rows.find((x) => x.case === `${m[1]} ${metric} (${m[3]}, ${m[4]})`)?.value ?? NaN;
    out.push(
      `| ${m[3]} | ${m[4]} | ${r.size} | ${m[1]} | ${get("recall@1").toFixed(2)} | ${
        get("recall@5").toFixed(2)
      } | ${get("MRR").toFixed(3)} |`,
    );
  }
  out.push("");
  const none = file.rows.filter((r) => r.workload === SEARCH_NOMATCH_WORKLOAD);
  if (none.length > 0) {
    out.push(
      "Requests no skill of the collection serves: `said none` is the share of them answered with nothing, `precision` the share of empty answers that were such requests, `lost` the share of servable requests answered with nothing.",
      "",
      "| split | no-match requests | ranker | said none | precision | lost |",
      "|---|---|---|---|---|---|",
    );
    const seenNone = new Set<string>();
    for (const r of none) {
      const m = /^(.*) (said none|no-match precision|servable lost) \((eval|tune)\)$/.exec(r.case);
      if (m === null || seenNone.has(`${m[1]}|${m[3]}`)) continue;
      seenNone.add(`${m[1]}|${m[3]}`);
      const get = (metric: string) =>
        none.find((x) => x.case === `${m[1]} ${metric} (${m[3]})`)?.value ?? NaN;
      out.push(
        `| ${m[3]} | ${r.size} | ${m[1]} | ${get("said none").toFixed(2)} | ${
          get("no-match precision").toFixed(2)
        } | ${get("servable lost").toFixed(2)} |`,
      );
    }
    out.push("");
  }
  return out;
}

/** The skill search evaluation: recall@1, recall@5 and MRR per ranker and split (the same on every runtime). */
function searchEvaluation(files: readonly ResultsFile[]): string[] {
  const file = files.find((f) => f.rows.some((r) => r.workload === SEARCH_EVAL_WORKLOAD));
  if (file === undefined) return [];
  const rows = file.rows.filter((r) => r.workload === SEARCH_EVAL_WORKLOAD);
  const value = (name: string) => rows.find((r) => r.case === name)?.value;
  const out = [
    `## Skill search evaluation (${file.runtime}; deterministic, the same on every runtime)`,
    "",
    "929 skills of four collections (tests/fixtures/skill_collections), queries in bench/search_queries.json, one expected skill each; these queries paraphrase the skills' own descriptions, so they measure little (see the user-phrased evaluation). The tune split decided the parameters (stemming on: it raised the tune split's MRR); the eval split is never used for tuning.",
    "",
    "| ranker | split | queries | recall@1 | recall@5 | MRR |",
    "|---|---|---|---|---|---|",
  ];
  for (const split of ["eval", "tune"]) {
    for (const ranker of ["BM25 (searchSkills)", "BM25, no stemming", "substring baseline"]) {
      const get = (m: string) => value(`${ranker} ${m} (${split})`);
      const r1 = get("recall@1"), r5 = get("recall@5"), mrr = get("MRR");
      if (r1 === undefined || r5 === undefined || mrr === undefined) continue;
      const n = rows.find((r) => r.case === `${ranker} MRR (${split})`)!.size;
      out.push(
        `| ${ranker} | ${split} | ${n} | ${r1.toFixed(2)} | ${r5.toFixed(2)} | ${mrr.toFixed(3)} |`,
      );
    }
  }
  out.push("");
  return out;
}

/** What bounds the targets that depend on more than this code: measured, from the same rows. */
function bounds(files: readonly ResultsFile[]): string[] {
  const out: string[] = ["What bounds them, from the rows below:", ""];
  for (const f of files) {
    let worstFamily = "", worstSlope = -Infinity;
    for (const family of FAMILIES) {
      const s = slope(f, family, "resolveTools");
      if (s !== null && s > worstSlope) [worstFamily, worstSlope] = [family, s];
    }
    const floor = slope(f, worstFamily, "floor (a)");
    const floorB = slope(f, worstFamily, "floor (b)");
    if (floor !== null && floorB !== null) {
      out.push(
        `- ${f.runtime}: resolveTools' steepest slope is ${
          worstSlope.toFixed(2)
        } (${worstFamily}); on the same family floor (a) has ${floor.toFixed(2)} and floor (b) ${
          floorB.toFixed(2)
        } — the floors allocate one entry per tool and nothing else, so a slope above 1 there is the runtime's (garbage collection and cache misses as the heap grows), not the algorithm's.`,
      );
    }
    const ratioOf = (name: string) =>
      f.rows.find((r) => r.workload === SKILLS_WORKLOAD && r.case === name)?.ratio ?? null;
    const listing = ratioOf(LISTING_CASE), fsFloor = ratioOf(FS_FLOOR_CASE);
    const validate = ratioOf(VALIDATE_CASE);
    if (listing !== null && fsFloor !== null && validate !== null) {
      out.push(
        `- ${f.runtime}: validate lists every file of each skill (its links, pipes, hard links and references are checked against that listing); listing the four folders of every skill alone takes ${
          listing.toFixed(1)
        }× the bare read, and adding a stat of each file and the read of SKILL.md ${
          fsFloor.toFixed(1)
        }×, so validate (${validate.toFixed(1)}×) is ${
          (validate / fsFloor).toFixed(2)
        }× the file-system work it cannot skip.`,
      );
    }
  }
  return out;
}

function headlineRow(f: ResultsFile): string {
  const sizes = f.rows
    .filter((r) => r.bench === "resolve" && r.workload === "random-dag" && r.median !== null)
    .map((r) => r.size);
  if (sizes.length === 0) return `| ${f.runtime} | — | — | — | — | — | — | — |`;
  const at = Math.max(...sizes);
  const get = (name: string) => find(f, "resolve", "random-dag", at, name)?.median ?? null;
  // Immutable.js is left out at the largest sizes: its ratio at the largest it ran.
  const immutableAt = Math.max(
    0,
    ...f.rows
      .filter((r) =>
        r.bench === "resolve" && r.workload === "random-dag" && r.case === "Immutable.js" &&
        r.median !== null && r.size <= at
      )
      .map((r) => r.size),
  );
  const immutable = immutableAt === 0
    ? "—"
    : `${ratio(between(f, "resolve", "random-dag", immutableAt, "Immutable.js", "floor (a)"))}${
      immutableAt === at ? "" : ` (at ${size(immutableAt)})`
    }`;
  return `| ${f.runtime} | ${size(at)} | ${time(get("resolveTools"))} | ${
    time(get("floor (a)"))
  } | ${time(get("floor (b)"))} | ${
    ratio(between(f, "resolve", "random-dag", at, "resolveTools", "floor (a)"))
  } | ${
    ratio(between(f, "resolve", "random-dag", at, "resolveTools", "floor (b)"))
  } | ${immutable} |`;
}

/**
 * Write `RESULTS.md` and the plots.
 *
 * @param files The results files.
 * @param report The path of `RESULTS.md`.
 * @param plots The folder of the SVG files.
 * @param options Quick or full, elapsed time.
 */
export function writeReport(
  files: readonly ResultsFile[],
  report: string,
  plots: string,
  options: Omit<ReportOptions, "plots">,
): void {
  mkdirSync(plots, { recursive: true });
  for (const family of FAMILIES) {
    writeFileSync(join(plots, `${family}.svg`), familySvg(files, family));
  }
  const rel = relative(join(report, ".."), plots).split("\\").join("/");
  writeFileSync(report, renderResults(files, { ...options, plots: rel }) + "\n");
}

/** The serve bench (bench/serve_bench.ts) and its load test (bench/serve_load_bench.ts). */
export const SERVE_BENCH = "serve";
export const SERVE_LOAD_BENCH = "serve_load";
export const SERVE_PEER = "SDK only (SkillsExtension over nodeSkillFiles)";
export const SERVE_OURS = "skillset serve";
export const SERVE_COLD = "cold start to the first resources/list answer";
export const SERVE_READ_1 = "resources/read over HTTP, 1 client (time per read)";
export const SERVE_READ_32 = "resources/read over HTTP, 32 clients (time per read)";
/** The server's CPU per read, by the read workload it was measured in. */
export const SERVE_CPU: Readonly<Record<string, string>> = Object.freeze({
  [SERVE_READ_1]: "server CPU per resources/read, 1 client",
  [SERVE_READ_32]: "server CPU per resources/read, 32 clients",
});
export const SERVE_LOAD_REQUESTS = "20,000 requests over HTTP";
export const SERVE_LOAD_ABANDONED = "1,000 abandoned clients";
export const SERVE_LOAD_HALF_SENT = "1,100 half-sent requests";
export const SERVE_LOAD_STALLED = "300 stalled bodies, bad Host";
