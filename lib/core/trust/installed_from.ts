/**
 * Where a skill installed by `skillset add` came from, as its lock entry
 * records it (`installed_from`): written on one line in a fixed order,
 * read strictly.
 *
 * Folder `lib/core/trust/` — trust as data: digests, manifests, lockfiles, approvals, pins, SSH signatures.
 *
 * @module
 */
import type { FieldReader } from "./trust_file.ts";

/**
 * Where an installed skill came from (`skillset add`): a git repository at a
 * ref and resolved commit, or a folder at a content digest (no ref, no
 * commit), and the skill folder's path inside it. The commit or the digest
 * is the source's revision: what `update --commit` pins.
 */
export interface InstalledFrom {
  /** The repository's URL as git takes it, or the source folder's absolute path. */
  readonly url: string;
  /** The ref asked for (a branch, a tag or a commit); absent for the remote's `HEAD` or a folder. */
  readonly ref?: string;
  /** The commit installed (40 or 64 lowercase hexadecimal digits); absent for a folder. */
  readonly commit?: string;
  /** A folder or npm source's revision: the digest of its skill folders as installed (`sha256:<hex>`); absent for git. */
  readonly digest?: string;
  /** An npm source's package version, as installed (`npm:` URLs only). */
  readonly version?: string;
  /** An npm source's integrity, as the package lock records it for that version (`npm:` URLs only). */
  readonly integrity?: string;
  /** The skill folder inside the source, `/`-separated (`.` for its root). */
  readonly path: string;
}

const COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
/** An npm package's version: 1 to 256 printable ASCII characters, no space. */
export const PACKAGE_VERSION_PATTERN: RegExp = /^[\x21-\x7e]{1,256}$/;
/** An integrity as npm's locks write it (Subresource Integrity, one hash). */
export const INTEGRITY_PATTERN: RegExp = /^sha(?:1|256|384|512)-[A-Za-z0-9+/]+={0,2}$/;

/**
 * `installed_from` on one line, its fields in a fixed order, absent ones left out.
 *
 * @param from Where a skill came from.
 * @returns The JSON text.
 */
export function renderFrom(from: InstalledFrom): string {
  const fields = [`"url": ${JSON.stringify(from.url)}`];
  if (from.ref !== undefined) fields.push(`"ref": ${JSON.stringify(from.ref)}`);
  if (from.commit !== undefined) fields.push(`"commit": ${JSON.stringify(from.commit)}`);
  if (from.version !== undefined) fields.push(`"version": ${JSON.stringify(from.version)}`);
  if (from.integrity !== undefined) fields.push(`"integrity": ${JSON.stringify(from.integrity)}`);
  if (from.digest !== undefined) fields.push(`"digest": ${JSON.stringify(from.digest)}`);
  fields.push(`"path": ${JSON.stringify(from.path)}`);
  return `{ ${fields.join(", ")} }`;
}

/**
 * The `installed_from` of a skill entry: `url` and `ref` (non-empty
 * strings), `commit` (a full hexadecimal object name) or `digest` (a folder
 * source's `sha256:<hex>`, never beside a ref or commit), `path` (`.` or a
 * relative `/`-separated path without `.`, `..` or empty parts); nothing else.
 *
 * @param r The lockfile's reader.
 * @param o The skill entry.
 * @param what The skill, in errors.
 * @returns The checked value.
 * @throws {TrustFileError} `INVALID_FIELD`.
 */
export function installedFromOf(
  r: FieldReader,
  o: Extract<ReturnType<FieldReader["root"]>, { kind: "object" }>,
  what: string,
): InstalledFrom {
  const node = o.entries.get("installed_from")!.node;
  const from = r.object(node, `the "installed_from" of ${what}`, [
    "url",
    "ref",
    "commit",
    "digest",
    "version",
    "integrity",
    "path",
  ]);
  const where = `"installed_from" of ${what}`;
  const url = r.string(from, "url", where)!;
  const ref = r.string(from, "ref", where, true);
  const commit = r.string(from, "commit", where, true);
  const digest = r.string(from, "digest", where, true);
  const version = r.string(from, "version", where, true);
  const integrity = r.string(from, "integrity", where, true);
  const path = r.string(from, "path", where)!;
  const bad = (at: number, reason: string) => r.error("INVALID_FIELD", at, reason);
  if (commit !== undefined && !COMMIT.test(commit.value)) {
    throw bad(
      commit.offset,
      `Field "commit" of the ${where} must be 40 or 64 lowercase hexadecimal digits`,
    );
  }
  if (digest !== undefined && !DIGEST.test(digest.value)) {
    throw bad(
      digest.offset,
      `Field "digest" of the ${where} must be "sha256:" and 64 lowercase hexadecimal digits`,
    );
  }
  if (digest !== undefined && (commit !== undefined || ref !== undefined)) {
    throw bad(
      digest.offset,
      `Field "digest" of the ${where} is a folder source's revision: it takes no "ref" or "commit"`,
    );
  }
  for (
    const [key, got, pattern] of [
      ["version", version, PACKAGE_VERSION_PATTERN],
      ["integrity", integrity, INTEGRITY_PATTERN],
    ] as const
  ) {
    if (got === undefined) continue;
    if (!url.value.startsWith("npm:") || digest === undefined) {
      throw bad(
        got.offset,
        `Field ${
          JSON.stringify(key)
        } of the ${where} belongs to an npm source: it takes an "npm:" URL and a "digest"`,
      );
    }
    if (!pattern.test(got.value)) {
      throw bad(
        got.offset,
        `Field ${JSON.stringify(key)} of the ${where} is malformed: ${JSON.stringify(got.value)}`,
      );
    }
  }
  if (
    path.value !== "." &&
    path.value.split("/").some((part) => part === "" || part === "." || part === "..")
  ) {
    throw bad(
      path.offset,
      `Field "path" of the ${where} must be "." or a relative path, got ${
        JSON.stringify(path.value)
      }`,
    );
  }
  return Object.freeze({
    url: url.value,
    ...ref === undefined ? {} : { ref: ref.value },
    ...commit === undefined ? {} : { commit: commit.value },
    ...digest === undefined ? {} : { digest: digest.value },
    ...version === undefined ? {} : { version: version.value },
    ...integrity === undefined ? {} : { integrity: integrity.value },
    path: path.value,
  });
}

/**
 * Where `skillset add --agent` put an installed skill for an agent: a link
 * to the canonical folder, or a copy of it. The lifecycle acts on a target
 * only when its path is the one the agent table gives for the skill's name
 * and scope; the lockfile's word alone steers nothing.
 */
export interface InstallTarget {
  /** The agent's name, as `--agent` takes it. */
  readonly agent: string;
  /** The target folder, relative to the lockfile's folder, `/`-separated. */
  readonly path: string;
  /** `link` (a relative link to the canonical folder) or `copy`. */
  readonly mode: "link" | "copy";
}

/**
 * The `targets` of an entry on one line, each in a fixed field order.
 *
 * @param targets The targets.
 * @returns The JSON text.
 */
export function renderTargets(targets: readonly InstallTarget[]): string {
  return `[${
    targets.map((t) =>
      `{ "agent": ${JSON.stringify(t.agent)}, "path": ${JSON.stringify(t.path)}, "mode": ${
        JSON.stringify(t.mode)
      } }`
    ).join(", ")
  }]`;
}

/**
 * The `targets` of a skill entry: objects of `agent` (a lowercase name),
 * `path` (a non-empty `/`-separated path) and `mode` (`link` or `copy`);
 * nothing else, no agent twice.
 *
 * @param r The lockfile's reader.
 * @param o The skill entry.
 * @param what The skill, in errors.
 * @returns The checked targets.
 * @throws {TrustFileError} `INVALID_FIELD`.
 */
export function targetsOf(
  r: FieldReader,
  o: Extract<ReturnType<FieldReader["root"]>, { kind: "object" }>,
  what: string,
): readonly InstallTarget[] {
  const out: InstallTarget[] = [];
  const where = `"targets" of ${what}`;
  for (const item of r.array(o, "targets", what)) {
    const t = r.object(item, `a target of ${what}`, ["agent", "path", "mode"]);
    const agent = r.string(t, "agent", where)!;
    const path = r.string(t, "path", where)!;
    const mode = r.string(t, "mode", where)!;
    if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(agent.value) || agent.value.length > 64) {
      throw r.error(
        "INVALID_FIELD",
        agent.offset,
        `Field "agent" of the ${where} must be a lowercase name, got ${
          JSON.stringify(agent.value)
        }`,
      );
    }
    if (out.some((x) => x.agent === agent.value)) {
      throw r.error(
        "INVALID_FIELD",
        agent.offset,
        `The ${where} name ${JSON.stringify(agent.value)} twice`,
      );
    }
    if (path.value === "" || path.value.includes("\\") || path.value.includes("\0")) {
      throw r.error(
        "INVALID_FIELD",
        path.offset,
        `Field "path" of the ${where} must be a "/"-separated path, got ${
          JSON.stringify(path.value)
        }`,
      );
    }
    if (mode.value !== "link" && mode.value !== "copy") {
      throw r.error(
        "INVALID_FIELD",
        mode.offset,
        `Field "mode" of the ${where} must be "link" or "copy", got ${JSON.stringify(mode.value)}`,
      );
    }
    out.push(Object.freeze({ agent: agent.value, path: path.value, mode: mode.value }));
  }
  return Object.freeze(out);
}
