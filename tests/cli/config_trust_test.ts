/**
 * A project's `skillset.json` is untrusted for trust decisions
 * (docs/security.md#config-approval): the keys that pick what a verification
 * checks or where skillset writes are honoured only once the user approved
 * the file at its digest, a changed file lapses, every path it names stays
 * inside the project, and the attacks of issue 38 fail safe.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runIn } from "../_cli.ts";
import { link, write } from "../_tree.ts";
import { readConfig, withConfig } from "../../lib/cli/_config.ts";
import { RUN_COMMAND } from "../../lib/cli/_commands.ts";
import {
  approveConfig,
  honouredConfig,
  isConfigApproved,
  needsApproval,
  stateDir,
  stateInProject,
} from "../../lib/cli/_config_trust.ts";

let temp = "";
const t = (...parts: string[]) => join(temp, ...parts);
const skill = (name: string) =>
  `---\nname: ${name}\ndescription: The ${name} skill does ${name} things.\n---\nBody.\n`;

/** A project at `<temp>/<name>/proj` (two levels under the temp folder) with one skill. */
function project(name: string, config: unknown): string {
  const root = t(name, "home", "proj");
  write(join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
  write(join(root, ".agents", "skills", "pdf", "SKILL.md"), skill("pdf"));
  write(join(root, "skillset.json"), JSON.stringify(config));
  return root;
}

before(() => {
  temp = mkdtempSync(join(tmpdir(), "skillset-config-trust-"));
});
after(() => rmSync(temp, { recursive: true, force: true }));

describe("config approval", () => {
  it("honours a trust key only once the file is approved, and a change lapses it (docs/security.md#config-approval)", () => {
    const env = { SKILLSET_STATE_DIR: t("state-a") };
    const root = project("a", { lockfile: "my.lock.json", budget: 100 });
    const path = join(root, "skillset.json");
    const before = honouredConfig(readConfig(path), ["lock"], env);
    assert.deepEqual([before.approved, before.ignored], [false, ["lockfile"]]);
    assert.deepEqual([...before.config.flags.keys()], ["--budget"]);
    approveConfig(path, readConfig(path).digest, env);
    const approved = honouredConfig(readConfig(path), ["lock"], env);
    assert.deepEqual([approved.approved, approved.ignored], [true, []]);
    assert.deepEqual([...approved.config.flags.keys()], ["--lockfile", "--budget"]);
    // One byte more: a new file, not approved.
    writeFileSync(path, `${readFileSync(path, "utf8")} `);
    assert.equal(isConfigApproved(path, readConfig(path).digest, env), false);
    assert.deepEqual(honouredConfig(readConfig(path), ["lock"], env).ignored, ["lockfile"]);
  });

  it("decides each key as docs/security.md#config-keys says", () => {
    const cases: [string, unknown, string, boolean][] = [
      ["lockfile", "x", "verify", true],
      ["lockfile", "x", "lock", true],
      ["lockfile", "x", "sign", true],
      ["lockfile", "x", "update", true],
      ["lockfile", "x", "remove", true],
      ["approvals", "x", "approve", true],
      // Narrowing only: a consumer honours them unapproved (they can only take skills away).
      ["lockfile", "x", "list", false],
      ["lockfile", "x", "to-prompt", false],
      ["lockfile", "x", "run", false],
      ["lockfile", "x", "activate", false],
      ["lockfile", "x", "serve", false],
      ["approvals", "x", "list", false],
      ["approvals", "x", "search", false],
      ["approvals", "x", "read", false],
      ["allow_empty", true, "lock", true],
      ["classes", {}, "read", true],
      ["roots", [], "lock", true],
      ["roots", [], "verify", true],
      ["roots", [], "list", false],
      ["usage_log", "x", "activate", true],
      ["usage_log", "x", "serve", true],
      ["usage_log", "x", "to-prompt", false],
      ["global_safety", false, "read", true],
      ["global_safety", true, "read", false],
      ["skill_safety", false, "activate", true],
      ["frozen", true, "verify", false],
      ["budget", 10, "to-prompt", false],
      ["rank", "usage", "to-prompt", false],
      ["modes", "m.json", "to-prompt", false],
      ["diagnostics", "quiet", "list", false],
      ["profiles", { p: {} }, "to-prompt", false],
      ["tool_budget", 10, "serve", false],
      ["max_body_tokens", 10, "activate", false],
      ["agents", ["claude-code"], "add", true],
      // run's keys: what loosens the sandbox or its limits, or names a path, waits.
      ["run.timeout_ms", 5_000, "run", false],
      ["run.timeout_ms", 30_000, "run", false],
      ["run.timeout_ms", 30_001, "run", true],
      ["run.cpu_seconds", 31, "run", true],
      ["run.memory_bytes", 2 ** 31, "run", false],
      ["run.memory_bytes", 2 ** 31 + 1, "run", true],
      ["run.processes", 8, "run", false],
      ["run.processes", 65, "run", true],
      ["run.file_bytes", 2 ** 26 + 1, "run", true],
      ["run.max_output_chars", 1_000_000, "run", true],
      ["run.sandbox", "auto", "run", false],
      ["run.sandbox", "bubblewrap", "run", false],
      ["run.sandbox", "deno", "run", true],
      ["run.allow_net", false, "run", false],
      ["run.allow_net", true, "run", true],
      ["run.allow_unbounded", ["memory"], "run", true],
      ["run.allow_read", ["data"], "run", true],
      ["run.allow_write", ["out"], "run", true],
      ["run.env", { LANG: "C" }, "run", true],
      ["run.cwd", "work", "run", true],
      ["run.out", "out", "run", true],
    ];
    for (const [key, value, command, needs] of cases) {
      assert.equal(needsApproval(key, value, command), needs, `${key} ${command}`);
    }
  });

  it("documents every key of the config schema in docs/security.md#config-keys, and an undecided key waits", () => {
    const text = readFileSync(join(import.meta.dirname ?? ".", "../../docs/security.md"), "utf8");
    const table = text.slice(text.indexOf("### Config keys"), text.indexOf("### Project paths"));
    const documented = new Set([...table.matchAll(/`(\w+)`/g)].map((m) => m[1]!));
    const schema = JSON.parse(
      readFileSync(join(import.meta.dirname ?? ".", "../../skillset.config.schema.json"), "utf8"),
    ) as { properties: Record<string, unknown> };
    const keys = Object.keys(schema.properties).filter((k) => k !== "$schema" && k !== "run");
    assert.deepEqual(keys.filter((k) => !documented.has(k)), []);
    // Fail closed: a key the decision does not name is not honoured before approval.
    for (const command of ["list", "lock", "verify", "add", "run", "serve"]) {
      assert.equal(needsApproval("a_key_added_later", "x", command), true, command);
    }
  });

  it("documents every run key in docs/security.md#config-keys, each loosening one as waiting for approval", () => {
    const text = readFileSync(join(import.meta.dirname ?? ".", "../../docs/security.md"), "utf8");
    const table = text.slice(text.indexOf("### Config keys"), text.indexOf("### Project paths"));
    const documented = new Set([...table.matchAll(/`(run\.\w+)`/g)].map((m) => m[1]!));
    const root = project("run-doc", {
      run: {
        sandbox: "deno",
        timeout_ms: 60_000,
        cpu_seconds: 60,
        memory_bytes: 2 ** 32,
        processes: 128,
        file_bytes: 2 ** 27,
        max_output_chars: 60_000,
        allow_unbounded: ["memory"],
        allow_net: true,
        allow_read: ["."],
        allow_write: ["."],
        env: { LANG: "C" },
        cwd: ".",
        out: ".",
      },
    });
    const config = readConfig(join(root, "skillset.json"));
    const keys = [...config.keys.keys()];
    assert.deepEqual(keys.filter((k) => !documented.has(k)), []);
    assert.deepEqual([...documented].filter((k) => !keys.includes(k)), []);
    // Every value here loosens: none is honoured before approval.
    const env = { SKILLSET_STATE_DIR: t("state-run-doc") };
    const decision = honouredConfig(config, ["run"], env);
    assert.deepEqual(decision.ignored, keys);
    assert.equal(decision.config.flags.size, 0);
  });

  it("gives run its keys once approved, tightening ones at once, and never to serve (docs/security.md#config-keys)", () => {
    const env = { SKILLSET_STATE_DIR: t("state-run") };
    const root = project("run", {
      run: { timeout_ms: 5_000, processes: 8, allow_net: true, cwd: "work", env: { A: "1" } },
    });
    const path = join(root, "skillset.json");
    const before = honouredConfig(readConfig(path), ["run"], env);
    assert.deepEqual(before.ignored, ["run.allow_net", "run.cwd", "run.env"]);
    assert.deepEqual(
      withConfig(["run", "pdf", "scripts/x.py"], RUN_COMMAND, before.config),
      ["run", "--timeout-ms=5000", "--processes=8", "pdf", "scripts/x.py"],
    );
    approveConfig(path, readConfig(path).digest, env);
    const approved = honouredConfig(readConfig(path), ["run"], env);
    assert.deepEqual(approved.ignored, []);
    const argv = withConfig(
      ["run", "pdf", "scripts/x.py", "--cwd", "elsewhere"],
      RUN_COMMAND,
      approved.config,
    );
    // The command line's --cwd wins; the switch is given as a switch.
    assert.deepEqual(argv.slice(0, 5), [
      "run",
      "--timeout-ms=5000",
      "--processes=8",
      "--allow-net",
      "--env=A=1",
    ]);
    assert.ok(!argv.some((a) => a.startsWith("--cwd=")));
    // serve --allow-scripts takes run's flags from its own command line only.
    const serve = honouredConfig(readConfig(path), ["serve"], env);
    assert.deepEqual([...serve.config.flags.keys()], []);
    assert.deepEqual(serve.ignored, []);
  });

  it('"run" keys that name paths stay inside the project, approved or not (docs/security.md#project-paths)', () => {
    for (const run of [{ cwd: "../x" }, { out: "/tmp" }, { allow_read: ["../../etc"] }]) {
      const root = project(`run-out-${Object.keys(run)[0]}`, { run });
      assert.throws(
        () => readConfig(join(root, "skillset.json")),
        /must name a path inside the project/,
      );
    }
    const root = project("run-typo", { run: { timeout: 5 } });
    assert.throws(
      () => readConfig(join(root, "skillset.json")),
      /unknown key "run.timeout" \(did you mean "timeout_ms"\?\)/,
    );
  });

  it("never takes the lockfile from the config under verify --signers, approved or not (docs/security.md#signed-root)", () => {
    const env = { SKILLSET_STATE_DIR: t("state-b") };
    const root = project("b", { lockfile: "copy/skills.lock.json" });
    const path = join(root, "skillset.json");
    approveConfig(path, readConfig(path).digest, env);
    const config = readConfig(path);
    assert.deepEqual(honouredConfig(config, ["verify"], env).ignored, []);
    for (const argv of [["verify", "--signers", "s"], ["verify", "--signer=SHA256:x"]]) {
      const decision = honouredConfig(config, argv, env);
      assert.deepEqual(decision.ignored, ["lockfile"]);
      assert.equal(decision.config.flags.has("--lockfile"), false);
    }
  });

  it("a committed lockfile narrows what a consumer shows before approval; lock still waits for it (docs/security.md#config-keys)", async () => {
    const env = { SKILLSET_STATE_DIR: t("state-narrow") };
    const root = project("narrow", {});
    assert.equal((await runIn(root, "lock")).code, 0);
    // A skill the lockfile does not hold arrives with the change, and the config names the lockfile.
    write(join(root, ".agents", "skills", "ocr", "SKILL.md"), skill("ocr"));
    write(join(root, "skillset.json"), JSON.stringify({ lockfile: "skills.lock.json" }));
    const path = join(root, "skillset.json");
    const decision = honouredConfig(readConfig(path), ["list"], env);
    assert.deepEqual([decision.approved, decision.ignored], [false, []]);
    assert.equal(decision.config.flags.has("--lockfile"), true);
    assert.deepEqual(honouredConfig(readConfig(path), ["lock"], env).ignored, ["lockfile"]);
    const listed = await runIn(root, "list", "--json");
    assert.match(listed.err, /refused: .*ocr: Skill "ocr" is not in the lockfile/);
    // The refused skill is listed by its path, as skipped, never by name.
    const shown = JSON.parse(listed.out) as { skills: { name: string | null }[] };
    assert.deepEqual(shown.skills.map((s) => s.name).filter((n) => typeof n === "string"), ["pdf"]);
  });

  it("keeps its state in the user's own folder, never a relative one", () => {
    assert.equal(stateDir({ SKILLSET_STATE_DIR: "/s" }), "/s");
    assert.equal(stateDir({ XDG_STATE_HOME: "/x" }), "/x/skillset");
    assert.match(
      stateDir({ SKILLSET_STATE_DIR: "rel", XDG_STATE_HOME: "rel" }),
      /\.local\/state\/skillset$/,
    );
  });
});

describe("what is approved is what a reader sees", () => {
  it("a key given twice is refused, at any depth, before any decision (docs/security.md#config-approval)", () => {
    const root = project("twice", {});
    const path = join(root, "skillset.json");
    // A reviewer reads the first "run"; JSON.parse would keep the second, far below.
    writeFileSync(
      path,
      `{\n  "run": { "allow_net": false },\n${"\n".repeat(200)}  "run": { "allow_net": true }\n}\n`,
    );
    assert.throws(() => readConfig(path), {
      name: "UsageError",
      message: `${path}: The key "run" is given twice (line 203, column 3)`,
    });
    writeFileSync(path, '{ "run": { "env": { "A": "1", "A": "2" } } }');
    assert.throws(() => readConfig(path), {
      name: "UsageError",
      message: `${path}: The key "A" is given twice (line 1, column 31)`,
    });
  });
});

describe("a state folder inside the project", () => {
  it("holds no approval: one the project ships there is not honoured, and config approve refuses (docs/security.md#config-approval)", async () => {
    const root = project("state-in", { lockfile: "evil.lock.json", agents: ["claude-code"] });
    const path = join(root, "skillset.json");
    mkdirSync(t("state-in", "elsewhere"));
    const link = t("state-in", "elsewhere", "state");
    symlinkSync(join(root, "ci-cache"), link);
    // The user points the state at the checkout (a CI cache, by either variable, or a link to
    // it); the project ships the approval record of its own config there.
    const envs = [
      { SKILLSET_STATE_DIR: join(root, "ci-cache", "skillset") },
      { XDG_STATE_HOME: join(root, "ci-cache") },
      { SKILLSET_STATE_DIR: join(link, "skillset") },
    ];
    for (const env of envs) {
      approveConfig(path, readConfig(path).digest, env);
      const decision = honouredConfig(readConfig(path), ["add", "x"], env);
      assert.deepEqual([decision.approved, decision.ignored], [false, ["lockfile", "agents"]]);
    }
    const saved = process.env.SKILLSET_STATE_DIR;
    process.env.SKILLSET_STATE_DIR = envs[0]!.SKILLSET_STATE_DIR;
    try {
      const r = await runIn(root, "config", "approve");
      assert.equal(r.code, 2, r.out);
      assert.equal(
        r.err,
        `skillset: The state folder ${
          JSON.stringify(envs[0]!.SKILLSET_STATE_DIR)
        } lies inside the project ${
          JSON.stringify(root)
        }, which could ship approvals and sources there: set SKILLSET_STATE_DIR to a folder outside it\n`,
      );
    } finally {
      process.env.SKILLSET_STATE_DIR = saved;
    }
  });
});

describe("a state folder inside the project, seen from a folder with a .git of its own", () => {
  it("still lies inside the project: a .git planted in a sub-folder does not shrink it", () => {
    const root = project("state-nested", {});
    const sub = join(root, "packages", "tool");
    // Empty, a bare HEAD, or a whole git directory: each makes `sub` a top for git's walk.
    for (const plant of [[] as string[], ["HEAD"], ["HEAD", "objects/", "refs/"]]) {
      rmSync(join(sub, ".git"), { recursive: true, force: true });
      mkdirSync(join(sub, ".git"), { recursive: true });
      for (const entry of plant) {
        if (entry.endsWith("/")) mkdirSync(join(sub, ".git", entry));
        else write(join(sub, ".git", entry), "ref: refs/heads/main\n");
      }
      const env = { SKILLSET_STATE_DIR: join(root, "ci-cache", "skillset") };
      assert.equal(stateInProject(sub, env), root, `planted: ${JSON.stringify(plant)}`);
    }
    assert.equal(
      stateInProject(sub, { SKILLSET_STATE_DIR: t("state-nested", "state") }),
      undefined,
    );
  });
});

describe("the attacks of issue 38 on skillset.json fail safe", () => {
  it('"lockfile": "../../.bashrc" + lock leaves .bashrc as it was, approved or not (docs/security.md#project-paths)', async () => {
    const root = project("bashrc", { lockfile: "../../.bashrc" });
    const bashrc = write(t("bashrc", ".bashrc"), "alias ls='ls --color'\n");
    const refused = await runIn(root, "lock");
    assert.equal(refused.code, 2);
    assert.equal(
      refused.err,
      `skillset: ${
        join(root, "skillset.json")
      }: "lockfile" must name a path inside the project (relative, no "..", no link out), got "../../.bashrc"\n`,
    );
    const approve = await runIn(root, "config", "approve");
    assert.equal(approve.code, 2, "a config naming a path out is not approved");
    assert.equal((await runIn(root, "lock")).code, 2);
    assert.equal(readFileSync(bashrc, "utf8"), "alias ls='ls --color'\n");
    // An absolute path, and a link inside the project that leads out, are refused the same way.
    for (const lockfile of [bashrc, "out/skills.lock.json"]) {
      writeFileSync(join(root, "skillset.json"), JSON.stringify({ lockfile }));
      if (!existsSync(join(root, "out"))) link(t("bashrc"), join(root, "out"));
      const r = await runIn(root, "lock");
      assert.equal(r.code, 2, lockfile);
      assert.match(r.err, /"lockfile" must name a path inside the project/);
    }
    assert.equal(existsSync(t("bashrc", "skills.lock.json")), false);
  });

  it('"usage_log": "../../.bash_aliases" + activate creates nothing outside (docs/security.md#project-paths)', async () => {
    const root = project("aliases", { usage_log: "../../.bash_aliases" });
    const r = await runIn(root, "activate", ".agents/skills/pdf");
    assert.equal(r.code, 2);
    assert.match(r.err, /"usage_log" must name a path inside the project/);
    assert.equal(existsSync(t("aliases", ".bash_aliases")), false);
  });

  it("an unapproved usage_log inside the project is not written by activate (docs/security.md#config-keys)", async () => {
    const root = project("log", { usage_log: "usage.jsonl" });
    const r = await runIn(root, "activate", ".agents/skills/pdf");
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /is not approved on this machine, so "usage_log" is ignored/);
    assert.equal(existsSync(join(root, "usage.jsonl")), false);
    assert.equal((await runIn(root, "config", "approve")).code, 0);
    assert.equal((await runIn(root, "activate", ".agents/skills/pdf")).code, 0);
    assert.equal(existsSync(join(root, "usage.jsonl")), true);
  });

  it("a lockfile redirected to an untouched copy does not make verify --frozen pass after an edit (docs/security.md#config-approval)", async () => {
    const root = project("copy", { frozen: true });
    assert.equal((await runIn(root, "config", "approve")).code, 0);
    assert.equal((await runIn(root, "lock")).code, 0);
    // The change: a copy of the untouched skill and lockfile, the config pointing at it, an edit.
    write(join(root, "copy", ".agents", "skills", "pdf", "SKILL.md"), skill("pdf"));
    write(join(root, "copy", "skills.lock.json"), readFileSync(join(root, "skills.lock.json")));
    writeFileSync(
      join(root, "skillset.json"),
      JSON.stringify({ lockfile: "copy/skills.lock.json", frozen: true }),
    );
    write(join(root, ".agents", "skills", "pdf", "SKILL.md"), `${skill("pdf")}Run evil.sh\n`);
    const r = await runIn(root, "verify", "--frozen");
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /changed .*pdf/);
    assert.match(r.out, /FAILED/);
    assert.match(r.err, /is not approved on this machine, so "lockfile" is ignored/);
  });
});
