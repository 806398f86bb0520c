/**
 * The sandbox's start cost: `runSkillScript` of a trivial script (gate,
 * reading the skill, a fresh private folder, bubblewrap with its limits,
 * capped output, clean-up) against a plain spawn of the same interpreter on
 * the same file in the same run — Python (`print("ok")`) and the runtime
 * running this file (`console.log("ok")`). Rounds alternate the cases so
 * machine noise hits both; rows are medians, read as ratios.
 * Run: `npm run bench -- run_script`.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { loadSkillFolder, runSkillScript } from "../lib/load.ts";
import {
  bubblewrapArgv,
  isRoot,
  runtime,
  SANDBOX_SKILL,
  sandboxTools,
  systemProgram,
} from "../lib/fs/scripts/_sandbox.ts";
import { chownSync, mkdirSync } from "node:fs";
import { SANDBOX_FIRST_UID, SANDBOX_GID } from "../lib/fs/scripts/_run_limits.ts";
import { put } from "../tests/_tree.ts";
import { QUICK, recordValue } from "./_harness.ts";

const BENCH = "run_script";
const ROUNDS = QUICK ? 7 : 25;

const root = mkdtempSync(join(tmpdir(), "skillset-run-bench-"));
chmodSync(root, 0o755);
const dir = join(root, "trivial");
put(dir, "SKILL.md", "---\nname: trivial\ndescription: A trivial script\n---\nRun it.\n");
put(dir, "scripts/ok.py", 'print("ok")\n');
put(dir, "scripts/ok.mjs", 'console.log("ok");\n');
const skill = loadSkillFolder(dir);

/** Spawn a program and wait for it to end (its output read and dropped), as a host would without a sandbox. */
function plain(argv: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.resume();
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

async function sandboxed(path: string): Promise<void> {
  const run = await runSkillScript(skill, path);
  if (run.stdout !== "ok\n") throw new Error(`${path}: ${run.stderr}`);
}

interface Case {
  readonly name: string;
  readonly fn: () => Promise<void>;
}

/** Interleaved rounds (order alternating), one untimed run each first; medians in ns. */
async function measure(cases: readonly Case[]): Promise<Map<string, number>> {
  const times = new Map(cases.map((c) => [c.name, [] as number[]]));
  for (const c of cases) await c.fn();
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of round % 2 === 0 ? cases : [...cases].reverse()) {
      const t0 = performance.now();
      await c.fn();
      times.get(c.name)!.push((performance.now() - t0) * 1e6);
    }
  }
  const medians = new Map<string, number>();
  for (const [name, list] of times) {
    list.sort((a, b) => a - b);
    medians.set(name, list[Math.floor(list.length / 2)]!);
  }
  return medians;
}

async function group(workload: string, baseline: Case, cases: readonly Case[]): Promise<void> {
  const medians = await measure([baseline, ...cases]);
  const base = medians.get(baseline.name)!;
  for (const c of [baseline, ...cases]) {
    const median = medians.get(c.name)!;
    recordValue({
      bench: BENCH,
      workload,
      size: 1,
      case: c.name,
      median,
      p75: null,
      p99: null,
      samples: ROUNDS,
      baseline: baseline.name,
      ratio: median / base,
    });
  }
}

const tools = sandboxTools();
if (tools.bwrap === null || tools.prlimit === null) {
  console.log(`${BENCH}: bubblewrap or prlimit is missing; nothing to measure`);
  process.exit(0);
}
/** The same bubblewrap command line `runSkillScript` builds, spawned bare: the sandbox's own cost. */
function bare(command: readonly string[]): string[] {
  const work = join(root, "work"), tmp = join(root, "tmp");
  for (const d of [work, tmp]) {
    mkdirSync(d, { recursive: true, mode: 0o700 });
    if (isRoot()) chownSync(d, SANDBOX_FIRST_UID, SANDBOX_GID);
  }
  return bubblewrapArgv({
    tools,
    uid: SANDBOX_FIRST_UID,
    skill: dir,
    work,
    tmp,
    readPaths: [],
    writePaths: [],
    network: false,
    // As runSkillScript without a host cwd: the work folder is a fresh in-memory one.
    freshWork: true,
    env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
    limits: {
      cpuSeconds: 30,
      memoryBytes: 2 * 1024 ** 3,
      processes: 64,
      fileBytes: 64 * 1024 ** 2,
    },
    command,
  });
}
const python = systemProgram("python3");
if (python !== null) {
  await group("run a trivial Python script", {
    name: "spawn python3 ok.py",
    fn: () => plain([python, join(dir, "scripts/ok.py")]),
  }, [
    { name: "runSkillScript (bubblewrap)", fn: () => sandboxed("scripts/ok.py") },
    {
      name: "bare bubblewrap command line (no skillset)",
      fn: () => plain(bare([python, `${SANDBOX_SKILL}/scripts/ok.py`])),
    },
  ]);
}
await group(
  `run a trivial JavaScript script (${runtime().kind})`,
  {
    name: `spawn ${runtime().kind} ok.mjs`,
    fn: () =>
      plain(
        runtime().kind === "deno"
          ? [runtime().path, "run", "-A", "--no-config", join(dir, "scripts/ok.mjs")]
          : [runtime().path, join(dir, "scripts/ok.mjs")],
      ),
  },
  [{ name: "runSkillScript (bubblewrap)", fn: () => sandboxed("scripts/ok.mjs") }],
);
rmSync(root, { recursive: true, force: true });
