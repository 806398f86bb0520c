/**
 * The kinds of source the lifecycle installs from, behind one small
 * interface ({@linkcode SourceKind}): how a source's skill folders are
 * staged, what its revision is (what `update --commit` pins), and how to
 * learn the revision cheaply. A git repository's revision is its commit; a
 * plain folder's is the digest of its skill folders as staged
 * ({@linkcode stagedDigest}), computed from the copy that is installed, so
 * what was checked is what is applied. A new kind (an npm package, an
 * https archive) is one more value of the interface.
 *
 * Folder `lib/fs/lifecycle/` — the lifecycle: add, outdated, update, remove from git and folder sources.
 *
 * @module
 */
import {
  closeSync,
  existsSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
} from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import type { InstalledFrom } from "../../core/trust/installed_from.ts";
import { compareCodeUnits, sha256Digest } from "../../core/trust/digest.ts";
import { O_NOFOLLOW, READ_FLAGS } from "../_safe_open.ts";
import {
  COMMIT_PATTERN,
  dropSnapshot,
  fetchSnapshot,
  type GitOptions,
  listRemoteRefs,
  listTree,
  resolveRef,
  type Snapshot,
} from "./_git.ts";
import {
  folderSource,
  gitSource,
  type Refusal,
  SOURCE_ENTRY_LIMIT,
  stageSkills,
} from "./_source_tree.ts";
import { findNpmPackage, NPM_PREFIX, parseNpmSource, SKILLS_FOLDER } from "./_npm.ts";
import { SkillSourceError } from "./skill_source_error.ts";
import {
  fetchWellKnown,
  isWellKnownUrl,
  type WebOptions,
  wellKnownBase,
  writeWellKnown,
} from "./_well_known.ts";

/** A source as a command or a lock entry names it. */
export interface SourceRef {
  /** A git URL or local repository, or a folder's absolute path. */
  readonly url: string;
  /** A branch, tag or commit (git only); default the remote's `HEAD`. */
  readonly ref?: string;
}

/** A source's skill folders, staged. */
export interface StagedSource {
  /** The staged copy of the source's tree (its skill folders only). */
  readonly tree: string;
  /** The source's revision: the commit (git) or the digest of its skill folders (a folder). */
  readonly revision: string;
  /** The skill folders staged, by path in the source. */
  readonly folders: readonly string[];
  /** The skill folders refused, and why. */
  readonly refused: readonly Refusal[];
  /** An npm package's version and integrity, as installed. */
  readonly package?: { readonly version: string; readonly integrity?: string };
}

/** How to run git, the project an npm package is found from (default the working folder), how to fetch a well-known source. */
export interface SourceOptions extends GitOptions {
  readonly cwd?: string;
  readonly web?: WebOptions;
}

/** What a lock entry records of a staging. */
export type Revision = Pick<StagedSource, "revision" | "package">;

/** The refs of each URL asked this run (one `git ls-remote` per URL). */
export type RefCache = Map<string, Promise<ReadonlyMap<string, string>>>;

/** A kind of source. */
export interface SourceKind {
  /** Its name, as reported. */
  readonly name: "git" | "folder" | "npm" | "web";
  /** Whether a new revision is taken only when the user names it (a host that publishes no digest). */
  readonly pinned: boolean;
  /**
   * Stage the source's skill folders (those at `only`, or all) into `into`
   * (an empty folder), at `from.ref`.
   *
   * @throws {SkillSourceError} `SOURCE_MOVED` when the revision is not `expect`, or as fetching and staging do.
   */
  stage(
    from: SourceRef,
    into: string,
    only: readonly string[] | undefined,
    options: SourceOptions,
    expect?: string,
  ): Promise<StagedSource>;
  /** The revision the source is at now without staging it, or undefined when only staging tells. */
  peek(from: SourceRef, options: GitOptions, cache: RefCache): Promise<string | undefined>;
  /** Where a skill came from, as staged. */
  record(from: SourceRef & { readonly path: string }, staged: Revision): InstalledFrom;
  /** The revision an `installed_from` records (undefined: a lockfile from before folder digests). */
  revision(from: InstalledFrom): string | undefined;
}

function moved(url: string, at: string, expect: string): SkillSourceError {
  return new SkillSourceError(
    "SOURCE_MOVED",
    `Source ${JSON.stringify(url)} moved: it is at ${at}, not ${expect}`,
  );
}

/** A git repository: the revision is the commit its ref names. */
export const gitKind: SourceKind = Object.freeze({
  name: "git" as const,
  pinned: false,
  async stage(
    from: SourceRef,
    into: string,
    only: readonly string[] | undefined,
    options: SourceOptions,
    expect?: string,
  ): Promise<StagedSource> {
    let snapshot: Snapshot | undefined;
    try {
      snapshot = await fetchSnapshot(from.url, from.ref, options);
      if (expect !== undefined && snapshot.commit !== expect) {
        throw moved(from.url, `${from.ref ?? "HEAD"} ${snapshot.commit}`, expect);
      }
      const source = gitSource(
        snapshot,
        await listTree(snapshot, options, SOURCE_ENTRY_LIMIT),
        options,
      );
      const staged = await stageSkills(source, into, only);
      return Object.freeze({ tree: into, revision: snapshot.commit, ...staged });
    } finally {
      if (snapshot !== undefined) dropSnapshot(snapshot);
    }
  },
  async peek(from: SourceRef, options: GitOptions, cache: RefCache): Promise<string> {
    if (from.ref !== undefined && COMMIT_PATTERN.test(from.ref)) return from.ref;
    let refs = cache.get(from.url);
    if (refs === undefined) {
      refs = listRemoteRefs(from.url, options);
      refs.catch(() => {}); // awaited by each skill of the URL
      cache.set(from.url, refs);
    }
    const commit = resolveRef(await refs, from.ref);
    if (commit === undefined) {
      throw new SkillSourceError(
        "REF_NOT_FOUND",
        `Source ${JSON.stringify(from.url)} has no ref ${JSON.stringify(from.ref ?? "HEAD")}`,
      );
    }
    return commit;
  },
  record(from: SourceRef & { readonly path: string }, staged: Revision): InstalledFrom {
    return Object.freeze({
      url: from.url,
      ...from.ref === undefined ? {} : { ref: from.ref },
      commit: staged.revision,
      path: from.path,
    });
  },
  revision: (from: InstalledFrom): string | undefined => from.commit,
});

/** Refuse a ref for a source that has none: `what` says what the source is instead. */
function refuseRef(from: SourceRef, what: string): void {
  if (from.ref === undefined) return;
  throw new SkillSourceError(
    "REF_NOT_FOUND",
    `Source ${JSON.stringify(from.url)} is ${what}: it has no ref ${JSON.stringify(from.ref)}`,
  );
}

/** What the kinds whose revision is a digest of what they stage share: nothing to peek, the digest recorded. */
const BY_DIGEST = Object.freeze({
  peek: (): Promise<undefined> => Promise.resolve(undefined),
  record(from: SourceRef & { readonly path: string }, staged: Revision): InstalledFrom {
    return Object.freeze({ url: from.url, digest: staged.revision, path: from.path });
  },
  revision: (from: InstalledFrom): string | undefined => from.digest,
});

/** A plain folder: copied without following links; the revision is the digest of its skill folders. */
export const folderKind: SourceKind = Object.freeze({
  name: "folder" as const,
  pinned: false,
  async stage(
    from: SourceRef,
    into: string,
    _only: readonly string[] | undefined,
    _options: GitOptions,
    expect?: string,
  ): Promise<StagedSource> {
    refuseRef(from, "a folder, not a git repository");
    if (!existsSync(from.url)) {
      throw new SkillSourceError("NO_SKILL", `Source folder ${JSON.stringify(from.url)} is gone`);
    }
    // Every skill folder, whatever is asked: the revision covers them all.
    const staged = await stageSkills(folderSource(from.url), into, undefined);
    const revision = await stagedDigest(into, staged.refused);
    if (expect !== undefined && revision !== expect) {
      throw moved(from.url, `its skills' digest ${revision}`, expect);
    }
    return Object.freeze({ tree: into, revision, ...staged });
  },
  ...BY_DIGEST,
});

/**
 * An npm package installed in the project (see `_npm.ts`): the revision is
 * the digest of its skill folders as staged, as a folder's; the lock entry
 * records the package's version and integrity beside it.
 */
export const npmKind: SourceKind = Object.freeze({
  name: "npm" as const,
  pinned: false,
  async stage(
    from: SourceRef,
    into: string,
    _only: readonly string[] | undefined,
    options: SourceOptions,
    expect?: string,
  ): Promise<StagedSource> {
    refuseRef(from, "an npm package installed in the project");
    const pkg = findNpmPackage(parseNpmSource(from.url), resolve(options.cwd ?? process.cwd()));
    const staged = await stageSkills(folderSource(join(pkg.root, pkg.folder)), into, undefined);
    const revision = await stagedDigest(into, staged.refused);
    if (expect !== undefined && revision !== expect) {
      throw moved(from.url, `its skills' digest ${revision}`, expect);
    }
    const installed = {
      version: pkg.version,
      ...pkg.integrity === undefined ? {} : { integrity: pkg.integrity },
    };
    return Object.freeze({ tree: into, revision, ...staged, package: Object.freeze(installed) });
  },
  peek: BY_DIGEST.peek,
  record(from: SourceRef & { readonly path: string }, staged: Revision): InstalledFrom {
    return Object.freeze({
      url: from.url,
      ...staged.package === undefined ? {} : { version: staged.package.version },
      ...staged.package?.integrity === undefined ? {} : { integrity: staged.package.integrity },
      digest: staged.revision,
      path: from.path,
    });
  },
  revision: BY_DIGEST.revision,
});

/**
 * Skills at a well-known location over HTTPS (see `_well_known.ts`): the
 * revision is the digest of the index and every file, and, as the layout
 * publishes no digest, the user pins it (`pinned`): every file is fetched
 * and the digest checked against `expect` before anything is written.
 */
export const webKind: SourceKind = Object.freeze({
  name: "web" as const,
  pinned: true,
  async stage(
    from: SourceRef,
    into: string,
    _only: readonly string[] | undefined,
    options: SourceOptions,
    expect?: string,
  ): Promise<StagedSource> {
    refuseRef(from, "a well-known location, not a git repository");
    const web = {
      ...options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs },
      ...options.web,
    };
    const base = wellKnownBase(from.url, web);
    // Every skill, whatever is asked: the revision covers them all.
    const source = await fetchWellKnown(base, web);
    if (expect !== undefined && source.revision !== expect) {
      throw new SkillSourceError(
        "DIGEST_MISMATCH",
        `Source ${
          JSON.stringify(base)
        } serves skills whose digest is ${source.revision}, not ${expect}`,
      );
    }
    writeWellKnown(source, into);
    return Object.freeze({
      tree: into,
      revision: source.revision,
      folders: Object.freeze(source.skills.map((s) => s.name)),
      refused: Object.freeze([]),
    });
  },
  ...BY_DIGEST,
});

/** The kind of source a lock entry's `installed_from` names: a commit is git, `npm:` npm, an http(s) URL web, else a folder. */
export function kindOf(from: InstalledFrom): SourceKind {
  return from.commit !== undefined
    ? gitKind
    : from.url.startsWith(NPM_PREFIX)
    ? npmKind
    : /^https?:\/\//i.test(from.url)
    ? webKind
    : folderKind;
}

/** A local folder that is a git repository (a work tree or a bare one). */
function isGitFolder(path: string): boolean {
  return existsSync(join(path, ".git")) ||
    (existsSync(join(path, "HEAD")) && existsSync(join(path, "objects")) &&
      existsSync(join(path, "refs")));
}

/**
 * A source as given on the command line: `npm:<package>[/<path>]`, a local
 * folder (git or plain, by its absolute path), a well-known location
 * (`https://<host>[/<path>]` off github.com, gitlab.com and huggingface.co,
 * not ending `.git`: recorded as its base URL) or a URL git takes.
 *
 * @param source What was given.
 * @param cwd The folder a relative path is read from.
 * @returns Its kind and URL.
 */
export function sourceOf(source: string, cwd: string): { kind: SourceKind; url: string } {
  if (source.startsWith(NPM_PREFIX)) {
    const spec = parseNpmSource(source);
    return {
      kind: npmKind,
      url: source === `${NPM_PREFIX}${spec.name}/${SKILLS_FOLDER}`
        ? `${NPM_PREFIX}${spec.name}`
        : source,
    };
  }
  if (isWellKnownUrl(source)) {
    let url = source;
    try {
      // Only its spelling here: the scheme is checked, with the caller's options, when staged.
      url = wellKnownBase(source, { allowLoopbackHttp: true });
    } catch {
      url = source; // refused, with its reason, when staged
    }
    return { kind: webKind, url };
  }
  const local = resolve(cwd, source);
  let folder = false;
  try {
    folder = statSync(local).isDirectory();
  } catch {
    folder = false;
  }
  if (folder) return { kind: isGitFolder(local) ? gitKind : folderKind, url: local };
  return { kind: gitKind, url: source };
}

/** A file's bytes, read without following a link. */
function readBytes(path: string): Uint8Array {
  const fd = openSync(path, READ_FLAGS | O_NOFOLLOW);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The digest of a staged tree: one line per entry in code-unit order of
 * its path — a folder, a file (executable or not) with its content's
 * digest, a link with its target — and one per refused skill folder, all
 * hashed together.
 *
 * @param tree The staged tree.
 * @param refused The skill folders refused while staging.
 * @returns `sha256:<hex>`.
 */
export async function stagedDigest(tree: string, refused: readonly Refusal[]): Promise<string> {
  const lines: string[] = [];
  const stack: string[] = [""];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    for (const name of readdirSync(rel === "" ? tree : join(tree, rel))) {
      const path = rel === "" ? name : `${rel}/${name}`;
      const full = join(tree, path);
      const stat = lstatSync(full);
      if (stat.isSymbolicLink()) {
        lines.push(`l ${JSON.stringify(path)} ${JSON.stringify(readlinkSync(full))}`);
      } else if (stat.isDirectory()) {
        lines.push(`d ${JSON.stringify(path)}`);
        stack.push(path);
      } else {
        const kind = (stat.mode & 0o111) !== 0 ? "x" : "f";
        lines.push(`${kind} ${JSON.stringify(path)} ${await sha256Digest(readBytes(full))}`);
      }
    }
  }
  for (const r of refused) lines.push(`r ${JSON.stringify(r.path)} ${r.code}`);
  const keyOf = (line: string): string => line.slice(2);
  lines.sort((a, b) => compareCodeUnits(keyOf(a), keyOf(b)) || compareCodeUnits(a, b));
  return await sha256Digest(new TextEncoder().encode(lines.join("\n")));
}
