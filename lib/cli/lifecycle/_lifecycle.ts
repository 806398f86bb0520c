/**
 * The lifecycle commands of the `skillset` CLI: `add <source>` (with
 * `--agent`), `agents`, `outdated`,
 * `update [NAME...]` and `remove NAME...` (lib/fs/lifecycle/_lifecycle.ts and
 * _update.ts do the work). Asynchronous (git and hashing), so `mainAsync`
 * runs them; `SKILLSET_GIT` names the git program (default `git`).
 *
 * Folder `lib/cli/lifecycle/` — the lifecycle commands: add, outdated, update, remove.
 *
 * @module
 */
import process from "node:process";
import { escapeControls as esc, escapeControlsKeepingLines } from "../../core/_text.ts";
import { type ArgSpec, parseArgs, UsageError } from "../_args.ts";
import type { CliIO } from "../_io.ts";
import { addSkills, type LifecycleOptions, removeSkills } from "../../fs/lifecycle/_lifecycle.ts";
import { type OutdatedSkill, outdatedSkills, updateSkills } from "../../fs/lifecycle/_update.ts";
import type { FileDiff } from "../../fs/lifecycle/_skill_diff.ts";
import { COMMIT_PATTERN } from "../../fs/lifecycle/_git.ts";
import { DIGEST_PATTERN } from "../../core/trust/digest.ts";
import { assertInstalled } from "./_installed.ts";
import { homedir } from "node:os";
import { agentNames, AGENTS, detectAgents, readsCanonical } from "../../fs/lifecycle/_agents.ts";
import { unknownName } from "../_unknown_name.ts";
import { sourceOf } from "../../fs/lifecycle/_source_kinds.ts";
import { isSourceTrusted, trustSource } from "./_trusted_sources.ts";
import { stateInProject, stateInProjectError } from "../_config_trust.ts";

/**
 * Refuse to read the sources the user chose from a state folder inside the
 * project: a project could ship records there (`docs/security.md#lockfile-sources`).
 *
 * @throws {UsageError} Naming the state folder and the project.
 */
function refuseStateInProject(): void {
  const project = stateInProject(process.cwd());
  if (project !== undefined) throw stateInProjectError(project);
}

/**
 * Run one lifecycle command.
 *
 * @param argv The arguments after the program name (the command first).
 * @param io Where to write.
 * @param spec The command's flags.
 * @returns The exit code: 0 ok; 1 a refusal, a stale or modified skill (`outdated`), or a failure.
 * @throws {UsageError} For bad usage (exit 2).
 * @throws {SkillSourceError} For git missing or failing, or a source with no skill (exit 1).
 */
export async function runLifecycleCli(
  argv: readonly string[],
  io: CliIO,
  spec: ArgSpec,
): Promise<number> {
  const [command = "", ...rest] = argv;
  const args = parseArgs(command, spec, rest);
  const scope = args.flags.get("--scope") ?? "project";
  if (scope !== "project" && scope !== "user") {
    throw new UsageError(`--scope takes project or user, got "${esc(scope)}"`);
  }
  const lockfile = args.flags.get("--lockfile");
  const git = process.env["SKILLSET_GIT"];
  // The sources the user chose here: what add and --trust-source named (docs/security.md#lockfile-sources).
  for (const url of args.repeated.get("--trust-source") ?? []) trustSource(chosen(url));
  const options: LifecycleOptions = {
    scope,
    trustsSource: (url) => isSourceTrusted(url),
    ...lockfile === undefined ? {} : { lockfile },
    ...git === undefined || git === "" ? {} : { git },
  };
  const out = (value: unknown): void => io.stdout(`${JSON.stringify(value, null, 2)}\n`);
  switch (command) {
    case "agents":
      return listAgents(scope, io, args.json);
    case "add": {
      const ref = args.flags.get("--ref");
      const digest = args.flags.get("--digest");
      if (digest !== undefined && !DIGEST_PATTERN.test(digest)) {
        throw new UsageError(`--digest takes sha256:<64 hex>, got "${esc(digest)}"`);
      }
      const skills = args.repeated.get("--skill");
      const agents = agentsNamed(args.repeated.get("--agent") ?? [], scope);
      // The user typed this source: outdated and update may fetch it again (recorded first, so a
      // state folder that cannot be written fails the command before anything is installed).
      trustSource(chosen(args.positional[0]!));
      const result = await addSkills(args.positional[0]!, {
        ...options,
        ...ref === undefined ? {} : { ref },
        ...digest === undefined ? {} : { digest },
        ...skills === undefined ? {} : { skills },
        ...agents.length === 0 ? {} : { agents },
        ...args.switches.has("--copy") ? { copy: true } : {},
      });
      if (args.json) out(result);
      else {
        for (const s of result.installed) {
          io.stdout(
            `added ${esc(s.name)} ${esc(s.folder)} (${esc(s.installed_from.path)} at ${
              short(result.revision)
            })\n`,
          );
          for (const t of s.targets) io.stdout(`  ${t.mode} for ${t.agent}: ${esc(t.path)}\n`);
        }
        for (const r of result.refused) {
          io.stderr(`skillset: refused: ${r.code}: ${esc(r.message)}\n`);
        }
        io.stdout(
          `${result.installed.length} skill${
            result.installed.length === 1 ? "" : "s"
          } added; lockfile ${esc(result.lockfile)}\n`,
        );
      }
      return result.refused.length > 0 ? 1 : 0;
    }
    case "outdated": {
      refuseStateInProject();
      const skills = await outdatedSkills(options);
      if (args.json) out({ skills });
      else {
        for (const s of skills) {
          const state = s.state.replaceAll("_", " ").replace("stale modified", "stale+modified");
          const was = s.installed_from.commit ?? s.installed_from.digest;
          const moved = s.remote_commit !== undefined && s.stale
            ? ` (${was === undefined ? "?" : short(was)} -> ${short(s.remote_commit)})`
            : "";
          io.stdout(
            `${state.padEnd(14)} ${esc(s.name)}${
              versions(s.version, s.stale ? s.remote_version : undefined)
            }${moved}${bumped(s)}${s.missing ? " (missing here)" : ""}${
              s.error === undefined ? "" : `: ${esc(s.error.message)}`
            }\n`,
          );
        }
        if (skills.length === 0) io.stdout("No skill installed by skillset add\n");
      }
      return skills.every((s) => s.state === "up_to_date") ? 0 : 1;
    }
    case "update": {
      refuseStateInProject();
      assertInstalled(args.positional, options);
      const commit = args.flags.get("--commit");
      if (commit !== undefined && !COMMIT_PATTERN.test(commit) && !DIGEST_PATTERN.test(commit)) {
        throw new UsageError(
          `--commit takes a full commit (40 or 64 hexadecimal digits) or a folder's digest (sha256:<64 hex>), got "${
            esc(commit)
          }"`,
        );
      }
      const result = await updateSkills(args.positional, {
        ...options,
        preview: args.switches.has("--preview"),
        force: args.switches.has("--force"),
        ...commit === undefined ? {} : { commit },
      });
      if (args.json) out({ skills: result });
      else {
        for (const s of result) {
          const to = s.to_commit === undefined || s.status === "up_to_date"
            ? ""
            : ` -> ${short(s.to_commit)}`;
          io.stdout(
            `${s.status.replaceAll("_", " ")} ${esc(s.name)}${
              versions(s.version, s.status === "up_to_date" ? undefined : s.to_version)
            }${to}${s.error === undefined ? "" : `: ${esc(s.error.message)}`}\n`,
          );
          if (s.status !== "up_to_date") { for (const f of s.files) io.stdout(describeFile(f)); }
        }
      }
      return result.some((s) => s.status === "refused") ? 1 : 0;
    }
    default: {
      assertInstalled(args.positional, options);
      const result = await removeSkills(args.positional, {
        ...options,
        force: args.switches.has("--force"),
      });
      if (args.json) out(result);
      else {
        for (const r of result.removed) io.stdout(`removed ${esc(r)}\n`);
        for (const r of result.refused) {
          io.stderr(`skillset: refused: ${r.code}: ${esc(r.message)}\n`);
        }
      }
      return result.refused.length > 0 ? 1 : 0;
    }
  }
}

/** A source as the user gave it, as the lockfile records its URL (a folder by its absolute path). */
function chosen(source: string): string {
  return sourceOf(source, process.cwd()).url;
}

/**
 * The agents `--agent` names (each flag a comma-separated list; `all-detected` the agents
 * detected in the scope's folder), checked against the table.
 *
 * @throws {UsageError} For an unknown name, with the nearest known ones.
 */
function agentsNamed(flags: readonly string[], scope: "project" | "user"): readonly string[] {
  const out: string[] = [];
  const known = agentNames();
  for (const name of flags.flatMap((f) => f.split(",")).map((n) => n.trim())) {
    if (name === "all-detected") {
      for (const a of detectAgents(process.cwd(), homedir())) {
        if (a.scopes.includes(scope)) out.push(a.name);
      }
    } else if (known.includes(name)) out.push(name);
    else throw unknownName("agent", name, [...known, "all-detected"], "(see skillset agents)");
  }
  return [...new Set(out)];
}

/** `skillset agents`: the table, and the agents detected in the project and the home. */
function listAgents(scope: "project" | "user", io: CliIO, json: boolean): number {
  const detected = new Map(detectAgents(process.cwd(), homedir()).map((a) => [a.name, a.scopes]));
  const rows = AGENTS.map((a) => ({
    name: a.name,
    title: a.title,
    project: a.project,
    user: `~/${a.user}`,
    detected: detected.get(a.name) ?? [],
    canonical: readsCanonical(a, scope),
  }));
  if (json) {
    io.stdout(`${JSON.stringify({ agents: rows }, null, 2)}\n`);
    return 0;
  }
  for (const r of rows) {
    const seen = r.canonical
      ? "reads .agents/skills: no link needed"
      : r.detected.length === 0
      ? "not detected"
      : `detected in ${
        r.detected.map((s) => (s === "user" ? "the home" : "the project")).join(" and ")
      }`;
    io.stdout(`${r.name.padEnd(15)} ${r.project.padEnd(17)} ${r.user.padEnd(27)} ${seen}\n`);
  }
  return 0;
}

/** A revision, shortened: 12 digits of a commit, `sha256:` and 12 of a digest. */
function short(revision: string): string {
  return revision.startsWith("sha256:") ? revision.slice(0, 19) : revision.slice(0, 12);
}

function describeFile(f: FileDiff): string {
  const sizes = f.change === "added"
    ? `${f.size_after} bytes`
    : f.change === "removed"
    ? `${f.size_before} bytes`
    : `${f.size_before} -> ${f.size_after} bytes`;
  const head = `  ${f.change.padEnd(7)} ${esc(f.path)} (${sizes})${
    f.note === undefined ? "" : ` [diff ${f.note}]`
  }\n`;
  if (f.diff === undefined) return head;
  return head +
    escapeControlsKeepingLines(f.diff).split("\n").filter((l) => l !== "").map((l) => `    ${l}\n`)
      .join("");
}

/**
 * ` 1.0.0`, ` 1.0.0 -> 1.1.0`, ` ? -> 1.1.0`, or nothing: a skill's version and the one it
 * would move to, when its SKILL.md states them (checked printable when read).
 */
function versions(was: string | undefined, to: string | undefined): string {
  if (to !== undefined && to !== was) return ` ${esc(was ?? "?")} -> ${esc(to)}`;
  return was === undefined ? "" : ` ${esc(was)}`;
}

/** An npm source's package versions, installed then and now, when they differ. */
function bumped(s: OutdatedSkill): string {
  const was = s.installed_from.version;
  const now = s.remote_package_version;
  return was === undefined || now === undefined || was === now
    ? ""
    : ` (package ${esc(was)} -> ${esc(now)})`;
}
