/**
 * The limits of a script run, measured from the host: the memory of the
 * whole run (memfd files, shared memory, tmpfs pages, off-heap buffers,
 * forks, threads) against its cgroup's counter, processes per run (never a
 * limit shared with another run), honest `limits` in the result, and
 * `LIMIT_UNAVAILABLE` for a limit asked for that cannot hold.
 */
// @slow: runs scripts in the bubblewrap sandbox and under Deno (left out of `npm run test:quick`)
// @every-runtime: what limits hold depends on the runtime spawning the run (the Deno fallback's report above all)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import process from "node:process";
import { join } from "node:path";
import { ROOT } from "../../_cli.ts";
import { loadSkillFolder } from "../../../lib/load.ts";
import { createBundle, type ResourceFile } from "../../../mod.ts";
import { _withoutCgroups, openCgroup } from "../../../lib/fs/scripts/_cgroup.ts";
import { _setSandboxTools } from "../../../lib/fs/scripts/_sandbox.ts";
import { type RunScriptOptions, runSkillScript } from "../../../lib/fs/scripts/run_script.ts";
import { ScriptRunError } from "../../../lib/fs/scripts/script_run_error.ts";
import { sandboxMissing, skillFolder, tempFolders } from "../../_run.ts";

const temp = tempFolders("skillset-run-limits-", 0o755);
const MiB = 1024 ** 2;

async function runIn(
  files: Readonly<Record<string, string>>,
  path: string,
  options: RunScriptOptions = {},
) {
  const dir = skillFolder(temp(), files, "greedy", "Holds what it can");
  return await runSkillScript(loadSkillFolder(dir), path, [], options);
}

const NO_BWRAP = await sandboxMissing(temp());
const DENO = join(ROOT, "node_modules", "deno", "deno");
const NO_DENO = existsSync(DENO) ? false : "no deno binary in node_modules";
const probe = openCgroup({ memoryBytes: 1 << 30, processes: 64 });
const NO_MEMORY_CGROUP = probe.memory ? false : "no cgroup with a memory bound can be made here";
probe.remove();

/** The most MiB a script said it held (its lines `held N`). */
function held(stdout: string): number {
  return Math.max(0, ...[...stdout.matchAll(/^held (\d+)$/gm)].map((m) => Number(m[1])));
}

/** Python that holds `total` MiB, 16 at a time, the way `grab` says, printing each step. */
function python(setup: string, grab: string, total = 512): string {
  return `import os, sys, mmap, threading\n${setup}\nkeep = []\nn = 0\n` +
    `while n < ${total}:\n  ${grab}\n  n += 16\n  print("held", n, flush=True)\n`;
}

const BOUND = 128 * MiB;
// The tmpfs folders are as large as fileBytes: 1 GiB, so only the cgroup stands in the way.
// A script stuck once the bound stops it (a thread's allocation failing, a child killed) ends at the timeout.
const GREEDY: RunScriptOptions = { memoryBytes: BOUND, fileBytes: 1024 * MiB, timeoutMs: 8_000 };

describe("a run's memory, whole, from the host", { skip: NO_BWRAP || NO_MEMORY_CGROUP }, () => {
  const attacks: [string, string][] = [
    [
      "memfd files",
      python("", 'fd = os.memfd_create("x"); os.write(fd, b"x" * (16 << 20)); keep.append(fd)'),
    ],
    [
      "shared memory in /dev/shm",
      python(
        "",
        'f = open("/dev/shm/s%d" % n, "wb"); f.write(b"x" * (16 << 20)); f.close()',
      ),
    ],
    [
      "tmpfs pages in /tmp",
      python("", 'f = open("/tmp/t%d" % n, "wb"); f.write(b"x" * (16 << 20)); f.close()'),
    ],
    [
      "forks, each under the address-space limit",
      python(
        "",
        'r, w = os.pipe()\n  if os.fork() == 0:\n    b = bytearray(b"x" * (16 << 20)); os.write(w, b"k"); ' +
          "import time; time.sleep(60)\n  os.read(r, 1)",
      ),
    ],
    [
      "threads",
      python(
        "ev = threading.Event()",
        "t = threading.Thread(target=lambda: (keep.append(bytearray(b'x' * (16 << 20))), ev.wait())); " +
          "t.daemon = True; t.start()\n  while len(keep) <= n // 16: pass",
      ),
    ],
  ];
  for (const [name, script] of attacks) {
    it(`never holds more than its memory bound: ${name}`, async () => {
      const run = await runIn({ "scripts/greedy.py": script }, "scripts/greedy.py", GREEDY);
      assert.equal(run.limits.memory_bytes, BOUND);
      assert.ok(held(run.stdout) < BOUND / MiB, `held ${held(run.stdout)} MiB: ${run.stderr}`);
      assert.notEqual(run.exit_code, 0);
      assert.ok(run.peak_memory_bytes !== null && run.peak_memory_bytes <= BOUND);
    });
  }

  it("never holds more than its memory bound: off-heap buffers under Deno's permissions", {
    skip: NO_DENO,
  }, async () => {
    const restore = _setSandboxTools({ bwrap: null, deno: DENO });
    try {
      const run = await runIn(
        {
          "scripts/greedy.mjs": "const keep = [];\nfor (let n = 16; n <= 1024; n += 16) {\n" +
            "  keep.push(new Uint8Array(16 << 20).fill(1));\n  console.log('held', n);\n}\n",
        },
        "scripts/greedy.mjs",
        { ...GREEDY, memoryBytes: 256 * MiB, sandbox: "deno", allowUnbounded: ["file-size"] },
      );
      assert.equal(run.sandbox, "deno");
      assert.equal(run.limits.memory_bytes, 256 * MiB);
      assert.ok(held(run.stdout) < 256, `held ${held(run.stdout)} MiB`);
      assert.ok(run.peak_memory_bytes !== null && run.peak_memory_bytes <= 256 * MiB);
    } finally {
      restore();
    }
  });
});

describe("a run's processes", { skip: NO_BWRAP }, () => {
  /** Python that starts up to `n` processes that wait, and prints how many started. */
  const forks = (n: number) =>
    "import os, time\nstarted = 0\nfor i in range(" + n + "):\n  try:\n" +
    "    if os.fork() == 0:\n      time.sleep(3); os._exit(0)\n    started += 1\n" +
    "  except OSError:\n    break\nprint(os.getuid(), started, flush=True)\n";

  it("concurrent runs never share one process limit", async () => {
    // Each run starts 5 processes and holds them: a limit of 10 shared by both would stop one.
    const options: RunScriptOptions = { processes: 10, timeoutMs: 20_000 };
    const [a, b] = await Promise.all([
      runIn({ "scripts/five.py": forks(5) }, "scripts/five.py", options),
      runIn({ "scripts/five.py": forks(5) }, "scripts/five.py", options),
    ]);
    const [uidA, startedA] = a!.stdout.trim().split(" ");
    const [uidB, startedB] = b!.stdout.trim().split(" ");
    assert.deepEqual([startedA, startedB], ["5", "5"], `${a!.stderr} ${b!.stderr}`);
    if (process.getuid?.() === 0) assert.notEqual(uidA, uidB);
    assert.equal(a!.limits.processes, 10);
  });

  it("holds the process limit for the whole run (bubblewrap's own two processes counted)", async () => {
    const run = await runIn({ "scripts/many.py": forks(40) }, "scripts/many.py", {
      processes: 12,
      timeoutMs: 20_000,
    });
    // bubblewrap (2) and python (1) are inside the 12: at most 9 more.
    const started = Number(run.stdout.trim().split(" ")[1]);
    assert.ok(started <= 9, `${run.stdout} ${run.stderr}`);
  });
});

describe("limits that cannot hold", () => {
  it("refuses a memory bound it cannot enforce, naming it and how to accept it", async () => {
    const restore = _setSandboxTools({ bwrap: null, deno: null });
    const cgroups = _withoutCgroups();
    try {
      await assert.rejects(
        runIn({ "scripts/a.sh": "echo a\n" }, "scripts/a.sh", {
          dangerouslyRunUnsandboxed: true,
          memoryBytes: 64 * MiB,
        }),
        (e: unknown) =>
          e instanceof ScriptRunError && e.code === "LIMIT_UNAVAILABLE" &&
          e.message ===
            'Cannot run "scripts/a.sh" with its memory limit: no cgroup of its own can be made ' +
              'here to bound the memory of the whole run (accept it unbounded with allowUnbounded ["memory"], --allow-unbounded memory)',
      );
      const run = await runIn({ "scripts/a.sh": "echo a\n" }, "scripts/a.sh", {
        dangerouslyRunUnsandboxed: true,
        memoryBytes: 64 * MiB,
        allowUnbounded: ["memory"],
      });
      assert.deepEqual([run.exit_code, run.limits.memory_bytes], [0, null]);
    } finally {
      cgroups();
      restore();
    }
  });

  it("refuses a process limit nothing enforces (Deno's permissions, no cgroup)", {
    skip: NO_DENO,
  }, async () => {
    const restore = _setSandboxTools({ bwrap: null, deno: DENO });
    const cgroups = _withoutCgroups();
    try {
      await assert.rejects(
        runIn({ "scripts/a.mjs": "console.log(1)\n" }, "scripts/a.mjs", { processes: 4 }),
        (e: unknown) =>
          e instanceof ScriptRunError && e.code === "LIMIT_UNAVAILABLE" &&
          /with its processes limit: the deno sandbox cannot bound its processes here/.test(
            e.message,
          ),
      );
    } finally {
      cgroups();
      restore();
    }
  });

  it("rejects an unknown limit to accept unbounded", async () => {
    await assert.rejects(
      runIn({ "scripts/a.sh": "echo a\n" }, "scripts/a.sh", {
        allowUnbounded: ["disk" as "memory"],
      }),
      RangeError,
    );
  });
});

describe("the snapshot's byte budget", () => {
  it("counts each file against what is left of maxSkillBytes, not the whole of it", async () => {
    // Two files listed as 1 byte that open as 5 MiB each: 10 MiB under an 8 MiB budget.
    const base = createBundle({
      frontmatter: { name: "liar", description: "Lists one byte, serves five MiB" },
      instructions: "",
      files: { "scripts/a.sh": "echo a\n" },
    });
    const size = 5 * MiB;
    let read = 0;
    const liar = (path: string): ResourceFile => ({
      path,
      size: 1,
      read: () => new Uint8Array(0),
      open: () => ({
        size,
        version: "1",
        read: (position: number, length: number) => {
          const n = Math.max(0, Math.min(length, size - position, MiB));
          read += n;
          return new Uint8Array(n);
        },
        close: () => {},
      }),
    });
    const files = new Map(base.files);
    for (const path of ["assets/one.bin", "assets/two.bin"]) files.set(path, liar(path));
    const restore = _setSandboxTools({ bwrap: null, deno: null });
    try {
      await assert.rejects(
        runSkillScript({ ...base, files }, "scripts/a.sh", [], {
          maxSkillBytes: 8 * MiB,
          dangerouslyRunUnsandboxed: true,
        }),
        (e: unknown) => e instanceof ScriptRunError && e.code === "SKILL_TOO_LARGE",
      );
      assert.ok(read <= 8 * MiB, `read ${read} bytes`);
    } finally {
      restore();
    }
  });
});
