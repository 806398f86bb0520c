// @slow: runs the CLI as a subprocess (left out of `npm run test:quick`)
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import process from "node:process";
import { spawnSync } from "node:child_process";
import { main } from "../../../lib/cli.ts";
import { cli, runIn as run } from "../../_cli.ts";
import { parseLockfile } from "../../../mod.ts";

const temps: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

function project(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "skillset-trust-cli-")));
  temps.push(dir);
  for (const name of ["one", "two"]) {
    mkdirSync(join(dir, "skills", name, "references"), { recursive: true });
    writeFileSync(
      join(dir, "skills", name, "SKILL.md"),
      `---\nname: ${name}\ndescription: Skill ${name}\n---\nBody\n`,
    );
    writeFileSync(join(dir, "skills", name, "references", "r.md"), `${name}\n`);
  }
  return dir;
}

const ROOT = ["--root", "project=skills"];

describe("skillset lock and verify", () => {
  it("lock writes a lockfile that verify finds clean; a change fails verify naming the file", async () => {
    const dir = project();
    const locked = await run(dir, "lock", ...ROOT);
    assert.deepEqual([locked.code, locked.out], [
      0,
      `Locked 2 skills in ${join(dir, "skills.lock.json")}\n`,
    ]);
    const lock = parseLockfile(readFileSync(join(dir, "skills.lock.json"), "utf8"), "l");
    assert.deepEqual(lock.skills.map((s) => [s.name, s.scope, s.source]), [[
      "one",
      "project",
      "skills/one",
    ], ["two", "project", "skills/two"]]);
    assert.deepEqual(await run(dir, "verify", ...ROOT), {
      code: 0,
      out: "OK: 2 locked skills verified\n",
      err: "",
    });
    appendFileSync(join(dir, "skills", "two", "references", "r.md"), "more");
    const changed = await run(dir, "verify", ...ROOT);
    assert.equal(changed.code, 1);
    assert.equal(
      changed.out,
      'changed file skills/two (two): "references/r.md" changed\nFAILED: the skills differ from the lockfile\n',
    );
    const json = await run(dir, "verify", ...ROOT, "--json");
    assert.equal(json.code, 1);
    const report = JSON.parse(json.out);
    assert.deepEqual([report.ok, report.differences[0].files], [false, [{
      path: "references/r.md",
      change: "changed",
    }]]);
  });

  it("verify refuses a cloned lockfile whose roots lead out of the project, never naming what is there (docs/security.md#project-paths)", async () => {
    const dir = project();
    mkdirSync(join(dir, ".git"));
    assert.equal((await run(dir, "lock", ...ROOT)).code, 0);
    // Skills of the user's, outside the project, and a link to them inside it.
    const outside = realpathSync(mkdtempSync(join(tmpdir(), "skillset-trust-outside-")));
    temps.push(outside);
    mkdirSync(join(outside, "private"));
    writeFileSync(
      join(outside, "private", "SKILL.md"),
      "---\nname: private\ndescription: Mine\n---\n",
    );
    symlinkSync(outside, join(dir, "mine"));
    const file = join(dir, "skills.lock.json");
    const text = readFileSync(file, "utf8");
    for (const path of [outside, join("..", basename(outside)), "mine"]) {
      const lock = JSON.parse(text) as { roots: { scope: string; path: string }[] };
      lock.roots.push({ scope: "user", path });
      writeFileSync(file, JSON.stringify(lock));
      const r = await run(dir, "verify");
      assert.deepEqual(r, {
        code: 1,
        out: "",
        err: `skillset: error: ${file}: Root ${
          JSON.stringify(path)
        } of the lockfile leads out of the project (${
          JSON.stringify(dir)
        }): a lockfile's roots stay inside it\n`,
      });
    }
  });

  it("verify reports a skill not locked, and fails on it only when frozen", async () => {
    const dir = project();
    await run(dir, "lock", ...ROOT, "--lockfile", "pins.json");
    mkdirSync(join(dir, "skills", "three"));
    writeFileSync(
      join(dir, "skills", "three", "SKILL.md"),
      "---\nname: three\ndescription: Three\n---\n",
    );
    const loose = await run(dir, "verify", ...ROOT, "--lockfile", "pins.json");
    assert.deepEqual([loose.code, loose.out.split("\n")[0]], [
      0,
      "unlocked file skills/three (three): not in the lockfile",
    ]);
    const frozen = await run(dir, "verify", ...ROOT, "--lockfile", "pins.json", "--frozen");
    assert.deepEqual([frozen.code, frozen.out.split("\n")[0]], [
      1,
      "added   file skills/three (three): not in the lockfile",
    ]);
    rmSync(join(dir, "skills", "one"), { recursive: true });
    const gone = await run(dir, "verify", ...ROOT, "--lockfile", "pins.json");
    assert.ok(
      gone.out.startsWith("removed file skills/one (one): locked but not found\n"),
      gone.out,
    );
    const json = await run(dir, "lock", ...ROOT, "--json", "--lockfile", "pins.json");
    assert.equal(JSON.parse(json.out).skills.length, 2);
  });

  it("a missing or malformed lockfile is an error naming the file and line (exit 1)", async () => {
    const dir = project();
    const missing = await run(dir, "verify", ...ROOT);
    assert.equal(missing.code, 1);
    assert.equal(
      missing.err,
      `skillset: error: ${
        join(dir, "skills.lock.json")
      }: No lockfile here: run \`skillset lock\` first\n`,
    );
    writeFileSync(
      join(dir, "skills.lock.json"),
      '{\n  "version": 1,\n  "skills": [\n    { "name": "x" }\n',
    );
    const bad = await run(dir, "verify", ...ROOT);
    assert.equal(bad.code, 1);
    assert.match(
      bad.err,
      /skills\.lock\.json:5:1: Not valid JSON: Expected "," or "]": the text ends\n$/,
    );
  });

  it("a lockfile that is a named pipe is refused at once, never waited on", () => {
    const dir = project();
    const fifo = join(dir, "skills.lock.json");
    const made = spawnSync("mkfifo", [fifo]);
    if (made.status !== 0) return; // no mkfifo here
    const result = cli(["verify", ...ROOT], dir, 60_000);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, `skillset: error: ${fifo}: Not a regular file\n`);
  });

  it("a skill that cannot be hashed fails lock", async () => {
    const dir = project();
    writeFileSync(join(dir, "skills", "one", "secret.txt"), "s");
    const { chmodSync } = await import("node:fs");
    chmodSync(join(dir, "skills", "one", "secret.txt"), 0);
    const isRoot = process.getuid?.() === 0;
    const result = await run(dir, "lock", ...ROOT);
    if (isRoot) assert.equal(result.code, 0); // root reads anything
    else {
      assert.equal(result.code, 1);
      assert.match(result.err, /one: .*secret\.txt.*permission denied/);
    }
  });
});

describe("skillset approve and list --approvals", () => {
  it("approve names or --all; list shows approved, needs approval, changed since approval", async () => {
    const dir = project();
    const list = async () => (await run(dir, "list", ...ROOT, "--approvals", "a.json")).out;
    assert.match(await list(), /project {2}loaded {2}needs approval {2}one/);
    const one = await run(dir, "approve", "one", ...ROOT, "--approvals", "a.json");
    assert.equal(one.code, 0);
    assert.match(one.out, /^approved one sha256:[0-9a-f]{64}\n1 skill approved in /);
    const table = await list();
    assert.match(table, /loaded {2}approved {8}one/);
    assert.match(table, /loaded {2}needs approval {2}two/);
    appendFileSync(join(dir, "skills", "one", "SKILL.md"), "more\n");
    assert.match(await list(), /loaded {2}changed since approval {2}one/);
    const json = JSON.parse(
      (await run(dir, "list", ...ROOT, "--approvals", "a.json", "--json")).out,
    );
    assert.deepEqual(json.skills[0].changes, [{ path: "SKILL.md", change: "changed" }]);
    const all = await run(dir, "approve", "--all", ...ROOT, "--approvals", "a.json", "--json");
    assert.deepEqual(JSON.parse(all.out).approved.map((a: { name: string }) => a.name), [
      "one",
      "two",
    ]);
    assert.doesNotMatch(await list(), /needs approval|changed since/);
  });

  it("bad usage and an unknown skill exit 2; a malformed approval file exits 1", async () => {
    const dir = project();
    assert.equal((await run(dir, "approve", ...ROOT)).code, 2);
    assert.equal((await run(dir, "approve", "one", "--all", ...ROOT)).code, 2);
    assert.equal((await run(dir, "lock", "--root", "nonsense")).code, 2);
    const unknown = await run(dir, "approve", "nope", ...ROOT);
    assert.match(unknown.err, /^skillset: unknown skill "nope"/);
    assert.equal(unknown.code, 2);
    writeFileSync(join(dir, "a.json"), '{ "version": 1, "approvals": "all" }');
    const bad = await run(dir, "list", ...ROOT, "--approvals", "a.json");
    assert.equal(bad.code, 1);
    assert.match(
      bad.err,
      /a\.json:1:30: Field "approvals" of the approval file must be an array, not a string/,
    );
  });

  it("the synchronous main refuses the trust commands; help works in both", async () => {
    let err = "", out = "";
    const io = {
      stdout: (t: string) => void (out += t),
      stderr: (t: string) => void (err += t),
      color: false,
    };
    assert.equal(main(["lock"], io), 2);
    assert.match(err, /lock runs asynchronously: call mainAsync/);
    assert.equal(main(["list", "--approvals", "x"], io), 2);
    assert.equal(main(["verify", "--help"], io), 0);
    assert.match(out, /usage: skillset verify/);
    const help = await run(process.cwd(), "approve", "--help");
    assert.match(help.out, /usage: skillset approve/);
  });
});

describe("the command line enforces locks and approvals", () => {
  it("activate and read with --lockfile refuse a changed skill, naming it; an unchanged one runs", async () => {
    const dir = project();
    assert.equal((await run(dir, "lock", ...ROOT)).code, 0);
    const ok = await run(dir, "activate", "skills/one", "--lockfile", "skills.lock.json");
    assert.equal(ok.code, 0, ok.err);
    appendFileSync(join(dir, "skills/one/references/r.md"), "evil\n");
    const refused = await run(
      dir,
      "read",
      "skills/one",
      "references/r.md",
      "--lockfile",
      "skills.lock.json",
    );
    assert.equal(refused.code, 1);
    assert.equal(refused.out, "");
    assert.equal(
      refused.err,
      'skillset: refused: skills/one: Skill "one" differs from its lockfile entry: "references/r.md" changed\n',
    );
    const activated = await run(dir, "activate", "skills/one", "--lockfile", "skills.lock.json");
    assert.equal(activated.code, 1);
  });

  it("to-prompt, search and list with --approvals use only approved skills, naming the others", async () => {
    const dir = project();
    assert.equal((await run(dir, "approve", "one", ...ROOT, "--approvals", "a.json")).code, 0);
    const prompt = await run(dir, "to-prompt", "skills", "--approvals", "a.json");
    assert.match(prompt.out, /<name>one<\/name>/);
    assert.doesNotMatch(prompt.out, /<name>two<\/name>/);
    assert.match(prompt.err, /refused: .*two: Skill "two" needs approval/);
    const search = await run(dir, "search", "two", ...ROOT, "--approvals", "a.json");
    assert.doesNotMatch(search.out, /two/);
    const listed = await run(dir, "list", ...ROOT, "--lockfile", "missing.lock.json");
    assert.equal(listed.code, 1);
    assert.match(listed.err, /No lockfile here/);
  });

  it("serve --lockfile serves only skills that match the lock, and names the others", async () => {
    const dir = project();
    assert.equal((await run(dir, "lock", ...ROOT)).code, 0);
    appendFileSync(join(dir, "skills/two/references/r.md"), "evil\n");
    const { cliCommand } = await import("../../_mcp.ts");
    const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
    const { Client } = await import("@modelcontextprotocol/client");
    const transport = new StdioClientTransport({
      ...cliCommand(["serve", join(dir, "skills"), "--lockfile", join(dir, "skills.lock.json")]),
      cwd: dir,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d: Uint8Array) => (stderr += new TextDecoder().decode(d)));
    const client = new Client({ name: "t", version: "1" });
    await client.connect(transport);
    try {
      const tool = await client.callTool({ name: "skill", arguments: { skill: "two" } });
      assert.equal((tool as { isError?: boolean }).isError, true);
      const one = await client.callTool({ name: "skill", arguments: { skill: "one" } });
      assert.notEqual((one as { isError?: boolean }).isError, true);
      assert.match(
        stderr,
        /Skill "two" differs from its lockfile entry: "references\/r\.md" changed; not served/,
      );
    } finally {
      await client.close();
    }
  });

  it("serve refuses a root that does not exist unless --allow-empty", () => {
    const dir = project();
    const r = cli(["serve", "--root", "p=nowhere"], dir);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /root "p=nowhere" does not exist/);
  });

  it("an MCP source with --approvals uses only approved skills", async () => {
    const dir = project();
    const { cliCommand, commandLine } = await import("../../_mcp.ts");
    const server = commandLine(cliCommand(["serve", join(dir, "skills")]));
    const r = cli(
      ["activate", "--mcp-stdio", server, "one", "--approvals", join(dir, "none.json")],
      dir,
    );
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /refused: mcp:one: needs approval/);
  });
});
