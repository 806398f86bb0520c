// @slow: makes git repositories and fetches them for every command of every run (left out of `npm run test:quick`)
/**
 * A model-based test of the lifecycle (fast-check commands): random
 * sequences of add, upstream change, local edit, outdated, update, update
 * --force and remove over seven skills of four sources (two git
 * repositories, a plain folder and an npm package in the project's
 * `node_modules`, made here; the package's version bumped with or without
 * a change to its skills), each skill added with or
 * without an agent target (a link, or a copy, in `.claude/skills`) and a
 * target deleted now and then, with a rename or a write of
 * the change failing midway (a {@linkcode LifecycleFs} that fails its Nth
 * step), against a model of what the install root and the lockfile must
 * hold, targets included. After every command the tree and the lockfile agree with the model;
 * after a failed one they are byte for byte what they were.
 *
 * @module
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { readLockfile } from "../../../lib/load.ts";
import { addSkills, removeSkills } from "../../../lib/fs/lifecycle/_lifecycle.ts";
import { outdatedSkills, updateSkills } from "../../../lib/fs/lifecycle/_update.ts";
import { entryAt } from "../../../lib/fs/lifecycle/_installed.ts";
import { type LifecycleFs, nodeLifecycleFs } from "../../../lib/fs/lifecycle/_transaction.ts";
import { SkillSourceError } from "../../../lib/fs/lifecycle/skill_source_error.ts";
import { fc, runs } from "../../_fc.ts";
import { NO_GIT, Repo, tempFolder } from "../../_git.ts";
import { contents, put } from "../../_tree.ts";

/** The skills, each of one source: two git repositories and a folder. */
const SKILLS = [
  { name: "r1a", source: "r1" },
  { name: "r1b", source: "r1" },
  { name: "r2a", source: "r2" },
  { name: "fa", source: "f" },
  { name: "fb", source: "f" },
  { name: "na", source: "n" },
  { name: "nb", source: "n" },
] as const;
type SourceName = "r1" | "r2" | "f" | "n";
const SOURCES: readonly SourceName[] = ["r1", "r2", "f", "n"];
/** The npm package of source `n`, installed in the project's `node_modules`. */
const PACKAGE = "n-kit";
const sourceOf = (name: string): SourceName => SKILLS.find((s) => s.name === name)!.source;

function skillMd(name: string, body: string): string {
  return `---\nname: ${name}\ndescription: The ${name} skill\n---\n${body}`;
}

/** A file system that fails its `failAt`-th step once: a rename before it happens, a write half done. */
class FailingFs implements LifecycleFs {
  calls = 0;
  fired = false;
  readonly failAt: number | undefined;

  constructor(failAt: number | undefined) {
    this.failAt = failAt;
  }

  #due(): boolean {
    this.calls++;
    if (this.calls !== this.failAt) return false;
    this.fired = true;
    return true;
  }

  rename(from: string, to: string): void {
    if (this.#due()) throw new Error(`Injected failure at step ${this.calls}`);
    renameSync(from, to);
  }

  writeFile(path: string, text: string): void {
    if (this.#due()) {
      nodeLifecycleFs.writeFile(path, text.slice(0, text.length >> 1));
      throw new Error(`Injected failure at step ${this.calls}`);
    }
    nodeLifecycleFs.writeFile(path, text);
  }
}

/** One installed skill in the model. */
interface Installed {
  /** Its SKILL.md body here now. */
  body: string;
  /** Its body when last locked. */
  locked: string;
  /** The commit locked (git sources). */
  commit: string | undefined;
  /** The package version locked (the npm source). */
  pkg: string | undefined;
  /** Its Claude Code target: a link, a copy (holding `copied`), or none. */
  target: "link" | "copy" | undefined;
  /** The body the copy holds (the version last installed). */
  copied: string;
  /** The target was deleted here. */
  targetMissing: boolean;
}

interface Model {
  /** Each skill's body at its source. */
  readonly upstream: Map<string, string>;
  /** The version of the package installed in `node_modules` now. */
  pkg: string;
  readonly installed: Map<string, Installed>;
}

interface Real {
  readonly proj: string;
  readonly repos: ReadonlyMap<SourceName, Repo>;
  readonly folder: string;
  edits: number;
}

const urlOf = (r: Real, source: SourceName): string =>
  source === "n" ? `npm:${PACKAGE}` : source === "f" ? r.folder : r.repos.get(source)!.dir;
const headOf = (r: Real, source: SourceName): string | undefined =>
  source === "f" || source === "n" ? undefined : r.repos.get(source)!.head();
/** The package version a skill locks when installed or updated now (npm skills only). */
const pkgOf = (m: Model, name: string): string | undefined =>
  sourceOf(name) === "n" ? m.pkg : undefined;

/** Install the package at `version` (its package.json rewritten; the skills as they are). */
function installPackage(r: Real, version: string): void {
  put(r.proj, `node_modules/${PACKAGE}/package.json`, JSON.stringify({ name: PACKAGE, version }));
}

/** A skill is modified: its folder edited here, or its target gone. */
const modifiedOf = (s: Installed): boolean => s.body !== s.locked || s.targetMissing;

/** The tree and the lockfile agree with the model. */
async function agree(m: Model, r: Real): Promise<void> {
  const root = join(r.proj, ".agents/skills");
  const names = [...m.installed.keys()].sort();
  // The targets: exactly the installed skills' present ones, each a link to its folder or a copy.
  const targetRoot = join(r.proj, ".claude/skills");
  const targeted = [...m.installed].filter(([, s]) => s.target !== undefined && !s.targetMissing);
  assert.deepEqual(
    existsSync(targetRoot) ? readdirSync(targetRoot).sort() : [],
    targeted.map(([n]) => n).sort(),
    "the targets",
  );
  if (existsSync(join(r.proj, ".claude"))) {
    assert.deepEqual(readdirSync(join(r.proj, ".claude")), ["skills"], "a staging area left");
  }
  for (const [n, s] of targeted) {
    const at = join(targetRoot, n);
    if (s.target === "link") {
      assert.equal(readlinkSync(at), join("..", "..", ".agents", "skills", n));
    } else assert.equal(readFileSync(join(at, "SKILL.md"), "utf8"), skillMd(n, s.copied));
  }
  assert.deepEqual(existsSync(root) ? readdirSync(root).sort() : [], names);
  if (existsSync(join(r.proj, ".agents"))) {
    assert.deepEqual(readdirSync(join(r.proj, ".agents")), ["skills"], "a staging area left");
  }
  const lockPath = join(r.proj, "skills.lock.json");
  if (!existsSync(lockPath)) {
    assert.deepEqual(names, []);
    return;
  }
  assert.deepEqual(readdirSync(r.proj).filter((n) => n.endsWith(".tmp")), []);
  const lock = readLockfile(lockPath);
  assert.deepEqual(lock.skills.map((s) => s.name).sort(), names);
  for (const s of lock.skills) {
    const model = m.installed.get(s.name)!;
    const dir = join(root, s.name);
    assert.equal(readFileSync(join(dir, "SKILL.md"), "utf8"), skillMd(s.name, model.body));
    const now = await entryAt(dir, "project", s.source!, undefined);
    assert.equal(now.digest === s.digest, model.body === model.locked, `${s.name}: lock digest`);
    assert.equal(s.source, `.agents/skills/${s.name}`);
    assert.equal(s.installed_from?.url, urlOf(r, sourceOf(s.name)));
    assert.equal(s.installed_from?.commit, model.commit, `${s.name}: commit`);
    if (sourceOf(s.name) === "f" || sourceOf(s.name) === "n") {
      assert.match(s.installed_from?.digest ?? "", /^sha256:/);
    }
    assert.equal(s.installed_from?.version, model.pkg, `${s.name}: package version`);
    assert.deepEqual(
      s.targets,
      model.target === undefined
        ? undefined
        : [{ agent: "claude-code", path: `.claude/skills/${s.name}`, mode: model.target }],
    );
  }
}

/** Run a change; when its failure fired, it must throw APPLY_FAILED and change nothing. */
async function change<T>(
  r: Real,
  fs: FailingFs,
  run: () => Promise<T>,
): Promise<T | undefined> {
  const before = contents(r.proj, true);
  try {
    const result = await run();
    assert.ok(!fs.fired, "the injected failure fired, yet the change succeeded");
    return result;
  } catch (e) {
    if (!fs.fired) throw e;
    assert.ok(e instanceof SkillSourceError && e.code === "APPLY_FAILED", String(e));
    assert.equal(
      e.message,
      `Cannot apply the change (Injected failure at step ${fs.failAt}): the skills and the lockfile are as they were`,
    );
    assert.deepEqual(contents(r.proj, true), before);
    return undefined;
  }
}

async function notInstalled(p: Promise<unknown>): Promise<void> {
  await assert.rejects(p, { name: "SkillSourceError", code: "NOT_INSTALLED" });
}

type Cmd = fc.AsyncCommand<Model, Real>;

class Add implements Cmd {
  constructor(
    readonly source: SourceName,
    readonly only: string | undefined,
    readonly failAt: number | undefined,
    readonly target: "link" | "copy" | undefined = undefined,
  ) {}
  check = (): boolean => true;
  async run(m: Model, r: Real): Promise<void> {
    const fs = new FailingFs(this.failAt);
    const result = await change(r, fs, () =>
      addSkills(urlOf(r, this.source), {
        cwd: r.proj,
        fs,
        ...this.only === undefined ? {} : { skills: [this.only] },
        ...this.target === undefined ? {} : { agents: ["claude-code"] },
        ...this.target === "copy" ? { copy: true } : {},
      }));
    const wanted = SKILLS.filter((s) =>
      s.source === this.source && (this.only === undefined || s.name === this.only)
    ).map((s) => s.name);
    if (result === undefined) return;
    assert.deepEqual(
      result.installed.map((s) => s.name).sort(),
      wanted.filter((n) => !m.installed.has(n)).sort(),
    );
    assert.deepEqual(
      result.refused.map((s) => [s.path.split("/").pop(), s.code]).sort(),
      wanted.filter((n) => m.installed.has(n)).sort().map((n) => [n, "ALREADY_INSTALLED"]),
    );
    for (const s of result.installed) {
      const body = m.upstream.get(s.name)!;
      m.installed.set(s.name, {
        body,
        locked: body,
        commit: headOf(r, this.source),
        pkg: pkgOf(m, s.name),
        target: this.target,
        copied: body,
        targetMissing: false,
      });
    }
    await agree(m, r);
  }
  toString = (): string =>
    `add ${this.source} ${this.only ?? "*"}${
      this.target === undefined ? "" : ` --agent claude-code (${this.target})`
    } fail@${this.failAt}`;
}

class Upstream implements Cmd {
  constructor(readonly name: string) {}
  check = (): boolean => true;
  run(m: Model, r: Real): Promise<void> {
    const source = sourceOf(this.name);
    const body = `# ${this.name} v${++r.edits}\n`;
    m.upstream.set(this.name, body);
    if (source === "f") put(r.folder, `skills/${this.name}/SKILL.md`, skillMd(this.name, body));
    else if (source === "n") {
      // A new version of the package, shipping the changed skill.
      put(r.proj, `node_modules/${PACKAGE}/skills/${this.name}/SKILL.md`, skillMd(this.name, body));
      m.pkg = `1.0.${r.edits}`;
      installPackage(r, m.pkg);
    } else r.repos.get(source)!.skill(`skills/${this.name}`, this.name, body).commit();
    return Promise.resolve();
  }
  toString = (): string => `upstream ${this.name}`;
}

/** Another version of the package installed, its skills' files unchanged. */
class Bump implements Cmd {
  check = (): boolean => true;
  run(m: Model, r: Real): Promise<void> {
    m.pkg = `1.0.${++r.edits}`;
    installPackage(r, m.pkg);
    return Promise.resolve();
  }
  toString = (): string => "bump the package";
}

class Edit implements Cmd {
  constructor(readonly name: string) {}
  check = (m: Readonly<Model>): boolean => m.installed.has(this.name);
  async run(m: Model, r: Real): Promise<void> {
    const body = `# ${this.name} edited here ${++r.edits}\n`;
    put(r.proj, `.agents/skills/${this.name}/SKILL.md`, skillMd(this.name, body));
    m.installed.get(this.name)!.body = body;
    await agree(m, r);
  }
  toString = (): string => `edit ${this.name}`;
}

class Outdated implements Cmd {
  check = (): boolean => true;
  async run(m: Model, r: Real): Promise<void> {
    if (!existsSync(join(r.proj, "skills.lock.json"))) return;
    const report = await outdatedSkills({ cwd: r.proj });
    const expected = [...m.installed].map(([name, s]) => {
      // An npm skill also goes stale when another version of its package is installed.
      const stale = m.upstream.get(name) !== s.locked || s.pkg !== pkgOf(m, name);
      const modified = modifiedOf(s);
      return [
        name,
        stale ? (modified ? "stale_modified" : "stale") : modified ? "modified" : "up_to_date",
      ];
    });
    assert.deepEqual(report.map((s) => [s.name, s.state]).sort(), expected.sort());
    await agree(m, r);
  }
  toString = (): string => "outdated";
}

class Update implements Cmd {
  constructor(
    readonly names: readonly string[],
    readonly force: boolean,
    readonly failAt: number | undefined,
  ) {}
  check = (m: Readonly<Model>): boolean => m.installed.size > 0;
  async run(m: Model, r: Real): Promise<void> {
    if (this.names.some((n) => !m.installed.has(n))) {
      await notInstalled(updateSkills(this.names, { cwd: r.proj, force: this.force }));
      return;
    }
    const fs = new FailingFs(this.failAt);
    const result = await change(
      r,
      fs,
      () => updateSkills(this.names, { cwd: r.proj, force: this.force, fs }),
    );
    if (result === undefined) return;
    const chosen = this.names.length === 0 ? [...m.installed.keys()] : this.names;
    const expected = new Map<string, string>();
    for (const name of chosen) {
      const s = m.installed.get(name)!;
      const up = m.upstream.get(name)!;
      const modified = modifiedOf(s);
      if (!modified && up === s.locked) {
        // The same files: up to date, or, for another version of its package, only the lock entry.
        expected.set(name, s.pkg === pkgOf(m, name) ? "up_to_date" : "updated");
        s.commit = headOf(r, sourceOf(name));
        s.pkg = pkgOf(m, name);
      } else if (modified && !this.force) expected.set(name, "refused");
      else {
        expected.set(name, "updated");
        Object.assign(s, {
          body: up,
          locked: up,
          commit: headOf(r, sourceOf(name)),
          pkg: pkgOf(m, name),
          copied: up,
          targetMissing: false,
        });
      }
    }
    assert.deepEqual(
      new Map(result.map((s) => [s.name, s.status])),
      expected,
      JSON.stringify(result.map((s) => s.error)),
    );
    await agree(m, r);
  }
  toString = (): string =>
    `update ${this.names.join(",") || "*"}${this.force ? " --force" : ""} fail@${this.failAt}`;
}

class Remove implements Cmd {
  constructor(
    readonly name: string,
    readonly force: boolean,
    readonly failAt: number | undefined,
  ) {}
  check = (): boolean => true;
  async run(m: Model, r: Real): Promise<void> {
    if (!m.installed.has(this.name)) {
      if (existsSync(join(r.proj, "skills.lock.json"))) {
        await notInstalled(removeSkills([this.name], { cwd: r.proj, force: this.force }));
      }
      return;
    }
    const fs = new FailingFs(this.failAt);
    const result = await change(
      r,
      fs,
      () => removeSkills([this.name], { cwd: r.proj, force: this.force, fs }),
    );
    if (result === undefined) return;
    const s = m.installed.get(this.name)!;
    if (s.body !== s.locked && !this.force) {
      assert.deepEqual(result.refused.map((x) => x.code), ["LOCALLY_MODIFIED"]);
    } else {
      assert.deepEqual(result.removed, [
        ...s.target === undefined || s.targetMissing
          ? []
          : [join(r.proj, ".claude/skills", this.name)],
        join(r.proj, ".agents/skills", this.name),
      ]);
      m.installed.delete(this.name);
    }
    await agree(m, r);
  }
  toString = (): string => `remove ${this.name}${this.force ? " --force" : ""} fail@${this.failAt}`;
}

class DropTarget implements Cmd {
  constructor(readonly name: string) {}
  check = (m: Readonly<Model>): boolean => {
    const s = m.installed.get(this.name);
    return s !== undefined && s.target !== undefined && !s.targetMissing;
  };
  async run(m: Model, r: Real): Promise<void> {
    rmSync(join(r.proj, ".claude/skills", this.name), { recursive: true });
    m.installed.get(this.name)!.targetMissing = true;
    await agree(m, r);
  }
  toString = (): string => `drop target ${this.name}`;
}

const name = fc.constantFrom(...SKILLS.map((s) => s.name));
const failAt = fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined, freq: 2 });
const target = fc.constantFrom("link" as const, "copy" as const, undefined);
const add = fc.tuple(
  fc.constantFrom(...SOURCES),
  fc.option(name, { nil: undefined }),
  failAt,
  target,
)
  .map(([s, only, f, t]) =>
    new Add(s, only !== undefined && sourceOf(only) === s ? only : undefined, f, t)
  );
const upstream = name.map((n) => new Upstream(n));
const edit = name.map((n) => new Edit(n));
const update = fc.tuple(
  fc.subarray(SKILLS.map((s) => s.name), { maxLength: 2 }),
  fc.boolean(),
  failAt,
)
  .map(([names, force, f]) => new Update(names, force, f));
const remove = fc.tuple(name, fc.boolean(), failAt).map(([n, force, f]) => new Remove(n, force, f));
// Weighted by repetition: changes upstream and here, and updates, often; outdated and remove less.
const commands = fc.commands(
  [
    add,
    add,
    upstream,
    upstream,
    upstream,
    edit,
    edit,
    name.map((n) => new DropTarget(n)),
    fc.constant(new Bump()),
    fc.constant(new Outdated()),
    update,
    update,
    update,
    remove,
  ],
  { maxCommands: 20, size: "+1" },
);

describe("the lifecycle against its model", { skip: NO_GIT }, () => {
  it("add (with agent targets), upstream change, package bump, local edit, target deleted, outdated, update (--force), remove: all or nothing, as the model says", async () => {
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        const top = tempFolder("skillset-model-");
        const repos = new Map<SourceName, Repo>();
        const upstream = new Map<string, string>();
        for (const source of ["r1", "r2"] as const) {
          const repo = new Repo(join(top, source));
          for (const s of SKILLS.filter((x) => x.source === source)) {
            repo.skill(`skills/${s.name}`, s.name, `# ${s.name} v0\n`);
          }
          repo.commit();
          repos.set(source, repo);
        }
        const folder = join(top, "f");
        for (const s of SKILLS.filter((x) => x.source === "f")) {
          put(folder, `skills/${s.name}/SKILL.md`, skillMd(s.name, `# ${s.name} v0\n`));
        }
        for (const s of SKILLS) upstream.set(s.name, `# ${s.name} v0\n`);
        const proj = join(top, "proj");
        mkdirSync(proj);
        for (const s of SKILLS.filter((x) => x.source === "n")) {
          put(
            proj,
            `node_modules/${PACKAGE}/skills/${s.name}/SKILL.md`,
            skillMd(s.name, `# ${s.name} v0\n`),
          );
        }
        // Each run starts with every source added, so the first commands already update and remove.
        const model: Model = { upstream, pkg: "1.0.0", installed: new Map() };
        const real: Real = { proj, repos, folder, edits: 0 };
        installPackage(real, model.pkg);
        // Each source with its own kind of target: a link, a copy, none.
        const initial = { r1: "link", r2: "copy", f: undefined, n: "link" } as const;
        for (const source of SOURCES) {
          await new Add(source, undefined, undefined, initial[source]).run(model, real);
        }
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        if (process.env["MODEL_LOG"]) console.log("RUN", String(cmds));
      }),
      runs(8),
    );
  });
});
