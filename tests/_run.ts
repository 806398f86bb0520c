/**
 * Shared fixtures of the script runner's tests: temp folders the sandbox's
 * user can read, skill folders written into them, the public skill-creator
 * fixture, and whether bubblewrap works here.
 *
 * @module
 */
import { after } from "node:test";
import { chmodSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { put } from "./_tree.ts";
import { loadSkillFolder } from "../lib/load.ts";
import { sandboxTools } from "../lib/fs/scripts/_sandbox.ts";
import { runSkillScript } from "../lib/fs/scripts/run_script.ts";

/** skill-creator from anthropics/skills (Apache-2.0, its licence beside it). */
export const SKILL_CREATOR = join(
  import.meta.dirname ?? ".",
  "fixtures",
  "scripts",
  "anthropics+skills",
  "skill-creator",
);

/**
 * A maker of fresh temp folders, each removed after the calling file's tests.
 *
 * @param prefix The folders' name prefix.
 * @param mode Their mode: open to the sandbox's user (uid 65534 when run as root).
 */
export function tempFolders(prefix: string, mode: number): () => string {
  const temps: string[] = [];
  after(() => {
    for (const t of temps) rmSync(t, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    chmodSync(dir, mode);
    temps.push(dir);
    return dir;
  };
}

/** A skill folder named `name` under `parent`, with these files (SKILL.md added). */
export function skillFolder(
  parent: string,
  files: Readonly<Record<string, string>>,
  name: string,
  description: string,
): string {
  const dir = join(parent, name);
  put(dir, "SKILL.md", `---\nname: ${name}\ndescription: ${description}\n---\nRun it.\n`);
  for (const [path, text] of Object.entries(files)) put(dir, path, text);
  return dir;
}

/** skill-creator copied under `parent`, where the sandbox's user can read it. */
export function copySkillCreator(parent: string): string {
  const dir = join(parent, "skill-creator");
  cpSync(SKILL_CREATOR, dir, { recursive: true });
  return dir;
}

/**
 * Why the bubblewrap tests cannot run here, or `false` when they can: a
 * trivial script must run and print through the real sandbox.
 *
 * @param parent A temp folder for the probe's skill.
 */
export async function sandboxMissing(parent: string): Promise<string | false> {
  const tools = sandboxTools();
  if (tools.bwrap === null) return "bwrap is not installed (the refusal path is tested instead)";
  if (tools.prlimit === null) return "prlimit is not installed";
  try {
    const dir = skillFolder(
      parent,
      { "scripts/ok.sh": "echo ok\n" },
      "probe",
      "Probes the sandbox",
    );
    const run = await runSkillScript(loadSkillFolder(dir), "scripts/ok.sh");
    if (run.stdout !== "ok\n") return `bubblewrap does not work here: ${run.stderr.trim()}`;
  } catch (e) {
    return `bubblewrap does not work here: ${(e as Error).message}`;
  }
  return false;
}

/**
 * Run a script of a skill folder and print how it went, for a child process
 * (`check _run.ts runOutcome` in `tests/_child.ts`): `{ stdout }`, or
 * `{ error: { name, code, message } }` when it was refused or failed.
 *
 * @param dir The skill folder.
 * @param path The script's path in it.
 */
export async function runOutcome(dir: string, path: string): Promise<void> {
  try {
    const run = await runSkillScript(loadSkillFolder(dir), path);
    process.stdout.write(`${JSON.stringify({ stdout: run.stdout })}\n`);
  } catch (e) {
    const { name, code, message } = e as { name: string; code?: string; message: string };
    process.stdout.write(`${JSON.stringify({ error: { name, code, message } })}\n`);
  }
}
