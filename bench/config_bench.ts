/**
 * What the approval of a project's `skillset.json` costs a command
 * (docs/security.md#config-approval): reading the config and putting its
 * flags in, as every command does, against the same with the approval
 * decided (`honouredConfig`: one small read in the user's state folder),
 * for an approved and a not yet approved file; and a whole in-process
 * `skillset list --json` in the project, approved, against the same with
 * the config's flags typed (no config file). Run: `npm run bench -- config`.
 *
 * @module
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { readConfig, withConfig } from "../lib/cli/_config.ts";
import { approveConfig, honouredConfig } from "../lib/cli/_config_trust.ts";
import { COMMANDS } from "../lib/cli/_commands.ts";
import { main } from "../lib/cli/main.ts";
import { timeGroup } from "./_harness.ts";

const temp = mkdtempSync(join(tmpdir(), "skillset-config-bench-"));
const env = { SKILLSET_STATE_DIR: join(temp, "state") };
process.env.SKILLSET_STATE_DIR = env.SKILLSET_STATE_DIR;
const approved = join(temp, "approved"), fresh = join(temp, "fresh"), bare = join(temp, "bare");
const config = JSON.stringify({
  roots: [{ scope: "project", path: "skills" }],
  classes: { examples: "references" },
  budget: 8000,
  rank: "name",
});
for (const dir of [approved, fresh, bare]) {
  for (let i = 0; i < 10; i++) {
    mkdirSync(join(dir, "skills", `s${i}`), { recursive: true });
    writeFileSync(
      join(dir, "skills", `s${i}`, "SKILL.md"),
      `---\nname: s${i}\ndescription: Skill number ${i}\n---\nBody\n`,
    );
  }
  mkdirSync(join(dir, ".git"));
  if (dir !== bare) writeFileSync(join(dir, "skillset.json"), config);
}
const path = join(approved, "skillset.json");
approveConfig(path, readConfig(path).digest, env);
const spec = COMMANDS.list!;

await timeGroup("config", "a command's config: read, decided, put in", 1, [
  {
    name: "readConfig + withConfig (no approval check)",
    fn: () => withConfig(["list"], spec, readConfig(path)),
    baseline: true,
  },
  {
    name: "readConfig + honouredConfig + withConfig (approved)",
    fn: () => withConfig(["list"], spec, honouredConfig(readConfig(path), ["list"], env).config),
  },
  {
    name: "readConfig + honouredConfig + withConfig (not approved)",
    fn: () => {
      const file = join(fresh, "skillset.json");
      return withConfig(["list"], spec, honouredConfig(readConfig(file), ["list"], env).config);
    },
  },
]);

const quiet = { stdout: () => {}, stderr: () => {}, color: false };
function list(dir: string, ...flags: string[]): number {
  const before = process.cwd();
  process.chdir(dir);
  try {
    const code = main(["list", "--json", ...flags], quiet);
    if (code !== 0) throw new Error(`list exited ${code}`);
    return code;
  } finally {
    process.chdir(before);
  }
}
await timeGroup("config", "skillset list --json of 10 skills, in-process", 10, [
  {
    name: "flags typed, no config file",
    fn: () => list(bare, "--root", "project=skills", "--class", "examples=references"),
    baseline: true,
  },
  { name: "approved skillset.json", fn: () => list(approved) },
]);
rmSync(temp, { recursive: true, force: true });
