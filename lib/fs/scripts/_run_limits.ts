/**
 * Which of a run's limits hold, and who the sandbox runs as. A limit holds
 * only where something on this machine enforces it for the whole run: memory
 * only through the run's cgroup (an address-space limit per process does not
 * bound `memfd` files, shared memory, `tmpfs` pages or many processes);
 * processes through the cgroup, or the process limit of a uid only this run
 * uses; CPU seconds and file size through bubblewrap's `prlimit`. A limit the
 * caller asked for that does not hold refuses the run (`LIMIT_UNAVAILABLE`),
 * unless the caller accepts it unbounded. As root, each run gets a uid of its
 * own from a range, so runs never share a process limit.
 *
 * Folder `lib/fs/scripts/` — running a skill's scripts: the sandbox, capped spawns, snapshots.
 *
 * @module
 */
import { statSync } from "node:fs";
import { dirname } from "node:path";
import type { RunCgroup } from "./_cgroup.ts";
import { ScriptRunError } from "./script_run_error.ts";

/** The limits a caller may accept unbounded (`allowUnbounded`, `--allow-unbounded`). */
export const UNBOUNDED_LIMITS: readonly Unbounded[] = Object.freeze([
  "memory",
  "processes",
  "cpu",
  "file-size",
]);

/** A limit a caller may accept unbounded. */
export type Unbounded = "memory" | "processes" | "cpu" | "file-size";

/** The group the sandbox runs in as root (`nogroup`): a host folder it writes must allow it. */
export const SANDBOX_GID = 65534;

/** The first uid of the range the sandbox's users come from, as root. */
export const SANDBOX_FIRST_UID = 1_600_000_000;

/** How many uids the range holds (2^24). */
export const SANDBOX_UID_COUNT = 1 << 24;

const taken = new Set<number>();

/**
 * A uid of its own for one run (from {@linkcode SANDBOX_FIRST_UID}, random,
 * never one another run of this process holds; another process picking the
 * same one of 2^24 is as likely as a collision of 24 random bits).
 *
 * @returns The uid, and a function that gives it back.
 */
export function takeRunUid(): { readonly uid: number; release(): void } {
  let uid: number;
  do {
    uid = SANDBOX_FIRST_UID + Math.floor(Math.random() * SANDBOX_UID_COUNT);
  } while (taken.has(uid));
  taken.add(uid);
  return { uid, release: () => void taken.delete(uid) };
}

/** The limits asked for, checked. */
export interface AskedLimits {
  readonly cpuSeconds: number;
  readonly memoryBytes: number;
  readonly processes: number;
  readonly fileBytes: number;
}

/** The limits as reported in a run's result: the bound, or `null` where none holds. */
export interface HeldLimits {
  readonly cpu_seconds: number | null;
  readonly memory_bytes: number | null;
  readonly processes: number | null;
  readonly file_bytes: number | null;
}

/**
 * What holds of the limits asked for, in a sandbox.
 *
 * @param mode The sandbox.
 * @param cgroup The run's cgroup.
 * @param asked The limits.
 * @returns Each bound that holds, `null` for each that does not.
 */
export function heldLimits(
  mode: "bubblewrap" | "deno" | "none",
  cgroup: RunCgroup,
  asked: AskedLimits,
): HeldLimits {
  const inside = mode === "bubblewrap";
  return Object.freeze({
    cpu_seconds: inside ? asked.cpuSeconds : null,
    memory_bytes: cgroup.memory ? asked.memoryBytes : null,
    // bubblewrap's prlimit bounds the processes of its uid: the run's own, as root.
    processes: inside || cgroup.pids ? asked.processes : null,
    file_bytes: inside ? asked.fileBytes : null,
  });
}

/**
 * Refuse a run when a limit the caller asked for does not hold and was not
 * accepted unbounded.
 *
 * @param held What holds.
 * @param asked Which limits the caller set (the others are defaults).
 * @param accepted The limits the caller accepts unbounded.
 * @param skill The skill's name.
 * @param path The script's path.
 * @param sandbox The sandbox, for the message.
 * @throws {ScriptRunError} `LIMIT_UNAVAILABLE`, naming the first such limit.
 */
export function refuseUnheld(
  held: HeldLimits,
  asked: { readonly [K in Unbounded]: boolean },
  accepted: readonly Unbounded[],
  skill: string,
  path: string,
  sandbox: string,
): void {
  const holds: Record<Unbounded, boolean> = {
    memory: held.memory_bytes !== null,
    processes: held.processes !== null,
    cpu: held.cpu_seconds !== null,
    "file-size": held.file_bytes !== null,
  };
  const why: Record<Unbounded, string> = {
    memory: "no cgroup of its own can be made here to bound the memory of the whole run",
    processes: `the ${sandbox} sandbox cannot bound its processes here`,
    cpu: `the ${sandbox} sandbox cannot bound its CPU seconds`,
    "file-size": `the ${sandbox} sandbox cannot bound the size of the files it writes`,
  };
  for (const name of UNBOUNDED_LIMITS) {
    if (asked[name] && !holds[name] && !accepted.includes(name)) {
      throw new ScriptRunError(
        "LIMIT_UNAVAILABLE",
        skill,
        path,
        `Cannot run ${JSON.stringify(path)} with its ${name} limit: ${
          why[name]
        } (accept it unbounded with allowUnbounded ["${name}"], --allow-unbounded ${name})`,
      );
    }
  }
}

/** Whether the sandbox's user (`uid`, group {@linkcode SANDBOX_GID}, no other groups) has `bits` on `path`. */
function allows(path: string, uid: number, bits: number): boolean {
  const stat = statSync(path);
  const mode = stat.uid === uid
    ? stat.mode >> 6
    : stat.gid === SANDBOX_GID
    ? stat.mode >> 3
    : stat.mode;
  return (mode & bits) === bits;
}

/** Why the sandbox's user cannot enter every folder above `path`, or `null` when it can. */
function folderAbove(path: string, uid: number): string | null {
  for (let up = dirname(path), at = path; up !== at; at = up, up = dirname(up)) {
    if (!allows(up, uid, 0o1)) {
      return `the folder ${JSON.stringify(up)} above it cannot be entered by all`;
    }
  }
  return null;
}

/**
 * Why the sandbox's user (`uid`, group {@linkcode SANDBOX_GID}, no other
 * groups) cannot write a host folder, or `null` when it can: the folder must
 * let it write and enter, and every folder above it must let it enter.
 *
 * @param dir The folder (absolute).
 * @param uid The sandbox's uid.
 * @returns The reason, or `null`.
 */
export function unwritableBy(dir: string, uid: number): string | null {
  if (!allows(dir, uid, 0o3)) return "it is not writable by group 65534 nor by all";
  return folderAbove(dir, uid);
}

/**
 * Why the sandbox's user (`uid`, group {@linkcode SANDBOX_GID}, no other
 * groups) cannot reach a host program bound into the sandbox (bubblewrap
 * opens it as that user), or `null` when it can: every folder above it must
 * let it enter, and the program must let it read and run it.
 *
 * @param program The program's real path (absolute).
 * @param uid The sandbox's uid.
 * @returns The reason, or `null`.
 */
export function unreachableBy(program: string, uid: number): string | null {
  const above = folderAbove(program, uid);
  if (above !== null) return above;
  try {
    if (!allows(program, uid, 0o5)) return "it is not readable and executable by all";
  } catch (e) {
    return `it cannot be read (${(e as { code?: string }).code ?? String(e)})`;
  }
  return null;
}
