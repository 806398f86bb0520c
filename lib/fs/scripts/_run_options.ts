/**
 * The options of a script run, checked, with their defaults: the limits
 * (whole numbers in range; which ones the caller set), the limits accepted
 * unbounded, the grants (absolute paths, environment names), the working and
 * output folders.
 *
 * Folder `lib/fs/scripts/` — running a skill's scripts: the sandbox, capped spawns, snapshots.
 *
 * @module
 */
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { SafetyFlags } from "../../core/resources/gate.ts";
import type { ApprovalStore } from "../../core/trust/approval.ts";
import type { Lockfile } from "../../core/trust/lockfile.ts";
import { type Unbounded, UNBOUNDED_LIMITS } from "./_run_limits.ts";

/** The defaults of {@linkcode RunScriptOptions}' limits. */
export const DEFAULT_SCRIPT_LIMITS: Readonly<{
  timeoutMs: number;
  cpuSeconds: number;
  memoryBytes: number;
  processes: number;
  fileBytes: number;
  maxOutputChars: number;
  maxSkillBytes: number;
}> = Object.freeze({
  timeoutMs: 30_000,
  cpuSeconds: 30,
  memoryBytes: 2 * 1024 ** 3,
  processes: 64,
  fileBytes: 64 * 1024 ** 2,
  maxOutputChars: 30_000,
  maxSkillBytes: 64 * 1024 ** 2,
});

/** Options of `runSkillScript`: the gate, trust, grants, limits and the sandbox. */
export interface RunScriptOptions extends SafetyFlags {
  /** A lockfile (or its path): the skill must match its entry, byte for byte. */
  readonly lock?: Lockfile | string;
  /** Where the lockfile's sources are relative to; default the lockfile's folder. */
  readonly lockBase?: string;
  /** Approvals: the skill must be approved at its current digest. Required for a skill served over MCP. */
  readonly approvals?: ApprovalStore;
  /**
   * A host folder to run in (bound writable), instead of a fresh empty one
   * that is removed after. As root, the sandbox's user (a uid of the run's
   * own, group 65534) must be able to write it (`CWD_NOT_WRITABLE`).
   */
  readonly cwd?: string;
  /**
   * A host folder (made if missing) into which what the script wrote in its
   * fresh working folder is copied after the run: folders and regular files
   * only (links and other entries are left out and counted), at most
   * `fileBytes` in all. Not with `cwd`.
   */
  readonly out?: string;
  /**
   * Limits set here that may run unbounded where this machine cannot enforce
   * them (`"memory"`, `"processes"`, `"cpu"`, `"file-size"`); any other set
   * limit that cannot hold refuses the run (`LIMIT_UNAVAILABLE`). A limit
   * left at its default never refuses: the result says `null` for it.
   */
  readonly allowUnbounded?: readonly Unbounded[];
  /** Share the host's network. Default false: no network at all. */
  readonly network?: boolean;
  /** Host paths (absolute) the script may read, at the same place. */
  readonly readPaths?: readonly string[];
  /** Host paths (absolute) the script may write, at the same place. */
  readonly writePaths?: readonly string[];
  /** Environment variables given to the script, beyond the fixed set. */
  readonly env?: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
  /** Wall-clock milliseconds before the whole process tree is killed; default 30,000. */
  readonly timeoutMs?: number;
  /** CPU seconds; default 30. */
  readonly cpuSeconds?: number;
  /**
   * Bytes of memory of the whole run — every process, shared memory,
   * `memfd` files and `tmpfs` pages included — through a cgroup of its own
   * where the machine allows one (also each process's address space, or for
   * a JavaScript runtime its heap); default 2 GiB.
   */
  readonly memoryBytes?: number;
  /** Processes and threads of the whole run; default 64. */
  readonly processes?: number;
  /**
   * The largest file the script may write, and what a fresh working folder and
   * `/tmp` hold in all (bubblewrap 0.8 or later); default 64 MiB.
   */
  readonly fileBytes?: number;
  /** Characters kept of stdout, and of stderr (the rest is counted); default 30,000. */
  readonly maxOutputChars?: number;
  /** The most bytes of skill files copied into the sandbox; default 64 MiB. */
  readonly maxSkillBytes?: number;
  /**
   * `"auto"` (the default): bubblewrap, else Deno's permissions for
   * JavaScript and TypeScript; `"bubblewrap"` or `"deno"` to insist on one.
   */
  readonly sandbox?: "auto" | "bubblewrap" | "deno";
  /**
   * Run with no sandbox at all (limits of time and output still apply): the
   * script can read and write whatever this process can. Never the default.
   */
  readonly dangerouslyRunUnsandboxed?: boolean;
}

/** The options, checked, with their defaults. */
export function checkOptions(args: readonly string[], options: RunScriptOptions) {
  if (!Array.isArray(args) || args.some((a) => typeof a !== "string" || a.includes("\0"))) {
    throw new TypeError("args must be a list of strings without NUL characters");
  }
  const whole = (name: keyof typeof DEFAULT_SCRIPT_LIMITS): number => {
    const value = (options as Record<string, unknown>)[name] ?? DEFAULT_SCRIPT_LIMITS[name];
    // A timer longer than 2^31 - 1 ms fires at once.
    const max = name === "timeoutMs" ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > max) {
      throw new RangeError(`${name} must be a whole number from 1 to ${max}, got ${String(value)}`);
    }
    return value;
  };
  const paths = (name: "readPaths" | "writePaths"): readonly string[] => {
    const list = options[name] ?? [];
    for (const p of list) {
      if (typeof p !== "string" || !isAbsolute(p) || /[\0,]/.test(p)) {
        throw new RangeError(
          `${name} must hold absolute paths without commas, got ${JSON.stringify(p)}`,
        );
      }
    }
    return Object.freeze([...list]);
  };
  if (
    options.cwd !== undefined && (typeof options.cwd !== "string" || !isAbsolute(options.cwd) ||
      /[\0,]/.test(options.cwd) ||
      statSync(options.cwd, { throwIfNoEntry: false })?.isDirectory() !== true)
  ) {
    throw new RangeError(
      `cwd must be an existing folder's absolute path, got ${JSON.stringify(options.cwd)}`,
    );
  }
  const env = new Map<string, string>(
    options.env instanceof Map ? options.env : Object.entries(options.env ?? {}),
  );
  for (const [name, value] of env) {
    if (
      !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || typeof value !== "string" || value.includes("\0")
    ) {
      throw new RangeError(
        `env must map names to strings without NUL characters, got ${JSON.stringify(name)}`,
      );
    }
  }
  const accepted = options.allowUnbounded ?? [];
  if (!Array.isArray(accepted) || accepted.some((n) => !UNBOUNDED_LIMITS.includes(n))) {
    throw new RangeError(
      `allowUnbounded must list limits of ${UNBOUNDED_LIMITS.join(", ")}, got ${
        JSON.stringify(accepted)
      }`,
    );
  }
  if (
    options.out !== undefined &&
    (typeof options.out !== "string" || !isAbsolute(options.out) || options.out.includes("\0"))
  ) {
    throw new RangeError(`out must be an absolute path, got ${JSON.stringify(options.out)}`);
  }
  if (options.out !== undefined && options.cwd !== undefined) {
    throw new RangeError("out copies back a fresh working folder: it cannot go with cwd");
  }
  const set = (name: keyof RunScriptOptions) => options[name] !== undefined;
  return {
    asked: {
      memory: set("memoryBytes"),
      processes: set("processes"),
      cpu: set("cpuSeconds"),
      "file-size": set("fileBytes"),
    } satisfies Record<Unbounded, boolean>,
    accepted: Object.freeze([...accepted]),
    limits: {
      timeoutMs: whole("timeoutMs"),
      cpuSeconds: whole("cpuSeconds"),
      memoryBytes: whole("memoryBytes"),
      processes: whole("processes"),
      fileBytes: whole("fileBytes"),
      maxOutputChars: whole("maxOutputChars"),
    },
    maxSkillBytes: whole("maxSkillBytes"),
    grants: {
      network: options.network === true,
      readPaths: paths("readPaths"),
      writePaths: paths("writePaths"),
      env: [...env.keys()],
    },
    env,
  };
}
