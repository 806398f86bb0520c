/**
 * Skills published at a well-known location over HTTPS
 * (`https://<host>[/<path>]`), in the layout vercel's `skills` CLI reads
 * (its `src/providers/wellknown.ts`; the Agent Skills Discovery RFC's
 * v0.1.0): `<base>/.well-known/skills/index.json` lists each skill's
 * `name`, `description` and `files`, each file served at
 * `<base>/.well-known/skills/<name>/<file>`. The host is hostile: HTTPS
 * only (plain http only to a loopback address, and only through the
 * {@linkcode WebOptions} seam tests pass), no redirect to another origin
 * (at most 5 same-origin hops), every answer capped while it is read (the
 * index 4 MiB; a file and a skill 16 MiB, 512 files a skill, 1 GiB in all,
 * as a git source), a total time limit and a per-read stall timeout, and
 * every name and path checked against the same grammar as a git source's
 * before a URL is made of it. The layout publishes no digest, so the
 * source's digest ({@linkcode manifestDigest}: the SHA-256 of a
 * `sha256sum`-style listing of the index and every file) is what the user
 * pins; everything is fetched and checked before one byte is written.
 *
 * Folder `lib/fs/lifecycle/` — the lifecycle: add, outdated, update, remove from git and folder sources.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { compareCodeUnits, sha256Digest } from "../../core/trust/digest.ts";
import { SKILL_BYTE_LIMIT, SKILL_FILE_LIMIT, SOURCE_BYTE_LIMIT } from "./_source_tree.ts";
import { SkillSourceError } from "./skill_source_error.ts";

/** How a well-known source is fetched; tests only, never from the command line or a config. */
export interface WebOptions {
  /** Allow plain `http:` to 127.0.0.1, `[::1]` or `localhost` (a test's loopback server). */
  readonly allowLoopbackHttp?: boolean;
  /** Milliseconds the whole source may take; default 300,000. */
  readonly timeoutMs?: number;
  /** Milliseconds one read may wait for a byte (or the answer's head); default 30,000. */
  readonly stallMs?: number;
}

/** The well-known folder under a base URL, as vercel's CLI reads it. */
export const WELL_KNOWN_PATH = ".well-known/skills";
/** The most bytes of an index read. */
export const INDEX_BYTE_LIMIT = 4 * 1024 * 1024;
/** The most redirects followed (same origin only). */
const MAX_HOPS = 5;
/** Hosts whose https URLs are git repositories, as vercel's CLI excludes them. */
const GIT_HOSTS = new Set(["github.com", "gitlab.com", "huggingface.co"]);
/** A skill's name: the Agent Skills specification's (1-64 lowercase letters, digits, single hyphens). */
const SKILL_NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** One skill fetched: its files by path, in the index's order. */
export interface WebSkill {
  readonly name: string;
  readonly files: ReadonlyMap<string, Uint8Array>;
}

/** A well-known source fetched whole. */
export interface WebSource {
  /** The base URL the index was read under (no trailing `/`). */
  readonly base: string;
  readonly skills: readonly WebSkill[];
  /** {@linkcode manifestDigest} of the index and every file. */
  readonly revision: string;
}

function unsafe(message: string): SkillSourceError {
  return new SkillSourceError("UNSAFE_SOURCE", message);
}

/**
 * Whether a source names a well-known location rather than a git
 * repository: an `http:` or `https:` URL not on github.com, gitlab.com or
 * huggingface.co and not ending `.git` (vercel's CLI's rule).
 *
 * @param source What the command line gave.
 * @returns True for a well-known location.
 */
export function isWellKnownUrl(source: string): boolean {
  if (!/^https?:\/\//i.test(source)) return false;
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    return false;
  }
  return !GIT_HOSTS.has(url.hostname) && !url.pathname.replace(/\/+$/, "").endsWith(".git");
}

/**
 * The base URL of a well-known source: the URL given with a trailing `/`,
 * `/.well-known/skills` or `/.well-known/skills/index.json` left out.
 *
 * @param source The URL.
 * @param web The loopback seam.
 * @returns `<origin><path>`, without a trailing `/`.
 * @throws {SkillSourceError} `UNSAFE_SOURCE` for a URL that is not `https:` (or loopback
 *   `http:` through the seam), carries credentials, a query or a fragment.
 */
export function wellKnownBase(source: string, web: WebOptions = {}): string {
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    throw unsafe(`Source ${JSON.stringify(source)} is not a URL`);
  }
  const loopbackHttp = url.protocol === "http:" && web.allowLoopbackHttp === true &&
    LOOPBACK.has(url.hostname);
  if (url.protocol !== "https:" && !loopbackHttp) {
    throw unsafe(
      `Source ${JSON.stringify(source)} is not HTTPS: skills are fetched over HTTPS only`,
    );
  }
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") {
    throw unsafe(
      `Source ${
        JSON.stringify(source)
      } carries credentials, a query or a fragment: give the site's URL`,
    );
  }
  const path = url.pathname.replace(/\/+$/, "").replace(
    /\/\.well-known\/skills(?:\/index\.json)?$/,
    "",
  );
  return `${url.origin}${path}`;
}

/**
 * Check a file path of the index against the grammar of a git source's
 * paths: `/`-separated, relative, no empty, `.` or `..` part, no `.git`
 * part, no backslash or control character, well-formed UTF-16.
 */
function checkPath(skill: string, path: string): void {
  const parts = path.split("/");
  const bad = path.length > 4096 ||
    // deno-lint-ignore no-control-regex
    /[\\\x00-\x1f\x7f]/.test(path) ||
    parts.some((p) => p === "" || p === "." || p === ".." || p.toLowerCase() === ".git");
  let formed = true;
  try {
    encodeURIComponent(path);
  } catch {
    formed = false;
  }
  if (bad || !formed) {
    throw unsafe(
      `Index lists a file of skill ${JSON.stringify(skill)} that is not a plain relative path: ${
        JSON.stringify(path)
      }`,
    );
  }
}

function field(o: unknown, key: string): unknown {
  return typeof o === "object" && o !== null && !Array.isArray(o) && Object.hasOwn(o, key)
    ? (o as Record<string, unknown>)[key]
    : undefined;
}

/**
 * Parse and check an index: `{ "skills": [{ "name", "description", "files" }] }`,
 * each name the specification's and unique, each file list non-empty, with
 * `SKILL.md`, at most 512 paths, each a plain relative path, no path both a
 * file and a folder. Other fields are ignored.
 *
 * @param bytes The index as served.
 * @returns Each skill's name and files.
 * @throws {SkillSourceError} `UNSAFE_SOURCE` for anything else, `TOO_MANY_FILES` over 512 files.
 */
export function parseIndex(
  bytes: Uint8Array,
): readonly { readonly name: string; readonly files: readonly string[] }[] {
  let index: unknown;
  try {
    index = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw unsafe(`Index ${WELL_KNOWN_PATH}/index.json is not JSON in UTF-8`);
  }
  const skills = field(index, "skills");
  if (!Array.isArray(skills)) {
    throw unsafe(`Index ${WELL_KNOWN_PATH}/index.json has no "skills" list`);
  }
  const names = new Set<string>();
  const out: { name: string; files: string[] }[] = [];
  for (const entry of skills) {
    const name = field(entry, "name");
    const files = field(entry, "files");
    if (typeof name !== "string" || !SKILL_NAME.test(name)) {
      throw unsafe(`Index lists a skill whose name is not a skill name: ${JSON.stringify(name)}`);
    }
    if (names.has(name)) throw unsafe(`Index lists skill ${JSON.stringify(name)} twice`);
    names.add(name);
    if (typeof field(entry, "description") !== "string") {
      throw unsafe(`Index lists skill ${JSON.stringify(name)} without a description`);
    }
    if (!Array.isArray(files) || !files.every((f) => typeof f === "string")) {
      throw unsafe(`Index lists skill ${JSON.stringify(name)} without a list of files`);
    }
    if (files.length > SKILL_FILE_LIMIT) {
      throw new SkillSourceError(
        "TOO_MANY_FILES",
        `Index lists ${files.length} files for skill ${
          JSON.stringify(name)
        }: a skill has at most ${SKILL_FILE_LIMIT}`,
      );
    }
    const seen = new Set<string>();
    for (const f of files as string[]) {
      checkPath(name, f);
      if (seen.has(f)) throw unsafe(`Index lists ${JSON.stringify(`${name}/${f}`)} twice`);
      seen.add(f);
    }
    for (const f of seen) {
      const parts = f.split("/");
      for (let i = 1; i < parts.length; i++) {
        if (seen.has(parts.slice(0, i).join("/"))) {
          throw unsafe(
            `Index lists ${
              JSON.stringify(`${name}/${parts.slice(0, i).join("/")}`)
            } as a file and a folder`,
          );
        }
      }
    }
    if (!seen.has("SKILL.md") && !seen.has("skill.md")) {
      throw unsafe(`Index lists skill ${JSON.stringify(name)} without its SKILL.md`);
    }
    out.push({ name, files: files as string[] });
  }
  return Object.freeze(out.map((s) => Object.freeze({ ...s, files: Object.freeze(s.files) })));
}

/**
 * The digest of a well-known source: one line `<hex>  <path>` per file
 * (`index.json`, and `<name>/<file>` for each file of each skill; the
 * SHA-256 of its bytes in lowercase hexadecimal, two spaces, the path
 * relative to `.well-known/skills/`), in code-unit order of the path, each
 * ending in a newline — what `sha256sum` prints — and the SHA-256 of that
 * text.
 *
 * @param files Each file's path (relative to `.well-known/skills/`) and bytes.
 * @returns `sha256:<hex>`.
 */
export async function manifestDigest(
  files: readonly { readonly path: string; readonly bytes: Uint8Array }[],
): Promise<string> {
  const lines: { path: string; line: string }[] = [];
  for (const f of files) {
    const hex = (await sha256Digest(f.bytes)).slice("sha256:".length);
    lines.push({ path: f.path, line: `${hex}  ${f.path}\n` });
  }
  lines.sort((a, b) => compareCodeUnits(a.path, b.path));
  return await sha256Digest(new TextEncoder().encode(lines.map((l) => l.line).join("")));
}

/** One fetch session: the origin it keeps to, its deadline, its byte budget. */
class Session {
  readonly #origin: string;
  readonly #stallMs: number;
  readonly #controller = new AbortController();
  readonly #timer: ReturnType<typeof setTimeout>;
  #why: SkillSourceError | undefined;
  /** Bytes left of the source's budget. */
  left = SOURCE_BYTE_LIMIT;

  constructor(readonly base: string, web: WebOptions) {
    this.#origin = new URL(base).origin;
    this.#stallMs = web.stallMs ?? 30_000;
    const total = web.timeoutMs ?? 300_000;
    this.#timer = setTimeout(
      () =>
        this.#abort(
          new SkillSourceError(
            "FETCH_TIMEOUT",
            `Source ${JSON.stringify(base)} took more than ${total} ms`,
          ),
        ),
      total,
    );
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#controller.abort();
  }

  #abort(why: SkillSourceError): void {
    this.#why ??= why;
    this.#controller.abort();
  }

  /** A step raced against the stall timeout; an abort turns into its reason. */
  async #step<T>(url: string, run: () => Promise<T>): Promise<T> {
    let stall: ReturnType<typeof setTimeout> | undefined;
    const stalled = new Promise<never>((_, reject) => {
      stall = setTimeout(() => {
        const why = new SkillSourceError(
          "FETCH_TIMEOUT",
          `Source ${JSON.stringify(this.base)} sent nothing for ${this.#stallMs} ms at ${
            JSON.stringify(url)
          }`,
        );
        this.#abort(why);
        reject(why);
      }, this.#stallMs);
    });
    try {
      return await Promise.race([run(), stalled]);
    } catch (e) {
      if (this.#why !== undefined) throw this.#why;
      if (e instanceof SkillSourceError) throw e;
      throw new SkillSourceError(
        "FETCH_FAILED",
        `Fetching ${JSON.stringify(url)} failed: ${e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    } finally {
      clearTimeout(stall);
      stalled.catch(() => {});
    }
  }

  /**
   * The body of `url` (a 200 answer), read until `limit` bytes and no more.
   *
   * @throws {SkillSourceError} `REDIRECT_REFUSED`, `FETCH_FAILED` (not 200, or the network),
   *   `FETCH_TIMEOUT`, or `tooLarge()` past the limit.
   */
  async get(url: string, limit: number, tooLarge: () => SkillSourceError): Promise<Uint8Array> {
    let at = url;
    let response: Response | undefined;
    for (let hop = 0;; hop++) {
      const here = at;
      response = await this.#step(here, () =>
        fetch(here, {
          redirect: "manual",
          credentials: "omit",
          signal: this.#controller.signal,
        }));
      if (![301, 302, 303, 307, 308].includes(response.status)) break;
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get("location");
      let next: URL | undefined;
      try {
        next = location === null ? undefined : new URL(location, here);
      } catch {
        next = undefined;
      }
      if (next === undefined || next.origin !== this.#origin) {
        throw new SkillSourceError(
          "REDIRECT_REFUSED",
          `Source ${JSON.stringify(this.base)} redirects ${JSON.stringify(here)} to ${
            JSON.stringify(location)
          }: only redirects within ${JSON.stringify(this.#origin)} are followed`,
        );
      }
      if (hop + 1 >= MAX_HOPS) {
        throw new SkillSourceError(
          "REDIRECT_REFUSED",
          `Source ${JSON.stringify(this.base)} redirects ${JSON.stringify(url)} more than ${
            MAX_HOPS - 1
          } times`,
        );
      }
      next.hash = "";
      at = next.href;
    }
    if (response.status !== 200 || response.body === null) {
      await response.body?.cancel().catch(() => {});
      throw new SkillSourceError(
        "FETCH_FAILED",
        `Source ${JSON.stringify(this.base)} answered ${response.status} for ${JSON.stringify(at)}`,
      );
    }
    const cap = Math.min(limit, this.left);
    const declared = Number(response.headers.get("content-length") ?? "0");
    const reader = response.body.getReader();
    try {
      if (declared > cap) throw cap < limit ? this.#total() : tooLarge();
      const chunks: Uint8Array[] = [];
      let total = 0;
      for (;;) {
        const { done, value } = await this.#step(at, () => reader.read());
        if (done) break;
        total += value.length;
        if (total > cap) throw cap < limit ? this.#total() : tooLarge();
        chunks.push(value);
      }
      this.left -= total;
      return Buffer.concat(chunks, total);
    } finally {
      await reader.cancel().catch(() => {});
    }
  }

  #total(): SkillSourceError {
    return new SkillSourceError(
      "SKILL_TOO_LARGE",
      `Source ${JSON.stringify(this.base)} serves more than ${SOURCE_BYTE_LIMIT} bytes of skills`,
    );
  }
}

/** `<base>/.well-known/skills/<parts…>`, each part percent-encoded. */
function urlOf(base: string, parts: readonly string[]): string {
  return `${base}/${WELL_KNOWN_PATH}/${parts.map(encodeURIComponent).join("/")}`;
}

/**
 * Fetch a well-known source whole: the index, then every file of every
 * skill (four at a time), each answer capped as it is read.
 *
 * @param base The base URL ({@linkcode wellKnownBase}).
 * @param web Timeouts and the loopback seam.
 * @returns The skills and the source's digest.
 * @throws {SkillSourceError} `FETCH_FAILED`, `FETCH_TIMEOUT`, `REDIRECT_REFUSED`,
 *   `UNSAFE_SOURCE` (the index), `TOO_MANY_FILES`, `SKILL_TOO_LARGE` (a file or skill over
 *   16 MiB, the source over 1 GiB, the index over 4 MiB).
 */
export async function fetchWellKnown(base: string, web: WebOptions = {}): Promise<WebSource> {
  const session = new Session(base, web);
  try {
    const indexBytes = await session.get(
      urlOf(base, ["index.json"]),
      INDEX_BYTE_LIMIT,
      () =>
        new SkillSourceError(
          "SKILL_TOO_LARGE",
          `Index of ${JSON.stringify(base)} is over ${INDEX_BYTE_LIMIT} bytes`,
        ),
    );
    const index = parseIndex(indexBytes);
    const jobs = index.flatMap((s) => s.files.map((f) => ({ skill: s.name, path: f })));
    const got = new Map<string, Uint8Array>();
    const skillLeft = new Map(index.map((s) => [s.name, SKILL_BYTE_LIMIT]));
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        const tooLarge = (): SkillSourceError =>
          new SkillSourceError(
            "SKILL_TOO_LARGE",
            `Skill ${JSON.stringify(job.skill)} of ${
              JSON.stringify(base)
            } is over ${SKILL_BYTE_LIMIT} bytes (at ${JSON.stringify(job.path)})`,
          );
        const bytes = await session.get(
          urlOf(base, [job.skill, ...job.path.split("/")]),
          skillLeft.get(job.skill)!,
          tooLarge,
        );
        const left = skillLeft.get(job.skill)! - bytes.length;
        if (left < 0) throw tooLarge(); // files of one skill read side by side
        skillLeft.set(job.skill, left);
        got.set(`${job.skill}/${job.path}`, bytes);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    const revision = await manifestDigest([
      { path: "index.json", bytes: indexBytes },
      ...jobs.map((j) => ({
        path: `${j.skill}/${j.path}`,
        bytes: got.get(`${j.skill}/${j.path}`)!,
      })),
    ]);
    const skills = index.map((s) =>
      Object.freeze({
        name: s.name,
        files: new Map(s.files.map((f) => [f, got.get(`${s.name}/${f}`)!])),
      })
    );
    return Object.freeze({ base, skills: Object.freeze(skills), revision });
  } finally {
    session.close();
  }
}

/**
 * Write a fetched source's skills into an empty folder, one folder per
 * skill, each file created exclusively.
 *
 * @param source The source, fetched and checked.
 * @param into The folder.
 */
export function writeWellKnown(source: WebSource, into: string): void {
  for (const skill of source.skills) {
    for (const [path, bytes] of skill.files) {
      const to = join(into, skill.name, ...path.split("/"));
      try {
        mkdirSync(dirname(to), { recursive: true });
        writeFileSync(to, bytes, { flag: "wx", mode: 0o644 });
      } catch (e) {
        // Two paths one file system takes for the same name (`SKILL.md`, `skill.md`).
        throw unsafe(
          `Skill ${JSON.stringify(skill.name)} lists ${
            JSON.stringify(path)
          }, which cannot be written: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
    }
  }
}
