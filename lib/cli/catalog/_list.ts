/**
 * The commands of the `skillset` CLI over discovered skills: `list` (what
 * the roots hold, and why a skill is shadowed or skipped), `search` (ranked
 * by what they do) and `to-prompt` (the `<available_skills>` block).
 *
 * Folder `lib/cli/catalog/` — the commands that show skills: resolve, activate, list, search, stats.
 *
 * @module
 */
import {
  checkProfileMatched,
  type LeftOutSkill,
  profiledSkills,
  type ProfileFlags,
} from "./_profile.ts";
import { basename, isAbsolute, relative, resolve } from "node:path";
import { escapeControls as esc } from "../../core/_text.ts";
import { UsageError, type Verbosity } from "../_args.ts";
import { Report } from "../_report.ts";
import {
  defaultRoots,
  describeDiagnostic,
  type DiscoveryFlags,
  listDiscovery,
  reportDiscovery,
  rootOf,
} from "../_discovery.ts";
import { bold, type CliIO, table, visible } from "../_io.ts";
import { AgentSkillError } from "../../core/errors.ts";
import { discoverSkills, type SkillRoot } from "../../fs/discovery/discover.ts";
import type { Discovery, ShadowedSkill } from "../../fs/discovery/discovery.ts";
import { type ExcludedSkill, fitSkillCatalog } from "../../core/catalog/skill_catalog.ts";
import type { SkillMode } from "../../core/catalog/skill_modes.ts";
import {
  type DependencyHiddenSkill,
  skillsWithDependencies,
} from "../../core/catalog/skill_dependencies.ts";
import { createSkillIndex, searchSkills } from "../../core/search/skill_index.ts";
import { matchReasons } from "../../core/activation/skill_search_tool.ts";
import { usageLogRank } from "./_stats.ts";
import { exists, rootsHoldSkills } from "../_roots.ts";
import { unknownName } from "../_unknown_name.ts";
import { assertModesNameSkills } from "./_modes.ts";

/**
 * `list`; with `trust` (from `list --approvals FILE`), the discovery already made and each loaded
 * skill's approval as a column (`approved`, `needs approval`, `changed since approval`).
 *
 * @param folders The folder arguments.
 * @param rootFlags The values of `--root`.
 * @param load The class mapping and switches.
 * @param json Whether to print JSON.
 * @param io Where to write.
 * @param trust The roots and discovery already made, and each loaded skill's approval by folder.
 * @param options `--allow-empty`: a root given that does not exist or holds no skill is fine;
 *   the verbosity: each skill's errors always, its warnings with `--verbose` (else counted);
 *   the profile flags: only the skills they keep are listed.
 * @returns The exit code: 1 when a root given is missing or empty, or cannot be read.
 * @throws {SkillProfileError} `EMPTY_PROFILE` when the profile keeps no skill (without `--allow-empty`).
 */
export function listCommand(
  folders: readonly string[],
  rootFlags: readonly string[],
  load: DiscoveryFlags,
  json: boolean,
  io: CliIO,
  trust?: {
    readonly roots: readonly SkillRoot[];
    readonly discovery: Discovery;
    readonly approvals?: ReadonlyMap<
      string,
      { readonly approval: string; readonly changes: readonly unknown[] }
    >;
  },
  options: {
    readonly allowEmpty?: boolean;
    readonly verbosity?: Verbosity;
    readonly profiles?: ProfileFlags;
  } = {},
): number {
  const { roots, discovery } = trust ?? listDiscovery(folders, rootFlags, load);
  const given = folders.length + rootFlags.length > 0;
  if (given && !rootsHoldSkills(roots, discovery, true, options.allowEmpty === true, io)) return 1;
  const { kept, left } = options.profiles === undefined
    ? { kept: discovery.skills, left: [] }
    : profiledSkills(options.profiles, discovery.skills);
  const approvalOf = (path: string) => trust?.approvals?.get(path);
  const rows = [
    ...kept.map((s) => ({ status: "loaded", ...s, ...approvalOf(s.path) })),
    ...discovery.shadowed.map((s) => ({ status: "shadowed", ...s })),
    ...discovery.skipped.map((s) => ({ status: "skipped", name: null, ...s })),
  ];
  if (json) {
    const skills = rows.map((r) => {
      const { frontmatter: _, ...rest } = r as typeof r & { frontmatter?: unknown };
      return rest;
    });
    io.stdout(
      `${
        JSON.stringify(
          {
            roots: roots.map((r) => ({ scope: r.scope, path: resolve(r.path) })),
            skills,
            conflicts: discovery.conflicts,
            diagnostics: discovery.diagnostics,
            ...(options.profiles === undefined ? {} : { left_out: left }),
          },
          null,
          2,
        )
      }\n`,
    );
    return denied(discovery) ? 1 : 0;
  }
  // Paths (and a folder argument's scope, which is its path) relative to the working folder
  // when they lie under it: a table of absolute paths is mostly the same prefix, again.
  const shown = (p: string): string => {
    const here = relative(".", resolve(p)) || ".";
    return here.startsWith("..") || isAbsolute(here) ? p : here;
  };
  const scopeOf = (scope: string): string =>
    roots.some((r) => r.scope === scope && r.path === scope) ? shown(scope) : scope;
  // Each skill's errors under it; its warnings and notes with --verbose, else counted on stderr.
  const report = new Report(io, options.verbosity ?? "normal", false, (line) => {
    lines.push(line.replace(/\n$/, ""));
  });
  const approvalColumn = (r: object): string[] =>
    trust?.approvals === undefined
      ? []
      : [((r as { approval?: string }).approval ?? "-").replaceAll("_", " ")];
  const lines = [
    ...table([
      ["scope", "status", ...(trust?.approvals === undefined ? [] : ["approval"]), "name", "path"],
      ...rows.map((r) =>
        [scopeOf(r.scope), r.status, ...approvalColumn(r), r.name ?? "-", shown(r.path)].map(
          visible,
        )
      ),
    ]),
  ];
  for (const r of rows) {
    if (r.status === "shadowed") {
      const { winner } = r as unknown as ShadowedSkill;
      lines.push(
        `  ${visible(shown(r.path))}: shadowed by ${visible(shown(winner.path))} (scope ${
          visible(winner.scope)
        })`,
      );
    }
    for (const d of r.diagnostics) {
      report.note(`  ${describeDiagnostic({ ...d, path: shown(d.path) })}`, d.severity, d.code);
    }
  }
  for (const d of discovery.diagnostics) {
    report.note(`  ${describeDiagnostic({ ...d, path: shown(d.path) })}`, d.severity, d.code);
  }
  const n = (count: number, what: string) => `${count} ${what}`;
  lines.push(
    "",
    `${n(kept.length, "loaded")}, ${n(discovery.shadowed.length, "shadowed")}, ${
      n(discovery.skipped.length, "skipped")
    }${leftOutNote(left)} (roots: ${
      roots.map((r) => `${scopeOf(r.scope)}=${shown(resolve(r.path))}`).map(visible).join(", ")
    })`,
  );
  io.stdout(`${lines.join("\n")}\n`);
  report.summary("skillset list", "--verbose lists each");
  return denied(discovery) ? 1 : 0;
}

/** `, 3 left out (profile review: a, b; paths: c)` for the summary line, or nothing. */
function leftOutNote(left: readonly LeftOutSkill[]): string {
  if (left.length === 0) return "";
  const by = (reason: LeftOutSkill["reason"]) => left.filter((l) => l.reason === reason);
  const parts = [
    ...(by("profile").length === 0
      ? []
      : [`profile ${by("profile")[0]!.detail}: ${by("profile").map((l) => l.name).join(", ")}`]),
    ...(by("paths").length === 0 ? [] : [`paths: ${by("paths").map((l) => l.name).join(", ")}`]),
  ];
  return `, ${left.length} left out (${visible(parts.join("; "))})`;
}

/** The order a budget keeps skills in: as found (`position`), by `name`, or by recent `usage`. */
export type Rank = "position" | "name" | "usage";

/**
 * `--rank position|name|usage` as a rank, with the usage log `usage` reads.
 *
 * @param value The flag's value, if given.
 * @param usageLog The value of `--usage-log`, if given.
 * @returns The rank (default `position`) and, for `usage`, the log.
 * @throws {UsageError} For another value, or `usage` without a log.
 */
export function rankOf(
  value: string | undefined,
  usageLog?: string,
): { readonly rank: Rank; readonly usageLog?: string } {
  if (value === undefined || value === "position" || value === "name") {
    return { rank: value ?? "position" };
  }
  if (value !== "usage") throw unknownName("--rank value", value, ["position", "name", "usage"]);
  if (usageLog === undefined) throw new UsageError("--rank usage needs --usage-log FILE");
  return { rank: "usage", usageLog };
}

function ranked<T extends { readonly name: string }>(
  skills: readonly T[],
  rank?: Rank,
): readonly T[] {
  if (rank !== "name") return skills;
  return [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * `--lang TAG` names a language some skill describes itself in (`description-<TAG>`
 * metadata for the tag or a shorter one): a typo would show every description untranslated.
 */
function assertLangKnown(lang: string, skills: Discovery["skills"]): void {
  const tags = new Set<string>();
  for (const s of skills) {
    for (const key of Object.keys(s.frontmatter.metadata ?? {})) {
      if (key.toLowerCase().startsWith("description-")) tags.add(key.slice(12).toLowerCase());
    }
  }
  const parts = lang.toLowerCase().split("-");
  for (let n = parts.length; n > 0; n--) if (tags.has(parts.slice(0, n).join("-"))) return;
  throw unknownName(
    "--lang value",
    lang,
    tags,
    tags.size === 0 ? "(no skill has description-<TAG> metadata)" : undefined,
  );
}

/** Whether a root could not be read for lack of permission (an error, not an empty scope). */
function denied(discovery: Discovery): boolean {
  return discovery.diagnostics.some((d) =>
    d.code === "PERMISSION_DENIED" && d.severity === "error"
  );
}

/**
 * `search <words>...`: the discovered skills ranked by what they do, best first.
 *
 * @param query The words, joined by spaces.
 * @param rootFlags The values of `--root`.
 * @param options `--limit`, `--lang` and the profile flags (only the skills they keep are searched).
 * @param json Whether to print JSON.
 * @param io Where to write.
 * @param checked The discovery already narrowed by `--lockfile`/`--approvals`, else made here.
 * @returns The exit code: 1 when no skill matches.
 * @throws {UsageError} For a bad `--root` or `--lang` value.
 * @throws {SkillProfileError} `EMPTY_PROFILE` when the profile keeps no skill (without `--allow-empty`).
 */
export function searchCommand(
  query: string,
  rootFlags: readonly string[],
  options: {
    limit: number | undefined;
    lang: string | undefined;
    allowEmpty?: boolean;
    profiles?: ProfileFlags;
  },
  json: boolean,
  io: CliIO,
  checked?: Discovery,
): number {
  const roots = rootFlags.length === 0 ? defaultRoots() : rootFlags.map(rootOf);
  if (options.lang !== undefined && !/^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/.test(options.lang)) {
    throw new UsageError(`--lang takes a BCP 47 language tag, got "${esc(options.lang)}"`);
  }
  // As in list: the default roots are the conventional folders themselves.
  const discovery = checked ?? discoverSkills(roots, { conventionalRoots: rootFlags.length > 0 });
  if (
    checked === undefined && rootFlags.length > 0 &&
    !rootsHoldSkills(roots, discovery, true, options.allowEmpty === true, io)
  ) return 1;
  if (discovery.skills.length === 0) {
    io.stderr(
      `skillset: no skills under the roots given (${
        roots.map((r) => visible(r.path)).join(", ")
      }), so nothing can match\n`,
    );
    return 1;
  }
  const skills = options.profiles === undefined
    ? discovery.skills
    : profiledSkills(options.profiles, discovery.skills).kept;
  if (options.lang !== undefined) assertLangKnown(options.lang, skills);
  const bySkill = new Map(skills.map((s) => [s.name, s]));
  // Each skill's SKILL.md body is indexed too (read lazily by the index, as a library's is).
  const index = createSkillIndex(
    skills,
    options.lang === undefined ? {} : { lang: options.lang },
  );
  const results = searchSkills(index, query, { limit: options.limit ?? 10 }).map((r) => {
    const s = bySkill.get(r.name)!;
    return { ...r, scope: s.scope, path: s.path };
  });
  if (discovery.skipped.length > 0) {
    io.stderr(
      `skillset: ${discovery.skipped.length} skill folder${
        discovery.skipped.length === 1 ? " was" : "s were"
      } skipped (see: skillset list)\n`,
    );
  }
  if (json) {
    io.stdout(`${JSON.stringify({ query, skills: skills.length, results }, null, 2)}\n`);
  } else if (results.length > 0) {
    const lines = results.map((r, i) =>
      `${i + 1}. ${bold(visible(r.name), io)} (${r.score.toFixed(2)}, ${visible(r.scope)})\n   ${
        visible(r.description)
      }${r.matched.length === 0 ? "" : `\n   matched: ${visible(matchReasons(r))}`}`
    );
    io.stdout(`${lines.join("\n")}\n`);
  }
  if (results.length === 0) {
    io.stderr(
      `skillset: no skill matches ${
        JSON.stringify(visible(query))
      } among ${skills.length} skills\n`,
    );
    return 1;
  }
  return 0;
}

/**
 * The discovery of `to-prompt`: each argument a root of its own scope.
 *
 * @param paths The folder arguments.
 * @param load The class mapping and switches.
 * @param tools The tools the runtime offers, when given.
 * @returns The discovery.
 */
export function toPromptDiscovery(
  paths: readonly string[],
  load: DiscoveryFlags,
  tools?: readonly string[],
): Discovery {
  return discoverSkills(paths.map((path) => ({ scope: path, path })), {
    conventionalRoots: true,
    ...load,
    ...(tools === undefined ? {} : { availableTools: tools }),
  });
}

/**
 * `to-prompt <skill-dir>...`: the `<available_skills>` block for a system prompt, fitted into
 * a budget, with what discovery noticed on stderr.
 *
 * @param paths The folder arguments, as typed: each a skill folder or a folder scanned for them.
 * @param budget The most characters the block may take, or no bound.
 * @param load The class mapping and switches.
 * @param json Whether to print JSON.
 * @param io Where to write.
 * @param tools The tools the runtime offers, when given: skills needing others are left out.
 * @param options `--rank` (the order a budget keeps skills in: `position`, as found, `name`, or
 *   `usage`, the most used lately first, from `usageLog`) and the verbosity of what discovery
 *   noticed; `checked`, the discovery already narrowed by `--lockfile`/`--approvals` (else made
 *   here); `--modes` (read) and `--report`.
 * @returns The exit code: 1 when a folder is missing, unreadable, or holds a skipped skill.
 * @throws {AgentSkillError} When no usable skill is found at all.
 */
export function toPromptCommand(
  paths: readonly string[],
  budget: number | undefined,
  load: DiscoveryFlags,
  json: boolean,
  io: CliIO,
  tools?: readonly string[],
  options: {
    readonly rank?: Rank;
    readonly usageLog?: string;
    readonly verbosity?: Verbosity;
    readonly checked?: Discovery;
    readonly modes?: ReadonlyMap<string, SkillMode> | undefined;
    readonly report?: boolean;
    readonly profiles?: ProfileFlags;
    readonly allowEmpty?: boolean;
  } = {},
): number {
  const report = new Report(io, options.verbosity ?? "normal");
  const discovery = options.checked ?? toPromptDiscovery(paths, load, tools);
  // A checked discovery was narrowed by trust: its caller checked the modes against the whole one.
  if (options.checked === undefined) assertModesNameSkills(options.modes, discovery);
  // A folder that exists but holds no skill is an error (a missing one is reported below).
  const present = paths.filter((p) => exists(p)).map((path) => ({ scope: path, path }));
  if (
    options.checked === undefined && present.length > 0 &&
    !rootsHoldSkills(present, discovery, true, options.allowEmpty === true, io)
  ) return 1;
  // Named as typed: relative when every argument was.
  const shown = paths.every((p) => isAbsolute(p))
    ? (p: string) => p
    : (p: string) => isAbsolute(p) ? relative(".", p) || "." : p;
  // Each failure on its own line; the others are still listed, and the exit code is 1.
  const missing = discovery.diagnostics.filter((d) => d.code === "ROOT_NOT_FOUND");
  for (const d of missing) {
    report.note(`${visible(shown(d.path))}: error: Invalid SKILL.md: no such folder`, "error");
  }
  reportDiscovery(discovery, io, { verb: "listed", shown, reported: ["ROOT_NOT_FOUND"], report });
  for (const h of discovery.unavailable) {
    report.note(
      `${visible(shown(h.skill.skill_md))}: warning: left out, the runtime lacks its tools: ${
        visible(needs(h))
      }`,
      "warning",
      "MISSING_TOOLS",
    );
  }
  report.summary("skillset", "skillset validate or --verbose shows each");
  if (discovery.skills.length === 0 && discovery.unavailable.length === 0) {
    throw new AgentSkillError("", "no usable SKILL.md in the folder or its sub-folders", {
      file: resolve(paths[0]!),
    });
  }
  const located = (s: { scope: string; skill_md: string }) =>
    // Named as the argument was typed: relative for a relative path.
    isAbsolute(s.scope) ? s.skill_md : relative(".", s.skill_md);
  // A skill whose dependencies do not resolve cannot activate: it is kept out, and reported.
  const deps = skillsWithDependencies(discovery.skills);
  const fit = fitSkillCatalog(
    ranked(deps.available, options.rank).map((s) => ({
      name: s.name,
      description: s.description,
      location: located(s),
      frontmatter: s.frontmatter,
    })),
    {
      ...(options.profiles?.profile === undefined ? {} : { profile: options.profiles.profile }),
      ...(options.profiles?.paths === undefined ? {} : { paths: options.profiles.paths }),
      ...(budget === undefined ? {} : { budget }),
      ...(options.rank === "usage" && options.usageLog !== undefined
        ? { rank: usageLogRank(options.usageLog, io) }
        : {}),
      ...(options.modes === undefined ? {} : { modes: options.modes }),
      excluded: [
        ...excludedSkills(discovery, located),
        ...deps.hidden.map((h) => ({
          name: h.name,
          reason: "missing-dependency" as const,
          detail: dependencyGap(h),
          description: h.skill.description,
          location: located(h.skill),
        })),
      ],
    },
  );
  if (options.profiles !== undefined) {
    const left = fit.report.filter((r) => r.reason === "profile").length;
    checkProfileMatched(options.profiles, deps.available.length, left);
  }
  if (options.report === true && !json) {
    const saved = fit.report.reduce((n, r) => n + r.saved, 0);
    const lines = fit.report.map((r) =>
      `  ${visible(r.name)}: ${r.shown} (${r.reason}${
        r.detail === undefined ? "" : `: ${visible(r.detail)}`
      }), ${r.saved} characters saved`
    );
    const n = fit.report.length;
    io.stderr(
      `skillset: report: ${n} skill${
        n === 1 ? "" : "s"
      } not shown in full, ${saved} characters saved${n === 0 ? "" : ":"}\n${
        lines.map((l) => `${l}\n`).join("")
      }`,
    );
  }
  if (json) {
    const { listed, left_out, shortened, report } = fit;
    const unavailable = discovery.unavailable.map(({ name, missing, missing_any, problem }) => ({
      name,
      missing,
      missing_any,
      ...(problem === undefined ? {} : { problem }),
    }));
    io.stdout(
      `${
        JSON.stringify(
          {
            skills: listed,
            left_out,
            shortened,
            report,
            ...(tools === undefined ? {} : { unavailable }),
          },
          null,
          2,
        )
      }\n`,
    );
  } else {
    io.stdout(`${fit.block}\n`);
  }
  const denied = discovery.diagnostics.some((d) => d.severity === "error");
  return missing.length > 0 || denied || discovery.skipped.length > 0 ? 1 : 0;
}

/** Trust codes that keep a skill out of `to-prompt`. */
const REFUSED = new Set(["LOCK_MISMATCH", "NOT_LOCKED", "NEEDS_APPROVAL"]);

/** The skills discovery or trust kept out, for the catalog's report. */
function excludedSkills(
  discovery: Discovery,
  located: (s: { scope: string; skill_md: string }) => string,
): ExcludedSkill[] {
  const out: ExcludedSkill[] = discovery.unavailable.map((h) => ({
    name: h.name,
    reason: "missing-tools",
    detail: needs(h),
    description: h.skill.description,
    location: located(h.skill),
  }));
  for (const s of discovery.skipped) {
    const refused = s.diagnostics.find((d) => REFUSED.has(d.code));
    if (refused !== undefined) {
      out.push({ name: basename(s.path), reason: "not-approved", detail: refused.code });
    }
  }
  return out;
}

/** Why a skill cannot activate for its dependencies: `needs ocr; needs one of a, b; cycle a → b → a`. */
function dependencyGap(h: DependencyHiddenSkill<unknown>): string {
  return [
    ...(h.missing.length > 0 ? [`needs ${h.missing.join(", ")}`] : []),
    ...(h.missing_any.length > 0 ? [`needs one of ${h.missing_any.join(", ")}`] : []),
    ...(h.blocked_by.length > 0 ? [`needs ${h.blocked_by.join(", ")}, which cannot activate`] : []),
    ...(h.cycle === null ? [] : [`cycle ${h.cycle.join(" → ")}`]),
    ...(h.problem === undefined ? [] : [h.problem]),
  ].join("; ");
}

/** What a skill left out for its tools needs: `needs Bash; needs one of Grep, Search`. */
function needs(h: Discovery["unavailable"][number]): string {
  return [
    ...(h.missing.length > 0 ? [`needs ${h.missing.join(", ")}`] : []),
    ...(h.missing_any.length > 0 ? [`needs one of ${h.missing_any.join(", ")}`] : []),
    ...(h.problem === undefined ? [] : [h.problem]),
  ].join("; ");
}
