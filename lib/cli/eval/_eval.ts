/**
 * `skillset eval`: each discovered skill's `evals/trigger-eval.json` (the
 * skill-creator format), or a `--evals FILE` mapping skill names to such
 * lists, routed through the search over the whole collection; per skill the
 * counts, recall and precision, each miss with the winner and the terms that
 * decided it, the pairs of skills likely to be confused; text, JSON or JUnit;
 * exit 1 under `--min-recall` or `--min-precision`. `--runner CMD` is the live
 * tier: the command reads `{ "catalog": [{ name, description }], "query" }` as
 * JSON on stdin and prints the name of the skill it picks (nothing: none).
 *
 * Folder `lib/cli/eval/` — the skill author's kit: trigger evaluations and confusable descriptions.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { realpathSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { createSkillIndex } from "../../core/search/skill_index.ts";
import {
  confusableSkills,
  evaluateTriggers,
  parseTriggerEvals,
  type TriggerCase,
  type TriggerReport,
} from "../../core/search/trigger_eval.ts";
import { readRegularFile } from "../../fs/_safe_open.ts";
import { type Args, type ArgSpec, UsageError } from "../_args.ts";
import { discoveryFlags, listDiscovery } from "../_discovery.ts";
import type { CliIO } from "../_io.ts";
import { PROFILE_FLAGS, profiledSkills, profileFlags } from "../catalog/_profile.ts";

/** The flags and help of `eval`. */
export const EVAL_COMMAND: ArgSpec & { readonly help: string } = {
  values: [
    "--root",
    "--class",
    "--junit",
    "--min-recall",
    "--min-precision",
    "--runner",
    "--evals",
    ...PROFILE_FLAGS.values,
  ],
  repeated: ["--root", "--class", ...PROFILE_FLAGS.repeated],
  switches: ["--allow-empty"],
  positional: [0, Infinity],
  usage: "skillset eval [folder]... [--root scope=path]... [--evals FILE] [--junit FILE] " +
    `[--min-recall X] [--min-precision Y] [--runner CMD] ${PROFILE_FLAGS.usage} [--allow-empty] [--json]`,
  help: "Check which requests pick each skill: every case of a skill's evals/trigger-eval.json\n" +
    '([{"query": ..., "should_trigger": true|false}]; --evals FILE: {"skill": [...]}) is searched\n' +
    "over all the skills found (roots as in list); a skill triggers when it ranks first above the\n" +
    "no-match threshold. Prints per skill true/false positives and negatives, recall, precision,\n" +
    "each miss with the skill that won and the terms that decided it, and the pairs of skills\n" +
    "whose descriptions are likely to be confused. --junit FILE writes a JUnit report. Exits 1\n" +
    "when a skill's recall is under --min-recall or its precision under --min-precision.\n" +
    "--runner CMD: the live tier; CMD reads {catalog, query} as JSON on stdin and prints the\n" +
    "name of the skill it picks.\n" +
    "--profile NAME evaluates among that profile's skills only (a case of a skill it leaves out is\n" +
    "not run); --paths PATH leaves out a skill with paths none of which matches. A profile that\n" +
    "matches no skill is an error unless --allow-empty.",
};

/** The largest trigger-eval file read. */
const MAX_EVAL_BYTES = 4 * 1024 * 1024;
/** How long the runner may take for one query. */
const RUNNER_TIMEOUT_MS = 120_000;

function fraction(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !(n >= 0 && n <= 1)) {
    throw new UsageError(`${flag} takes a number from 0 to 1, got "${value}"`);
  }
  return n;
}

function readJson(path: string): unknown {
  const bytes = readRegularFile(path, MAX_EVAL_BYTES);
  if (bytes.length > MAX_EVAL_BYTES) {
    throw new UsageError(`${JSON.stringify(path)} is larger than ${MAX_EVAL_BYTES} bytes`);
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new UsageError(`${JSON.stringify(path)} is not JSON: ${(e as Error).message}`);
  }
}

/** A skill's own evals file, when its `evals` folder is really inside the skill folder. */
function ownEvals(realPath: string): string | undefined {
  let dir: string;
  try {
    dir = realpathSync(join(realPath, "evals"));
  } catch {
    return undefined;
  }
  if (!dir.startsWith(realPath.endsWith(sep) ? realPath : realPath + sep)) return undefined;
  return join(dir, "trigger-eval.json");
}

/**
 * `eval` from its parsed command line.
 *
 * @param args The parsed arguments.
 * @param io Where to write.
 * @returns The exit code: 1 under a threshold or with no evals found.
 * @throws {UsageError} For a bad flag value or an evals file that is not the format.
 */
export function runEval(args: Args, io: CliIO): number {
  const minRecall = fraction("--min-recall", args.flags.get("--min-recall"));
  const minPrecision = fraction("--min-precision", args.flags.get("--min-precision"));
  const found = listDiscovery(
    args.positional,
    args.repeated.get("--root") ?? [],
    discoveryFlags(args),
  ).discovery;
  const { kept, left } = profiledSkills(
    profileFlags(args.flags, args.repeated, args.switches),
    found.skills,
  );
  const discovery = { skills: kept };
  const names = new Set(kept.map((s) => s.name));
  const evals = new Map<string, readonly TriggerCase[]>();
  const mapping = args.flags.get("--evals");
  if (mapping !== undefined) {
    const data = readJson(mapping);
    if (typeof data !== "object" || data === null || Array.isArray(data)) {
      throw new UsageError(`--evals takes a JSON object of skill names to lists of cases`);
    }
    for (const [name, list] of Object.entries(data)) {
      try {
        evals.set(name, parseTriggerEvals(list, `${mapping}: ${name}`));
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
    }
  }
  for (const s of discovery.skills) {
    if (evals.has(s.name)) continue;
    const file = ownEvals(s.real_path);
    if (file === undefined) continue;
    let data: unknown;
    try {
      data = readJson(file);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      continue; // No file (or not a regular one): the skill has no evals.
    }
    try {
      evals.set(s.name, parseTriggerEvals(data, file));
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  // The cases of a skill the profile or the paths left out are not run (and not unknown).
  for (const l of left) evals.delete(l.name);
  const unknown = [...evals.keys()].filter((n) => !names.has(n));
  const index = createSkillIndex(discovery.skills);
  const runner = args.flags.get("--runner");
  const catalog = discovery.skills.map((s) => ({ name: s.name, description: s.description }));
  const pick = runner === undefined ? undefined : (query: string): string | null => {
    const run = spawnSync(runner, {
      shell: true,
      input: JSON.stringify({ catalog, query }),
      encoding: "utf8",
      timeout: RUNNER_TIMEOUT_MS,
      maxBuffer: 1024 * 1024,
    });
    if (run.status !== 0) {
      // A runner that exits without reading its input leaves an EPIPE behind: its exit code is the news.
      const why = run.status !== null
        ? `exit ${run.status}`
        : run.error?.message ?? `killed by ${run.signal}`;
      throw new UsageError(`--runner failed for ${JSON.stringify(query)}: ${why}`);
    }
    const name = run.stdout.split("\n")[0]!.trim();
    return name === "" ? null : name;
  };
  const reports = evaluateTriggers(index, evals, pick);
  const pairs = confusableSkills(index, discovery.skills);
  const failing = reports.filter((r) =>
    (minRecall !== undefined && r.recall < minRecall) ||
    (minPrecision !== undefined && r.precision < minPrecision)
  );
  const junit = args.flags.get("--junit");
  if (junit !== undefined) writeFileSync(junit, junitXml(reports));
  const tier = runner === undefined ? "search" : "runner";
  if (args.json) {
    io.stdout(`${
      JSON.stringify(
        {
          tier,
          skills: discovery.skills.length,
          reports,
          confusable: pairs,
          unknown_skills: unknown,
          ...(left.length === 0 ? {} : { left_out: left }),
          failing: failing.map((r) => r.skill),
        },
        null,
        2,
      )
    }\n`);
  } else {
    io.stdout(textReport(reports, pairs, tier));
  }
  for (const n of unknown) io.stderr(`skillset: evals name no skill found: ${JSON.stringify(n)}\n`);
  if (reports.length === 0) {
    io.stderr("skillset: no trigger evals found (evals/trigger-eval.json in a skill folder)\n");
    return 1;
  }
  return failing.length > 0 ? 1 : 0;
}

const ratio = (n: number): string => n.toFixed(2);
const q = (s: string): string => JSON.stringify(s);

function textReport(
  reports: readonly TriggerReport[],
  pairs: ReturnType<typeof confusableSkills>,
  tier: string,
): string {
  const lines: string[] = [];
  let tp = 0, fp = 0, fn = 0;
  for (const r of reports) {
    tp += r.true_positives;
    fp += r.false_positives;
    fn += r.false_negatives;
    lines.push(
      `${r.skill}: recall ${ratio(r.recall)} (${r.true_positives}/${
        r.true_positives + r.false_negatives
      }), precision ${ratio(r.precision)} (${r.true_positives}/${
        r.true_positives + r.false_positives
      }); TP ${r.true_positives} FP ${r.false_positives} FN ${r.false_negatives} TN ${r.true_negatives}`,
    );
    for (const c of r.cases) {
      if (c.passed) continue;
      const why = c.terms.length === 0 ? "" : ` (${c.terms.join(", ")})`;
      lines.push(
        c.should_trigger
          ? `  missed ${q(c.query)}: ${c.winner === null ? "no skill" : q(c.winner)} won${why}`
          : `  triggered on ${q(c.query)}${why}`,
      );
    }
  }
  for (const p of pairs) {
    lines.push(
      `confusable: ${p.skills[0]} ~ ${p.skills[1]} (shared: ${p.shared.join(", ") || "none"})`,
    );
  }
  lines.push(
    `${tier}: ${reports.length} skills, recall ${ratio(tp + fn === 0 ? 1 : tp / (tp + fn))}, ` +
      `precision ${ratio(tp + fp === 0 ? 1 : tp / (tp + fp))}, ${pairs.length} confusable pairs`,
  );
  return `${lines.join("\n")}\n`;
}

function xml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)
    // Characters XML 1.0 cannot carry at all.
    // deno-lint-ignore no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "\ufffd");
}

/**
 * The JUnit XML of the reports: a test suite per skill, a test case per
 * query, a failure for each miss.
 *
 * @param reports The reports.
 * @returns The XML document.
 */
export function junitXml(reports: readonly TriggerReport[]): string {
  const suites = reports.map((r) => {
    const failures = r.false_negatives + r.false_positives;
    const cases = r.cases.map((c) => {
      const name = `${c.should_trigger ? "triggers" : "does not trigger"} on ${c.query}`;
      const failure = c.passed ? "" : `<failure message="${
        xml(
          c.should_trigger
            ? `missed: ${c.winner ?? "no skill"} won ${c.terms.join(", ")}`
            : `triggered: ${c.terms.join(", ")}`,
        )
      }"/>`;
      return `    <testcase classname="${xml(r.skill)}" name="${xml(name)}">${failure}</testcase>`;
    });
    return `  <testsuite name="${
      xml(r.skill)
    }" tests="${r.cases.length}" failures="${failures}">\n${cases.join("\n")}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="skillset eval">\n${
    suites.join("\n")
  }\n</testsuites>\n`;
}
