/**
 * A source's tree staged on disk for the skill lifecycle: the folders
 * holding a `SKILL.md` (the candidate skills) are written to a staging
 * folder with every defence against a hostile source — a skill folder is
 * refused, whole, when it holds a name with a control character or not in
 * UTF-8, a nested `.git`, a submodule, more files or bytes than a served
 * skill may have (SEP-2640's 512 files and 16 MiB), or a link that leads out
 * of it (absolute, climbing above it, or through another link). Nothing is
 * ever written outside the staging folder: files are created exclusively,
 * links only once checked. Both kinds of source share this: a git snapshot
 * (blobs read raw by `_git.ts`) and a plain folder (copied without
 * following links).
 *
 * Folder `lib/fs/lifecycle/` — the lifecycle: add, outdated, update, remove from git and folder sources.
 *
 * @module
 */
import {
  closeSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  type Stats,
  symlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { type GitOptions, type Snapshot, type TreeEntry, writeBlobs } from "./_git.ts";
import { O_NOFOLLOW, READ_FLAGS } from "../_safe_open.ts";
import type { SkillSourceCode } from "./skill_source_error.ts";
import { SkillSourceError } from "./skill_source_error.ts";

/** The most files of one skill: SEP-2640's `SKILL_LIMITS.files`, as `serve` publishes. */
export const SKILL_FILE_LIMIT = 512;
/** The most bytes of one skill: SEP-2640's `SKILL_LIMITS.bytes` (16 MiB), as `serve` publishes. */
export const SKILL_BYTE_LIMIT = 16 * 1024 * 1024;
/** The most entries of a source's tree read. */
export const SOURCE_ENTRY_LIMIT = 500_000;
/** The most bytes staged from one source, all skills together (1 GiB). */
export const SOURCE_BYTE_LIMIT = 1024 * 1024 * 1024;
/** The longest link target read. */
const LINK_TARGET_LIMIT = 4096;
const SKILL_MD_NAMES = new Set(["SKILL.md", "skill.md"]);

/** One entry of a source, whatever its kind of source. */
export interface SourceEntry {
  /** `/`-separated, relative to the source's root. */
  readonly path: string;
  readonly kind: "file" | "exec" | "link" | "dir" | "submodule" | "other";
  /** Bytes (a link: of its target's text). */
  readonly size: number;
  /** A blob's name (git) or the absolute path (a folder). */
  readonly id: string;
}

/** A skill folder of the source that was refused, and why. */
export interface Refusal {
  /** Its path in the source (`.` for the root). */
  readonly path: string;
  readonly code: SkillSourceCode;
  readonly message: string;
}

/** A source: its entries, and how to write some of them. */
export interface Source {
  readonly entries: readonly SourceEntry[];
  /** Write files (each to a new file) and read link targets. */
  write(
    files: readonly { entry: SourceEntry; to: string }[],
    links: readonly { entry: SourceEntry; got: (target: string) => void }[],
  ): Promise<void>;
}

/**
 * A git snapshot as a source.
 *
 * @param snapshot The fetched commit.
 * @param tree Its tree ({@linkcode listTree}).
 * @param options How to run git.
 * @returns The source.
 */
export function gitSource(
  snapshot: Snapshot,
  tree: readonly TreeEntry[],
  options: GitOptions,
): Source {
  const entries = tree.map((t): SourceEntry => ({
    path: t.path,
    kind: t.mode === "100755"
      ? "exec"
      : t.mode === "120000"
      ? "link"
      : t.mode === "040000"
      ? "dir"
      : t.mode === "160000"
      ? "submodule"
      : t.mode.startsWith("100")
      ? "file"
      : "other",
    size: t.size ?? 0,
    id: t.oid,
  }));
  return {
    entries,
    write: (files, links) =>
      writeBlobs(snapshot, [
        ...files.map((f) => ({
          oid: f.entry.id,
          size: f.entry.size,
          to: f.to,
          executable: f.entry.kind === "exec",
        })),
        ...links.map((l) => ({
          oid: l.entry.id,
          size: l.entry.size,
          to: (bytes: Uint8Array) => l.got(Buffer.from(bytes).toString("utf8")),
        })),
      ], options),
  };
}

/**
 * A plain folder as a source: walked without following links (`lstat`),
 * `.git` and `node_modules` listed but not entered.
 *
 * @param root The folder.
 * @returns The source.
 * @throws {SkillSourceError} `TOO_MANY_FILES` over {@linkcode SOURCE_ENTRY_LIMIT} entries.
 */
export function folderSource(root: string): Source {
  const entries: SourceEntry[] = [];
  const stack: string[] = [""];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    const names = readdirSync(rel === "" ? root : join(root, rel)).sort();
    for (const name of names) {
      const path = rel === "" ? name : `${rel}/${name}`;
      const full = join(root, path);
      const stat = lstatSync(full);
      if (entries.length === SOURCE_ENTRY_LIMIT) {
        throw new SkillSourceError(
          "TOO_MANY_FILES",
          `The source folder has over ${SOURCE_ENTRY_LIMIT} entries`,
        );
      }
      const kind = stat.isSymbolicLink()
        ? "link"
        : stat.isDirectory()
        ? "dir"
        : stat.isFile()
        ? (stat.mode & 0o111) !== 0 ? "exec" : "file"
        : "other";
      entries.push({ path, kind, size: kind === "dir" ? 0 : stat.size, id: full });
      if (kind === "dir" && name !== ".git" && name !== "node_modules") stack.push(path);
    }
  }
  return {
    entries,
    write: (files, links) => {
      for (const f of files) copyFile(f.entry, f.to);
      for (const l of links) l.got(readlinkSync(l.entry.id));
      return Promise.resolve();
    },
  };
}

/** Copy one regular file, never through a link, its size as listed. */
function copyFile(entry: SourceEntry, to: string): void {
  const src = openSync(entry.id, READ_FLAGS | O_NOFOLLOW);
  let dst: number | undefined;
  try {
    const stat: Stats = fstatSync(src);
    if (!stat.isFile() || stat.size !== entry.size) {
      throw new SkillSourceError(
        "GIT_FAILED",
        `File ${JSON.stringify(entry.path)} of the source changed while it was copied`,
      );
    }
    dst = openSync(to, "wx", entry.kind === "exec" ? 0o755 : 0o644);
    const buffer = new Uint8Array(Math.min(entry.size, 1 << 20) || 1);
    let done = 0;
    while (done < entry.size) {
      const n = readSync(src, buffer, 0, Math.min(buffer.length, entry.size - done), null);
      if (n === 0) break;
      let written = 0;
      while (written < n) written += writeSync(dst, buffer, written, n - written);
      done += n;
    }
  } finally {
    closeSync(src);
    if (dst !== undefined) closeSync(dst);
  }
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "." : path.slice(0, slash);
}

/** The candidate folders an entry lies in, innermost first. */
function candidatesOf(path: string, candidates: ReadonlySet<string>): string[] {
  const out: string[] = [];
  let at = path;
  while (at !== ".") {
    at = parentOf(at);
    if (candidates.has(at)) out.push(at);
  }
  return out;
}

/** Whether `path` lies in `folder` (`.` holds everything). */
function inside(path: string, folder: string): boolean {
  return folder === "." || path === folder || path.startsWith(`${folder}/`);
}

/** What is wrong with an entry's own name or kind, if anything. */
function entryProblem(entry: SourceEntry): { code: SkillSourceCode; why: string } | undefined {
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f\x7f\ufffd]/.test(entry.path)) {
    return { code: "CONTROL_CHARACTER", why: "a name with a control character or not in UTF-8" };
  }
  const parts = entry.path.split("/");
  if (parts.some((p) => p === "" || p === "." || p === "..")) {
    return { code: "CONTROL_CHARACTER", why: 'an empty, "." or ".." name' };
  }
  if (parts.some((p) => p.toLowerCase() === ".git")) {
    return { code: "NESTED_GIT", why: "a nested .git" };
  }
  if (entry.kind === "submodule") return { code: "SUBMODULE", why: "a submodule" };
  if (entry.kind === "link" && entry.size > LINK_TARGET_LIMIT) {
    return { code: "LINK_OUT", why: `a link whose target is over ${LINK_TARGET_LIMIT} bytes` };
  }
  return undefined;
}

/**
 * Where a link leads, as a path of the source, or undefined when it leads
 * out of the source, is absolute, or passes through another link.
 */
function linkTarget(
  link: string,
  target: string,
  links: ReadonlySet<string>,
): string | undefined {
  if (target === "" || target.startsWith("/") || target.includes("\0")) return undefined;
  const parts = parentOf(link) === "." ? [] : parentOf(link).split("/");
  for (const part of target.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(part);
    if (links.has(parts.join("/"))) return undefined;
  }
  return parts.length === 0 ? "." : parts.join("/");
}

/** What {@linkcode stageSkills} wrote. */
export interface Staged {
  /** The skill folders written, by path in the source (`.` for its root). */
  readonly folders: readonly string[];
  /** The skill folders refused, by path. */
  readonly refused: readonly Refusal[];
}

/**
 * Write a source's skill folders (those holding a `SKILL.md`, or only those
 * at `only`) into an empty staging folder, refusing each that breaks a
 * defence (see the module's doc).
 *
 * @param source The source.
 * @param stage The staging folder (it exists and is empty).
 * @param only The skill folders wanted (paths in the source); default all.
 * @returns The folders written and those refused.
 * @throws {SkillSourceError} `SKILL_TOO_LARGE` when the skills together are over {@linkcode SOURCE_BYTE_LIMIT}, or as the source's writer.
 */
export async function stageSkills(
  source: Source,
  stage: string,
  only?: readonly string[],
): Promise<Staged> {
  const wanted = only === undefined ? undefined : new Set(only);
  const candidates = new Set<string>();
  const links = new Set<string>();
  for (const e of source.entries) {
    if (e.kind === "link") links.add(e.path);
    const name = e.path.slice(e.path.lastIndexOf("/") + 1);
    if ((e.kind === "file" || e.kind === "exec") && SKILL_MD_NAMES.has(name)) {
      const folder = parentOf(e.path);
      if (wanted === undefined || wanted.has(folder)) candidates.add(folder);
    }
  }
  const refused = new Map<string, Refusal>();
  const refuse = (folder: string, code: SkillSourceCode, why: string): void => {
    if (refused.has(folder)) return;
    refused.set(folder, {
      path: folder,
      code,
      message: `Skill folder ${JSON.stringify(folder)} of the source holds ${why}`,
    });
  };
  const counts = new Map<string, { files: number; bytes: number }>();
  const kept: { entry: SourceEntry; owners: string[] }[] = [];
  for (const e of source.entries) {
    const owners = candidatesOf(e.path, candidates);
    if (owners.length === 0) continue;
    const problem = entryProblem(e);
    if (problem !== undefined) {
      for (const c of owners) {
        refuse(
          c,
          problem.code,
          `${problem.why}: ${JSON.stringify(e.path.slice(c === "." ? 0 : c.length + 1))}`,
        );
      }
      continue;
    }
    if (e.kind === "other") continue;
    if (e.kind !== "dir") {
      for (const c of owners) {
        const n = counts.get(c) ?? { files: 0, bytes: 0 };
        n.files++;
        n.bytes += e.size;
        counts.set(c, n);
      }
    }
    kept.push({ entry: e, owners });
  }
  for (const [c, n] of counts) {
    if (n.files > SKILL_FILE_LIMIT) {
      refuse(c, "TOO_MANY_FILES", `${n.files} files; a skill may have ${SKILL_FILE_LIMIT}`);
    } else if (n.bytes > SKILL_BYTE_LIMIT) {
      refuse(c, "SKILL_TOO_LARGE", `${n.bytes} bytes; a skill may have ${SKILL_BYTE_LIMIT}`);
    }
  }
  // Written: what lies in at least one folder not refused.
  const live = kept.filter((k) => k.owners.some((c) => !refused.has(c)));
  let total = 0;
  for (const k of live) total += k.entry.kind === "dir" ? 0 : k.entry.size;
  if (total > SOURCE_BYTE_LIMIT) {
    throw new SkillSourceError(
      "SKILL_TOO_LARGE",
      `The source's skills hold ${total} bytes; the limit is ${SOURCE_BYTE_LIMIT}`,
    );
  }
  const made = new Set<string>();
  const mkdir = (folder: string): void => {
    if (made.has(folder)) return;
    mkdirSync(folder === "." ? stage : join(stage, folder), { recursive: true });
    made.add(folder);
  };
  for (const c of candidates) if (!refused.has(c)) mkdir(c);
  const files: { entry: SourceEntry; to: string }[] = [];
  const linked: { entry: SourceEntry; target: string; owners: string[] }[] = [];
  for (const { entry, owners } of live) {
    if (entry.kind === "dir") mkdir(entry.path);
    else if (entry.kind === "link") linked.push({ entry, target: "", owners });
    else {
      mkdir(parentOf(entry.path));
      files.push({ entry, to: join(stage, entry.path) });
    }
  }
  await source.write(files, linked.map((l) => ({ entry: l.entry, got: (t) => (l.target = t) })));
  for (const l of linked) {
    const to = linkTarget(l.entry.path, l.target, links);
    for (const c of l.owners) {
      if (to === undefined || !inside(to, c)) {
        refuse(
          c,
          "LINK_OUT",
          `a link out of it: ${JSON.stringify(l.entry.path.slice(c === "." ? 0 : c.length + 1))}`,
        );
      }
    }
    // Made only when it stays inside the outermost folder it lies in (an inner one it leaves is refused).
    if (to !== undefined && inside(to, l.owners[l.owners.length - 1]!)) {
      mkdir(parentOf(l.entry.path));
      symlinkSync(l.target, join(stage, l.entry.path));
    }
  }
  const folders = [...candidates].filter((c) => !refused.has(c)).sort();
  return Object.freeze({
    folders: Object.freeze(folders),
    refused: Object.freeze([...refused.values()].sort((a, b) => (a.path < b.path ? -1 : 1))),
  });
}
