/**
 * The git plumbing of the skill lifecycle, built so that nothing from a
 * source runs: every `git` starts with no system or global configuration
 * (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`, so no user filter
 * driver, hook path or credential helper), hooks pointed at `/dev/null`, no
 * attributes file, only the `file`, `git`, `ssh`, `http` and `https`
 * transports (no `ext::` or other remote helper), no prompt, no LFS smudge,
 * no submodules, objects checked on receipt (`fetch.fsckObjects`). A source
 * is fetched into a fresh bare repository at depth 1, never checked out:
 * its tree is listed with `ls-tree` and its blobs read raw with one
 * `cat-file --batch`, so no `.gitattributes` filter, `ident` or `eol` rule
 * applies. Each run has a timeout and capped output ({@linkcode cappedSpawn}).
 *
 * Folder `lib/fs/lifecycle/` — the lifecycle: add, outdated, update, remove from git and folder sources.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { Buffer } from "node:buffer";
import { cappedSpawn } from "../scripts/_capped_spawn.ts";
import { SkillSourceError } from "./skill_source_error.ts";

/** How to run git. */
export interface GitOptions {
  /** The git program; default `git` on the `PATH`. */
  readonly git?: string;
  /** Milliseconds one git run may take (a fetch over the network); default 300,000. */
  readonly timeoutMs?: number;
}

/** A full commit name (SHA-1 or SHA-256). */
export const COMMIT_PATTERN: RegExp = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** The configuration every git run gets on its command line. */
const SAFE_CONFIG = [
  "core.hooksPath=/dev/null",
  "core.attributesFile=/dev/null",
  "core.fsmonitor=false",
  "protocol.allow=never",
  "protocol.file.allow=always",
  "protocol.git.allow=always",
  "protocol.ssh.allow=always",
  "protocol.http.allow=always",
  "protocol.https.allow=always",
  "submodule.recurse=false",
  "fetch.recurseSubmodules=false",
  "fetch.fsckObjects=true",
  "credential.helper=",
].flatMap((c) => ["-c", c]);

/** The variables passed on from the host: the program path, the home folder (for ssh), proxies and the ssh agent. */
const PASSED = ["PATH", "HOME", "SSH_AUTH_SOCK", "http_proxy", "https_proxy", "no_proxy"];

function gitEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED) {
    for (const n of [name, name.toUpperCase()]) {
      const value = process.env[n];
      if (value !== undefined) env[n] = value;
    }
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_LFS_SKIP_SMUDGE: "1",
    GIT_ASKPASS: "/bin/false",
    SSH_ASKPASS: "/bin/false",
    LC_ALL: "C",
  };
}

/**
 * Refuse a URL or ref that git would read as an option, a remote helper
 * (`ext::sh -c …`, `fd::…`) or a refspec.
 *
 * @param url The source's URL or path.
 * @param ref The ref asked for, if any.
 * @throws {SkillSourceError} `UNSAFE_SOURCE`.
 */
export function checkSource(url: string, ref: string | undefined): void {
  // deno-lint-ignore no-control-regex
  if (url === "" || url.startsWith("-") || url.includes("::") || /[\x00-\x1f\x7f]/.test(url)) {
    throw new SkillSourceError(
      "UNSAFE_SOURCE",
      `Source ${
        JSON.stringify(url)
      } is refused: it is empty, starts with "-", names a remote helper ("::") or holds a control character`,
    );
  }
  if (
    ref !== undefined &&
    (!/^[A-Za-z0-9._/+-]+$/.test(ref) || ref.startsWith("-") || ref.includes(".."))
  ) {
    throw new SkillSourceError(
      "UNSAFE_SOURCE",
      `Ref ${
        JSON.stringify(ref)
      } is refused: a ref is letters, digits and "._/+-", not starting with "-"`,
    );
  }
}

/**
 * Run git with the safe configuration.
 *
 * @param args Its arguments (after the `-c` settings).
 * @param cwd Its working folder.
 * @param options The program and timeout.
 * @param maxOutputChars The characters of stdout kept.
 * @returns Its stdout, and whether some was left out.
 * @throws {SkillSourceError} `GIT_MISSING` or `GIT_FAILED`.
 */
export async function runGit(
  args: readonly string[],
  cwd: string,
  options: GitOptions = {},
  maxOutputChars = 1 << 20,
): Promise<{ stdout: string; dropped: number }> {
  const git = options.git ?? "git";
  const run = await cappedSpawn({
    argv: [git, ...SAFE_CONFIG, ...args],
    env: gitEnv(),
    cwd,
    timeoutMs: options.timeoutMs ?? 300_000,
    maxOutputChars,
  });
  if (run.exitCode === 127 && run.stderr.startsWith(`Cannot start ${git}`)) {
    throw new SkillSourceError(
      "GIT_MISSING",
      `The git program ${
        JSON.stringify(git)
      } cannot be started: add, outdated and update need git installed`,
    );
  }
  if (run.timedOut) {
    throw new SkillSourceError(
      "GIT_FAILED",
      `git ${args[0]} took over ${options.timeoutMs ?? 300_000} ms`,
    );
  }
  if (run.exitCode !== 0) {
    const why = run.stderr.trim().split("\n").slice(-3).join("; ").slice(0, 500);
    throw new SkillSourceError(
      /couldn't find remote ref|not our ref|unadvertised object/i.test(why)
        ? "REF_NOT_FOUND"
        : "GIT_FAILED",
      `git ${args[0]} failed (exit ${run.exitCode ?? run.signal}): ${why}`,
    );
  }
  return { stdout: run.stdout, dropped: run.stdoutDropped };
}

/**
 * A source's refs, by one `git ls-remote`.
 *
 * @param url The source.
 * @param options How to run git.
 * @returns Each ref's name (`HEAD`, `refs/heads/main`, `refs/tags/v1^{}` …) and commit.
 * @throws {SkillSourceError} `GIT_MISSING`, `GIT_FAILED`, `UNSAFE_SOURCE`.
 */
export async function listRemoteRefs(
  url: string,
  options: GitOptions = {},
): Promise<ReadonlyMap<string, string>> {
  checkSource(url, undefined);
  const { stdout, dropped } = await runGit(["ls-remote", url], tmpdir(), options, 16 << 20);
  if (dropped > 0) {
    throw new SkillSourceError("GIT_FAILED", `The refs of ${JSON.stringify(url)} are over 16 MiB`);
  }
  const refs = new Map<string, string>();
  for (const line of stdout.split("\n")) {
    const tab = line.indexOf("\t");
    if (tab > 0) refs.set(line.slice(tab + 1), line.slice(0, tab));
  }
  return refs;
}

/**
 * The commit a ref names among a source's refs: the remote's `HEAD` when
 * there is no ref, a full commit name itself, else a branch, then a tag
 * (peeled), then a full ref name.
 *
 * @param refs What {@linkcode listRemoteRefs} returned.
 * @param ref The ref asked for.
 * @returns The commit, or undefined when the source has no such ref.
 */
export function resolveRef(
  refs: ReadonlyMap<string, string>,
  ref: string | undefined,
): string | undefined {
  if (ref === undefined) return refs.get("HEAD");
  if (COMMIT_PATTERN.test(ref)) return ref;
  return refs.get(`refs/heads/${ref}`) ?? refs.get(`refs/tags/${ref}^{}`) ??
    refs.get(`refs/tags/${ref}`) ?? (ref.startsWith("refs/") ? refs.get(ref) : undefined);
}

/** A source fetched into a temporary bare repository. */
export interface Snapshot {
  /** The bare repository (remove it with {@linkcode dropSnapshot}). */
  readonly dir: string;
  /** The commit fetched. */
  readonly commit: string;
}

/**
 * Fetch one commit of a source, at depth 1, into a fresh bare repository.
 *
 * @param url The source.
 * @param ref A branch, tag or full commit name; default the remote's `HEAD`.
 * @param options How to run git.
 * @returns The repository and the commit.
 * @throws {SkillSourceError} `UNSAFE_SOURCE`, `REF_NOT_FOUND`, `GIT_MISSING`, `GIT_FAILED`.
 */
export async function fetchSnapshot(
  url: string,
  ref: string | undefined,
  options: GitOptions = {},
): Promise<Snapshot> {
  checkSource(url, ref);
  const dir = mkdtempSync(join(tmpdir(), "skillset-git-"));
  try {
    await runGit(["init", "--quiet", "--bare", dir], dir, options);
    await runGit(
      [
        "-C",
        dir,
        "fetch",
        "--quiet",
        "--depth=1",
        "--no-tags",
        "--no-recurse-submodules",
        url,
        ref ?? "HEAD",
      ],
      dir,
      options,
    );
    const { stdout } = await runGit(
      ["-C", dir, "rev-parse", "--verify", "FETCH_HEAD^{commit}"],
      dir,
      options,
    );
    const commit = stdout.trim();
    if (!COMMIT_PATTERN.test(commit)) {
      throw new SkillSourceError("GIT_FAILED", `git rev-parse gave ${JSON.stringify(commit)}`);
    }
    return Object.freeze({ dir, commit });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/**
 * Remove a snapshot's repository.
 *
 * @param snapshot The snapshot.
 */
export function dropSnapshot(snapshot: Snapshot): void {
  rmSync(snapshot.dir, { recursive: true, force: true });
}

/** One entry of a commit's tree. */
export interface TreeEntry {
  /** `100644`, `100755`, `120000` (a link), `040000` (a folder) or `160000` (a submodule). */
  readonly mode: string;
  /** The object's name. */
  readonly oid: string;
  /** A blob's size in bytes; undefined for a folder or submodule. */
  readonly size: number | undefined;
  /** The path, `/`-separated, as git stores it (a name that is not UTF-8 holds U+FFFD). */
  readonly path: string;
}

/**
 * Every entry of a commit's tree, folders included.
 *
 * @param snapshot The snapshot.
 * @param options How to run git.
 * @param maxEntries The most entries accepted.
 * @returns The entries, in git's order.
 * @throws {SkillSourceError} `TOO_MANY_FILES` over `maxEntries` (or 64 MiB of listing), or as {@linkcode runGit}.
 */
export async function listTree(
  snapshot: Snapshot,
  options: GitOptions,
  maxEntries: number,
): Promise<readonly TreeEntry[]> {
  const { stdout, dropped } = await runGit(
    ["-C", snapshot.dir, "ls-tree", "-r", "-t", "-l", "-z", "--full-tree", snapshot.commit],
    snapshot.dir,
    options,
    64 << 20,
  );
  const tooMany = () =>
    new SkillSourceError(
      "TOO_MANY_FILES",
      `The source's tree at ${snapshot.commit} has over ${maxEntries} entries`,
    );
  if (dropped > 0) throw tooMany();
  const out: TreeEntry[] = [];
  for (const record of stdout.split("\0")) {
    if (record === "") continue;
    if (out.length === maxEntries) throw tooMany();
    const tab = record.indexOf("\t");
    const [mode = "", , oid = "", size = "-"] = record.slice(0, tab).split(/ +/);
    out.push({
      mode,
      oid,
      size: size === "-" ? undefined : Number(size),
      path: record.slice(tab + 1),
    });
  }
  return out;
}

/** A blob to write to a new file. */
export interface BlobTarget {
  /** The blob. */
  readonly oid: string;
  /** Its size, as listed (checked again as read). */
  readonly size: number;
  /** The file to create (it must not exist), or a function given the bytes (a link's target). */
  readonly to: string | ((bytes: Uint8Array) => void);
  /** Whether the file is executable. */
  readonly executable?: boolean;
}

/**
 * Write blobs, read raw (no filter, no conversion) by one `git cat-file
 * --batch`, each straight to its file as it arrives: memory stays one chunk
 * whatever the sizes.
 *
 * @param snapshot The snapshot.
 * @param blobs The blobs and where each goes.
 * @param options How to run git.
 * @throws {SkillSourceError} `GIT_MISSING`, `GIT_FAILED` (a blob missing, of another size, or git failing).
 */
export function writeBlobs(
  snapshot: Snapshot,
  blobs: readonly BlobTarget[],
  options: GitOptions = {},
): Promise<void> {
  if (blobs.length === 0) return Promise.resolve();
  const git = options.git ?? "git";
  return new Promise((resolve, reject) => {
    const child = spawn(git, [...SAFE_CONFIG, "-C", snapshot.dir, "cat-file", "--batch"], {
      cwd: snapshot.dir,
      env: gitEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let index = 0;
    let header = Buffer.alloc(0);
    let left = -1; // bytes of the current blob still to come; -1: reading a header
    let fd: number | undefined;
    let held: Buffer[] = [];
    let failure: SkillSourceError | undefined;
    let stderr = "";
    const fail = (message: string): void => {
      failure ??= new SkillSourceError("GIT_FAILED", message);
      child.kill("SIGKILL");
    };
    const timer = setTimeout(
      () => fail(`git cat-file took over ${options.timeoutMs ?? 300_000} ms`),
      options.timeoutMs ?? 300_000,
    );
    const closeFd = (): void => {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    };
    const startBlob = (line: string): void => {
      const blob = blobs[index]!;
      const [oid, type, size] = line.split(" ");
      if (oid !== blob.oid || type !== "blob" || Number(size) !== blob.size) {
        fail(
          `git cat-file answered ${
            JSON.stringify(line)
          } for blob ${blob.oid} of ${blob.size} bytes`,
        );
        return;
      }
      left = blob.size;
      held = [];
      if (typeof blob.to === "string") {
        fd = openSync(blob.to, "wx", blob.executable === true ? 0o755 : 0o644);
      }
    };
    const endBlob = (): void => {
      const blob = blobs[index]!;
      closeFd();
      if (typeof blob.to === "function") blob.to(Buffer.concat(held));
      held = [];
      index++;
    };
    child.stdout.on("data", (chunk: Buffer) => {
      try {
        let at = 0;
        while (at < chunk.length && failure === undefined) {
          if (left === -1) {
            const nl = chunk.indexOf(10, at);
            if (nl === -1) {
              header = Buffer.concat([header, chunk.subarray(at)]);
              if (header.length > 200) fail("git cat-file wrote a header over 200 bytes");
              return;
            }
            const line = Buffer.concat([header, chunk.subarray(at, nl)]).toString("latin1");
            header = Buffer.alloc(0);
            at = nl + 1;
            if (index >= blobs.length) {
              fail("git cat-file wrote more than was asked");
              return;
            }
            startBlob(line);
          } else if (left > 0) {
            const piece = chunk.subarray(at, at + Math.min(left, chunk.length - at));
            if (fd !== undefined) {
              let written = 0;
              while (written < piece.length) {
                written += writeSync(fd, piece, written, piece.length - written);
              }
            } else held.push(Buffer.from(piece));
            left -= piece.length;
            at += piece.length;
          } else {
            // The line feed after the blob's bytes.
            if (chunk[at] !== 10) {
              fail("git cat-file wrote no line feed after a blob");
              return;
            }
            at++;
            left = -1;
            endBlob();
          }
        }
      } catch (e) {
        fail(`Cannot write a file of the source: ${e instanceof Error ? e.message : String(e)}`);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString("utf8");
    });
    child.stdin.on("error", () => {
      // git ended early: its exit says why.
    });
    child.on("error", (e: Error) => {
      clearTimeout(timer);
      closeFd();
      reject(
        new SkillSourceError(
          "GIT_MISSING",
          `The git program ${
            JSON.stringify(git)
          } cannot be started: add, outdated and update need git installed`,
          { cause: e },
        ),
      );
    });
    child.on("close", (code: number | null) => {
      clearTimeout(timer);
      closeFd();
      if (failure !== undefined) reject(failure);
      else if (code !== 0) {
        reject(
          new SkillSourceError(
            "GIT_FAILED",
            `git cat-file failed (exit ${code}): ${stderr.trim().slice(0, 500)}`,
          ),
        );
      } else if (index !== blobs.length) {
        reject(
          new SkillSourceError(
            "GIT_FAILED",
            `git cat-file wrote ${index} of ${blobs.length} blobs`,
          ),
        );
      } else resolve();
    });
    child.stdin.end(blobs.map((b) => `${b.oid}\n`).join(""));
  });
}
