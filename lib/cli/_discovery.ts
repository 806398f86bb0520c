/**
 * Discovery as the commands share it: the flags that shape it, the roots
 * searched (the conventional ones, or `--root scope=path` and folder
 * arguments), and the report on stderr of what it noticed.
 *
 * Folder `lib/cli/` — the command line behind `lib/cli.ts`: the command table, flags, output, config.
 *
 * @module
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { escapeControls as esc } from "../core/_text.ts";
import { classFlags, safetyFlags, UsageError } from "./_args.ts";
import { type CliIO, visible } from "./_io.ts";
import { discoverSkills, type SkillRoot } from "../fs/discovery/discover.ts";
import type { Discovery } from "../fs/discovery/discovery.ts";
import {
  formatSkillDiagnostic,
  type SkillDiagnostic,
  type SkillDiagnosticCode,
} from "../fs/discovery/skill_diagnostic.ts";
import type { ResourceClassMap } from "../core/resources/resource_path.ts";
import type { Report, Severity } from "./_report.ts";

/** The class mapping and the switches, as `discoverSkills`, `loadSkillFolder` and `validatePaths` take them. */
export interface DiscoveryFlags {
  readonly resourceClasses: ResourceClassMap;
  readonly safety: { global_safety: boolean; skill_safety: boolean };
}

/**
 * The class mapping and switches of `--class`, `--global-safety` and `--skill-safety`.
 *
 * @param args The parsed flags.
 * @returns The discovery flags.
 * @throws {UsageError} For a bad `--class` or switch value.
 */
export function discoveryFlags(
  args: { flags: ReadonlyMap<string, string>; repeated: ReadonlyMap<string, readonly string[]> },
): DiscoveryFlags {
  return {
    resourceClasses: classFlags(args.repeated.get("--class") ?? []),
    safety: safetyFlags(args.flags),
  };
}

/**
 * The conventional roots, highest precedence first.
 *
 * @returns The project's `.agents/skills` and `.claude/skills`, then the user's.
 */
export function defaultRoots(): SkillRoot[] {
  const home = homedir();
  return [
    { scope: "project", path: resolve(".agents", "skills") },
    { scope: "project", path: resolve(".claude", "skills") },
    { scope: "user", path: join(home, ".agents", "skills") },
    { scope: "user", path: join(home, ".claude", "skills") },
  ];
}

/**
 * A `--root scope=path` flag as a root.
 *
 * @param flag The flag's value.
 * @returns The root.
 * @throws {UsageError} When the value is not `scope=path`.
 */
export function rootOf(flag: string): SkillRoot {
  const eq = flag.indexOf("=");
  if (eq <= 0 || eq === flag.length - 1) {
    throw new UsageError(`--root takes scope=path, got "${esc(flag)}"`);
  }
  return { scope: flag.slice(0, eq), path: flag.slice(eq + 1) };
}

/**
 * The roots of `list` (and the trust commands) and what discovery finds under them: each folder
 * argument a root of its own scope, then the `--root scope=path` ones; without either, the
 * conventional roots.
 *
 * @param folders The folder arguments.
 * @param rootFlags The values of `--root`.
 * @param load The class mapping and switches.
 * @returns The roots and the discovery.
 * @throws {UsageError} When a `--root` value is not `scope=path`.
 */
export function listDiscovery(
  folders: readonly string[],
  rootFlags: readonly string[],
  load: DiscoveryFlags,
): { roots: SkillRoot[]; discovery: Discovery } {
  const given = [
    ...folders.map((path) => ({ scope: path, path })),
    ...rootFlags.map(rootOf),
  ];
  const roots = given.length === 0 ? defaultRoots() : given;
  // The default roots are the conventional folders themselves.
  const discovery = discoverSkills(roots, { conventionalRoots: given.length > 0, ...load });
  return { roots, discovery };
}

/** How a command words its report of what discovery noticed. */
export interface ReportVoice {
  /** What the command does with the skills it finds: a shadowed one is "not listed" or "not served". */
  readonly verb: "listed" | "served";
  /** Put before every line, e.g. `skillset serve: ` (default: nothing). */
  readonly prefix?: string;
  /** Untrusted text made safe for a terminal (default: {@linkcode visible}). */
  readonly escape?: (text: string) => string;
  /** How a path is named (default: as it is). */
  readonly shown?: (path: string) => string;
  /** Codes of scan diagnostics the command reports itself, left out here. */
  readonly reported?: readonly SkillDiagnosticCode[];
  /** Whether each skipped skill gets a line of its own (`skipped, not served`) before its diagnostics. */
  readonly namesSkipped?: boolean;
  /** Where the lines go: each once, as the verbosity says (default: every line to stderr). */
  readonly report?: Report;
}

/**
 * Everything discovery noticed, to stderr: scan problems, rule breaks, skips, shadowing.
 *
 * @param discovery What discovery found.
 * @param io Where to write.
 * @param voice How the command words it.
 */
export function reportDiscovery(
  discovery: Discovery,
  io: Pick<CliIO, "stderr">,
  voice: ReportVoice,
): void {
  const { verb, prefix = "", escape = visible, shown = (p: string) => p, report } = voice;
  const say = (line: string, severity: Severity = "warning", code?: string) =>
    report === undefined
      ? io.stderr(`${prefix}${line}\n`)
      : report.note(`${prefix}${line}`, severity, code);
  const print = (d: SkillDiagnostic) =>
    say(escape(formatSkillDiagnostic({ ...d, path: shown(d.path) })), d.severity, d.code);
  for (const d of discovery.diagnostics) {
    if (d.severity !== "info" && voice.reported?.includes(d.code) !== true) print(d);
  }
  for (const s of discovery.skills) s.diagnostics.forEach(print);
  for (const s of discovery.skipped) {
    if (voice.namesSkipped === true) {
      say(
        `${escape(shown(s.skill_md))}: warning: skipped, not ${verb}`,
        "warning",
        "SKILL_SKIPPED",
      );
    }
    s.diagnostics.forEach(print);
  }
  for (const s of discovery.shadowed) {
    const message = `skill ${JSON.stringify(s.name)} is shadowed by ${
      JSON.stringify(s.winner.path)
    } (scope ${JSON.stringify(s.winner.scope)}); not ${verb}`;
    say(`${escape(shown(s.skill_md))}: warning: ${escape(message)}`, "warning", "SHADOWED");
  }
}

/**
 * Diagnostics on stderr, one a line.
 *
 * @param diagnostics The diagnostics.
 * @param io Where to write.
 * @param shown How a path is named.
 * @param report Where the lines go: each once, as the verbosity says (default: all to stderr).
 */
export function printDiagnostics(
  diagnostics: readonly SkillDiagnostic[],
  io: CliIO,
  shown: (path: string) => string = (p) => p,
  report?: Report,
): void {
  for (const d of diagnostics) {
    const line = describeDiagnostic({ ...d, path: shown(d.path) });
    if (report === undefined) io.stderr(`${line}\n`);
    else report.note(line, d.severity, d.code);
  }
}

/**
 * A diagnostic on one line, with control and bidi characters made visible.
 *
 * @param d The diagnostic.
 * @returns The line, without a line break.
 */
export function describeDiagnostic(d: SkillDiagnostic): string {
  return visible(formatSkillDiagnostic(d));
}
