/**
 * Agent targets: each skill `skillset add --agent` installs stays once in
 * the canonical folder and gets, in each agent's skills folder of the
 * scope (`_agents.ts`), a relative link to it (or, with `copy`, a copy).
 * A target joins the command's transaction (staged beside the agent's
 * folder, renamed into place), so a failure undoes every target with the
 * skill. Nothing is written through a link: the folders between the project
 * (or the home) and the agent's folder must be real folders (`OUTSIDE_ROOT`),
 * and something already at a target's name — a file, a folder, a link — is
 * never overwritten or deleted (`FOREIGN_FILE`). A recorded target is acted
 * on only where its path is the one the table gives for its agent, skill
 * and scope; what is there is read without following a link: a link
 * pointing elsewhere is `retargeted`, anything else in its place or a copy
 * whose digest moved `edited`.
 *
 * Folder `lib/fs/lifecycle/` — the lifecycle: add, outdated, update, remove from git and folder sources.
 *
 * @module
 */
import { cpSync, lstatSync, readlinkSync, symlinkSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import type { InstallTarget } from "../../core/trust/installed_from.ts";
import type { LockEntry } from "../../core/trust/lockfile.ts";
import { recordedPath } from "../trust/trust_files.ts";
import { type Agent, agentFolder, agentNamed, agentNames, readsCanonical } from "./_agents.ts";
import {
  entryAt,
  folderOf,
  type LifecycleOptions,
  type Place,
  placeOf,
  safeName,
} from "./_installed.ts";
import { StagingArea, type Transaction } from "./_transaction.ts";
import { SkillSourceError } from "./skill_source_error.ts";

/** How to make targets. */
export interface TargetOptions {
  /** The agents to install for, by name (see `_agents.ts`). */
  readonly agents?: readonly string[];
  /** Copy the skill into each agent's folder instead of linking it. */
  readonly copy?: boolean;
}

/**
 * The agents named, those reading the canonical folder of the scope left out.
 *
 * @throws {SkillSourceError} `UNKNOWN_AGENT` for a name not in the table.
 */
export function agentsFor(
  names: readonly string[],
  scope: "project" | "user",
): readonly Agent[] {
  const out: Agent[] = [];
  for (const name of names) {
    const a = agentNamed(name);
    if (a === undefined) {
      throw new SkillSourceError(
        "UNKNOWN_AGENT",
        `Unknown agent ${JSON.stringify(name)}: skillset knows ${
          agentNames().map((n) => JSON.stringify(n)).join(", ")
        }`,
      );
    }
    if (!readsCanonical(a, scope) && !out.includes(a)) out.push(a);
  }
  return out;
}

/** The folder an agent's folder lies in: the project, or the home. */
export function targetBase(place: Place, options: LifecycleOptions): string {
  return place.scope === "user" ? options.home ?? homedir() : place.base;
}

/** An agent's skills folder of the place. */
export function agentRoot(agent: Agent, place: Place, base: string): string {
  return join(base, ...agentFolder(agent, place.scope).split("/"));
}

/** The link text a target holds: the canonical folder, relative to the agent's folder. */
export function linkText(agent: Agent, place: Place, base: string, name: string): string {
  return relative(agentRoot(agent, place, base), folderOf(place, name));
}

/** One staging area per agent folder of a command, opened when first needed. */
export class TargetAreas {
  readonly #place: Place;
  readonly #base: string;
  readonly #areas = new Map<string, StagingArea>();

  constructor(place: Place, base: string) {
    this.#place = place;
    this.#base = base;
  }

  /**
   * The staging area beside an agent's folder (the folders up to it made, checked real).
   *
   * @throws {SkillSourceError} `OUTSIDE_ROOT` when a folder on the way is a link or a file.
   */
  area(agent: Agent, tag: string): StagingArea {
    const root = agentRoot(agent, this.#place, this.#base);
    let area = this.#areas.get(root);
    if (area === undefined) {
      area = StagingArea.open(this.#base, root, tag);
      this.#areas.set(root, area);
    }
    return area;
  }

  /** Close every area opened. */
  close(): void {
    for (const area of this.#areas.values()) area.close();
  }
}

/**
 * Plan one skill's targets into a transaction: a link (or a copy of the
 * staged folder `at`) staged beside each agent's folder, to be renamed into
 * place at the commit.
 *
 * @returns The targets to record, or the reason the skill cannot have them
 *   (`FOREIGN_FILE`: something is already at a target's name).
 */
export function planTargets(
  agents: readonly Agent[],
  name: string,
  at: string,
  place: Place,
  areas: TargetAreas,
  base: string,
  tx: Transaction,
  copy: boolean,
): readonly InstallTarget[] | { readonly code: "FOREIGN_FILE"; readonly message: string } {
  const planned: [Agent, string, StagingArea][] = [];
  for (const agent of agents) {
    const area = areas.area(agent, "add");
    const dir = join(agentRoot(agent, place, base), name);
    if (exists(dir)) {
      return {
        code: "FOREIGN_FILE",
        message: `Skill ${JSON.stringify(name)} cannot be installed for ${agent.name}: ${
          JSON.stringify(recordedPath(dirname(place.lockfile), dir))
        } is already there, and skillset never overwrites what it did not install`,
      };
    }
    planned.push([agent, dir, area]);
  }
  const out: InstallTarget[] = [];
  for (const [agent, dir, area] of planned) {
    const staged = area.path(`t-${tx.size}`);
    if (copy) cpSync(at, staged, { recursive: true, verbatimSymlinks: true });
    else symlinkSync(linkText(agent, place, base, name), staged, "dir");
    tx.put(dir, staged, area, true);
    out.push(Object.freeze({
      agent: agent.name,
      path: recordedPath(dirname(place.lockfile), dir),
      mode: copy ? "copy" : "link",
    }));
  }
  return Object.freeze(out);
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A recorded target against what is at its folder now. */
export interface TargetCheck {
  readonly agent: string;
  /** Its path, as the lockfile records it. */
  readonly path: string;
  readonly mode: "link" | "copy";
  /** `ok`; `missing`; `edited` (a copy changed, or something else in its place); `retargeted` (a link pointing elsewhere); `outside` (not the folder the table gives: never acted on). */
  readonly state: "ok" | "missing" | "edited" | "retargeted" | "outside";
  /** Its folder, when the state is not `outside`. */
  readonly dir?: string;
}

/**
 * Each recorded target of an entry against what is there now, read without
 * following a link. A target is `outside` (never read) unless its agent has
 * a folder of its own in the scope, the entry's name is a folder name and
 * the recorded path is `<agent's folder>/<name>`.
 *
 * @param entry The lock entry (its folder checked as the place's).
 * @param place The scope's place.
 * @param base The project, or the home.
 * @returns One check per recorded target.
 */
export async function checkTargets(
  entry: LockEntry,
  place: Place,
  base: string,
): Promise<readonly TargetCheck[]> {
  const out: TargetCheck[] = [];
  for (const t of entry.targets ?? []) {
    const agent = agentNamed(t.agent);
    // A name that is no folder name (`../..`) would put the target anywhere: never looked at.
    const dir = agent === undefined || readsCanonical(agent, place.scope) || !safeName(entry.name)
      ? undefined
      : join(agentRoot(agent, place, base), entry.name);
    const common = { agent: t.agent, path: t.path, mode: t.mode };
    if (dir === undefined || recordedPath(dirname(place.lockfile), dir) !== t.path) {
      out.push(Object.freeze({ ...common, state: "outside" as const }));
      continue;
    }
    out.push(
      Object.freeze({ ...common, state: await stateAt(dir, t, agent!, entry, place, base), dir }),
    );
  }
  return Object.freeze(out);
}

async function stateAt(
  dir: string,
  t: InstallTarget,
  agent: Agent,
  entry: LockEntry,
  place: Place,
  base: string,
): Promise<TargetCheck["state"]> {
  let stat;
  try {
    stat = lstatSync(dir);
  } catch {
    return "missing";
  }
  if (t.mode === "link") {
    if (!stat.isSymbolicLink()) return "edited";
    const text = readlinkSync(dir);
    const want = linkText(agent, place, base, entry.name);
    return text === want || text.split(sep).join("/") === want.split(sep).join("/")
      ? "ok"
      : "retargeted";
  }
  if (stat.isSymbolicLink() || !stat.isDirectory()) return "edited";
  try {
    const now = await entryAt(dir, entry.scope ?? "project", entry.source ?? "", undefined);
    return now.digest === entry.digest ? "ok" : "edited";
  } catch {
    return "edited";
  }
}

/** A sentence for a target not `ok`. */
export function describeTarget(name: string, c: TargetCheck): string {
  const at = JSON.stringify(c.path);
  switch (c.state) {
    case "missing":
      return `The ${c.agent} target of skill ${JSON.stringify(name)} is missing: ${at}`;
    case "retargeted":
      return `The ${c.agent} target of skill ${
        JSON.stringify(name)
      } is a link pointing elsewhere: ${at}`;
    case "edited":
      return `The ${c.agent} target of skill ${JSON.stringify(name)} changed here: ${at}`;
    case "outside":
      return `The ${c.agent} target of skill ${
        JSON.stringify(name)
      } is recorded at ${at}, not the folder skillset gives that agent: left alone`;
    default:
      return `The ${c.agent} target of skill ${JSON.stringify(name)} is as installed: ${at}`;
  }
}

/**
 * Plan an updated skill's targets into a transaction: each copy replaced by
 * a copy of the new version `at`, each link not as installed made again (a
 * link as installed still points at the canonical folder, which the update
 * replaces). The caller refuses a changed target unless forced.
 *
 * @param checks The skill's targets now (none `outside`).
 * @param name The skill's name.
 * @param at The new version, staged.
 */
export function replanTargets(
  checks: readonly TargetCheck[],
  name: string,
  at: string,
  place: Place,
  areas: TargetAreas,
  base: string,
  tx: Transaction,
): void {
  for (const c of checks) {
    if (c.mode === "link" && c.state === "ok") continue;
    const agent = agentNamed(c.agent)!;
    const area = areas.area(agent, "update");
    const staged = area.path(`t-${tx.size}`);
    if (c.mode === "copy") cpSync(at, staged, { recursive: true, verbatimSymlinks: true });
    else symlinkSync(linkText(agent, place, base, name), staged, "dir");
    tx.put(c.dir!, staged, area, c.state === "missing");
  }
}

/** A recorded target that is not as installed, with its skill. */
export interface TargetProblem {
  readonly name: string;
  readonly target: TargetCheck;
  /** What is wrong, as a sentence. */
  readonly message: string;
}

/**
 * Every agent target of a lockfile not as installed (missing, edited,
 * retargeted, or recorded outside its agent's folder): what `verify` adds
 * to its check of the skills themselves.
 *
 * @param skills The lockfile's entries.
 * @param lockfile The lockfile's path (its folder is the project's, for the project scope).
 * @param home The user's home, for the user scope.
 * @returns The problems, in the lockfile's order.
 */
export async function targetProblems(
  skills: readonly LockEntry[],
  lockfile: string,
  home: string = homedir(),
): Promise<readonly TargetProblem[]> {
  const out: TargetProblem[] = [];
  for (const s of skills) {
    if (s.targets === undefined || s.installed_from === undefined) continue;
    const scope = s.scope === "user" ? "user" : "project";
    const place: Place = placeOf({ scope, cwd: dirname(lockfile), lockfile, home });
    for (const t of await checkTargets(s, place, scope === "user" ? home : place.base)) {
      if (t.state !== "ok") {
        out.push(Object.freeze({ name: s.name, target: t, message: describeTarget(s.name, t) }));
      }
    }
  }
  return Object.freeze(out);
}
