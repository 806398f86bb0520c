// @slow: runs scripts in the bubblewrap sandbox and under Deno and Bun (left out of `npm run test:quick`)
// @every-runtime: the sandbox and the Deno-permissions fallback are spawned through each runtime's child_process
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { createServer, type Server } from "node:net";
import { basename, join } from "node:path";
import process from "node:process";
import {
  activateSkill,
  approvalRecord,
  createBundle,
  createLockfile,
  ExecutionError,
  interpreterByExtension,
  lockEntry,
  MemoryApprovalStore,
  renderActivation,
  type ResourceFile,
  SCRIPT_EXTENSIONS,
  scriptInterpreter,
  skillManifest,
} from "../../../mod.ts";
import { fc, runs } from "../../_fc.ts";
import {
  approveSkillFolder,
  discoverSkills,
  FILE_ORIGIN,
  loadSkillFolder,
  lockSkills,
  recordedPath,
} from "../../../lib/load.ts";
import { _setSandboxTools, isRoot } from "../../../lib/fs/scripts/_sandbox.ts";
import { type RunScriptOptions, runSkillScript } from "../../../lib/fs/scripts/run_script.ts";
import { ScriptRunError } from "../../../lib/fs/scripts/script_run_error.ts";
import { unreachableBy } from "../../../lib/fs/scripts/_run_limits.ts";
import { link, put } from "../../_tree.ts";
import { sandboxMissing, skillFolder, tempFolders } from "../../_run.ts";
import { runChild, unreadableBy } from "../../_spawn.ts";
import { RUNTIME } from "../../_cli.ts";

const ROOT = join(import.meta.dirname ?? ".", "../../..");

const temp = tempFolders("skillset-run-test-", 0o755);
/** A skill folder with these files (SKILL.md added). */
const skill = (files: Readonly<Record<string, string>>, name = "runner"): string =>
  skillFolder(temp(), files, name, "Runs scripts in tests");
const NO_BWRAP = await sandboxMissing(temp());
const DENO = join(ROOT, "node_modules", "deno", "deno");
const NO_DENO = existsSync(DENO) ? false : "no deno binary in node_modules";

/** Run a script of a fresh skill. */
async function runIn(
  files: Readonly<Record<string, string>>,
  path: string,
  args: readonly string[] = [],
  options: RunScriptOptions = {},
) {
  return await runSkillScript(loadSkillFolder(skill(files)), path, args, options);
}

/** A loopback server counting its connections. */
async function loopback(): Promise<{ server: Server; port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.end("hello\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return { server, port, connections: () => count };
}

const CONNECT_PY = (port: number) =>
  `import socket\ntry:\n    s = socket.create_connection(("127.0.0.1", ${port}), timeout=2)\n    print("connected", s.recv(10))\nexcept OSError as e:\n    print("refused", e)\n`;

describe("runSkillScript: what may run", () => {
  it("refuses a script in a folder the gate guards, and runs it once both switches are off", async () => {
    const dir = skill({ "tools/x.sh": "echo gated\n", "scripts/y.sh": "echo y\n" });
    link("../tools/x.sh", join(dir, "scripts", "via.sh"));
    const loaded = loadSkillFolder(dir);
    await assert.rejects(
      runSkillScript(loaded, "tools/x.sh"),
      (e: unknown) =>
        e instanceof ExecutionError && e.code === "ACCESS_REFUSED" &&
        e.message ===
          'Refused to run non-standard resource "tools/x.sh": global safety is true, skill safety is true (both must be false)',
    );
    // A link in scripts/ into the gated folder is classed by its real path too.
    await assert.rejects(runSkillScript(loaded, "scripts/via.sh"), ExecutionError);
    if (NO_BWRAP === false) {
      const open = { global_safety: false, skill_safety: false };
      assert.equal((await runSkillScript(loaded, "tools/x.sh", [], open)).stdout, "gated\n");
    }
  });

  it("refuses a link in scripts/ that points outside the skill", async () => {
    const outside = temp();
    put(outside, "evil.sh", "echo escaped\n");
    const dir = skill({ "scripts/ok.sh": "echo ok\n" });
    link(join(outside, "evil.sh"), join(dir, "scripts", "evil.sh"));
    await assert.rejects(
      runSkillScript(loadSkillFolder(dir), "scripts/evil.sh"),
      (e: unknown) =>
        e instanceof ExecutionError &&
        e.message ===
          'Refused to run "scripts/evil.sh": it does not lead to a regular file inside the skill folder',
    );
  });

  it("refuses an unknown interpreter, from the #! line or the extension", async () => {
    for (const [path, text] of [["scripts/a.rb", "puts 1\n"], ["scripts/a", "#!/usr/bin/ruby\n"]]) {
      await assert.rejects(
        runIn({ [path!]: text! }, path!),
        (e: unknown) =>
          e instanceof ScriptRunError && e.code === "UNKNOWN_INTERPRETER" &&
          e.message.startsWith(`Cannot run "${path}": neither its #! line nor its extension`),
      );
    }
  });

  it("never runs a script of a skill served over MCP without an approval of it", async () => {
    const files = {
      "SKILL.md": "---\nname: far\ndescription: Far away\n---\n",
      "scripts/a.sh": "echo far\n",
    };
    const bundle = Object.freeze({
      ...createBundle({
        frontmatter: { name: "far", description: "Far away" },
        instructions: "",
        files,
      }),
      origin: "docs",
      uri: "skill://far/SKILL.md",
    });
    const refused = (e: unknown) => e instanceof ScriptRunError && e.code === "NOT_APPROVED";
    await assert.rejects(runSkillScript(bundle, "scripts/a.sh"), refused);
    await assert.rejects(
      runSkillScript(bundle, "scripts/a.sh", [], { approvals: new MemoryApprovalStore() }),
      refused,
    );
    // Approved as a local folder of the same path is not approved from this server.
    const manifest = await skillManifest(bundle);
    const wrongOrigin = new MemoryApprovalStore([
      approvalRecord(FILE_ORIGIN, bundle.uri, manifest),
    ]);
    await assert.rejects(
      runSkillScript(bundle, "scripts/a.sh", [], { approvals: wrongOrigin }),
      refused,
    );
    if (NO_BWRAP === false) {
      const store = new MemoryApprovalStore([approvalRecord("docs", bundle.uri, manifest)]);
      const run = await runSkillScript(bundle, "scripts/a.sh", [], { approvals: store });
      assert.equal(run.stdout, "far\n");
    }
  });
});

describe("runSkillScript: bound to the approved bytes", () => {
  it("refuses a script replaced with one of the same size after approval or locking", async () => {
    const dir = skill({ "scripts/a.sh": "echo good\n" });
    const before = loadSkillFolder(dir);
    const manifest = await skillManifest(before);
    const approvals = new MemoryApprovalStore([approvalRecord(FILE_ORIGIN, dir, manifest)]);
    const base = join(dir, "..");
    const lock = createLockfile([
      lockEntry(manifest, { scope: "project", source: recordedPath(base, dir) }),
    ]);
    writeFileSync(join(dir, "scripts", "a.sh"), "echo evil\n");
    const after = loadSkillFolder(dir);
    await assert.rejects(
      runSkillScript(after, "scripts/a.sh", [], { approvals }),
      (e: unknown) =>
        e instanceof ScriptRunError && e.code === "NOT_APPROVED" &&
        e.message === 'Skill "runner" changed since it was approved: "scripts/a.sh" changed',
    );
    await assert.rejects(
      runSkillScript(after, "scripts/a.sh", [], { lock, lockBase: base }),
      (e: unknown) =>
        e instanceof ScriptRunError && e.code === "LOCK_MISMATCH" &&
        e.message.includes("scripts/a.sh"),
    );
  });

  it("runs a locked skill whose folder holds entries no reader serves (the lock records them)", async () => {
    const dir = skill({ "scripts/a.sh": "echo locked\n" });
    const outside = temp();
    put(outside, "x.sh", "echo outside\n");
    link(join(outside, "x.sh"), join(dir, "scripts", "out.sh"));
    const base = join(dir, "..");
    const { lock } = await lockSkills(discoverSkills([{ scope: "project", path: dir }]), { base });
    assert.equal(lock.skills[0]?.entries?.[0]?.kind, "link");
    const run = runSkillScript(loadSkillFolder(dir), "scripts/a.sh", [], { lock, lockBase: base });
    if (NO_BWRAP === false) assert.equal((await run).stdout, "locked\n");
    else {
      await assert.rejects(
        run,
        (e: unknown) => e instanceof ScriptRunError && e.code === "SANDBOX_UNAVAILABLE",
      );
    }
  });

  it("runs exactly the bytes it checked, even when the file changes after the check", async () => {
    const dir = skill({ "scripts/a.sh": "echo good\n" });
    const loaded = loadSkillFolder(dir);
    const manifest = await skillManifest(loaded);
    const approvals = new MemoryApprovalStore([approvalRecord(FILE_ORIGIN, dir, manifest)]);
    // A file whose every open after the first gives other bytes (a swap right after the check).
    const real = loaded.files.get("scripts/a.sh")!;
    let opens = 0;
    const swapping: ResourceFile = {
      path: real.path,
      size: real.size,
      read: (p, n) => real.read(p, n),
      open: () => {
        if (opens++ === 0) return real.open!();
        writeFileSync(join(dir, "scripts", "a.sh"), "echo evil\n");
        return real.open!();
      },
    };
    const files = new Map(loaded.files);
    files.set("scripts/a.sh", swapping);
    const bundle = { ...loaded, files };
    if (NO_BWRAP !== false) {
      await assert.rejects(
        runSkillScript(bundle, "scripts/a.sh", [], { approvals }),
        ScriptRunError,
      );
      return;
    }
    const run = await runSkillScript(bundle, "scripts/a.sh", [], { approvals });
    assert.equal(run.stdout, "good\n");
    assert.equal(run.digest, manifest.files.find((f) => f.path === "scripts/a.sh")!.digest);
    assert.equal(opens, 1);
  });
});

describe("runSkillScript: the sandbox", { skip: NO_BWRAP }, () => {
  it("runs a Python script with its arguments in a fresh working folder, the skill at /skill", async () => {
    const run = await runIn(
      {
        "scripts/a.py":
          "import os, sys\nprint(sys.argv[1:], os.getcwd(), os.environ['SKILL_DIR'], sorted(os.listdir('.')))\n",
      },
      "scripts/a.py",
      ["one", "two words"],
    );
    assert.deepEqual(
      [run.exit_code, run.signal, run.sandbox, run.interpreter, run.stdout],
      [0, null, "bubblewrap", "python3", "['one', 'two words'] /work /skill []\n"],
    );
    assert.deepEqual(run.grants, {
      network: false,
      read_paths: [],
      write_paths: [],
      env: [],
      cwd: null,
    });
  });

  it("cannot write outside its working folder, nor into the skill", async () => {
    const target = temp();
    chmodSync(target, 0o777);
    const run = await runIn(
      {
        "scripts/w.sh":
          `echo x > ${target}/pwned; echo x > /skill/pwned; echo x > /usr/pwned; echo ok > /work/mine && cat /work/mine\n`,
      },
      "scripts/w.sh",
    );
    assert.equal(existsSync(join(target, "pwned")), false);
    assert.match(run.stderr, /pwned/);
    assert.equal(run.stdout, "ok\n");
  });

  it("cannot read a secret planted outside the skill, nor the host's /etc/shadow", async () => {
    const home = temp();
    put(home, ".secret", "TOPSECRET\n");
    chmodSync(join(home, ".secret"), 0o644);
    const run = await runIn(
      { "scripts/r.sh": `cat ${home}/.secret; cat /etc/shadow; ls /root /home 2>&1; true\n` },
      "scripts/r.sh",
    );
    assert.doesNotMatch(run.stdout + run.stderr, /TOPSECRET|root:/);
    // Granted, it can read it, and the result shows the grant.
    const granted = await runIn({ "scripts/r.sh": `cat ${home}/.secret\n` }, "scripts/r.sh", [], {
      readPaths: [home],
    });
    assert.deepEqual([granted.stdout, granted.grants.read_paths], ["TOPSECRET\n", [home]]);
  });

  it("cannot connect to a loopback server the test started, unless the network is granted", async () => {
    const { server, port, connections } = await loopback();
    try {
      const run = await runIn({ "scripts/c.py": CONNECT_PY(port) }, "scripts/c.py");
      assert.match(run.stdout, /^refused/);
      assert.equal(connections(), 0);
      const granted = await runIn({ "scripts/c.py": CONNECT_PY(port) }, "scripts/c.py", [], {
        network: true,
      });
      assert.match(granted.stdout, /^connected/);
      assert.equal(granted.grants.network, true);
    } finally {
      server.close();
    }
  });

  it("stops a fork bomb at the process limit", async () => {
    const bomb = "import os, time\nn = 0\nfor i in range(300):\n    try:\n" +
      "        pid = os.fork()\n    except OSError:\n        break\n" +
      "    if pid == 0:\n        time.sleep(5)\n        os._exit(0)\n    n += 1\nprint(n)\n";
    const run = await runIn({ "scripts/bomb.py": bomb }, "scripts/bomb.py", [], { processes: 20 });
    const forked = Number(run.stdout.trim());
    assert.ok(forked < 20, `forked ${run.stdout} ${run.stderr}`);
  });

  it("keeps the first characters of each stream and counts the rest", async () => {
    const run = await runIn(
      {
        "scripts/o.py": "import sys\nsys.stdout.write('é' * 100000)\nsys.stderr.write('x' * 10)\n",
      },
      "scripts/o.py",
      [],
      { maxOutputChars: 1000 },
    );
    assert.deepEqual(
      [run.stdout, run.stdout_truncated, run.stderr, run.stderr_truncated],
      ["é".repeat(1000), 99000, "x".repeat(10), 0],
    );
  });

  it("ends endless output at the timeout, holding only the cap", async () => {
    const run = await runIn(
      { "scripts/y.sh": "while :; do echo yyyyyyyy; done\n" },
      "scripts/y.sh",
      [],
      {
        timeoutMs: 1500,
        maxOutputChars: 100,
      },
    );
    assert.deepEqual([run.timed_out, run.signal, run.stdout.length], [true, "SIGKILL", 100]);
    assert.ok(run.stdout_truncated > 0);
  });

  it("kills the whole tree at the timeout, a grandchild ignoring SIGTERM included", async () => {
    const work = temp();
    chmodSync(work, 0o777);
    const run = await runIn(
      {
        "scripts/s.sh":
          "(trap '' TERM; sleep 2; echo alive > /work/marker) &\n(trap '' TERM; sleep 30) &\nsleep 30\n",
      },
      "scripts/s.sh",
      [],
      { timeoutMs: 1000, cwd: work },
    );
    assert.deepEqual([run.timed_out, run.signal, run.exit_code], [true, "SIGKILL", null]);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    assert.equal(existsSync(join(work, "marker")), false);
  });

  it("gives only the fixed environment plus what is granted", async () => {
    process.env.SKILLSET_RUN_TEST_LEAK = "leaked";
    try {
      const run = await runIn({ "scripts/e.sh": "env | sort\n" }, "scripts/e.sh", [], {
        env: { GRANTED: "yes" },
      });
      const names = run.stdout.trim().split("\n").map((l) => l.split("=")[0]);
      assert.deepEqual(
        names.filter((n) => !["PWD", "SHLVL", "_", "OLDPWD"].includes(n!)),
        [
          "GRANTED",
          "HOME",
          "LANG",
          "NO_COLOR",
          "PATH",
          "PYTHONDONTWRITEBYTECODE",
          "SKILL_DIR",
          "TMPDIR",
        ],
      );
      assert.deepEqual(run.grants.env, ["GRANTED"]);
    } finally {
      delete process.env.SKILLSET_RUN_TEST_LEAK;
    }
  });

  it("runs JavaScript with the current runtime, and a host working folder it may write", {
    // The sandbox's user reaches the runtime's binary only where it may read it: Deno and Bun
    // from node_modules in a clone under a 0700 temporary folder are out of its reach.
    skip: unreadableBy(65534, 65534, [process.execPath]) ?? false,
  }, async () => {
    const work = temp();
    chmodSync(work, 0o777);
    const run = await runIn(
      {
        "scripts/j.mjs":
          "import { writeFileSync } from 'node:fs';\nwriteFileSync('out.txt', 'made');\nconsole.log(process.argv.slice(2).join(','));\n",
      },
      "scripts/j.mjs",
      ["a", "b"],
      { cwd: work },
    );
    assert.equal(run.stdout, "a,b\n", run.stderr);
    assert.equal(readFileSync(join(work, "out.txt"), "utf8"), "made");
    assert.equal(run.grants.cwd, work);
  });

  it("refuses, naming the binary, why and how, a runtime binary the sandbox's user cannot reach", {
    skip: isRoot() ? false : "the sandbox changes user only as root",
  }, () => {
    // The runtime running the tests, from a 0700 folder (as Deno or Bun from node_modules in a
    // clone under a 0700 temporary folder): bubblewrap, run as the sandbox's user, cannot open it.
    const hidden = mkdtempSync(join(tmpdir(), "skillset-runtime-"));
    try {
      const binary = join(hidden, basename(process.execPath));
      try {
        linkSync(realpathSync(process.execPath), binary);
      } catch {
        copyFileSync(realpathSync(process.execPath), binary);
      }
      chmodSync(binary, 0o755);
      chmodSync(hidden, 0o700);
      const dir = skill({ "scripts/j.mjs": "console.log('ran');\n" });
      const outcome = () => {
        const child = runChild(
          ["check", "_run.ts", "runOutcome", JSON.stringify([dir, "scripts/j.mjs"])],
          120_000,
          { binary },
        );
        assert.equal(child.code, 0, child.stderr);
        return JSON.parse(child.stdout.split("\n").find((l) => l.startsWith("{"))!);
      };
      const kind = RUNTIME === "deno" ? "deno" : RUNTIME === "bun" ? "bun" : "node";
      assert.deepEqual(outcome(), {
        error: {
          name: "ScriptRunError",
          code: "RUNTIME_UNREACHABLE",
          message:
            `Cannot run "scripts/j.mjs": the sandbox runs as a user of its own (group 65534) ` +
            `and cannot reach ${kind}'s binary "${binary}": the folder "${hidden}" above it cannot ` +
            `be entered by all; run ${kind} from a folder every user may enter and read ` +
            `(/usr/local/bin, say), or let group 65534 in (chgrp 65534 and chmod g+x on each folder ` +
            `above it, g+rx on it)`,
        },
      });
      // Once the folder lets everyone in, the same binary runs the script.
      chmodSync(hidden, 0o755);
      assert.deepEqual(outcome(), { stdout: "ran\n" });
    } finally {
      rmSync(hidden, { recursive: true, force: true });
    }
  });

  it(
    "unreachableBy: every folder above must let the sandbox's user in, the binary let it read and run",
    {
      skip: isRoot() ? false : "chown needs root",
    },
    () => {
      const uid = 1_600_000_001;
      const top = temp();
      const binary = join(top, "bin", "deno");
      put(top, "bin/deno", "#!/bin/sh\n");
      chmodSync(binary, 0o755);
      assert.equal(unreachableBy(binary, uid), null);
      chmodSync(binary, 0o711);
      assert.equal(unreachableBy(binary, uid), "it is not readable and executable by all");
      // Its own uid, or group 65534, counts as the owner's or the group's bits do.
      chmodSync(binary, 0o750);
      assert.equal(unreachableBy(binary, uid), "it is not readable and executable by all");
      chownSync(binary, 0, 65534);
      assert.equal(unreachableBy(binary, uid), null);
      chmodSync(join(top, "bin"), 0o700);
      assert.equal(
        unreachableBy(binary, uid),
        `the folder "${join(top, "bin")}" above it cannot be entered by all`,
      );
      chmodSync(join(top, "bin"), 0o755);
    },
  );

  it("sees no file the gate hides, nor a link's outside target", async () => {
    const outside = temp();
    put(outside, "secret.txt", "TOPSECRET\n");
    chmodSync(join(outside, "secret.txt"), 0o644);
    const dir = skill({
      "scripts/l.sh": "ls -R /skill; cat /skill/scripts/data.txt /skill/tools/t.txt 2>&1; true\n",
      "tools/t.txt": "gated\n",
    });
    link(join(outside, "secret.txt"), join(dir, "scripts", "data.txt"));
    const loaded = loadSkillFolder(dir);
    // With approvals every file is read (to hash the skill whole); still only the shown ones are copied.
    const approvals = new MemoryApprovalStore();
    await approveSkillFolder(approvals, loaded);
    const run = await runSkillScript(loaded, "scripts/l.sh", [], { approvals });
    assert.ok(
      run.stdout.startsWith("/skill:\nSKILL.md\nscripts\n\n/skill/scripts:\nl.sh\n"),
      run.stdout,
    );
    assert.doesNotMatch(run.stdout, /TOPSECRET|gated\n/);
  });
});

describe("runSkillScript: where bubblewrap is missing", () => {
  it("refuses with SANDBOX_UNAVAILABLE naming what is missing, never running unsandboxed", async () => {
    const restore = _setSandboxTools({ bwrap: null, deno: null });
    try {
      await assert.rejects(
        runIn({ "scripts/a.py": "print(1)\n" }, "scripts/a.py"),
        (e: unknown) =>
          e instanceof ScriptRunError && e.code === "SANDBOX_UNAVAILABLE" &&
          e.message === 'No sandbox to run "scripts/a.py": bwrap (bubblewrap) is missing',
      );
      await assert.rejects(
        runIn({ "scripts/a.js": "console.log(1)\n" }, "scripts/a.js"),
        (e: unknown) =>
          e instanceof ScriptRunError &&
          e.message === 'No sandbox to run "scripts/a.js": bwrap (bubblewrap), deno are missing',
      );
    } finally {
      restore();
    }
  });

  it("runs unsandboxed only when told so by name", async () => {
    const restore = _setSandboxTools({ bwrap: null, deno: null });
    try {
      const run = await runIn({ "scripts/a.sh": "echo plain\n" }, "scripts/a.sh", [], {
        dangerouslyRunUnsandboxed: true,
      });
      assert.deepEqual([run.sandbox, run.stdout], ["none", "plain\n"]);
    } finally {
      restore();
    }
  });

  describe("JavaScript under Deno's permissions", { skip: NO_DENO }, () => {
    const deno = (options: RunScriptOptions = {}) => ({ sandbox: "deno" as const, ...options });

    it("runs, reading its skill", async () => {
      const restore = _setSandboxTools({ bwrap: null, deno: DENO });
      try {
        const run = await runIn(
          {
            "scripts/a.ts":
              "const n: number = 2;\nconsole.log(n, Deno.readTextFileSync(Deno.env.get('SKILL_DIR') + '/SKILL.md').length > 0);\n",
          },
          "scripts/a.ts",
          [],
          deno({ env: {} }),
        );
        assert.equal(run.sandbox, "deno");
        // SKILL_DIR is not granted: Deno refuses the environment read.
        assert.match(run.stderr, /NotCapable|env access/);
      } finally {
        restore();
      }
    });

    it("cannot read a planted secret, write outside, or reach the loopback server", async () => {
      const restore = _setSandboxTools({ bwrap: null, deno: DENO });
      const home = temp();
      put(home, ".secret", "TOPSECRET\n");
      const { server, port, connections } = await loopback();
      try {
        const script =
          `for (const f of [() => Deno.readTextFileSync(${
            JSON.stringify(join(home, ".secret"))
          }),\n` +
          `  () => Deno.writeTextFileSync(${JSON.stringify(join(home, "pwned"))}, "x"),\n` +
          `  async () => await Deno.connect({ hostname: "127.0.0.1", port: ${port} })]) {\n` +
          "  try { console.log(await f()); } catch (e) { console.log('refused', (e as Error).name); }\n}\n";
        const run = await runIn({ "scripts/e.ts": script }, "scripts/e.ts", [], deno());
        assert.equal(
          run.stdout,
          "refused NotCapable\nrefused NotCapable\nrefused NotCapable\n",
          run.stderr,
        );
        assert.equal(existsSync(join(home, "pwned")), false);
        assert.equal(connections(), 0);
      } finally {
        server.close();
        restore();
      }
    });
  });
});

describe("runSkillScript: options", () => {
  it("refuses limits that are not whole numbers and paths that are not absolute", async () => {
    const dir = loadSkillFolder(skill({ "scripts/a.sh": "echo\n" }));
    await assert.rejects(runSkillScript(dir, "scripts/a.sh", [], { timeoutMs: 0 }), RangeError);
    await assert.rejects(
      runSkillScript(dir, "scripts/a.sh", [], { timeoutMs: 2 ** 31 }),
      {
        name: "RangeError",
        message: "timeoutMs must be a whole number from 1 to 2147483647, got 2147483648",
      },
    );
    await assert.rejects(
      runSkillScript(dir, "scripts/a.sh", [], { readPaths: ["rel"] }),
      RangeError,
    );
    await assert.rejects(
      runSkillScript(dir, "scripts/a.sh", [], { env: { "A=B": "x" } }),
      RangeError,
    );
    await assert.rejects(runSkillScript(dir, "scripts/a.sh", ["a\0b"]), TypeError);
  });
});

describe("scriptInterpreter: the #! line, else the extension table", () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  const programs = [
    ...new Map([
      ["python3", "python3"],
      ["python", "python3"],
      ["bash", "bash"],
      [
        "sh",
        "sh",
      ],
      ["dash", "sh"],
      ["node", "runtime"],
      ["deno", "runtime"],
      ["bun", "runtime"],
    ]),
  ];

  it("names a known program by its last path segment or through env, whatever the extension", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...programs),
        fc.constantFrom(
          "/usr/bin/",
          "/bin/",
          "/usr/local/bin/",
          "/usr/bin/env ",
          "/usr/bin/env -S ",
        ),
        fc.constantFrom("", ".py", ".sh", ".js", ".rb", ".txt"),
        fc.string({ unit: "grapheme-ascii" }),
        ([program, interpreter], prefix, ext, rest) => {
          const head = bytes(`#!${prefix}${program} ${rest.replace(/\n/g, "")}\nbody`);
          assert.deepEqual(scriptInterpreter(`scripts/x${ext}`, head), {
            interpreter,
            from: "shebang",
          });
        },
      ),
      runs(200),
    );
  });

  it("falls back to the extension table, case-insensitively, and knows nothing else", () => {
    fc.assert(
      fc.property(
        fc.string({
          minLength: 1,
          maxLength: 6,
          unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzPYTS."),
        }),
        fc.string({ unit: "grapheme-ascii" }).filter((s) => !s.startsWith("#!")),
        (ext, body) => {
          const path = `scripts/tool.${ext}`;
          const expected = SCRIPT_EXTENSIONS.get(
            `.${ext.slice(ext.lastIndexOf(".") + 1)}`.toLowerCase(),
          );
          const got = scriptInterpreter(path, bytes(body));
          assert.deepEqual(
            got,
            expected === undefined ? undefined : { interpreter: expected, from: "extension" },
          );
          assert.equal(interpreterByExtension(path), expected);
        },
      ),
      runs(200),
    );
  });
});

describe("activation lists runnable scripts only when the host runs them", () => {
  it("lists the scripts/ files the gate shows whose extension names an interpreter", () => {
    const bundle = createBundle({
      frontmatter: { name: "kit", description: "Kit" },
      instructions: "",
      files: { "scripts/a.py": "", "scripts/b.rb": "", "scripts/c.ts": "", "tools/d.py": "" },
    });
    assert.equal(activateSkill(bundle).runnable_scripts, undefined);
    const listed = activateSkill(bundle, { run_scripts: true });
    assert.deepEqual(listed.runnable_scripts, [
      { path: "scripts/a.py", interpreter: "python3" },
      { path: "scripts/c.ts", interpreter: "runtime" },
    ]);
    const text = renderActivation(listed);
    assert.match(
      text,
      /\[run\] scripts\/a\.py \(python3\)\n {2}\[run\] scripts\/c\.ts \(JavaScript\)/,
    );
    assert.doesNotMatch(text, /tools\/d\.py/);
  });
});
