/**
 * The skill lifecycle: `skillset add` of a 1,000-skill git repository
 * (`addSkills`: fetch at depth 1, list the tree, read every blob raw, stage,
 * discover, hash, move into place, write the lockfile) against
 * `git clone --depth 1` of the same repository plus copying the same 1,000
 * skill folders into place, in the same run; and `outdated` of 100 skills
 * from one source, counting git invocations (one `ls-remote`; after a
 * commit, one fetch), and `update` of 100 stale skills from one source (one
 * fetch), through a wrapper that logs each. Asynchronous cases,
 * timed here in interleaved rounds. Run: `npm run bench -- lifecycle`.
 *
 * @module
 */
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addSkills } from "../lib/fs/lifecycle/_lifecycle.ts";
import { outdatedSkills, updateSkills } from "../lib/fs/lifecycle/_update.ts";
import { QUICK, recordValue, timeRounds } from "./_harness.ts";
import { git, skillRepository } from "./_git_repo.ts";

const SKILLS = QUICK ? 100 : 1000;
const temp = mkdtempSync(join(tmpdir(), "skillset-life-bench-"));
// A repository of SKILLS skills, each SKILL.md, a 6 KiB reference and a 10 KiB asset (about 16 MiB).
const url = skillRepository(join(temp, "repo"), SKILLS, (dir, i) => {
  mkdirSync(join(dir, "references"));
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "references", "guide.md"), `# Guide ${i}\n`.padEnd(6144, `line ${i}\n`));
  const asset = new Uint8Array(10240);
  for (let b = 0; b < asset.length; b++) asset[b] = (b * 31 + i) & 0xff;
  writeFileSync(join(dir, "assets", "data.bin"), asset);
});

const WORKLOAD = `add: ${SKILLS === 1000 ? "1,000" : SKILLS} skills from a git repository`;
const BASELINE = "git clone --depth 1 + copy the skill folders";
const CASE = "addSkills (fetch, stage, discover, hash, lock)";
let n = 0;

function cloneAndCopy(): void {
  const work = join(temp, `clone-${n++}`);
  const dest = join(temp, `dest-${n}`);
  git(temp, "clone", "--quiet", "--depth", "1", url, work);
  mkdirSync(dest, { recursive: true });
  for (let i = 0; i < SKILLS; i++) {
    cpSync(join(work, "skills", `skill-${i}`), join(dest, `skill-${i}`), { recursive: true });
  }
  rmSync(work, { recursive: true, force: true });
  rmSync(dest, { recursive: true, force: true });
}

async function add(): Promise<void> {
  const proj = join(temp, `proj-${n++}`);
  mkdirSync(proj);
  const result = await addSkills(url, { cwd: proj });
  if (result.installed.length !== SKILLS) throw new Error("add failed");
  rmSync(proj, { recursive: true, force: true });
}

const cases: { name: string; fn: () => unknown }[] = [
  { name: BASELINE, fn: cloneAndCopy },
  { name: CASE, fn: add },
];
await timeRounds("lifecycle", WORKLOAD, SKILLS, cases, QUICK ? 3 : 5);

// outdated of 100 skills from one source: git invocations, counted by a logging wrapper.
const OUTDATED = 100;
const small = join(temp, "small");
mkdirSync(small);
git(small, "init", "--quiet", "--initial-branch=main");
for (let i = 0; i < OUTDATED; i++) {
  mkdirSync(join(small, "skills", `s${i}`), { recursive: true });
  writeFileSync(
    join(small, "skills", `s${i}`, "SKILL.md"),
    `---\nname: s${i}\ndescription: d\n---\n`,
  );
}
git(small, "add", "-A");
git(small, "commit", "--quiet", "-m", "one");
const proj = join(temp, "outdated");
mkdirSync(proj);
await addSkills(small, { cwd: proj });
const log = join(temp, "git.log");
const wrapper = join(temp, "git-wrapper");
writeFileSync(wrapper, `#!/bin/sh\necho "$*" >> "${log}"\nexec git "$@"\n`);
chmodSync(wrapper, 0o755);
const counted = async (label: string): Promise<void> => {
  writeFileSync(log, "");
  const t0 = performance.now();
  const report = await outdatedSkills({ cwd: proj, git: wrapper });
  const ns = (performance.now() - t0) * 1e6;
  if (report.length !== OUTDATED) throw new Error("outdated failed");
  const calls = readFileSync(log, "utf8").trim().split("\n").filter((l) => l !== "");
  const fetches = calls.filter((c) => / fetch /.test(` ${c} `)).length;
  const lsRemotes = calls.filter((c) => / ls-remote /.test(` ${c} `)).length;
  recordValue({
    bench: "lifecycle",
    workload: `outdated: ${OUTDATED} skills from one source`,
    size: OUTDATED,
    case: `${label}: git invocations (${lsRemotes} ls-remote, ${fetches} fetch)`,
    median: ns,
    p75: ns,
    p99: ns,
    samples: 1,
    baseline: null,
    ratio: null,
    value: calls.length,
    note: `${calls.length} git invocations for ${OUTDATED} skills`,
  });
};
await counted("unchanged source");
writeFileSync(join(small, "skills", "s7", "new.md"), "new\n");
git(small, "add", "-A");
git(small, "commit", "--quiet", "-m", "two");
await counted("one skill changed upstream");

// update of 100 stale skills from one source: one fetch, one transaction.
for (let i = 0; i < OUTDATED; i++) {
  writeFileSync(
    join(small, "skills", `s${i}`, "SKILL.md"),
    `---\nname: s${i}\ndescription: d, version two\n---\n`,
  );
}
git(small, "add", "-A");
git(small, "commit", "--quiet", "-m", "three");
writeFileSync(log, "");
const t0 = performance.now();
const updated = await updateSkills([], { cwd: proj, git: wrapper });
const ns = (performance.now() - t0) * 1e6;
if (updated.filter((s) => s.status === "updated").length !== OUTDATED) {
  throw new Error("update failed");
}
const calls = readFileSync(log, "utf8").trim().split("\n").filter((l) => l !== "");
const fetches = calls.filter((c) => / fetch /.test(` ${c} `)).length;
recordValue({
  bench: "lifecycle",
  workload: `update: ${OUTDATED} stale skills from one source`,
  size: OUTDATED,
  case: `updateSkills: git invocations (${fetches} fetch)`,
  median: ns,
  p75: ns,
  p99: ns,
  samples: 1,
  baseline: null,
  ratio: null,
  value: calls.length,
  note: `${calls.length} git invocations, ${fetches} fetch, for ${OUTDATED} stale skills`,
});
rmSync(temp, { recursive: true, force: true });
