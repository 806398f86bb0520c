// @slow: runs scripts in the sandbox through the CLI (left out of `npm run test:quick`)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cli } from "../../_cli.ts";
import { put } from "../../_tree.ts";
import {
  FILE_ORIGIN,
  JsonFileApprovalStore,
  loadSkillFolder,
  runSkillScript,
} from "../../../lib/load.ts";
import { approvalRecord, skillManifest } from "../../../mod.ts";
import { copySkillCreator, SKILL_CREATOR, tempFolders } from "../../_run.ts";

const SCRIPT = "scripts/aggregate_benchmark.py";

const temp = tempFolders("skillset-run-cli-", 0o777);
/** skill-creator (anthropics/skills) copied where the sandbox's user can read it. */
const skillCreator = (): string => copySkillCreator(temp());

const probe = await runSkillScript(loadSkillFolder(skillCreator()), SCRIPT, ["--help"])
  .then((r) => (r.exit_code === 0 ? false : `the sandbox does not run here: ${r.stderr.trim()}`))
  .catch((e: Error) => `the sandbox does not run here: ${e.message}`);

describe("skillset run", () => {
  it("runs skill-creator's aggregate_benchmark.py (anthropics/skills) in a working folder", {
    skip: probe,
  }, () => {
    const work = temp();
    put(
      work,
      "eval-1/with_skill/run-1/grading.json",
      JSON.stringify({ summary: { pass_rate: 1, passed: 2, failed: 0, total: 2 } }),
    );
    const result = cli([
      "run",
      skillCreator(),
      SCRIPT,
      "--cwd",
      work,
      "--",
      ".",
      "--skill-name",
      "demo",
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Generated: benchmark\.json\nGenerated: benchmark\.md\n/);
    assert.match(
      result.stderr,
      /skillset run: skill-creator scripts\/aggregate_benchmark\.py: exit 0 \(bubblewrap sandbox; python3; in /,
    );
    assert.equal(
      JSON.parse(readFileSync(join(work, "benchmark.json"), "utf8")).metadata.skill_name,
      "demo",
    );
  });

  it("prints the run as JSON, and exits with the script's code", { skip: probe }, () => {
    const dir = skillCreator();
    put(dir, "scripts/fail.sh", "echo out; echo err >&2; exit 3\n");
    const result = cli(["run", dir, "scripts/fail.sh", "--json", "--max-output-chars", "2"]);
    assert.equal(result.code, 3);
    const run = JSON.parse(result.stdout);
    assert.deepEqual(
      [run.exit_code, run.stdout, run.stdout_truncated, run.stderr, run.stderr_truncated],
      [3, "ou", 2, "er", 2],
    );
  });

  it("finds the skill by name under --root, and refuses a gated script with exit 1", () => {
    const root = temp();
    const dir = join(root, "skill-creator");
    cpSync(SKILL_CREATOR, dir, { recursive: true });
    put(dir, "private/x.py", "print('gated')\n");
    const result = cli(["run", "--root", `project=${root}`, "skill-creator", "private/x.py"]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /Refused to run non-standard resource "private\/x\.py"/);
  });

  it(
    "binds the run to --approvals: refused until the skill is approved as it is",
    { skip: probe },
    async () => {
      const dir = skillCreator();
      put(dir, "scripts/hi.sh", "echo hi\n");
      const file = join(temp(), "skills.approvals.json");
      const refused = cli(["run", dir, "scripts/hi.sh", "--approvals", file]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /Skill "skill-creator" needs approval before its scripts run/);
      const manifest = await skillManifest(loadSkillFolder(dir));
      new JsonFileApprovalStore(file).put(approvalRecord(FILE_ORIGIN, dir, manifest));
      const approved = cli(["run", dir, "scripts/hi.sh", "--approvals", file]);
      assert.deepEqual([approved.code, approved.stdout], [0, "hi\n"]);
    },
  );

  it("is bad usage without a script, with an unknown --sandbox, or serve's run flags without --allow-scripts", () => {
    assert.equal(cli(["run", skillCreator()]).code, 2);
    assert.equal(cli(["run", skillCreator(), SCRIPT, "--sandbox", "chroot"]).code, 2);
    const serve = cli(["serve", skillCreator(), "--allow-net"]);
    assert.deepEqual([serve.code, serve.stderr], [
      2,
      "skillset: serve: --allow-net needs --allow-scripts\n",
    ]);
  });

  it("warns loudly when told to run unsandboxed", () => {
    const dir = skillCreator();
    put(dir, "scripts/hi.sh", "echo hi\n");
    const result = cli(["run", dir, "scripts/hi.sh", "--dangerously-run-unsandboxed"]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /^skillset run: WARNING: running without a sandbox/);
    assert.match(result.stderr, /\(NO SANDBOX; bash\)/);
  });

  it("warns loudly when serve is told to run scripts unsandboxed", () => {
    // stdin is closed at once, so the stdio server stops after starting.
    const served = cli([
      "serve",
      skillCreator(),
      "--allow-scripts",
      "--dangerously-run-unsandboxed",
    ]);
    assert.equal(served.code, 0, served.stderr);
    assert.match(
      served.stderr,
      /^skillset serve: WARNING: run_skill_script runs scripts without a sandbox/,
    );
    const sandboxed = cli(["serve", skillCreator(), "--allow-scripts"]);
    assert.doesNotMatch(sandboxed.stderr, /WARNING/);
  });
});
