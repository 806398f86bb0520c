/**
 * A control group of one run, where the machine lets this process make one:
 * a child of its own cgroup in a delegated cgroup v2 subtree (`memory.max`,
 * `memory.swap.max`, `pids.max`), or, on a cgroup v1 machine, a child of its
 * own `memory` cgroup (`memory.limit_in_bytes`, `memory.memsw.limit_in_bytes`)
 * and of its own `pids` cgroup (`pids.max`). The kernel charges it
 * everything its processes hold — heap, shared memory, `memfd` files, the
 * pages of a `tmpfs` they wrote, kernel memory — and counts every process and
 * thread, whatever their uid. It is also how a whole tree is found to kill:
 * a process can leave its process group and session, not its cgroup.
 *
 * The spawned program joins the cgroup before anything else runs
 * ({@linkcode RunCgroup.wrap}: `sh` writes its own pid into `cgroup.procs`,
 * then execs the command), so no fork happens outside it.
 *
 * Folder `lib/fs/scripts/` — running a skill's scripts: the sandbox, capped spawns, snapshots.
 *
 * @module
 */
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import process from "node:process";

/** The bounds to put on a run's cgroup (`undefined`: none, the cgroup only tracks the tree). */
export interface CgroupBounds {
  /** Bytes of memory of the whole tree, shared memory included. */
  readonly memoryBytes?: number;
  /** Processes and threads of the whole tree. */
  readonly processes?: number;
}

/** One controller's folder of a run's cgroup. */
interface Group {
  readonly dir: string;
  /** What it holds: both controllers (cgroup v2), or one (cgroup v1). */
  readonly holds: "memory" | "pids" | "both";
}

/**
 * A run's cgroup: where its processes are counted and bounded.
 *
 * | operation              | cost                                   |
 * | ---------------------- | -------------------------------------- |
 * | {@linkcode openCgroup} | a few `mkdir` and writes under `/sys`  |
 * | `members`, `kill`      | one read of `cgroup.procs` per folder  |
 * | `remove`               | one `rmdir` per folder (retried)       |
 */
export interface RunCgroup {
  /** Whether the memory bound asked for holds (the whole tree, shared memory included). */
  readonly memory: boolean;
  /** Whether the process bound asked for holds (the whole tree). */
  readonly pids: boolean;
  /** Whether the cgroup can find every process of the tree (to kill it). */
  readonly tracks: boolean;
  /**
   * The command line that joins the cgroup, then execs `argv`.
   *
   * @param sh The `sh` to run the join with.
   * @param argv The command.
   */
  wrap(sh: string, argv: readonly string[]): string[];
  /** The pids in the cgroup now. */
  members(): number[];
  /** `SIGKILL` every process in the cgroup (a few passes, for forks meanwhile). */
  kill(): void;
  /** The most memory the tree held at once, in bytes (`null`: not measured). */
  peakMemory(): number | null;
  /** Kill what is left and remove the folders. */
  remove(): void;
}

/** One line of `/proc/self/cgroup`. */
interface Membership {
  readonly controllers: readonly string[];
  readonly path: string;
}

/** One cgroup mount of `/proc/self/mountinfo`. */
interface CgroupMount {
  readonly root: string;
  readonly at: string;
  readonly version: 1 | 2;
  readonly controllers: readonly string[];
}

let counter = 0;
let disabled = false;

/**
 * For this module's own tests (`lib/load.ts` does not export it): act as on a
 * machine where no cgroup can be made, so the fallbacks run on one where it can.
 *
 * @returns A function that allows cgroups again.
 * @example
 * ```ts
 * import { _withoutCgroups, openCgroup } from "./_cgroup.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * const restore = _withoutCgroups();
 * try {
 *   const cgroup = openCgroup({ memoryBytes: 1 << 30 });
 *   assert.deepEqual([cgroup.memory, cgroup.tracks], [false, false]);
 * } finally {
 *   restore();
 * }
 * ```
 */
export function _withoutCgroups(): () => void {
  disabled = true;
  return () => {
    disabled = false;
  };
}

/**
 * Make a run's cgroup where the machine allows it; the folders that could
 * not be made are left out (`memory`, `pids`, `tracks` say what holds).
 *
 * @param bounds The bounds to set.
 * @returns The cgroup, possibly one that bounds and tracks nothing.
 */
export function openCgroup(bounds: CgroupBounds): RunCgroup {
  const groups: Group[] = [];
  const name = `skillset-run-${process.pid}-${++counter}-${Math.random().toString(36).slice(2)}`;
  let memory = false;
  let pids = false;
  const memberships = disabled ? [] : readMemberships();
  const mounts = readMounts();
  try {
    // A delegated cgroup v2 subtree: both controllers in one folder.
    const v2 = placeOf(memberships, mounts, 2, "");
    const enabled = v2 === null ? [] : subtreeControllers(v2);
    if (v2 !== null && enabled.includes("memory") && enabled.includes("pids")) {
      const dir = `${v2}/${name}`;
      if (tryMkdir(dir)) {
        groups.push({ dir, holds: "both" });
        memory = bounds.memoryBytes !== undefined &&
          tryWrite(`${dir}/memory.max`, bounds.memoryBytes) &&
          tryWrite(`${dir}/memory.swap.max`, 0, noSwap());
        pids = bounds.processes !== undefined && tryWrite(`${dir}/pids.max`, bounds.processes);
      }
    }
    if (groups.length === 0) {
      // cgroup v1: a child of this process's own memory cgroup, and of its pids cgroup.
      for (const controller of ["memory", "pids"] as const) {
        const at = placeOf(memberships, mounts, 1, controller);
        if (at === null) continue;
        const dir = `${at}/${name}`;
        if (!tryMkdir(dir)) continue;
        groups.push({ dir, holds: controller });
        if (controller === "memory") {
          memory = bounds.memoryBytes !== undefined &&
            tryWrite(`${dir}/memory.limit_in_bytes`, bounds.memoryBytes) &&
            // Swap would be a way around the bound: memory and swap together get the same one.
            tryWrite(`${dir}/memory.memsw.limit_in_bytes`, bounds.memoryBytes, noSwap());
        } else {
          pids = bounds.processes !== undefined && tryWrite(`${dir}/pids.max`, bounds.processes);
        }
      }
    }
  } catch (e) {
    removeGroups(groups);
    throw e;
  }
  return new CgroupOfRun(groups, memory, pids);
}

class CgroupOfRun implements RunCgroup {
  readonly #groups: Group[];
  readonly memory: boolean;
  readonly pids: boolean;
  readonly tracks: boolean;

  constructor(groups: Group[], memory: boolean, pids: boolean) {
    this.#groups = groups;
    this.memory = memory;
    this.pids = pids;
    this.tracks = groups.length > 0;
  }

  wrap(sh: string, argv: readonly string[]): string[] {
    if (this.#groups.length === 0) return [...argv];
    // The shell joins every folder, then becomes the command: nothing forks outside the cgroup.
    return [
      sh,
      "-c",
      'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"',
      "sh",
      ...this.#groups.map((g) => `${g.dir}/cgroup.procs`),
      "--",
      ...argv,
    ];
  }

  members(): number[] {
    const out = new Set<number>();
    for (const g of this.#groups) {
      try {
        for (const line of readFileSync(`${g.dir}/cgroup.procs`, "utf8").split("\n")) {
          const pid = Number(line);
          if (Number.isSafeInteger(pid) && pid > 0) out.add(pid);
        }
      } catch {
        // Gone already.
      }
    }
    return [...out];
  }

  kill(): void {
    for (let pass = 0; pass < 8; pass++) {
      const pids = this.members();
      if (pids.length === 0) return;
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Ended meanwhile.
        }
      }
    }
  }

  peakMemory(): number | null {
    for (const g of this.#groups) {
      const file = g.holds === "both"
        ? `${g.dir}/memory.peak`
        : g.holds === "memory"
        ? `${g.dir}/memory.max_usage_in_bytes`
        : null;
      if (file === null) continue;
      try {
        const value = Number(readFileSync(file, "utf8").trim());
        if (Number.isSafeInteger(value)) return value;
      } catch {
        // Not kept by this kernel.
      }
    }
    return null;
  }

  remove(): void {
    this.kill();
    removeGroups(this.#groups);
  }
}

/** Remove the folders; a folder still holding a dying process is retried for up to a second. */
function removeGroups(groups: readonly Group[]): void {
  const deadline = Date.now() + 1_000;
  for (const g of groups) {
    for (;;) {
      try {
        rmdirSync(g.dir);
        break;
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (code === "ENOENT") break;
        if (code !== "EBUSY" || Date.now() > deadline) break;
        try {
          for (const line of readFileSync(`${g.dir}/cgroup.procs`, "utf8").split("\n")) {
            if (Number(line) > 0) process.kill(Number(line), "SIGKILL");
          }
        } catch {
          // Ended meanwhile.
        }
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      }
    }
  }
}

/** The host folder of this process's cgroup for a controller (v1) or of the v2 hierarchy. */
function placeOf(
  memberships: readonly Membership[],
  mounts: readonly CgroupMount[],
  version: 1 | 2,
  controller: string,
): string | null {
  const member = memberships.find((m) =>
    version === 2 ? m.controllers.length === 0 : m.controllers.includes(controller)
  );
  const mount = mounts.find((m) =>
    m.version === version && (version === 2 || m.controllers.includes(controller))
  );
  if (member === undefined || mount === undefined) return null;
  const root = mount.root === "/" ? "" : mount.root;
  if (root !== "" && member.path !== root && !member.path.startsWith(`${root}/`)) return null;
  const rest = member.path.slice(root.length).replace(/\/$/, "");
  if (rest.split("/").includes("..")) return null;
  return `${mount.at}${rest}`;
}

/** The controllers a v2 folder hands to its children (enabling them where it may). */
function subtreeControllers(dir: string): string[] {
  const read = (): string[] => {
    try {
      return readFileSync(`${dir}/cgroup.subtree_control`, "utf8").trim().split(/\s+/);
    } catch {
      return [];
    }
  };
  const enabled = read();
  if (enabled.includes("memory") && enabled.includes("pids")) return enabled;
  try {
    const offered = readFileSync(`${dir}/cgroup.controllers`, "utf8").trim().split(/\s+/);
    if (!offered.includes("memory") || !offered.includes("pids")) return enabled;
    writeFileSync(`${dir}/cgroup.subtree_control`, "+memory +pids");
  } catch {
    // Not delegated to this process, or it holds processes itself (cgroup v2's rule).
  }
  return read();
}

function readMemberships(): Membership[] {
  try {
    return readFileSync("/proc/self/cgroup", "utf8").split("\n").flatMap((line) => {
      const match = /^\d+:([^:]*):(\/.*)$/.exec(line);
      if (match === null) return [];
      const controllers = match[1] === "" ? [] : match[1]!.split(",");
      return [{ controllers, path: match[2]! }];
    });
  } catch {
    return [];
  }
}

function readMounts(): CgroupMount[] {
  try {
    return readFileSync("/proc/self/mountinfo", "utf8").split("\n").flatMap((line) => {
      const [before, after] = line.split(" - ");
      if (before === undefined || after === undefined) return [];
      const fields = before.split(" ");
      const [type, , superOptions = ""] = after.split(" ");
      if (type !== "cgroup" && type !== "cgroup2") return [];
      const unescape = (s: string) =>
        s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
      return [{
        root: unescape(fields[3] ?? "/"),
        at: unescape(fields[4] ?? ""),
        version: type === "cgroup2" ? 2 as const : 1 as const,
        controllers: type === "cgroup2" ? [] : superOptions.split(","),
      }];
    });
  } catch {
    return [];
  }
}

function tryMkdir(dir: string): boolean {
  try {
    mkdirSync(dir, { mode: 0o755 });
    return true;
  } catch {
    return false;
  }
}

/** Whether this machine has no swap (then a cgroup without swap accounting still bounds memory). */
function noSwap(): boolean {
  try {
    return /^SwapTotal:\s+0 kB$/m.test(readFileSync("/proc/meminfo", "utf8"));
  } catch {
    return false;
  }
}

/** Write a number into a cgroup file; `optional`: a file this kernel may not have is no failure. */
function tryWrite(file: string, value: number, optional = false): boolean {
  try {
    writeFileSync(file, String(value));
    return true;
  } catch (e) {
    return optional && (e as { code?: string }).code === "ENOENT";
  }
}
