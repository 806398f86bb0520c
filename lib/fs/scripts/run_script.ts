/**
 * Running a skill's script, sandboxed and bound to approval: the gate decides
 * which file may run, every file the sandbox will see is read once into
 * memory (and, with a lock or approvals, hashed from those same bytes and
 * checked), those bytes are written into a fresh private folder that the
 * sandbox binds read-only as the skill, and the script runs under
 * bubblewrap (`_sandbox.ts`) — or, for JavaScript and TypeScript where
 * bubblewrap is missing, under Deno's permissions — with resource limits, a
 * wall-clock timeout and capped output (`_capped_spawn.ts`). Nothing runs
 * unsandboxed unless the caller says `dangerouslyRunUnsandboxed`.
 *
 * Folder `lib/fs/scripts/` — running a skill's scripts: the sandbox, capped spawns, snapshots.
 *
 * @module
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SkillBundle } from "../../core/resources/bundle.ts";
import { ResourceNotFoundError } from "../../core/errors.ts";
import { outsideRoot } from "../../core/resources/gate.ts";
import { assertAccess, type SafetyFlags } from "../../core/resources/gate.ts";
import { classifyResource, normalizeResourcePath } from "../../core/resources/resource_path.ts";
import { type ScriptInterpreter, scriptInterpreter } from "../../core/resources/script_kind.ts";
import { approvalChanges, decideApproval } from "../../core/trust/approval.ts";
import { sha256Digest } from "../../core/trust/digest.ts";
import { lockKey } from "../../core/trust/lockfile.ts";
import type { SkillManifest } from "../../core/trust/manifest.ts";
import { cappedSpawn } from "./_capped_spawn.ts";
import { openCgroup } from "./_cgroup.ts";
import { type CopiedOut, copyOut } from "./_copy_out.ts";
import { checkOptions, type RunScriptOptions } from "./_run_options.ts";
import {
  heldLimits,
  refuseUnheld,
  SANDBOX_GID,
  takeRunUid,
  unreachableBy,
  unwritableBy,
} from "./_run_limits.ts";
import { manifestOf, readSkill, writeSnapshot } from "./_skill_snapshot.ts";
import {
  bubblewrapArgv,
  denoArgv,
  denoImportMap,
  denoReads,
  isRoot,
  type Limits,
  runtime,
  runtimeCommand,
  SANDBOX_RUNTIME,
  SANDBOX_SKILL,
  SANDBOX_TMP,
  SANDBOX_WORK,
  sandboxTools,
  systemProgram,
} from "./_sandbox.ts";
import { ScriptRunError } from "./script_run_error.ts";
import { loadLock, lockMismatch } from "../trust/trust.ts";
import { otherEntries } from "../trust/_trust_entries.ts";
import { FILE_ORIGIN } from "../trust/trust_files.ts";

export { DEFAULT_SCRIPT_LIMITS, type RunScriptOptions } from "./_run_options.ts";

/** What the host granted a run, as it was applied. */
export interface ScriptGrants {
  /** Whether the network was shared. */
  readonly network: boolean;
  /** Extra host paths the script could read. */
  readonly read_paths: readonly string[];
  /** Extra host paths the script could write. */
  readonly write_paths: readonly string[];
  /** The names of the extra environment variables. */
  readonly env: readonly string[];
  /** The host working folder, when one was chosen (else a fresh one, removed after). */
  readonly cwd: string | null;
}

/** What a run of a script did. */
export interface ScriptRun {
  /** The skill's name. */
  readonly skill: string;
  /** The script's normalised path. */
  readonly path: string;
  /** The arguments it was given. */
  readonly args: readonly string[];
  /** The interpreter: `python3`, `bash`, `sh`, or `node`/`deno`/`bun` for JavaScript and TypeScript. */
  readonly interpreter: string;
  /** The sandbox it ran in: `bubblewrap`, `deno` (permissions), or `none` (`dangerouslyRunUnsandboxed`). */
  readonly sandbox: "bubblewrap" | "deno" | "none";
  /** The digest of the bytes that ran. */
  readonly digest: string;
  /** The exit code, or `null` when a signal ended it. */
  readonly exit_code: number | null;
  /** The signal that ended it, or `null`. */
  readonly signal: string | null;
  /** Whether the wall-clock timeout killed it. */
  readonly timed_out: boolean;
  /** Its standard output, up to the cap. */
  readonly stdout: string;
  /** Its standard error, up to the cap. */
  readonly stderr: string;
  /** Characters of stdout left out (0: all shown). */
  readonly stdout_truncated: number;
  /** Characters of stderr left out (0: all shown). */
  readonly stderr_truncated: number;
  /** What the host granted. */
  readonly grants: ScriptGrants;
  /**
   * The limits it ran under; `null` for one that did not hold: memory only
   * holds through a cgroup of the run's own, CPU and file size only in
   * bubblewrap, processes in bubblewrap or through the cgroup.
   */
  readonly limits: {
    readonly timeout_ms: number;
    readonly cpu_seconds: number | null;
    readonly memory_bytes: number | null;
    readonly processes: number | null;
    readonly file_bytes: number | null;
    readonly max_output_chars: number;
  };
  /** The most memory the run held at once, from its cgroup's counter (`null`: no cgroup). */
  readonly peak_memory_bytes: number | null;
  /** What was copied back into `out`, or `null` without `out`. */
  readonly out: CopiedOut | null;
}

/**
 * Run one of a skill's scripts in a sandbox and return what it did.
 *
 * What runs: only a file the safety gate lets a model read under
 * `global_safety` and `skill_safety` (a link is classed by the stricter of
 * its two paths; one leading out of the skill is refused). Every file the
 * gate shows is read once, into memory; with `lock` or `approvals` every
 * file is, and the skill's manifest is computed from those very bytes: the
 * skill must match its lockfile entry and be approved at that digest. Those
 * same bytes are then written into a fresh private folder, which the
 * sandbox sees read-only at `/skill` — so what was checked is what runs,
 * whatever happens to the original folder meanwhile. A skill that comes over
 * MCP (a bundle with an `origin`) never runs without `approvals` that
 * approve it.
 *
 * The interpreter comes from the `#!` line (`python3`, `python`, `bash`,
 * `sh`, `node`, `deno`, `bun`) or else the extension (`.py` → `python3`,
 * `.sh` → `bash`, `.js`/`.mjs`/`.cjs`/`.ts`/`.mts` → the current runtime);
 * anything else is refused.
 *
 * The sandbox: bubblewrap with every namespace unshared (no network unless
 * granted), its own PID namespace, a new session, killed with its parent,
 * the system folders read-only, a fresh working folder at `/work` (or
 * `cwd`), a private `/tmp`, no home folder, only the fixed environment plus
 * `env`; CPU, memory, process and file-size limits; a wall-clock timeout
 * that kills the whole process tree; stdout and stderr each capped at
 * `maxOutputChars` (the rest counted). Where bubblewrap is missing, a
 * JavaScript or TypeScript script runs under Deno with reads of the skill and
 * working folders only and no network, subprocess or environment; anything
 * else is refused with `SANDBOX_UNAVAILABLE`.
 *
 * @param skill The skill (a loaded folder, or a bundle served over MCP).
 * @param path The script's path inside the skill, e.g. `scripts/fill.py`.
 * @param args Its arguments.
 * @param options The gate, trust, grants, limits and the sandbox.
 * @returns What the run did: exit code or signal, capped output, what was granted.
 * @throws {InvalidResourcePathError} When `path` is not a valid resource path.
 * @throws {ExecutionError} When the gate refuses the path, or it leads outside the skill.
 * @throws {ResourceNotFoundError} When the skill has no such file.
 * @throws {ResourceReadError} When a file cannot be read as it was listed.
 * @throws {ScriptRunError} `SANDBOX_UNAVAILABLE`, `UNKNOWN_INTERPRETER`,
 *   `INTERPRETER_MISSING`, `NOT_APPROVED`, `LOCK_MISMATCH` or `SKILL_TOO_LARGE`.
 * @throws {TrustFileError} When `lock` is a path to a missing or malformed lockfile.
 * @throws {TypeError} When an argument or option has the wrong type.
 * @throws {RangeError} When a limit is not a whole number in range or a path is not absolute.
 * @example
 * ```ts
 * import { createBundle } from "../../../mod.ts";
 * import { runSkillScript, ScriptRunError } from "../../load.ts";
 * import { assert } from "../../core/_assert.ts";
 *
 * const skill = createBundle({
 *   frontmatter: { name: "hello", description: "Says hello" },
 *   instructions: "",
 *   files: { "scripts/hello.sh": 'echo "hello $1"; cat /etc/shadow 2>/dev/null || echo "no shadow"\n' },
 * });
 * try {
 *   const run = await runSkillScript(skill, "scripts/hello.sh", ["world"], { timeoutMs: 10_000 });
 *   assert.deepEqual([run.exit_code, run.stdout], [0, "hello world\nno shadow\n"]);
 * } catch (e) {
 *   // No bubblewrap here: refused, never run unsandboxed.
 *   assert.ok(e instanceof ScriptRunError && e.code === "SANDBOX_UNAVAILABLE");
 * }
 * ```
 */
export async function runSkillScript(
  skill: SkillBundle,
  path: string,
  args: readonly string[] = [],
  options: RunScriptOptions = {},
): Promise<ScriptRun> {
  const settings = checkOptions(args, options);
  const flags: SafetyFlags = {
    global_safety: options.global_safety !== false,
    skill_safety: options.skill_safety !== false,
  };
  const normal = normalizeResourcePath(path);
  assertAccess(normal, classifyResource(normal, skill.resource_classes), flags, "run");
  const file = skill.files.get(normal);
  if (file === undefined) throw new ResourceNotFoundError(skill.name, normal);
  if (file.outside_root === true) throw outsideRoot(normal, flags, "run");
  const refuse = (code: ConstructorParameters<typeof ScriptRunError>[0], message: string) =>
    new ScriptRunError(code, skill.name, normal, message);
  const location = (skill as { readonly location?: unknown }).location;
  const origin = (skill as { readonly origin?: unknown }).origin;
  const served = typeof location !== "string" && typeof origin === "string";
  if (served && options.approvals === undefined) {
    throw refuse(
      "NOT_APPROVED",
      `Skill ${JSON.stringify(skill.name)} comes from MCP server ${
        JSON.stringify(origin)
      }: its scripts run only with an approval of it`,
    );
  }
  const trusted = options.lock !== undefined || options.approvals !== undefined;
  const files = readSkill(skill, flags, trusted, settings.maxSkillBytes, refuse);
  const script = files.get(normal);
  if (script === undefined || !script.visible) {
    // The file's real path is in a folder the gate refuses (a link into it).
    assertAccess(normal, "nonstandard", flags, "run");
    throw outsideRoot(normal, flags, "run");
  }
  const digest = await sha256Digest(script.bytes);
  if (trusted) {
    // The manifest hashes the very bytes that are written for the sandbox, the script's among them.
    const manifest = await manifestOf(skill, files);
    await checkTrust(skill, manifest, options, refuse, {
      location: typeof location === "string" ? location : undefined,
      origin: typeof origin === "string" ? origin : FILE_ORIGIN,
      uri: String((skill as { readonly uri?: unknown }).uri ?? ""),
    });
  }
  const kind = scriptInterpreter(normal, script.bytes.subarray(0, 512));
  if (kind === undefined) {
    throw refuse(
      "UNKNOWN_INTERPRETER",
      `Cannot run ${JSON.stringify(normal)}: neither its #! line nor its extension names a known ` +
        "interpreter (python3, bash, sh, or .py, .sh, .js, .mjs, .cjs, .ts, .mts)",
    );
  }
  const mode = chooseSandbox(kind.interpreter, options, refuse, normal);
  const typescript = /\.m?ts$/i.test(normal);
  if (kind.interpreter === "runtime" && mode !== "deno" && typescript && !runtime().typescript) {
    throw refuse(
      "INTERPRETER_MISSING",
      `Cannot run ${JSON.stringify(normal)}: ${runtime().kind} ${
        String((globalThis as { process?: { version?: string } }).process?.version ?? "")
      } does not run TypeScript (Node 22.6 or later, Deno or Bun does)`,
    );
  }
  const program = kind.interpreter === "runtime"
    ? null
    : systemProgram(kind.interpreter) ?? (() => {
      throw refuse(
        "INTERPRETER_MISSING",
        `Cannot run ${
          JSON.stringify(normal)
        }: ${kind.interpreter} is not installed in /usr/bin or /bin`,
      );
    })();
  const inside = mode === "bubblewrap";
  // As root, the sandbox runs as a user of the run's own: its process limit is no other run's.
  const user = inside && isRoot() ? takeRunUid() : null;
  if (user !== null && options.cwd !== undefined) {
    const why = unwritableBy(options.cwd, user.uid);
    if (why !== null) {
      user.release();
      const dir = JSON.stringify(options.cwd);
      throw refuse(
        "CWD_NOT_WRITABLE",
        `Cannot run in ${dir}: the sandbox runs as a user of its own (group ${SANDBOX_GID}) and ` +
          `${why}; let group ${SANDBOX_GID} in (chgrp ${SANDBOX_GID} ${dir} && chmod g+rwx ${dir}), ` +
          `or run without cwd and copy its files back with out`,
      );
    }
  }
  if (user !== null && program === null) {
    // bubblewrap opens the runtime's binary as the run's user: Deno or Bun from node_modules in a
    // clone under a 0700 folder is out of its reach, and bubblewrap would only say "Can't find
    // source path".
    const binary = runtime().path;
    const why = unreachableBy(binary, user.uid);
    if (why !== null) {
      user.release();
      throw refuse(
        "RUNTIME_UNREACHABLE",
        `Cannot run ${
          JSON.stringify(normal)
        }: the sandbox runs as a user of its own (group ${SANDBOX_GID}) ` +
          `and cannot reach ${runtime().kind}'s binary ${JSON.stringify(binary)}: ${why}; ` +
          `run ${runtime().kind} from a folder every user may enter and read (/usr/local/bin, say), ` +
          `or let group ${SANDBOX_GID} in (chgrp ${SANDBOX_GID} and chmod g+x on each folder above it, g+rx on it)`,
      );
    }
  }
  const cgroup = openCgroup({
    memoryBytes: settings.limits.memoryBytes,
    processes: settings.limits.processes,
  });
  const base = mkdtempSync(join(tmpdir(), "skillset-run-"));
  try {
    const held = heldLimits(mode, cgroup, settings.limits);
    refuseUnheld(held, settings.asked, settings.accepted, skill.name, normal, mode);
    chmodSync(base, 0o711);
    const skillDir = join(base, "skill");
    writeSnapshot(skillDir, files);
    const owner = user === null ? null : user.uid;
    const work = options.cwd ?? makePrivate(join(base, "work"), owner);
    const tmp = makePrivate(join(base, "tmp"), owner);
    const where = {
      skill: inside ? SANDBOX_SKILL : skillDir,
      work: inside ? SANDBOX_WORK : work,
      tmp: inside ? SANDBOX_TMP : tmp,
    };
    const scriptPath = `${where.skill}/${normal}`;
    const memoryMiB = Math.max(16, Math.floor(settings.limits.memoryBytes / 1024 ** 2));
    const tools = sandboxTools();
    let command: string[];
    let interpreter: string = kind.interpreter;
    if (mode === "deno") {
      interpreter = "deno";
      const importMap = join(base, "import_map.json");
      writeFileSync(importMap, denoImportMap(denoReads(where, settings.grants)), { flag: "wx" });
      command = denoArgv(tools.deno!, scriptPath, where, settings.grants, memoryMiB, importMap);
    } else if (program === null) {
      interpreter = runtime().kind;
      const binary = inside ? `${SANDBOX_RUNTIME}/${runtime().kind}` : runtime().path;
      command = runtimeCommand(binary, scriptPath, typescript, memoryMiB);
    } else {
      command = [program, scriptPath];
    }
    command.push(...args);
    const deno = interpreter === "deno";
    const limits: Limits = {
      cpuSeconds: settings.limits.cpuSeconds,
      memoryBytes: deno ? null : settings.limits.memoryBytes,
      processes: settings.limits.processes,
      fileBytes: settings.limits.fileBytes,
    };
    const env: Record<string, string> = {
      PATH: "/usr/local/bin:/usr/bin:/bin",
      LANG: "C.UTF-8",
      HOME: where.work,
      TMPDIR: where.tmp,
      SKILL_DIR: where.skill,
      NO_COLOR: "1",
      PYTHONDONTWRITEBYTECODE: "1",
      ...(deno ? { DENO_DIR: `${where.tmp}/.deno`, DENO_NO_UPDATE_CHECK: "1" } : {}),
    };
    for (const [name, value] of settings.env) env[name] = value;
    const argv = inside
      ? bubblewrapArgv({
        tools,
        uid: owner ?? 0,
        skill: skillDir,
        work,
        // With out, the working folder stays on the host to be copied back.
        freshWork: options.cwd === undefined && options.out === undefined,
        tmp,
        ...(program === null ? { runtimeBinary: runtime().path } : {}),
        readPaths: settings.grants.readPaths,
        writePaths: settings.grants.writePaths,
        network: settings.grants.network,
        env,
        limits,
        command,
        groupWrites: user !== null &&
          (options.cwd !== undefined || settings.grants.writePaths.length > 0),
      })
      : command;
    const outcome = await cappedSpawn({
      argv,
      env,
      cwd: inside ? base : work,
      timeoutMs: settings.limits.timeoutMs,
      maxOutputChars: settings.limits.maxOutputChars,
      cgroup,
    });
    // Every process of the run is gone (the cgroup, else the process group, was killed).
    const peak = cgroup.peakMemory();
    cgroup.remove();
    const out = options.out === undefined
      ? null
      : copyOut(work, options.out, settings.limits.fileBytes);
    return Object.freeze({
      skill: skill.name,
      path: normal,
      args: Object.freeze([...args]),
      interpreter,
      sandbox: mode,
      digest,
      exit_code: outcome.exitCode,
      signal: outcome.signal,
      timed_out: outcome.timedOut,
      stdout: outcome.stdout,
      stderr: outcome.stderr,
      stdout_truncated: outcome.stdoutDropped,
      stderr_truncated: outcome.stderrDropped,
      grants: Object.freeze({
        network: settings.grants.network,
        read_paths: Object.freeze([...settings.grants.readPaths]),
        write_paths: Object.freeze([...settings.grants.writePaths]),
        env: Object.freeze([...settings.env.keys()]),
        cwd: options.cwd ?? null,
      }),
      limits: Object.freeze({
        timeout_ms: settings.limits.timeoutMs,
        ...held,
        max_output_chars: settings.limits.maxOutputChars,
      }),
      peak_memory_bytes: peak,
      out,
    });
  } finally {
    cgroup.remove();
    user?.release();
    rmSync(base, { recursive: true, force: true });
  }
}

/** Which sandbox runs the script, or why none can. */
function chooseSandbox(
  interpreter: ScriptInterpreter,
  options: RunScriptOptions,
  refuse: (code: "SANDBOX_UNAVAILABLE", message: string) => ScriptRunError,
  path: string,
): "bubblewrap" | "deno" | "none" {
  if (options.dangerouslyRunUnsandboxed === true) return "none";
  const want = options.sandbox ?? "auto";
  const tools = sandboxTools();
  const missing: string[] = [];
  if (tools.bwrap === null) missing.push("bwrap (bubblewrap)");
  if (tools.prlimit === null) missing.push("prlimit (util-linux)");
  if (isRoot() && tools.setpriv === null) missing.push("setpriv (util-linux, to leave root)");
  if (want !== "deno" && missing.length === 0) return "bubblewrap";
  const js = interpreter === "runtime";
  if (want !== "bubblewrap" && js && tools.deno !== null) return "deno";
  if (want === "deno" && !js) {
    throw refuse(
      "SANDBOX_UNAVAILABLE",
      `No sandbox to run ${JSON.stringify(path)}: Deno's permissions sandbox only JavaScript and ` +
        `TypeScript, and this script needs ${interpreter} (use the bubblewrap sandbox${
          missing.length === 0 ? "" : `, which needs ${missing.join(", ")}`
        })`,
    );
  }
  if (want === "deno") missing.splice(0, missing.length);
  if (js && want !== "bubblewrap" && tools.deno === null) missing.push("deno");
  throw refuse(
    "SANDBOX_UNAVAILABLE",
    `No sandbox to run ${JSON.stringify(path)}: ${missing.join(", ")} ${
      missing.length === 1 ? "is" : "are"
    } missing`,
  );
}

/** The lock and approval checks, on the manifest of the bytes that will run. */
async function checkTrust(
  skill: SkillBundle,
  manifest: SkillManifest,
  options: RunScriptOptions,
  refuse: (code: "NOT_APPROVED" | "LOCK_MISMATCH", message: string) => ScriptRunError,
  from: { readonly location: string | undefined; readonly origin: string; readonly uri: string },
): Promise<void> {
  // A lock and an approval of a folder cover its other entries (links, pipes …) too.
  const others = from.location === undefined || (options.lock ?? options.approvals) === undefined
    ? []
    : otherEntries({ ...skill, location: from.location });
  if (options.lock !== undefined) {
    const lock = loadLock(options.lock, options.lockBase);
    if (from.location !== undefined) {
      const mismatch = await lockMismatch(lock, from.location, manifest, others);
      if (mismatch !== null) throw refuse("LOCK_MISMATCH", mismatch.message);
    } else {
      const entry = lock.entries.get(lockKey({ origin: from.origin, uri: from.uri }));
      if (entry === undefined || entry.digest !== manifest.digest) {
        throw refuse(
          "LOCK_MISMATCH",
          `Skill ${JSON.stringify(skill.name)} ${
            entry === undefined ? "is not in the lockfile" : "differs from its lockfile entry"
          }`,
        );
      }
    }
  }
  if (options.approvals !== undefined) {
    const key = from.location ?? from.uri;
    const decision = await decideApproval(options.approvals, from.origin, key, manifest, others);
    if (decision.status !== "approved") {
      throw refuse(
        "NOT_APPROVED",
        decision.status === "needs_approval"
          ? `Skill ${JSON.stringify(skill.name)} needs approval before its scripts run`
          : `Skill ${JSON.stringify(skill.name)} changed since it was approved: ${
            approvalChanges(decision)
          }`,
      );
    }
  }
}

/** A fresh folder only the script's user may use (as root, the sandbox's user owns it). */
function makePrivate(path: string, owner: number | null): string {
  mkdirSync(path, { mode: 0o700 });
  if (owner !== null) chownSync(path, owner, SANDBOX_GID);
  return path;
}
