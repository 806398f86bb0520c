/**
 * The commands of the `skillset` CLI on the paths given: `validate`
 * (catalogs and skill folders), `activate` (one skill's instructions and
 * manifest) and `read` (one page of one of its files).
 *
 * Folder `lib/cli/catalog/` — the commands that show skills: resolve, activate, list, search, stats.
 *
 * @module
 */
import { readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { escapeControls as esc, escapeControlsKeepingLines } from "../../core/_text.ts";
import { count, safetyFlags, type Verbosity } from "../_args.ts";
import { Report } from "../_report.ts";
import { withHint } from "../_errors.ts";
import { didYouMean, nearest } from "../_suggest.ts";
import { assertLogOutside, recordActivation } from "./_stats.ts";
import { assertModesNameSkills, modesFlag } from "./_modes.ts";
import { type ModedSkill, skillMode, SkillModeError } from "../../core/catalog/skill_modes.ts";
import { skillAccess } from "../../core/catalog/skill_access.ts";
import { ResourceNotFoundError, SkillFolderError } from "../../core/errors.ts";
import { type DiscoveryFlags, listDiscovery, printDiagnostics } from "../_discovery.ts";
import { bodyBudgetDiagnostics, bodyTokens, collisionDiagnostics } from "../eval/_budgets.ts";
import { type CliIO, shownAsTyped } from "../_io.ts";
import { activateSkill, renderActivation } from "../../core/activation/activate.ts";
import { MIN_PAGE_BYTES, readResource, renderResourceRead } from "../../core/resources/read.ts";
import { type LoadedSkill, loadSkillFolder } from "../../fs/load/skill_folder.ts";
import { type Diagnostic, formatDiagnostic, validatePaths } from "../../fs/discovery/validate.ts";
import { activationDependencies, neighbours } from "./_dependencies.ts";
import type { DependentSkill } from "../../core/catalog/skill_dependencies.ts";
import { SkillDependencyError } from "../../core/catalog/skill_requirements.ts";

/**
 * `validate <path>...`: every rule break of the catalogs and skill folders given, as
 * `file:line:col: error|warning: message` lines and a count, or as JSON.
 *
 * @param paths The files and folders, as typed.
 * @param flags The class mapping and switches.
 * @param json Whether to print JSON.
 * @param io Where to write.
 * @param verbosity Which findings are printed (`--quiet`: errors; `--verbose`: information too).
 * @returns The exit code: 1 when there is an error.
 */
export function validateCommand(
  paths: readonly string[],
  flags: DiscoveryFlags,
  json: boolean,
  io: CliIO,
  verbosity: Verbosity = "normal",
  kit: { maxBodyTokens?: number | undefined; collisions?: boolean } = {},
): number {
  const diagnostics = [...validatePaths(paths, flags), ...authorKit(paths, flags, kit)];
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const infos = diagnostics.filter((d) => d.severity === "info").length;
  const warnings = diagnostics.length - errors - infos;
  if (json) {
    io.stdout(`${JSON.stringify({ diagnostics, errors, warnings, infos }, null, 2)}\n`);
  } else {
    const report = new Report(io, verbosity, true, io.stdout);
    for (const d of diagnostics) report.note(colorDiagnostic(d, io), d.severity, d.code);
    // --quiet: the errors, and nothing else.
    if (verbosity !== "quiet") {
      io.stdout(
        `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${
          warnings === 1 ? "" : "s"
        }${infos === 0 ? "" : `, ${infos} info (--verbose shows them)`}\n`,
      );
    }
    report.summary("skillset validate", "--verbose shows each");
  }
  return errors > 0 ? 1 : 0;
}

/** The skill author's checks of `validate`: body budgets and confusable descriptions. */
function authorKit(
  paths: readonly string[],
  flags: DiscoveryFlags,
  kit: { maxBodyTokens?: number | undefined; collisions?: boolean },
): Diagnostic[] {
  if (kit.maxBodyTokens === undefined && kit.collisions !== true) return [];
  const { discovery } = listDiscovery(paths, [], flags);
  const out: Diagnostic[] = [];
  if (kit.maxBodyTokens !== undefined) {
    out.push(...bodyBudgetDiagnostics(discovery.skills, kit.maxBodyTokens, (s) => {
      try {
        return loadSkillFolder(s.alias ? s.real_path : s.path, { lenient: true }).instructions;
      } catch {
        return ""; // validatePaths reports why it does not load.
      }
    }));
  }
  if (kit.collisions === true) out.push(...collisionDiagnostics(discovery.skills));
  return out;
}

function colorDiagnostic(d: Diagnostic, io: CliIO): string {
  const text = formatDiagnostic({ ...d, file: esc(d.file), message: esc(d.message) });
  if (!io.color) return text;
  const label = `${d.severity}:`;
  const colored = d.severity === "error"
    ? `\x1b[31m${label}\x1b[0m`
    : d.severity === "warning"
    ? `\x1b[33m${label}\x1b[0m`
    : `\x1b[36m${label}\x1b[0m`;
  return text.replace(`: ${label} `, `: ${colored} `);
}

/**
 * `activate <skill-dir>`: the skill's instructions and the manifest of its bundled files, and
 * the skills it depends on in closure order (found under `roots`, else beside it).
 *
 * @param dir The skill folder, as typed.
 * @param flags The flags given (`--offset`, `--max-entries`, `--max-body-tokens`, `--modes`, `--usage-log` and the switches).
 * @param load The class mapping and switches.
 * @param json Whether to print JSON.
 * @param io Where to write.
 * @param verbosity Which of the skill's rule breaks are printed (default: a summary line).
 * @param checked The skill already loaded and checked (`--lockfile`, `--approvals`), else loaded here.
 * @param roots The values of `--root`: where its dependencies are found (none: beside it).
 * @param keep Which skills found there may satisfy a dependency (default: all), e.g. locked ones.
 * @returns The exit code.
 * @throws {UsageError} For a bad flag value.
 * @throws {AgentSkillError} For a folder that is not a usable skill.
 * @throws {SkillDependencyError} When its dependencies do not resolve there.
 * @throws {SkillModeError} For a malformed `--modes` file, or a skill it marks disabled.
 */
export function activateCommand(
  dir: string,
  flags: ReadonlyMap<string, string>,
  load: DiscoveryFlags,
  json: boolean,
  io: CliIO,
  verbosity: Verbosity = "normal",
  checked?: LoadedSkill,
  roots: readonly string[] = [],
  keep?: (skill: DependentSkill) => boolean,
): number {
  const offset = count(flags, "--offset", 0);
  const maxEntries = count(flags, "--max-entries", 1);
  const maxBodyTokens = count(flags, "--max-body-tokens", 1);
  const modes = modesFlag(flags.get("--modes"));
  const skill = checked ?? loadNamed(dir, load);
  // Every name in the modes file is a skill beside this one (or under the roots): a typo is loud.
  if (modes !== undefined) {
    assertModesNameSkills(modes, neighbours(skill, roots, load), [skill.name]);
  }
  // The user names the skill: a manual one is activated, a disabled one is not.
  if (skillMode(skill, modes) === "disabled") {
    throw new SkillModeError(
      "SKILL_DISABLED",
      `Skill ${JSON.stringify(esc(skill.name))} is disabled (its mode in ${
        esc(flags.get("--modes")!)
      })`,
    );
  }
  const usageLog = flags.get("--usage-log");
  if (usageLog !== undefined) assertLogOutside(usageLog, [skill.location]);
  const report = new Report(io, verbosity);
  warnAbout(skill, io, dir, report);
  report.summary("skillset", "skillset validate or --verbose shows each");
  // One rule (skill_access.ts): a disabled skill, or a manual one the user did not name, never
  // satisfies a dependency; neither does one the lockfile or the approvals refused (`keep`).
  const dependencies = activationDependencies(
    skill,
    roots,
    load,
    (s) =>
      (keep === undefined || keep(s)) &&
      skillAccess("dependency", { mode: skillMode(s as ModedSkill, modes) }),
  );
  let activation;
  try {
    activation = activateSkill(skill, {
      ...safetyFlags(flags),
      ...(dependencies === undefined ? {} : { dependencies }),
      ...(offset === undefined ? {} : { offset }),
      ...(maxEntries === undefined ? {} : { max_entries: maxEntries }),
      ...(maxBodyTokens === undefined
        ? {}
        : { max_body_tokens: maxBodyTokens, count_tokens: bodyTokens }),
    });
  } catch (e) {
    // A mistyped requires-skills value: name the skills it may have meant.
    if (e instanceof SkillDependencyError && e.code === "MISSING_DEPENDENCY") {
      const gap = e.gaps[0];
      const wanted = gap?.missing[0] ?? gap?.missing_any[0];
      const known = neighbours(skill, roots, load).skills.map((s) => s.name);
      // A name that is there but was refused (its mode, the lock, the approvals) is no typo.
      if (wanted !== undefined && !known.includes(wanted)) {
        throw withHint(e, didYouMean(wanted, known));
      }
    }
    throw e;
  }
  io.stdout(
    `${
      json
        ? JSON.stringify(activation, null, 2)
        : escapeControlsKeepingLines(renderActivation(activation))
    }\n`,
  );
  if (usageLog !== undefined) {
    recordActivation(usageLog, { name: skill.name, origin: "local", trigger: "user" }, io);
  }
  return 0;
}

/**
 * `read <skill-dir> <path>`: one page of a bundled file in the `[SKILL_RESOURCE_READ]` envelope.
 *
 * @param dir The skill folder, as typed.
 * @param path The file, relative to the skill folder.
 * @param flags The flags given (`--offset`, `--limit`, `--max-page-bytes` and the switches).
 * @param load The class mapping and switches.
 * @param json Whether to print JSON.
 * @param io Where to write.
 * @param verbosity Which of the skill's rule breaks are printed (default: a summary line).
 * @param checked The skill already loaded and checked (`--lockfile`, `--approvals`), else loaded here.
 * @returns The exit code.
 * @throws {UsageError} For a bad flag value.
 * @throws {InvalidResourcePathError} For a path the gate refuses.
 * @throws {ResourceNotFoundError} For a file the skill does not have.
 */
export function readCommand(
  dir: string,
  path: string,
  flags: ReadonlyMap<string, string>,
  load: DiscoveryFlags,
  json: boolean,
  io: CliIO,
  verbosity: Verbosity = "normal",
  checked?: LoadedSkill,
): number {
  const lineByte = flags.get("--offset")?.match(/^\d+\+\d+$/)?.[0];
  const offset = lineByte ?? count(flags, "--offset", 0);
  const limit = count(flags, "--limit", 1);
  const maxPageBytes = count(flags, "--max-page-bytes", MIN_PAGE_BYTES);
  const skill = checked ?? loadNamed(dir, load);
  const report = new Report(io, verbosity);
  printDiagnostics(skill.diagnostics, io, shownAsTyped(["", dir]), report);
  report.summary("skillset", "skillset validate or --verbose shows each");
  let page;
  try {
    page = readResource(skill, path, {
      ...safetyFlags(flags),
      ...(offset === undefined ? {} : { offset }),
      ...(limit === undefined ? {} : { limit }),
      ...(maxPageBytes === undefined ? {} : { max_page_bytes: maxPageBytes }),
    });
  } catch (e) {
    if (e instanceof ResourceNotFoundError) {
      throw withHint(e, didYouMean(e.path, skill.files.keys()));
    }
    throw e;
  }
  io.stdout(
    `${
      json ? JSON.stringify(page, null, 2) : escapeControlsKeepingLines(renderResourceRead(page))
    }\n`,
  );
  return 0;
}

/** A skill folder loaded leniently; a missing one names the nearest skill folder beside it. */
function loadNamed(dir: string, load: DiscoveryFlags): LoadedSkill {
  try {
    return loadSkillFolder(dir, { lenient: true, ...load });
  } catch (e) {
    if (!(e instanceof SkillFolderError) || e.code !== "NO_SUCH_FOLDER") throw e;
    const parent = dirname(dir);
    let siblings: string[] = [];
    try {
      siblings = readdirSync(parent, { withFileTypes: true })
        .filter((d) => d.isDirectory() || d.isSymbolicLink())
        .map((d) => d.name)
        .slice(0, 10_000);
    } catch {
      // The parent is missing too: no hint.
    }
    const near = nearest(basename(dir), siblings);
    const hint = near === undefined ? "" : ` (did you mean ${JSON.stringify(join(parent, near))}?)`;
    throw withHint(e, hint);
  }
}

function warnAbout(skill: LoadedSkill, io: CliIO, typed: string, report: Report): void {
  const shown = shownAsTyped(["", typed]);
  printDiagnostics(skill.diagnostics, io, shown, report);
  for (const w of skill.warnings) {
    report.note(
      `${esc(shown(join(skill.location, w.path)))}: warning: ${esc(w.message)}`,
      "warning",
      "SKIPPED_ENTRY",
    );
  }
}
