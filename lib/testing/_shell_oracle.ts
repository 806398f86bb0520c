/**
 * The real shell as an oracle: run many commands in one sandboxed `bash` (or
 * `dash`) process and observe, for each, every program it ran and with what
 * argv. Shared by the kit's shell laws (`_shell_laws.ts`).
 *
 * The sandbox: bubblewrap (`bwrap --unshare-all`: no network, `/usr`
 * read-only, a fresh temp folder as the only writable place) when it works on
 * the machine, else the same temp folder with `env -i`; either way the
 * environment is empty but `PATH` (a folder of shims only) and `HOME`. What is
 * recorded, NUL-separated, in a file the shell opens as descriptor 3:
 *
 * - `call`: a program of {@linkcode RECORDED_PROGRAMS} was called. Each is a
 *   shell function that records its name and arguments (the shell expands a
 *   simple command's words the same way whatever the command turns out to be,
 *   and a function costs no fork, so 10,000 commands take a second);
 * - `exec`: a shim executable ran, by a path (`./tool`, `bin/tool`) or found
 *   on `PATH` (`PWNED`, `id`, `sh`, `curl`, … the payloads of the attacks);
 * - `missing`: bash's `command_not_found_handle` ran for any other name.
 *
 * Commands run one per line, each after a frame marker, in one process per
 * batch of about 100 KB of script. A second part of the same script runs the
 * commands whose program is a plain builtin (`echo`, `test`, …) with the real
 * builtins, where nothing may be recorded at all.
 *
 * Folder `lib/testing/` — the testing kit behind `lib/testing.ts`: arbitraries, references, laws.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import {
  accessSync,
  chmodSync,
  constants,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PLAIN_BUILTINS } from "../core/policy/shell_words.ts";

/** A shell the oracle can run. */
export type ShellName = "bash" | "dash";

/** One thing a command made the shell run. */
export interface ShellRecord {
  /** A recorded program called (`call`), a shim executable run (`exec`), or a name bash did not find (`missing`). */
  readonly kind: "call" | "exec" | "missing";
  /** The argv: the program as the shell had it (an `exec` has the path it ran), then the arguments. */
  readonly argv: readonly string[];
}

/** What the shell did for one command. */
export interface ShellObservation {
  /** The command. */
  readonly command: string;
  /** With every recorded program a shell function: what it ran, in order. */
  readonly records: readonly ShellRecord[];
  /** With the plain builtins real (only for a command whose program is one): what it ran besides. */
  readonly builtinRecords: readonly ShellRecord[] | null;
}

/**
 * The programs recorded by a shell function, without a fork: the programs of
 * the generated commands, the plain builtins among them.
 */
export const RECORDED_PROGRAMS: readonly string[] = Object.freeze([
  "git",
  "npm",
  "npx",
  "node",
  "python3",
  "ls",
  "mkdir",
  "cat",
  "grep",
  "find",
  "tar",
  "rsync",
  "make",
  "gh",
  "date",
  ...PLAIN_BUILTINS,
]);

/** The plain builtins: run a second time as themselves. */
const BUILTIN_PROGRAMS = new Set(["cd", "echo", "false", "printf", "pwd", "test", "true"]);

/** Shim executables on `PATH`: the payloads attacks try to run. */
export const PAYLOAD_PROGRAMS: readonly string[] = Object.freeze([
  "PWNED",
  "CMD",
  "id",
  "sh",
  "bash",
  "curl",
  "rm",
  "touch",
  "env",
]);

/** The shims a command may name by a path, from its working folder. */
export const PATH_PROGRAMS: readonly string[] = Object.freeze(["./tool", "bin/tool"]);

/** The largest script handed to one shell (an argument is limited to 128 KiB on Linux). */
const SCRIPT_LIMIT = 100_000;

/**
 * Where a shell is on this machine, or `undefined`.
 *
 * @param name The shell.
 * @returns Its path.
 */
export function findShell(name: ShellName): string | undefined {
  for (const dir of ["/usr/bin", "/bin", "/usr/local/bin"]) {
    const path = `${dir}/${name}`;
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // next
    }
  }
  return undefined;
}

let bwrapWorks: boolean | undefined;

/** Whether bubblewrap can make a sandbox here (it needs user namespaces). */
export function sandboxKind(): "bwrap" | "env -i" {
  if (bwrapWorks === undefined) {
    const r = spawnSync("bwrap", [...bwrapArgs(tmpdir(), "/sandbox"), "/usr/bin/true"], {
      stdio: "ignore",
      timeout: 10_000,
    });
    bwrapWorks = r.status === 0;
  }
  return bwrapWorks ? "bwrap" : "env -i";
}

/**
 * The bubblewrap arguments of a sandbox: no namespace shared (no network),
 * `/usr` read-only (and `readOnly`'s folders), `dir` as `/sandbox`, the only
 * writable place, and `cwd` the working folder. The option oracle
 * (`tests/core/policy/option_oracle_test.ts`) runs its programs in the same one.
 *
 * @param dir The folder bound as `/sandbox`.
 * @param cwd The working folder inside the sandbox.
 * @param readOnly Further folders of the host bound read-only at the same path (`/etc`).
 * @returns The arguments, before the program.
 */
export function bwrapArgs(dir: string, cwd: string, readOnly: readonly string[] = []): string[] {
  return [
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    "--ro-bind",
    "/usr",
    "/usr",
    "--symlink",
    "usr/bin",
    "/bin",
    "--symlink",
    "usr/lib",
    "/lib",
    "--symlink",
    "usr/lib64",
    "/lib64",
    ...readOnly.flatMap((path) => ["--ro-bind", path, path]),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--bind",
    dir,
    "/sandbox",
    "--chdir",
    cwd,
  ];
}

const SHIM = `#!/bin/sh
command printf '\\001exec\\000%s\\000' "$(($# + 1))" >&3
command printf '%s\\000' "$0" "$@" >&3
`;

/** The script's head: the recorder, the functions, the not-found hook. */
function prelude(shell: ShellName): string {
  const lines = [
    "exec 3>>../records",
    // One record: its kind, its argc, its argv; `command` reaches the builtin past any function.
    `__rec() { command printf '\\001%s\\000%s\\000' "$1" "$(($# - 1))"; shift; case $# in 0) ;; *) command printf '%s\\000' "$@";; esac; } >&3`,
  ];
  for (const p of RECORDED_PROGRAMS) lines.push(`${p}() { __rec call ${p} "$@"; }`);
  if (shell === "bash") {
    lines.push(`command_not_found_handle() { __rec missing "$@"; return 127; }`);
  }
  return lines.join("\n") + "\n";
}

/** A command's frame marker. */
function frame(i: number): string {
  return `command printf '\\002%s\\000' ${i} >&3\n`;
}

/**
 * Run commands in the real shell, sandboxed, and observe what each ran.
 *
 * @param commands The commands: each must be one line (no line break, no NUL).
 * @param shell `bash` or `dash`.
 * @returns One observation per command, in order.
 * @throws {Error} When the shell is not on this machine.
 * @throws {RangeError} When a command holds a line break or NUL, which would change the script's lines.
 */
export function observeShell(
  commands: readonly string[],
  shell: ShellName = "bash",
): ShellObservation[] {
  const path = findShell(shell);
  if (path === undefined) throw new Error(`No ${shell} on this machine`);
  for (const c of commands) {
    // deno-lint-ignore no-control-regex -- a line break or NUL would split the script's lines
    if (/[\n\r\u0000]/.test(c)) {
      throw new RangeError(`A command holds a line break or NUL: ${JSON.stringify(c)}`);
    }
  }
  const out: ShellObservation[] = [];
  let from = 0;
  while (from < commands.length) {
    let size = 0;
    let to = from;
    while (to < commands.length && (to === from || size + commands[to]!.length < SCRIPT_LIMIT)) {
      size += commands[to]!.length + 40;
      to++;
    }
    out.push(...runBatch(commands.slice(from, to), path, shell));
    from = to;
  }
  return out;
}

function runBatch(commands: readonly string[], path: string, shell: ShellName): ShellObservation[] {
  const dir = mkdtempSync(join(tmpdir(), "skillset-shell-"));
  try {
    mkdirSync(join(dir, "shims"));
    mkdirSync(join(dir, "home"));
    mkdirSync(join(dir, "work", "bin"), { recursive: true });
    for (const name of PAYLOAD_PROGRAMS) writeShim(join(dir, "shims", name));
    writeShim(join(dir, "work", "tool"));
    writeShim(join(dir, "work", "bin", "tool"));
    // Files a glob would find, so an expansion shows.
    for (const name of ["a", "b", "git", "-c"]) writeFileSync(join(dir, "work", name), "");
    writeFileSync(join(dir, "records"), "");
    const builtins: number[] = [];
    let script = prelude(shell);
    commands.forEach((c, i) => {
      script += frame(i) + c + "\n";
      const program = c.trim().split(/[ \t]/)[0]!.replace(/['"]/g, "");
      if (BUILTIN_PROGRAMS.has(program)) builtins.push(i);
    });
    // The plain builtins as themselves: output dropped, the folder restored after a `cd`.
    script += `unset -f ${[...BUILTIN_PROGRAMS].join(" ")}\n__W=$PWD\nexec 1>/dev/null 2>&1\n`;
    for (const i of builtins) {
      script += frame(commands.length + i) + commands[i] + '\ncommand cd -- "$__W"\n';
    }
    const inside = sandboxKind() === "bwrap";
    const root = inside ? "/sandbox" : dir;
    const env = ["-i", `PATH=${root}/shims`, `HOME=${root}/home`];
    const argv = [path, ...(shell === "bash" ? ["--norc", "--noprofile"] : []), "-c", script];
    const result = inside
      ? spawnSync("bwrap", [...bwrapArgs(dir, "/sandbox/work"), "/usr/bin/env", ...env, ...argv], {
        stdio: "ignore",
        timeout: 120_000,
      })
      : spawnSync("env", [...env, ...argv], {
        cwd: join(dir, "work"),
        stdio: "ignore",
        timeout: 120_000,
      });
    if (result.error !== undefined) throw result.error;
    const frames = parseRecords(readFileSync(join(dir, "records"), "latin1"));
    return commands.map((command, i) => ({
      command,
      records: frames.get(i) ?? [],
      builtinRecords: builtins.includes(i) ? frames.get(commands.length + i) ?? [] : null,
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function writeShim(path: string): void {
  writeFileSync(path, SHIM);
  chmodSync(path, 0o755);
}

/** The records file, by frame: the bytes are UTF-8, read as latin1 and decoded per argument. */
function parseRecords(text: string): Map<number, ShellRecord[]> {
  const frames = new Map<number, ShellRecord[]>();
  const tokens = text.split("\u0000");
  let current: ShellRecord[] | undefined;
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t]!;
    if (token.startsWith("\u0002")) {
      current = [];
      frames.set(Number(token.slice(1)), current);
    } else if (token.startsWith("\u0001")) {
      const kind = token.slice(1) as ShellRecord["kind"];
      const count = Number(tokens[++t]);
      const argv = Number.isSafeInteger(count) && count >= 0
        ? tokens.slice(t + 1, t + 1 + count).map(utf8)
        : ["(unreadable record)"];
      t += Number.isSafeInteger(count) && count >= 0 ? count : 0;
      (current ??= []).push({ kind, argv });
    } else if (token !== "" && current !== undefined) {
      current.push({ kind: "exec", argv: [`(stray output ${JSON.stringify(token)})`] });
    }
  }
  return frames;
}

function utf8(latin1: string): string {
  const bytes = new Uint8Array(latin1.length);
  for (let i = 0; i < latin1.length; i++) bytes[i] = latin1.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}
