/**
 * Publishing: what a server's catalog holds. {@linkcode LoaderFiles} is the
 * SDK's `SkillFiles` adapter over this project's loader: each load builds a
 * snapshot, the virtual tree `<skill>/<path>` of exactly the files the gate
 * lets a model see (within the limits, the transport's message size and the
 * isolation rules), which becomes current once the SDK accepted it. Reads go
 * through `_serve_reads.ts`; the `skill` tool of each version is built by
 * `_serve_tools.ts`.
 *
 * Folder `lib/mcp/` — skills over MCP behind `lib/mcp.ts`: serve, consume, watch, HTTP, remote trust.
 *
 * @module
 */
import { resolve } from "node:path";
import {
  SKILL_LIMITS,
  type SkillFileEntry,
  type SkillFiles,
  type SkillWarning,
} from "@modelcontextprotocol/server/ext/skills";
import { agentSkillNameProblem } from "../core/activation/agent_skill.ts";
import { skillMode } from "../core/catalog/skill_modes.ts";
import { skillAccess } from "../core/catalog/skill_access.ts";
import { mayAccess, type SafetyFlags } from "../core/resources/gate.ts";
import { effectiveClass, type ResourceClassMap } from "../core/resources/resource_path.ts";
import { type LoadedSkill, loadSkillFolder } from "../fs/load/skill_folder.ts";
import { McpSkillError } from "./_errors.ts";
import { type LoadLock, loadServeLock } from "./_serve_lock.ts";
import { type ServeSkillsOptions, skillSafety } from "./_serve_options.ts";
import { fitsOneMessage, type Published, readPublished, unchanged } from "./_serve_reads.ts";
import { skillFolders, type Source } from "./_serve_source.ts";
import { toolOf, type ToolVersion } from "./_serve_tools.ts";

/** A loaded skill and the files it publishes, by path inside the skill. */
export interface ServedSkill {
  readonly skill: LoadedSkill;
  readonly files: ReadonlyMap<string, Published>;
}

/** The virtual tree the SDK walks: `<skill name>/<file path>`. */
export interface Snapshot {
  readonly skills: ReadonlyMap<string, LoadedSkill>;
  /** Each skill's published files, by skill name. */
  readonly served: ReadonlyMap<string, ServedSkill>;
  /** Published files by virtual path, with the gate's switches for their skill. */
  readonly files: ReadonlyMap<string, Published>;
  /** Children by virtual folder path (`""` is the root). */
  readonly dirs: ReadonlyMap<string, ReadonlyMap<string, SkillFileEntry>>;
  /** The `skill` tool for these skills; `undefined` when there are none. */
  readonly tool?: ToolVersion;
}

const INSTRUCTIONS = ["SKILL.md", "skill.md"];

/**
 * Why a skill name cannot be a published path segment, or `undefined` when
 * it can: it must pass the Agent Skills name rule as written (lowercase
 * letters, digits and single hyphens, 1 to 64 characters), so it is one
 * plain segment — never `/`, `.`, `..`, `%` or empty.
 *
 * @param name A loaded skill's name.
 * @returns The reason, or `undefined`.
 */
export function unservableName(name: string): string | undefined {
  if (typeof name !== "string" || name === "") return "it is empty";
  if (name.normalize("NFKC") !== name) return "it is not in its normal (NFKC) form";
  return agentSkillNameProblem(name) ?? undefined;
}

/**
 * The `SkillFiles` adapter: a virtual tree `<skill>/<path>` of the files the
 * gate lets a model see. `list("")` (the start of every walk) loads all
 * skills into a pending snapshot; `commit()` makes it current once the SDK
 * accepted it, `abort()` drops it.
 */
export class LoaderFiles implements SkillFiles {
  readonly #source: Source;
  readonly #options: ServeSkillsOptions;
  readonly #warn: (warning: SkillWarning) => void;
  #current: Snapshot = { skills: new Map(), served: new Map(), files: new Map(), dirs: new Map() };
  #pending: Snapshot | undefined;
  #prepared: Snapshot | undefined;

  /**
   * @param source Where the skills come from (folders resolved, as `sourceOf` gives them).
   * @param options The server's options.
   * @param warn Where warnings go.
   */
  constructor(source: Source, options: ServeSkillsOptions, warn: (warning: SkillWarning) => void) {
    this.#source = source;
    this.#options = options;
    this.#warn = warn;
  }

  get current(): Snapshot {
    return this.#current;
  }

  /**
   * Load the skills now (checked against the lock and pinned, when there is
   * one), so the loader's own errors reach the caller unwrapped; the next
   * walk of the SDK publishes exactly this load.
   */
  async prepare(): Promise<void> {
    this.#prepared = await this.#load();
  }

  /**
   * Make the pending snapshot current, keeping only the skills the SDK
   * published (it skips, with a warning, a skill it refuses), so the `skill`
   * tool serves exactly what `skills/list` does; the tool's definition and
   * schema are built here, once per catalog version.
   */
  commit(entries: readonly { readonly frontmatter: { readonly name: unknown } }[]): void {
    if (this.#pending !== undefined) {
      const kept = published(this.#pending, new Set(entries.map((e) => e.frontmatter.name)));
      this.#current = {
        ...kept,
        ...toolOf(kept.skills, this.#options.toolBudget, this.#options.modes, this.#options),
      };
    }
    this.#pending = undefined;
  }

  abort(): void {
    this.#pending = undefined;
    this.#prepared = undefined;
  }

  async list(dir: string): Promise<SkillFileEntry[]> {
    if (dir === "") {
      this.#pending = this.#prepared ?? await this.#load();
      this.#prepared = undefined;
    }
    const children = (this.#pending ?? this.#current).dirs.get(dir);
    if (children === undefined) throw new Error(`No such folder "${dir}"`);
    return [...children.values()];
  }

  read(path: string): Promise<Uint8Array> {
    const published = this.#pending?.files.get(path) ?? this.#current.files.get(path);
    if (published === undefined) return Promise.reject(new Error(`No such file "${path}"`));
    try {
      return Promise.resolve(published.bytes ?? readPublished(published));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** One load: every skill read once, checked against the lock (when there is one), pinned, published. */
  async #load(): Promise<Snapshot> {
    const served = new Map<string, ServedSkill>();
    const files = new Map<string, Published>();
    const lock = loadServeLock(this.#options, this.#warn);
    if (this.#source.kind === "folders") {
      for (const folder of skillFolders(this.#source.folders)) {
        let skill: LoadedSkill | undefined = loadSkillFolder(folder, this.#classes());
        if (lock !== undefined) skill = await lock.check(folder, skill);
        if (skill === undefined) continue;
        const previous = served.get(skill.name);
        if (previous !== undefined) {
          throw new McpSkillError(
            "DUPLICATE_SKILL",
            `Two folders hold the skill ${JSON.stringify(skill.name)}: ${
              JSON.stringify(previous.skill.location)
            } and ${JSON.stringify(skill.location)}`,
          );
        }
        this.#add(skill, served, files);
      }
    } else {
      await this.#discover(served, files, lock);
    }
    return snapshotOf(served, files);
  }

  /**
   * Discovery's winners, each loaded leniently; a skill that no longer loads
   * keeps its last good version when its folder is still there.
   */
  async #discover(
    served: Map<string, ServedSkill>,
    files: Map<string, Published>,
    lock: LoadLock | undefined,
  ): Promise<void> {
    const discovery = this.#source.kind === "discovery" ? this.#source.discover() : undefined;
    if (discovery === undefined) return;
    const last = this.#current.served;
    const keep = (name: string, folder: string, reason: string): void => {
      const good = last.get(name);
      // Under a lock, what is served is what this load checked: a last good version was
      // checked against an earlier lockfile, which may no longer hold it.
      if (
        lock !== undefined || good === undefined || good.skill.location !== resolve(folder) ||
        served.has(name)
      ) {
        this.#warn({ path: folder, message: `not served: ${reason}` });
        return;
      }
      this.#warn({
        path: folder,
        message: `skill ${
          JSON.stringify(name)
        } no longer loads (${reason}); still serving its last good version`,
      });
      // The last good version keeps the files still as they were published (SKILL.md as loaded).
      const kept = new Map<string, Published>();
      for (const [path, file] of good.files) {
        if (file.bytes === undefined && !unchanged(good.skill.location, file)) {
          this.#warn({
            path: `${folder}/${path}`,
            message: "changed since the last good version; left out of it",
          });
          continue;
        }
        kept.set(path, file);
        files.set(`${name}/${path}`, file);
      }
      served.set(name, { skill: good.skill, files: kept });
    };
    for (const found of discovery.skills) {
      // An alias (a SKILL.md linked to another folder's) is served from its real folder, once.
      const folder = found.alias ? found.real_path : found.path;
      let skill: LoadedSkill | undefined;
      try {
        skill = loadSkillFolder(folder, { lenient: true, ...this.#classes() });
      } catch (e) {
        keep(found.name, folder, e instanceof Error ? e.message : String(e));
        continue;
      }
      if (skill.name !== found.name) {
        keep(found.name, folder, `its name is now ${JSON.stringify(skill.name)}`);
        continue;
      }
      if (lock !== undefined) {
        skill = await lock.check(resolve(found.path), skill);
        // Kept out by the lock: never its last good version either.
        if (skill === undefined) continue;
      }
      this.#add(skill, served, files);
    }
    const byFolder = new Map([...last.values()].map((s) => [s.skill.location, s.skill.name]));
    for (const skipped of discovery.skipped) {
      const name = byFolder.get(resolve(skipped.path));
      if (name === undefined || served.has(name)) continue;
      const reason = skipped.diagnostics.map((d) => d.message).join("; ") || "it cannot be read";
      keep(name, skipped.path, reason);
    }
  }

  /** Publish one loaded skill under its name, unless its name or one of its URIs is not its own. */
  #add(skill: LoadedSkill, served: Map<string, ServedSkill>, files: Map<string, Published>): void {
    if (!skillAccess("resources", { mode: skillMode(skill, this.#options.modes) })) return;
    const problem = unservableName(skill.name);
    if (problem !== undefined) {
      this.#warn({
        path: skill.location,
        message: `Skill ${
          JSON.stringify(skill.name)
        } is not published: its name is not one plain path segment (${problem})`,
      });
      return;
    }
    if (served.has(skill.name)) {
      this.#warn({
        path: skill.location,
        message: `Skill ${JSON.stringify(skill.name)} is not published: ${
          JSON.stringify(served.get(skill.name)!.skill.location)
        } already serves that name`,
      });
      return;
    }
    const flags = this.#flags(skill.name);
    const own = this.#published(skill, flags);
    if (own === undefined) return;
    const taken = [...own.keys()].find((path) => files.has(`${skill.name}/${path}`));
    if (taken !== undefined) {
      this.#warn({
        path: skill.location,
        message: `Skill ${JSON.stringify(skill.name)} is not published: the URI of ${
          JSON.stringify(taken)
        } is already published`,
      });
      return;
    }
    served.set(skill.name, { skill, files: own });
    for (const [path, file] of own) files.set(`${skill.name}/${path}`, file);
  }

  #classes(): { resourceClasses?: ResourceClassMap } {
    const classes = this.#options.resourceClasses;
    return classes === undefined ? {} : { resourceClasses: classes };
  }

  #flags(name: string): SafetyFlags {
    return {
      global_safety: this.#options.global_safety !== false,
      skill_safety: skillSafety(this.#options.skill_safety, name),
    };
  }

  /** The files of `skill` a model may see, by the path they are served under; `undefined` over the limits. */
  #published(skill: LoadedSkill, flags: SafetyFlags): Map<string, Published> | undefined {
    const published = new Map<string, Published>();
    const instructions = INSTRUCTIONS.find((n) => skill.files.has(n))!;
    const maxMessage = this.#options.maxMessageBytes;
    let bytes = 0;
    for (const file of skill.files.values()) {
      if (file.outside_root === true) continue;
      if (INSTRUCTIONS.includes(file.path) && file.path !== instructions) continue;
      const classes = skill.resource_classes;
      if (!mayAccess(effectiveClass(file.path, file.real_path, classes), flags)) continue;
      const served = file.path === instructions ? "SKILL.md" : file.path;
      if (served.split("/").some((segment) => segment.startsWith("."))) continue;
      if (served !== "SKILL.md" && served.endsWith("/SKILL.md")) {
        this.#warn({
          path: `${skill.location}/${served}`,
          message: "a SKILL.md below the top level of a skill is not published",
        });
        continue;
      }
      const base: Published = classes === undefined ? { file, flags } : { file, flags, classes };
      const entry: Published = served === "SKILL.md"
        ? { ...base, bytes: readPublished(base) }
        : base;
      if (maxMessage !== undefined && !fitsOneMessage(entry, maxMessage)) {
        this.#warn({
          path: `${skill.location}/${served}`,
          message:
            `not published: reading it would take a message over this transport's limit of ${maxMessage} bytes`,
        });
        continue;
      }
      published.set(served, entry);
      bytes += file.size;
    }
    const maxFiles = this.#options.limits?.files ?? SKILL_LIMITS.files;
    const maxBytes = this.#options.limits?.bytes ?? SKILL_LIMITS.bytes;
    if (published.size > maxFiles || bytes > maxBytes) {
      this.#warn({
        path: skill.location,
        message: `Skill ${
          JSON.stringify(skill.name)
        } is not published: ${published.size} files / ${bytes} bytes exceed the limit of ${maxFiles} files / ${maxBytes} bytes`,
      });
      return undefined;
    }
    return published;
  }
}

function snapshotOf(served: Map<string, ServedSkill>, files: Map<string, Published>): Snapshot {
  const dirs = new Map<string, Map<string, SkillFileEntry>>([["", new Map()]]);
  for (const virtual of files.keys()) addToTree(dirs, virtual);
  const skills = new Map([...served].map(([name, s]) => [name, s.skill]));
  return { skills, served, files, dirs };
}

/** `snapshot` without the skills not in `names`. */
function published(snapshot: Snapshot, names: ReadonlySet<unknown>): Snapshot {
  if ([...snapshot.skills.keys()].every((name) => names.has(name))) return snapshot;
  const served = new Map([...snapshot.served].filter(([name]) => names.has(name)));
  const files = new Map<string, Published>();
  for (const [virtual, file] of snapshot.files) {
    if (served.has(virtual.slice(0, virtual.indexOf("/")))) files.set(virtual, file);
  }
  return snapshotOf(served, files);
}

function addToTree(dirs: Map<string, Map<string, SkillFileEntry>>, path: string): void {
  const segments = path.split("/");
  let dir = "";
  segments.forEach((name, i) => {
    const kind = i < segments.length - 1 ? "directory" : "file";
    let children = dirs.get(dir);
    if (children === undefined) dirs.set(dir, children = new Map());
    if (!children.has(name)) children.set(name, { name, kind });
    dir = dir === "" ? name : `${dir}/${name}`;
  });
}
