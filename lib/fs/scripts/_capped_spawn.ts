/**
 * Running one child process with bounds: no input (stdin is `/dev/null`, so
 * nothing waits on a prompt), no descriptor the host was started with (each
 * becomes `/dev/null`), stdout and stderr each kept up to a number of
 * characters (the rest counted, never stored), and a wall-clock timeout that
 * kills the child's whole process tree with `SIGKILL` — and, when the child
 * ends, whatever it left running. The tree is the child's cgroup where the
 * machine lets this process make one (`_cgroup.ts`: a process can leave its
 * process group and session, not its cgroup), else its process group and the
 * descendants found in `/proc`. The runner of skill scripts
 * (`run_script.ts`) wraps its sandbox in this, the lifecycle its git.
 *
 * Folder `lib/fs/scripts/` — running a skill's scripts: the sandbox, capped spawns, snapshots.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { accessSync, closeSync, constants, openSync, readdirSync, readFileSync } from "node:fs";
import process from "node:process";
import { openCgroup, type RunCgroup } from "./_cgroup.ts";

/** What to run and its bounds. */
export interface CappedSpawn {
  /** The program and its arguments. */
  readonly argv: readonly string[];
  /** The whole environment (nothing is inherited). */
  readonly env: Readonly<Record<string, string>>;
  /** The working folder of the child. */
  readonly cwd: string;
  /** Wall-clock milliseconds before the process group is killed. */
  readonly timeoutMs: number;
  /** Characters kept of stdout, and of stderr. */
  readonly maxOutputChars: number;
  /**
   * The cgroup the child runs in (the caller removes it); default one made
   * for this spawn, only to find the tree, removed after.
   */
  readonly cgroup?: RunCgroup;
}

/** How it ended. */
export interface CappedOutcome {
  /** The exit code, or `null` when a signal ended it. */
  readonly exitCode: number | null;
  /** The signal that ended it, e.g. `"SIGKILL"`, or `null`. */
  readonly signal: string | null;
  /** Whether the timeout killed it. */
  readonly timedOut: boolean;
  /** The first `maxOutputChars` characters of stdout. */
  readonly stdout: string;
  /** The first `maxOutputChars` characters of stderr. */
  readonly stderr: string;
  /** Characters of stdout left out. */
  readonly stdoutDropped: number;
  /** Characters of stderr left out. */
  readonly stderrDropped: number;
}

/** One output stream: the characters kept and the number left out. */
class CappedText {
  text = "";
  dropped = 0;
  readonly #decoder = new TextDecoder();
  readonly #cap: number;

  constructor(cap: number) {
    this.#cap = cap;
  }

  add(chunk: Uint8Array | null): void {
    const text = chunk === null
      ? this.#decoder.decode()
      : this.#decoder.decode(chunk, { stream: true });
    const room = this.dropped > 0 ? 0 : this.#cap - this.text.length;
    if (room >= text.length) {
      this.text += text;
    } else {
      // Never half a character: a surrogate pair cut at the cap is left out whole.
      const keep = room > 0 && isHighSurrogate(text.charCodeAt(room - 1)) ? room - 1 : room;
      this.text += text.slice(0, keep);
      this.dropped += text.length - keep;
    }
  }
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/**
 * Run a program with its output capped and a timeout that kills its whole
 * process group (it is started as a group leader). Never rejects for what
 * the program does; a program that cannot be started ends with exit code
 * 127 and the reason on stderr.
 *
 * @param plan What to run and its bounds.
 * @returns How it ended and what it printed.
 */
export function cappedSpawn(plan: CappedSpawn): Promise<CappedOutcome> {
  const program = findProgram(plan.argv[0]!, plan.env["PATH"]);
  if (program === null) {
    return Promise.resolve(Object.freeze({
      exitCode: 127,
      signal: null,
      timedOut: false,
      stdout: "",
      stderr: `Cannot start ${plan.argv[0]}: no such program\n`,
      stdoutDropped: 0,
      stderrDropped: 0,
    }));
  }
  const own = plan.cgroup === undefined ? openCgroup({}) : null;
  const cgroup = plan.cgroup ?? own!;
  const sh = cgroup.tracks ? findProgram("/bin/sh", undefined) : null;
  const argv = sh === null ? [program, ...plan.argv.slice(1)] : cgroup.wrap(sh, [
    program,
    ...plan.argv.slice(1),
  ]);
  return new Promise<CappedOutcome>((resolve) => {
    const out = new CappedText(plan.maxOutputChars);
    const err = new CappedText(plan.maxOutputChars);
    let timedOut = false;
    let settled = false;
    // The host's inherited descriptors become /dev/null in the child (a handle each: Deno
    // cannot start a child given one handle twice).
    const nulls = inheritedDescriptors().map((fd) => [fd, openSync("/dev/null", "r")] as const);
    const stdio: ("ignore" | "pipe" | number)[] = ["ignore", "pipe", "pipe"];
    for (const [fd, devNull] of nulls) {
      while (stdio.length < fd) stdio.push("ignore");
      stdio[fd] = devNull;
    }
    const release = (): void => {
      // Held until the child ends: some runtimes start the child after `spawn` returns.
      for (const [, devNull] of nulls.splice(0)) {
        closeSync(devNull);
      }
    };
    let child;
    try {
      child = spawn(argv[0]!, argv.slice(1), {
        cwd: plan.cwd,
        env: { ...plan.env },
        stdio,
        detached: true,
        windowsHide: true,
      });
    } catch (e) {
      release();
      throw e;
    }
    const killTree = (): void => {
      if (child.pid === undefined) return;
      // Found before the first kill: once a process dies, its children are no longer its.
      const below = sh === null ? descendants(child.pid) : [];
      for (const target of [-child.pid, child.pid, ...below]) {
        try {
          process.kill(target, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      cgroup.kill();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killTree();
    }, plan.timeoutMs);
    child.stdout!.on("data", (chunk: Uint8Array) => out.add(chunk));
    child.stderr!.on("data", (chunk: Uint8Array) => err.add(chunk));
    const finish = (exitCode: number | null, signal: string | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      release();
      // Whatever the group left behind goes with it.
      killTree();
      out.add(null);
      err.add(null);
      resolve(Object.freeze({
        exitCode,
        signal,
        timedOut,
        stdout: out.text,
        stderr: err.text,
        stdoutDropped: out.dropped,
        stderrDropped: err.dropped,
      }));
    };
    child.on("error", (e: Error) => {
      err.add(new TextEncoder().encode(`Cannot start ${plan.argv[0]}: ${e.message}\n`));
      finish(127, null);
    });
    // The script is done: anything it left running in its group goes now, so the pipes close.
    child.on("exit", killTree);
    child.on("close", (code: number | null, signal: NodeJS.Signals | null) => finish(code, signal));
  }).finally(() => own?.remove());
}

/** A program's path: as given when it holds a `/`, else the first on `path`; `null` when none runs. */
function findProgram(name: string, path: string | undefined): string | null {
  const runs = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (name.includes("/")) return runs(name) ? name : null;
  for (const dir of (path ?? "").split(":")) {
    if (dir.startsWith("/") && runs(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  return null;
}

/** Every process below `pid` now, from the parent links in `/proc` (Linux; elsewhere none). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // The name in parentheses may hold spaces and parentheses: the fields follow the last ")".
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = children.get(parent);
      if (list === undefined) children.set(parent, [Number(name)]);
      else list.push(Number(name));
    } catch {
      // Ended meanwhile.
    }
  }
  const out: number[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    for (const child of children.get(stack.pop()!) ?? []) {
      out.push(child);
      stack.push(child);
    }
  }
  return out;
}

/**
 * The descriptors above stderr that a child would inherit: those this
 * process was itself started with, without close-on-exec (the runtime opens
 * its own with it). The child gets `/dev/null` at each instead, so a script
 * cannot read or write what its host was handed. Linux only (`/proc`);
 * elsewhere none are known.
 */
function inheritedDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!(fd > 2)) continue;
    try {
      const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
      // O_CLOEXEC is 0o2000000 in the octal flags /proc shows.
      if (flags !== null && (parseInt(flags[1]!, 8) & 0o2000000) === 0) out.push(fd);
    } catch {
      // Closed meanwhile (the listing's own descriptor): nothing to inherit.
    }
  }
  return out.sort((a, b) => a - b);
}
