/**
 * Signed lockfiles: `skillset verify --signers` over 1,000 skills — the
 * lockfile's SSH signature checked (SHA-512 of the lockfile, Ed25519 with
 * WebCrypto, the allowed signers read), then the skills verified — against
 * the same verify of the unsigned lockfile, in the same run; and the
 * signature check alone against that verify. The skills are small (two files
 * each), so hashing them does not hide the signature's cost. The cases are
 * asynchronous, so they are timed here in interleaved rounds. A second
 * group times the whole command in-process, as CI runs it: `skillset verify
 * --signers FILE --frozen` with the signers file tracked by git (so the check
 * that the commit under check does not change it runs git) against
 * `skillset verify --frozen`. Run: `npm run bench -- sign`.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  parseAllowedSigners,
  parseLockfile,
  renderSshPublicKey,
  signSshsig,
  SshPrivateKey,
  verifySshsig,
} from "../mod.ts";
import { discoverSkills, lockSkills, verifySkills, writeLockfile } from "../lib/load.ts";
import { readTrustBytes, readTrustFile, trustFileText } from "../lib/fs/trust/trust_files.ts";
import { mainAsync } from "../lib/cli.ts";
import { QUICK, timeRounds } from "./_harness.ts";

const SKILLS = QUICK ? 100 : 1000;
const WORKLOAD = "verify: 1,000 small skills, signed lockfile";
const UNSIGNED = "verifySkills (unsigned lockfile)";
const SIGNED = "verifySshsig + verifySkills (signed lockfile)";
const SIGNATURE = "verifySshsig alone";

const temp = mkdtempSync(join(tmpdir(), "skillset-sign-"));
const root = join(temp, "skills");
for (let i = 0; i < SKILLS; i++) {
  const dir = join(root, `skill-${i}`);
  mkdirSync(join(dir, "references"), { recursive: true });
  writeFileSync(
    join(dir, "SKILL.md"),
    `---\nname: skill-${i}\ndescription: Skill number ${i}\n---\n# Skill ${i}\n`,
  );
  writeFileSync(join(dir, "references", "guide.md"), `# Guide ${i}\n`.repeat(20));
}
const roots = [{ scope: "project", path: root }];
const lockfile = join(temp, "skills.lock.json");
const { lock } = await lockSkills(discoverSkills(roots), { base: temp });
writeLockfile(lockfile, lock);
const key = await SshPrivateKey.fromSeed(crypto.getRandomValues(new Uint8Array(32)), "ci");
const signature = await signSshsig(readTrustBytes(lockfile)!, key);
const signersText = `ci@example.com ${renderSshPublicKey(key.publicKey)}\n`;

async function check(): Promise<Uint8Array> {
  const bytes = readTrustBytes(lockfile)!;
  await verifySshsig(bytes, signature, parseAllowedSigners(signersText));
  return bytes;
}

async function verify(text: string): Promise<void> {
  const result = await verifySkills(discoverSkills(roots), parseLockfile(text, lockfile), {
    base: temp,
    frozen: true,
  });
  if (!result.ok) throw new Error("verify should be clean");
}

const cases: { name: string; fn: () => Promise<unknown> }[] = [
  { name: UNSIGNED, fn: () => verify(readTrustFile(lockfile)!) },
  { name: SIGNED, fn: async () => verify(trustFileText(await check(), lockfile)) },
  { name: SIGNATURE, fn: check },
];
await timeRounds("sign", WORKLOAD, SKILLS, cases, QUICK ? 5 : 15);

// The command as CI runs it: the signature file beside the lockfile, the signers tracked by git in
// an earlier commit than HEAD.
writeFileSync(`${lockfile}.sig`, signature);
writeFileSync(join(temp, "allowed_signers"), signersText);
const git = (...args: string[]) =>
  spawnSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.com", ...args], {
    cwd: temp,
    stdio: "ignore",
  });
git("init", "-q");
git("add", "allowed_signers");
git("commit", "-qm", "signers");
git("commit", "-q", "--allow-empty", "-m", "work");
const quiet = { stdout: () => {}, stderr: () => {}, color: false };
async function cli(...argv: string[]): Promise<void> {
  const before = process.cwd();
  process.chdir(temp);
  try {
    const code = await mainAsync(argv, quiet);
    if (code !== 0) throw new Error(`skillset ${argv.join(" ")} exited ${code}`);
  } finally {
    process.chdir(before);
  }
}
const HAS_GIT = spawnSync("git", ["--version"], { stdio: "ignore" }).error === undefined;
await timeRounds("sign", "skillset verify --frozen: 1,000 small skills, in-process", SKILLS, [
  {
    name: "skillset verify (unsigned)",
    fn: () => cli("verify", "--frozen", "--root", `project=${root}`),
  },
  // Without git the signers file is outside any repository, and no git runs.
  {
    name: `skillset verify --signers (${HAS_GIT ? "tracked by git" : "no git"})`,
    fn: () =>
      cli("verify", "--frozen", "--root", `project=${root}`, "--signers", "allowed_signers"),
  },
], QUICK ? 5 : 15);
rmSync(temp, { recursive: true, force: true });
