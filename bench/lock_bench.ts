/**
 * Trust: `skillset lock` (discover, hash every file through the verified
 * handles with WebCrypto, write the lockfile) and `skillset verify` of the
 * unchanged tree, over 1,000 skills totalling 200 MiB, against `sha256sum`
 * of the same files in the same run (one process given every file). The
 * cases are asynchronous, so they are timed here in interleaved rounds.
 * Run: `npm run bench -- lock`.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  discoverSkills,
  lockSkills,
  readLockfile,
  verifySkills,
  writeLockfile,
} from "../lib/load.ts";
import { QUICK, timeRounds } from "./_harness.ts";
import { LOCK_CASE, LOCK_FLOOR_CASE, LOCK_WORKLOAD, VERIFY_CASE } from "./_report.ts";

const SKILLS = QUICK ? 100 : 1000;
const BYTES_PER_SKILL = 200 * 1024;
const temp = mkdtempSync(join(tmpdir(), "skillset-lock-"));
const root = join(temp, "skills");
const files: string[] = [];

// Each skill: SKILL.md, a 56 KiB reference and a 144 KiB asset: 200 KiB.
let seed = 1;
function bytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out[i] = seed >>> 16;
  }
  return out;
}
const asset = bytes(144 * 1024);
for (let i = 0; i < SKILLS; i++) {
  const dir = join(root, `skill-${i}`);
  mkdirSync(join(dir, "references"), { recursive: true });
  mkdirSync(join(dir, "assets"));
  const md = `---\nname: skill-${i}\ndescription: Skill number ${i}\n---\n# Skill ${i}\n`;
  const guide = "# Guide\n".padEnd(BYTES_PER_SKILL - asset.length - md.length, `line ${i}\n`);
  writeFileSync(join(dir, "SKILL.md"), md);
  writeFileSync(join(dir, "references", "guide.md"), guide);
  asset[0] = i & 0xff; // every asset differs
  writeFileSync(join(dir, "assets", "data.bin"), asset);
  files.push(
    join(dir, "SKILL.md"),
    join(dir, "references", "guide.md"),
    join(dir, "assets", "data.bin"),
  );
}
const roots = [{ scope: "project", path: root }];
const lockfile = join(temp, "skills.lock.json");

function sha256sum(): void {
  const r = spawnSync("sha256sum", ["--", ...files], { stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0) throw new Error(`sha256sum exited ${r.status}`);
}

async function lock(): Promise<void> {
  const { lock, errors } = await lockSkills(discoverSkills(roots), { base: temp });
  if (errors.length > 0 || lock.skills.length !== SKILLS) throw new Error("lock failed");
  writeLockfile(lockfile, lock);
}

async function verify(): Promise<void> {
  const result = await verifySkills(discoverSkills(roots), readLockfile(lockfile), {
    base: temp,
    frozen: true,
  });
  if (!result.ok) throw new Error("verify should be clean");
}

const cases: { name: string; fn: () => unknown }[] = [
  { name: LOCK_FLOOR_CASE, fn: sha256sum },
  { name: LOCK_CASE, fn: lock },
  { name: VERIFY_CASE, fn: verify },
];
await timeRounds("lock", LOCK_WORKLOAD, SKILLS, cases, QUICK ? 3 : 4);
rmSync(temp, { recursive: true, force: true });
