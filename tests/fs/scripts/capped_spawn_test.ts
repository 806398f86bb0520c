/**
 * The shared spawn of scripts and git (`_capped_spawn.ts`): the whole
 * process tree goes on timeout and when the child ends — a grandchild that
 * left the process group and the session included — through the cgroup, and
 * without one through `/proc`.
 */
// @slow: spawns shells that leave processes behind, and waits out timeouts (left out of `npm run test:quick`)
// @every-runtime: output caps, timeouts and process-group kills go through each runtime's child_process
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";
import { cappedSpawn } from "../../../lib/fs/scripts/_capped_spawn.ts";
import { _withoutCgroups, openCgroup } from "../../../lib/fs/scripts/_cgroup.ts";

const NO_PROC = process.platform === "linux" ? false : "needs /proc";
const probe = openCgroup({});
const NO_CGROUP = probe.tracks ? false : "no cgroup can be made here";
probe.remove();

/** The pids whose command line holds `marker`. */
function running(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker)) out.push(Number(name));
    } catch {
      // Ended meanwhile.
    }
  }
  return out;
}

/**
 * The pids with `marker` still running once up to `ms` have passed: a
 * process sent `SIGKILL` goes a moment after the run that killed it ends
 * (a loaded machine delays its exit), while one never killed stays for
 * its whole `sleep 300`.
 */
async function left(marker: string, ms = 5_000): Promise<number[]> {
  const end = Date.now() + ms;
  for (;;) {
    const pids = running(marker);
    if (pids.length === 0 || Date.now() >= end) return pids;
    await new Promise((wake) => setTimeout(wake, 20));
  }
}

/** A shell that starts `sleep` in a session of its own (out of its group), then does `then`. */
function escaper(marker: string, then: string): string[] {
  return [
    "/bin/sh",
    "-c",
    `setsid sh -c 'sleep 300; : ${marker}' </dev/null >/dev/null 2>&1 &\nsleep 0.3\n${then}`,
  ];
}

async function spawnOnce(argv: string[], timeoutMs: number) {
  return await cappedSpawn({
    argv,
    env: { PATH: "/usr/bin:/bin" },
    cwd: "/",
    timeoutMs,
    maxOutputChars: 1000,
  });
}

function cleanUp(marker: string): void {
  for (const pid of running(marker)) process.kill(pid, "SIGKILL");
}

describe("cappedSpawn: the whole tree goes", { skip: NO_PROC }, () => {
  it("when the child ends, a grandchild in a session of its own goes too", {
    skip: NO_CGROUP,
  }, async () => {
    const marker = `skillset-exit-${process.pid}-${Date.now()}`;
    try {
      const run = await spawnOnce(escaper(marker, "echo done"), 10_000);
      assert.equal(run.stdout, "done\n");
      assert.deepEqual(await left(marker), []);
    } finally {
      cleanUp(marker);
    }
  });

  it("on timeout, a grandchild in a session of its own goes too", async () => {
    const marker = `skillset-timeout-${process.pid}-${Date.now()}`;
    try {
      const run = await spawnOnce(escaper(marker, "sleep 300"), 1_000);
      assert.equal(run.timedOut, true);
      assert.deepEqual(await left(marker), []);
    } finally {
      cleanUp(marker);
    }
  });

  it("on timeout without a cgroup, the descendants found in /proc go", async () => {
    const marker = `skillset-proc-${process.pid}-${Date.now()}`;
    const restore = _withoutCgroups();
    try {
      const run = await spawnOnce(escaper(marker, "sleep 300"), 1_000);
      assert.equal(run.timedOut, true);
      assert.deepEqual(await left(marker), []);
    } finally {
      restore();
      cleanUp(marker);
    }
  });

  it("a program that is not there ends with 127 and says so (as git's caller expects)", async () => {
    const run = await spawnOnce(["no-such-program-here"], 1_000);
    assert.deepEqual([run.exitCode, run.stderr], [
      127,
      "Cannot start no-such-program-here: no such program\n",
    ]);
  });
});
