/**
 * The commands of the `skillset` CLI on the paths given: `validate`
 * (catalogs and skill folders), `activate` (one skill's instructions and
 * manifest) and `read` (one page of one of its files).
 *
 * @module
 */
import { join } from "node:path";
import { escapeControls as esc, escapeControlsKeepingLines } from "../core/_text.ts";
import { count, safetyFlags } from "./_args.ts";
import { type DiscoveryFlags, printDiagnostics } from "./_discovery.ts";
import { type CliIO, shownAsTyped } from "./_io.ts";
import { activateSkill, renderActivation } from "../core/activate.ts";
import { MIN_PAGE_BYTES, readResource, renderResourceRead } from "../core/read.ts";
import { type LoadedSkill, loadSkillFolder } from "../fs/skill_folder.ts";
import { type Diagnostic, formatDiagnostic, validatePaths } from "../fs/validate.ts";

/**
 * `validate <path>...`: every rule break of the catalogs and skill folders given, as
 * `file:line:col: error|warning: message` lines and a count, or as JSON.
 *
 * @param paths The files and folders, as typed.
 * @param flags The class mapping and switches.
 * @param json Whether to print JSON.
 * @param io Where to write.
 * @returns The exit code: 1 when there is an error.
 */
export function validateCommand(
  paths: readonly string[],
  flags: DiscoveryFlags,
  json: boolean,
  io: CliIO,
): number {
  const diagnostics = validatePaths(paths, flags);
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const warnings = diagnostics.length - errors;
  if (json) {
    io.stdout(`${JSON.stringify({ diagnostics, errors, warnings }, null, 2)}\n`);
  } else {
    for (const d of diagnostics) io.stdout(`${colorDiagnostic(d, io)}\n`);
    io.stdout(
      `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${
        warnings === 1 ? "" : "s"
      }\n`,
    );
  }
  return errors > 0 ? 1 : 0;
}

function colorDiagnostic(d: Diagnostic, io: CliIO): string {
  const text = formatDiagnostic({ ...d, file: esc(d.file), message: esc(d.message) });
  if (!io.color) return text;
  const label = `${d.severity}:`;
  const colored = d.severity === "error" ? `\x1b[31m${label}\x1b[0m` : `\x1b[33m${label}\x1b[0m`;
  return text.replace(`: ${label} `, `: ${colored} `);
}

/**
 * `activate <skill-dir>`: the skill's instructions and the manifest of its bundled files.
 *
 * @param dir The skill folder, as typed.
 * @param flags The flags given (`--offset`, `--max-entries` and the switches).
 * @param load The class mapping and switches.
 * @param json Whether to print JSON.
 * @param io Where to write.
 * @param checked The skill already loaded and checked (`--lockfile`, `--approvals`), else loaded here.
 * @returns The exit code.
 * @throws {UsageError} For a bad flag value.
 * @throws {AgentSkillError} For a folder that is not a usable skill.
 */
export function activateCommand(
  dir: string,
  flags: ReadonlyMap<string, string>,
  load: DiscoveryFlags,
  json: boolean,
  io: CliIO,
  checked?: LoadedSkill,
): number {
  const offset = count(flags, "--offset", 0);
  const maxEntries = count(flags, "--max-entries", 1);
  const skill = checked ?? loadSkillFolder(dir, { lenient: true, ...load });
  warnAbout(skill, io, dir);
  const activation = activateSkill(skill, {
    ...safetyFlags(flags),
    ...(offset === undefined ? {} : { offset }),
    ...(maxEntries === undefined ? {} : { max_entries: maxEntries }),
  });
  io.stdout(
    `${
      json
        ? JSON.stringify(activation, null, 2)
        : escapeControlsKeepingLines(renderActivation(activation))
    }\n`,
  );
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
  checked?: LoadedSkill,
): number {
  const lineByte = flags.get("--offset")?.match(/^\d+\+\d+$/)?.[0];
  const offset = lineByte ?? count(flags, "--offset", 0);
  const limit = count(flags, "--limit", 1);
  const maxPageBytes = count(flags, "--max-page-bytes", MIN_PAGE_BYTES);
  const skill = checked ?? loadSkillFolder(dir, { lenient: true, ...load });
  printDiagnostics(skill.diagnostics, io, shownAsTyped(["", dir]));
  const page = readResource(skill, path, {
    ...safetyFlags(flags),
    ...(offset === undefined ? {} : { offset }),
    ...(limit === undefined ? {} : { limit }),
    ...(maxPageBytes === undefined ? {} : { max_page_bytes: maxPageBytes }),
  });
  io.stdout(
    `${
      json ? JSON.stringify(page, null, 2) : escapeControlsKeepingLines(renderResourceRead(page))
    }\n`,
  );
  return 0;
}

function warnAbout(skill: LoadedSkill, io: CliIO, typed: string): void {
  const shown = shownAsTyped(["", typed]);
  printDiagnostics(skill.diagnostics, io, shown);
  for (const w of skill.warnings) {
    io.stderr(`${esc(shown(join(skill.location, w.path)))}: warning: ${esc(w.message)}\n`);
  }
}
