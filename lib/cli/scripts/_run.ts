/**
 * `skillset run`: run one of a skill's scripts in the sandbox
 * (`runSkillScript`), its output passed through (control characters other
 * than line breaks and tabs escaped), a last line on stderr
 * saying how it ended, in which sandbox and what was granted. The grant and
 * limit flags are shared with `serve --allow-scripts`.
 *
 * Folder `lib/cli/scripts/` — `skillset run` and the script grant and limit flags.
 *
 * @module
 */
import { resolve } from "node:path";
import { escapeControls as esc, escapeControlsKeepingLines } from "../../core/_text.ts";
import { type Args, type ArgSpec, count, parseArgs, UsageError } from "../_args.ts";
import { discoveryFlags, listDiscovery } from "../_discovery.ts";
import type { CliIO } from "../_io.ts";
import { unknownName } from "../_unknown_name.ts";
import { rootsHoldSkills } from "../_roots.ts";
import {
  type RunScriptOptions,
  runSkillScript,
  type ScriptRun,
} from "../../fs/scripts/run_script.ts";
import { loadSkillFolder } from "../../fs/load/skill_folder.ts";
import { type Unbounded, UNBOUNDED_LIMITS } from "../../fs/scripts/_run_limits.ts";
import { JsonFileApprovalStore } from "../../fs/trust/trust_files.ts";
import { checkProfileKeeps, profileFlags } from "../catalog/_profile.ts";

/**
 * The run options of the grant and limit flags.
 *
 * @param args The parsed flags.
 * @returns The options for `runSkillScript` (the gate's switches, trust and the sandbox choice).
 * @throws {UsageError} For a bad value.
 */
export function runOptions(args: Args): RunScriptOptions {
  const env = new Map<string, string>();
  for (const pair of args.repeated.get("--env") ?? []) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`--env takes NAME=VALUE, got "${esc(pair)}"`);
    env.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  const sandbox = args.flags.get("--sandbox") ?? "auto";
  if (sandbox !== "auto" && sandbox !== "bubblewrap" && sandbox !== "deno") {
    throw new UsageError(`--sandbox takes auto, bubblewrap or deno, got "${esc(sandbox)}"`);
  }
  const number = (flag: string, key: keyof RunScriptOptions) => {
    const value = count(args.flags, flag, 1);
    return value === undefined ? {} : { [key]: value };
  };
  const cwd = args.flags.get("--cwd");
  const out = args.flags.get("--out");
  const unbounded: Unbounded[] = [];
  for (const list of args.repeated.get("--allow-unbounded") ?? []) {
    for (const name of list.split(",")) {
      if (!(UNBOUNDED_LIMITS as readonly string[]).includes(name)) {
        throw new UsageError(
          `--allow-unbounded takes ${UNBOUNDED_LIMITS.join(", ")}, got "${esc(name)}"`,
        );
      }
      unbounded.push(name as Unbounded);
    }
  }
  const approvals = args.flags.get("--approvals");
  const lock = args.flags.get("--lockfile");
  return {
    ...discoveryFlags(args).safety,
    ...(cwd === undefined ? {} : { cwd: resolve(cwd) }),
    ...(out === undefined ? {} : { out: resolve(out) }),
    ...(unbounded.length === 0 ? {} : { allowUnbounded: unbounded }),
    ...(lock === undefined ? {} : { lock: resolve(lock) }),
    ...(approvals === undefined ? {} : { approvals: new JsonFileApprovalStore(approvals) }),
    network: args.switches.has("--allow-net"),
    readPaths: (args.repeated.get("--allow-read") ?? []).map((p) => resolve(p)),
    writePaths: (args.repeated.get("--allow-write") ?? []).map((p) => resolve(p)),
    env,
    sandbox,
    ...number("--timeout-ms", "timeoutMs"),
    ...number("--cpu-seconds", "cpuSeconds"),
    ...number("--memory-bytes", "memoryBytes"),
    ...number("--processes", "processes"),
    ...number("--file-bytes", "fileBytes"),
    ...number("--max-output-chars", "maxOutputChars"),
    ...(args.switches.has("--dangerously-run-unsandboxed")
      ? { dangerouslyRunUnsandboxed: true }
      : {}),
  };
}

/**
 * Run `skillset run <skill-dir> <path> [-- args…]`, or with `--root`,
 * `skillset run --root scope=path <name> <path> [-- args…]`; a first
 * argument with a slash is a folder even with roots (a project config gives
 * them to every command).
 *
 * @param argv The arguments after the program name (`run` first).
 * @param io Where to write.
 * @param spec The command's flags.
 * @returns The script's exit code (1 when a signal or the timeout ended it).
 * @throws {UsageError} For bad usage (exit 2).
 * @throws {ScriptRunError} When the run is refused (exit 1), and the gate's and trust's errors.
 * @throws {SkillProfileError} `LEFT_OUT_BY_PROFILE` for a skill `--profile` leaves out (exit 1).
 */
export async function runRunCli(
  argv: readonly string[],
  io: CliIO,
  spec: ArgSpec,
): Promise<number> {
  const split = argv.indexOf("--");
  const own = split < 0 ? argv.slice(1) : argv.slice(1, split);
  const scriptArgs = split < 0 ? [] : argv.slice(split + 1);
  const args = parseArgs("run", spec, own);
  const [first = "", path = ""] = args.positional;
  const load = discoveryFlags(args);
  // Read before any skill is: an unknown profile is a usage error, whatever the skill.
  const profile = profileFlags(args.flags, args.repeated, args.switches);
  const roots = args.repeated.get("--root") ?? [];
  let skill;
  // A skill's name is one plain segment: with a slash it is a folder, whatever roots a config gives.
  if (roots.length > 0 && !/[\\/]/.test(first)) {
    const found = listDiscovery([], roots, load);
    if (!rootsHoldSkills(found.roots, found.discovery, true, false, io)) return 1;
    const { discovery } = found;
    skill = discovery.bundle(first);
    if (skill === undefined) {
      const names = discovery.skills.map((s) => s.name);
      throw unknownName("skill", first, names, "under the roots given");
    }
  } else {
    skill = loadSkillFolder(first, { resourceClasses: load.resourceClasses, safety: load.safety });
  }
  checkProfileKeeps(profile, skill);
  const options = runOptions(args);
  if (options.dangerouslyRunUnsandboxed === true) {
    io.stderr(
      "skillset run: WARNING: running without a sandbox (--dangerously-run-unsandboxed): " +
        "the script can read and write whatever you can\n",
    );
  }
  const run = await runSkillScript(skill, path, scriptArgs, options);
  if (args.json) {
    io.stdout(`${JSON.stringify(run, null, 2)}\n`);
  } else {
    // The script's text, its control characters escaped: a terminal obeys escape sequences
    // (clipboard writes, replies typed into the shell, a forged last line).
    io.stdout(escapeControlsKeepingLines(run.stdout));
    io.stderr(escapeControlsKeepingLines(run.stderr));
    io.stderr(`${summary(run)}\n`);
  }
  return run.exit_code ?? 1;
}

/**
 * The last line `skillset run` writes to stderr.
 *
 * @param run What the run did.
 * @returns How it ended, in which sandbox, and what was granted or cut.
 */
export function summary(run: ScriptRun): string {
  const ended = run.timed_out
    ? `killed after the ${run.limits.timeout_ms} ms timeout`
    : run.signal !== null
    ? `ended by ${run.signal}`
    : `exit ${run.exit_code}`;
  const notes = [run.sandbox === "none" ? "NO SANDBOX" : `${run.sandbox} sandbox`, run.interpreter];
  if (run.grants.network) notes.push("network granted");
  if (run.grants.read_paths.length > 0) notes.push(`reads ${run.grants.read_paths.join(", ")}`);
  if (run.grants.write_paths.length > 0) notes.push(`writes ${run.grants.write_paths.join(", ")}`);
  if (run.grants.env.length > 0) notes.push(`env ${run.grants.env.join(", ")}`);
  if (run.grants.cwd !== null) notes.push(`in ${run.grants.cwd}`);
  if (run.out !== null) {
    notes.push(
      `${run.out.files} files (${run.out.bytes} bytes) copied to ${run.out.dir}` +
        (run.out.left_out > 0 ? `, ${run.out.left_out} left out` : ""),
    );
  }
  const unbounded = (["memory_bytes", "processes", "cpu_seconds", "file_bytes"] as const)
    .filter((k) => run.limits[k] === null);
  if (run.sandbox !== "none" && unbounded.length > 0) {
    notes.push(`unbounded: ${unbounded.join(", ")}`);
  }
  if (run.stdout_truncated > 0) notes.push(`stdout: ${run.stdout_truncated} more characters cut`);
  if (run.stderr_truncated > 0) notes.push(`stderr: ${run.stderr_truncated} more characters cut`);
  return `skillset run: ${esc(run.skill)} ${esc(run.path)}: ${ended} (${esc(notes.join("; "))})`;
}
