/**
 * npm sources (`npm:<package>[/<path>]`): skills a package installed in the
 * project's `node_modules` ships, found as Node finds the package; the lock
 * entry records its version and integrity; `outdated` and `update` follow a
 * new version. Every package is built by the test in a temp folder (no
 * network), the hostile ones too: a skills folder that is a link out, a
 * folder on the way that is a link, a link inside a skill, a package.json
 * naming another package or too large, a path climbing out.
 *
 * @module
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addSkills } from "../../../lib/fs/lifecycle/_lifecycle.ts";
import { outdatedSkills, updateSkills } from "../../../lib/fs/lifecycle/_update.ts";
import { parseNpmSource } from "../../../lib/fs/lifecycle/_npm.ts";
import { SkillSourceError } from "../../../lib/fs/lifecycle/skill_source_error.ts";
import { readLockfile } from "../../../lib/fs/trust/trust_files.ts";
import { parseLockfile } from "../../../lib/core/trust/lockfile.ts";
import { link, put } from "../../_tree.ts";
import { runIn } from "../../_cli.ts";

const INTEGRITY = `sha512-${"A".repeat(86)}==`;

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "skillset-npm-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function skillMd(name: string, body = `Use ${name}.\n`): string {
  return `---\nname: ${name}\ndescription: The ${name} skill\n---\n${body}`;
}

/** A package folder at `dir`: its package.json and skill files (path -> content). */
function pkg(
  dir: string,
  name: string,
  version: string,
  files: Record<string, string> = {},
): void {
  put(dir, "package.json", JSON.stringify({ name, version }));
  for (const [path, content] of Object.entries(files)) put(dir, path, content);
}

/** A project `top/app` whose packages lie in `top/node_modules` (found by walking up), with an npm lock. */
function project(): { top: string; app: string; modules: string } {
  const top = temp();
  const app = join(top, "app");
  mkdirSync(app);
  return { top, app, modules: join(top, "node_modules") };
}

function lockPackage(top: string, key: string, version: string, integrity = INTEGRITY): void {
  put(
    top,
    "package-lock.json",
    JSON.stringify({ lockfileVersion: 3, packages: { [key]: { version, integrity } } }),
  );
}

async function refusal(p: Promise<unknown>): Promise<SkillSourceError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof SkillSourceError, String(e));
    return e;
  }
  assert.fail("expected a SkillSourceError");
}

describe("npm sources: add", () => {
  it("installs the skills under skills/ of a package found up the tree, with its version and integrity", async () => {
    const { top, app, modules } = project();
    pkg(join(modules, "pdf-kit"), "pdf-kit", "1.0.0", {
      "skills/pdf/SKILL.md": skillMd("pdf"),
      "skills/pdf/references/forms.md": "Fields.\n",
      "lib/index.js": "throw new Error('never run');\n",
    });
    lockPackage(top, "node_modules/pdf-kit", "1.0.0");
    const result = await addSkills("npm:pdf-kit", { cwd: app });
    assert.deepEqual(result.installed.map((s) => s.name), ["pdf"]);
    assert.deepEqual(result.refused, []);
    const from = result.installed[0]!.installed_from;
    assert.equal(from.url, "npm:pdf-kit");
    assert.equal(from.version, "1.0.0");
    assert.equal(from.integrity, INTEGRITY);
    assert.equal(from.path, "pdf");
    assert.equal(from.digest, result.revision);
    assert.equal(
      readFileSync(join(app, ".agents/skills/pdf/references/forms.md"), "utf8"),
      "Fields.\n",
    );
    const locked = readLockfile(join(app, "skills.lock.json")).skills[0]!;
    assert.deepEqual(locked.installed_from, from);
  });

  it("takes a scoped package and a folder inside it, and the nearest node_modules wins", async () => {
    const { app, modules } = project();
    pkg(join(modules, "@acme/tools"), "@acme/tools", "9.0.0", {
      "docs/agent/web/SKILL.md": skillMd("web", "far\n"),
    });
    pkg(join(app, "node_modules/@acme/tools"), "@acme/tools", "2.0.0", {
      "docs/agent/web/SKILL.md": skillMd("web", "near\n"),
    });
    const result = await addSkills("npm:@acme/tools/docs/agent", { cwd: app });
    assert.equal(result.installed[0]!.installed_from.url, "npm:@acme/tools/docs/agent");
    assert.equal(result.installed[0]!.installed_from.version, "2.0.0");
    assert.equal(result.installed[0]!.installed_from.integrity, undefined);
    assert.match(readFileSync(join(app, ".agents/skills/web/SKILL.md"), "utf8"), /near/);
  });

  it("records no integrity that the package lock gives for another version", async () => {
    const { top, app, modules } = project();
    pkg(join(modules, "pdf-kit"), "pdf-kit", "1.0.1", { "skills/pdf/SKILL.md": skillMd("pdf") });
    lockPackage(top, "node_modules/pdf-kit", "1.0.0");
    const result = await addSkills("npm:pdf-kit", { cwd: app });
    assert.equal(result.installed[0]!.installed_from.integrity, undefined);
  });

  it("names a package no node_modules holds", async () => {
    const { app } = project();
    const e = await refusal(addSkills("npm:absent", { cwd: app }));
    assert.equal(e.code, "NO_SKILL");
    assert.equal(
      e.message,
      `Package "absent" is not installed in a node_modules folder of ${
        JSON.stringify(app)
      } or above`,
    );
  });

  it("the CLI adds from npm: and prints the skill", async () => {
    const { app, modules } = project();
    pkg(join(modules, "pdf-kit"), "pdf-kit", "1.0.0", { "skills/pdf/SKILL.md": skillMd("pdf") });
    const r = await runIn(app, "add", "npm:pdf-kit", "--json");
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out) as { installed: { installed_from: { version: string } }[] };
    assert.equal(out.installed[0]!.installed_from.version, "1.0.0");
  });
});

describe("npm sources: outdated and update", () => {
  it("a new version with changed files is stale, and update applies it", async () => {
    const { top, app, modules } = project();
    const dir = join(modules, "pdf-kit");
    pkg(dir, "pdf-kit", "1.0.0", { "skills/pdf/SKILL.md": skillMd("pdf", "one\n") });
    lockPackage(top, "node_modules/pdf-kit", "1.0.0");
    await addSkills("npm:pdf-kit", { cwd: app });
    assert.equal((await outdatedSkills({ cwd: app }))[0]!.state, "up_to_date");

    rmSync(dir, { recursive: true });
    pkg(dir, "pdf-kit", "1.1.0", { "skills/pdf/SKILL.md": skillMd("pdf", "two\n") });
    lockPackage(top, "node_modules/pdf-kit", "1.1.0", `sha512-${"B".repeat(86)}==`);
    const [report] = await outdatedSkills({ cwd: app });
    assert.equal(report!.state, "stale");
    assert.equal(report!.installed_from.version, "1.0.0");
    assert.equal(report!.remote_package_version, "1.1.0");

    const [updated] = await updateSkills([], { cwd: app });
    assert.equal(updated!.status, "updated");
    assert.match(readFileSync(join(app, ".agents/skills/pdf/SKILL.md"), "utf8"), /two/);
    const locked = readLockfile(join(app, "skills.lock.json")).skills[0]!;
    assert.equal(locked.installed_from!.version, "1.1.0");
    assert.equal(locked.installed_from!.integrity, `sha512-${"B".repeat(86)}==`);
    assert.equal((await outdatedSkills({ cwd: app }))[0]!.state, "up_to_date");
  });

  it("a new version with the same files is stale too, and update records the version", async () => {
    const { app, modules } = project();
    const dir = join(modules, "pdf-kit");
    pkg(dir, "pdf-kit", "1.0.0", { "skills/pdf/SKILL.md": skillMd("pdf") });
    await addSkills("npm:pdf-kit", { cwd: app });
    pkg(dir, "pdf-kit", "1.0.1");
    assert.equal((await outdatedSkills({ cwd: app }))[0]!.state, "stale");
    assert.equal((await updateSkills([], { cwd: app, preview: true }))[0]!.status, "would_update");
    assert.equal((await updateSkills([], { cwd: app }))[0]!.status, "updated");
    const locked = readLockfile(join(app, "skills.lock.json")).skills[0]!;
    assert.equal(locked.installed_from!.version, "1.0.1");
  });

  it("changed files under the same version are stale (a patched node_modules)", async () => {
    const { app, modules } = project();
    const dir = join(modules, "pdf-kit");
    pkg(dir, "pdf-kit", "1.0.0", { "skills/pdf/SKILL.md": skillMd("pdf", "one\n") });
    await addSkills("npm:pdf-kit", { cwd: app });
    put(dir, "skills/pdf/SKILL.md", skillMd("pdf", "patched\n"));
    const [report] = await outdatedSkills({ cwd: app });
    assert.equal(report!.state, "stale");
  });

  it("a package uninstalled since is unknown, with the reason", async () => {
    const { app, modules } = project();
    pkg(join(modules, "pdf-kit"), "pdf-kit", "1.0.0", { "skills/pdf/SKILL.md": skillMd("pdf") });
    await addSkills("npm:pdf-kit", { cwd: app });
    rmSync(modules, { recursive: true });
    const [report] = await outdatedSkills({ cwd: app });
    assert.equal(report!.state, "unknown");
    assert.equal(report!.error?.code, "NO_SKILL");
  });
});

describe("npm sources: a hostile package", () => {
  it("refuses a skills folder that is a link out of the package", async () => {
    const { top, app, modules } = project();
    put(top, "victim/loot/SKILL.md", skillMd("loot"));
    pkg(join(modules, "evil"), "evil", "1.0.0");
    link(join(top, "victim"), join(modules, "evil/skills"));
    const e = await refusal(addSkills("npm:evil", { cwd: app }));
    assert.equal(e.code, "LINK_OUT");
    assert.equal(e.message, `Source "npm:evil": "skills" passes through a link`);
    assert.equal(existsSync(join(app, ".agents/skills/loot")), false);
  });

  it("refuses a package folder that is a link out of the project, and takes pnpm's links inside it", async () => {
    const { top, app, modules } = project();
    pkg(join(top, "elsewhere/pdf-kit"), "pdf-kit", "1.0.0", {
      "skills/pdf/SKILL.md": skillMd("pdf"),
    });
    link(join(top, "elsewhere/pdf-kit"), join(app, "node_modules/pdf-kit"));
    const e = await refusal(addSkills("npm:pdf-kit", { cwd: app }));
    assert.equal(e.code, "LINK_OUT");
    assert.equal(
      e.message,
      `Package folder of "pdf-kit" is a link out of ${JSON.stringify(realpathSync(app))}`,
    );
    // pnpm's layout: node_modules/<name> links into node_modules/.pnpm of the same project.
    const store = join(modules, ".pnpm/web-kit@1.0.0/node_modules/web-kit");
    pkg(store, "web-kit", "1.0.0", { "skills/web/SKILL.md": skillMd("web") });
    link(store, join(modules, "web-kit"));
    const ok = await addSkills("npm:web-kit", { cwd: app });
    assert.deepEqual(ok.installed.map((s) => s.name), ["web"]);
  });

  it("refuses a named folder reached through a link inside the package", async () => {
    const { top, app, modules } = project();
    put(top, "victim/inner/loot/SKILL.md", skillMd("loot"));
    pkg(join(modules, "evil"), "evil", "1.0.0");
    link(join(top, "victim"), join(modules, "evil/docs"));
    const e = await refusal(addSkills("npm:evil/docs/inner", { cwd: app }));
    assert.equal(e.code, "LINK_OUT");
    assert.equal(e.message, `Source "npm:evil": "docs/inner" passes through a link`);
  });

  it("refuses a skill holding a link out of it, and installs the others", async () => {
    const { app, modules } = project();
    pkg(join(modules, "evil"), "evil", "1.0.0", {
      "skills/good/SKILL.md": skillMd("good"),
      "skills/bad/SKILL.md": skillMd("bad"),
    });
    link("/etc/passwd", join(modules, "evil/skills/bad/passwd"));
    const result = await addSkills("npm:evil", { cwd: app });
    assert.deepEqual(result.installed.map((s) => s.name), ["good"]);
    assert.deepEqual(result.refused.map((r) => [r.path, r.code]), [["bad", "LINK_OUT"]]);
    assert.equal(existsSync(join(app, ".agents/skills/bad")), false);
  });

  it("refuses a package folder whose package.json names another package", async () => {
    const { app, modules } = project();
    pkg(join(modules, "pdf-kit"), "other-kit", "1.0.0", { "skills/pdf/SKILL.md": skillMd("pdf") });
    const e = await refusal(addSkills("npm:pdf-kit", { cwd: app }));
    assert.equal(e.code, "UNSAFE_SOURCE");
    assert.equal(e.message, `Package folder of "pdf-kit" names itself "other-kit"`);
  });

  it("refuses a package.json over 1 MiB without parsing it", async () => {
    const { app, modules } = project();
    const dir = join(modules, "big");
    pkg(dir, "big", "1.0.0", { "skills/pdf/SKILL.md": skillMd("pdf") });
    put(dir, "package.json", `{"name":"big","version":"1.0.0","pad":"${"x".repeat(1 << 20)}"}`);
    const e = await refusal(addSkills("npm:big", { cwd: app }));
    assert.equal(e.code, "UNSAFE_SOURCE");
    assert.equal(e.message, `Package "big" has no readable package.json of at most 1 MiB`);
  });

  it("refuses a package.json that is a link", async () => {
    const { top, app, modules } = project();
    put(top, "elsewhere/package.json", JSON.stringify({ name: "linked", version: "1.0.0" }));
    put(modules, "linked/skills/pdf/SKILL.md", skillMd("pdf"));
    link(join(top, "elsewhere/package.json"), join(modules, "linked/package.json"));
    const e = await refusal(addSkills("npm:linked", { cwd: app }));
    assert.equal(e.code, "UNSAFE_SOURCE");
  });

  it("parseNpmSource refuses names npm would not publish and paths that climb", () => {
    for (
      const bad of [
        "npm:../../etc",
        "npm:pkg/../../etc",
        "npm:pkg/./skills",
        "npm:pkg//skills",
        "npm:@scope",
        "npm:Upper",
        "npm:pkg/a\\b",
        "npm:pkg/a\u0000b",
        "npm:",
      ]
    ) {
      assert.throws(
        () => parseNpmSource(bad),
        (e: unknown) => e instanceof SkillSourceError && e.code === "UNSAFE_SOURCE",
        bad,
      );
    }
    assert.deepEqual(parseNpmSource("npm:@a/b/c/d"), { name: "@a/b", folder: "c/d" });
    assert.deepEqual(parseNpmSource("npm:pkg"), { name: "pkg", folder: "skills" });
  });

  it("an add through a climbing path writes nothing", async () => {
    const { app } = project();
    const e = await refusal(addSkills("npm:pkg/../../victim", { cwd: app }));
    assert.equal(e.code, "UNSAFE_SOURCE");
    assert.equal(
      e.message,
      `Source "npm:pkg/../../victim" names a folder of the package that is not a plain relative path`,
    );
    assert.equal(existsSync(join(app, "skills.lock.json")), false);
  });

  it("a lockfile's npm fields are read strictly: only on an npm: URL with a digest, well formed", async () => {
    const { top, app, modules } = project();
    pkg(join(modules, "pdf-kit"), "pdf-kit", "1.0.0", { "skills/pdf/SKILL.md": skillMd("pdf") });
    lockPackage(top, "node_modules/pdf-kit", "1.0.0");
    await addSkills("npm:pdf-kit", { cwd: app });
    const good = readFileSync(join(app, "skills.lock.json"), "utf8");
    assert.equal(parseLockfile(good, "l.json").skills[0]!.installed_from?.version, "1.0.0");
    const bad = (from: string, to: string, message: string) =>
      assert.throws(() => parseLockfile(good.replace(from, to), "l.json"), (e: unknown) => {
        assert.equal((e as Error).name, "TrustFileError");
        assert.ok((e as Error).message.includes(message), (e as Error).message);
        return true;
      });
    bad('"npm:pdf-kit"', '"/home/me/skills"', 'Field "version" of the "installed_from" of');
    bad('"1.0.0"', '"1.0 0"', 'Field "version" of the "installed_from" of');
    bad(INTEGRITY, "sha512-not base64!", 'Field "integrity" of the "installed_from" of');
    bad(
      /"digest": "sha256:[0-9a-f]{64}", "path"/.exec(good)![0],
      '"path"',
      "belongs to an npm source",
    );
  });
});
