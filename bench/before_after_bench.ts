/**
 * An A/B guard against slow drift: `validate`, discovery and full loads of
 * 5,000 Agent Skill folders, timed against the same calls of the code at
 * commit 570f430 (before issue 41's validate classes, quiet output and typo
 * checks), in alternating rounds of one group each, medians compared; and
 * the same pairs in CPU time (rows `<workload>, CPU time`), the ratio to read
 * on a machine other processes load. The old code is taken from git with
 * `git archive` into a temporary folder whose `node_modules` links to this
 * checkout's, and imported from there.
 * Run: `npm run bench -- before_after`.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as now from "../lib/load.ts";
import process from "node:process";
import { skillFolder, skillRoots } from "./_skill_roots.ts";
import { QUICK, recordValue, timeGroup } from "./_harness.ts";
import {
  AB_BEFORE_CASE,
  AB_COMMIT,
  AB_DISCOVER_WORKLOAD,
  AB_LOAD_WORKLOAD,
  AB_NOW_CASE,
  AB_VALIDATE_WORKLOAD,
} from "./_report.ts";

const ROOT = resolve(import.meta.dirname ?? ".", "..");
const SKILLS = QUICK ? 500 : 5000;
const temp = mkdtempSync(join(tmpdir(), "skillset-before-after-"));

// The code before: lib/ and mod.ts at the commit, beside a link to this checkout's node_modules.
const before = join(temp, "before");
mkdirSync(before);
const archive = spawnSync("git", [
  "-C",
  ROOT,
  "archive",
  "--format=tar",
  AB_COMMIT,
  "lib",
  "mod.ts",
], {
  maxBuffer: 256 << 20,
});
if (archive.status !== 0) {
  throw new Error(`git archive ${AB_COMMIT} failed: ${archive.stderr.toString().trim()}`);
}
const untar = spawnSync("tar", ["-x", "-C", before], { input: archive.stdout });
if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr.toString().trim()}`);
symlinkSync(join(ROOT, "node_modules"), join(before, "node_modules"), "dir");
const old = await import(pathToFileURL(join(before, "lib", "load.ts")).href) as typeof now;

/**
 * A SKILL.md body like the public collections': prose with links and paths,
 * a code block that runs a script and writes an output, an example
 * placeholder, and a path the skill lacks.
 */
function body(i: number): string {
  return [
    `# Skill ${i}`,
    "",
    "Read [the guide](references/guide.md) and fill `assets/template.txt`.",
    "For the forms, see references/forms.md; the checklist is in `references/missing.md`.",
    "",
    "```bash",
    `python scripts/run.py --input data/sample-${i}.csv -o results/report-${i}.json`,
    "mkdir -p out && cd out",
    "```",
    "",
    "Put your data in ./your_data/input.csv and save the figure to figures/plot.png.",
    "",
  ].join("\n");
}

// 5,000 folders, spread over 3 roots at depths 2 to 4 (discovery), each also named on its own
// (validate, full loads).
const roots = skillRoots(temp);
const folders: string[] = [];
for (let i = 0; i < SKILLS; i++) {
  const name = `skill-${i}`;
  const dir = skillFolder(roots, i);
  mkdirSync(join(dir, "references"), { recursive: true });
  mkdirSync(join(dir, "assets"));
  mkdirSync(join(dir, "scripts"));
  writeFileSync(
    join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: "Skill number ${i}: use it for task ${i}."\nlicense: MIT\n` +
      `metadata:\n  author: bench\n  version: "1.${i % 10}"\n---\n${body(i)}`,
  );
  writeFileSync(join(dir, "references", "guide.md"), "# Guide\n");
  writeFileSync(join(dir, "references", "forms.md"), "# Forms\n");
  writeFileSync(join(dir, "assets", "template.txt"), "Name: ____\n");
  writeFileSync(join(dir, "scripts", "run.py"), "print('hi')\n");
  folders.push(dir);
}

const options = { maxFolders: 20_000 };
// Both versions see the same skills; validate finds the one missing reference of each.
for (const lib of [now, old]) {
  const found = lib.discoverSkills(roots, options).skills.length;
  if (found !== SKILLS) throw new Error(`expected ${SKILLS} skills, found ${found}`);
  const missing = lib.validatePaths(folders).filter((d) => d.message.includes("missing.md"));
  if (missing.length !== SKILLS) throw new Error(`expected ${SKILLS} findings, ${missing.length}`);
}

const pair = (fn: (lib: typeof now) => unknown) => [
  { name: AB_BEFORE_CASE, fn: () => fn(old), baseline: true },
  { name: AB_NOW_CASE, fn: () => fn(now) },
];

/** CPU time of one run, in ns: on a shared machine wall time also charges other processes. */
function cpu(run: () => unknown): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) * 1000;
}

/**
 * The same pair in CPU time, alternating rounds, as rows of their own (`<workload>, CPU time`):
 * the ratio to read when the machine was loaded.
 */
function cpuRounds(workload: string, fn: (lib: typeof now) => unknown): void {
  const times = new Map<typeof now, number[]>([[old, []], [now, []]]);
  for (let round = 0; round < CPU_ROUNDS; round++) {
    for (const lib of round % 2 === 0 ? [old, now] : [now, old]) {
      times.get(lib)!.push(cpu(() => fn(lib)));
    }
  }
  const q = (ts: number[], p: number) =>
    [...ts].sort((a, b) => a - b)[Math.floor(p * (ts.length - 1))]!;
  const base = q(times.get(old)!, 0.5);
  for (const [lib, name] of [[old, AB_BEFORE_CASE], [now, AB_NOW_CASE]] as const) {
    const ts = times.get(lib)!;
    recordValue({
      bench: "before_after",
      workload: `${workload}, CPU time`,
      size: SKILLS,
      case: name,
      median: q(ts, 0.5),
      p75: q(ts, 0.75),
      p99: q(ts, 0.99),
      samples: ts.length,
      baseline: AB_BEFORE_CASE,
      ratio: q(ts, 0.5) / base,
    });
  }
}

const CPU_ROUNDS = QUICK ? 3 : 7;
const groups: [string, (lib: typeof now) => unknown][] = [
  [AB_VALIDATE_WORKLOAD, (lib) => lib.validatePaths(folders).length],
  [AB_DISCOVER_WORKLOAD, (lib) => lib.discoverSkills(roots, options).skills.length],
  [
    AB_LOAD_WORKLOAD,
    (lib) => folders.reduce((n, dir) => n + lib.loadSkillFolder(dir).files.size, 0),
  ],
];
for (const [workload, fn] of groups) {
  await timeGroup("before_after", workload, SKILLS, pair(fn), { interleave: true });
  cpuRounds(workload, fn);
}

rmSync(temp, { recursive: true, force: true });
