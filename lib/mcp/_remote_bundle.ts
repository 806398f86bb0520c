/**
 * A skill an MCP server lists, as a bundle: {@linkcode remoteBundle} checks a
 * `skills/list` entry (its URIs, skill path, frontmatter, limits) and wraps it
 * as a {@linkcode LazyBundle}, whose instructions and file bytes arrive when
 * fetched; reading a file before it was fetched is `NOT_LOADED`, never a
 * silent empty read. Fetching is `McpSkills`' (`_consume.ts`).
 *
 * Folder `lib/mcp/` — skills over MCP behind `lib/mcp.ts`: serve, consume, watch, HTTP, remote trust.
 *
 * @module
 */
import type { Skill } from "@modelcontextprotocol/client/ext/skills";
import {
  type AgentSkillFrontmatter,
  validateAgentSkillFrontmatter,
} from "../core/activation/agent_skill.ts";
import type { ResourceFile, SkillBundle } from "../core/resources/bundle.ts";
import { normalizeResourcePath } from "../core/resources/resource_path.ts";
import { McpSkillError } from "./_errors.ts";

/** A skill an MCP server serves, as a bundle. */
export interface McpSkillBundle extends SkillBundle {
  /** `<origin>:<skill-path>`: never equal to a local skill's name, nor to another origin's. */
  readonly name: string;
  /** The entry's `SKILL.md` URI. */
  readonly uri: string;
  /** The origin it came from. */
  readonly origin: string;
  /** Whether SKILL.md was fetched (so `instructions` can be read). */
  readonly loaded: boolean;
}

/** A segment of a skill path (`acme` in `skill://acme/refunds/SKILL.md`): one plain name. */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
// deno-lint-ignore no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** `text` with control and bidirectional characters escaped as `\uXXXX`. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * Check a server's entry and wrap it as a bundle named `<origin>:<skill-path>`.
 *
 * @param entry The entry (the SDK checked its shape).
 * @param origin The origin label.
 * @param limits Entries listing more files or bytes are refused.
 * @param warn Where a listed file that is not a valid resource path is reported (it is left out).
 * @returns The bundle, or why the entry is left out.
 */
export function remoteBundle(
  entry: Skill,
  origin: string,
  limits: { readonly files: number; readonly bytes: number },
  warn: (uri: string, message: string) => void,
): LazyBundle | string {
  // The SDK checked the entry; its URIs are compared in their WHATWG form, as the SDK does.
  const canonical = new URL(entry.uri).href;
  const root = canonical.slice(0, -"SKILL.md".length);
  const scheme = root.indexOf("://");
  let segments: string[];
  try {
    segments = root.slice(scheme < 0 ? 0 : scheme + 3).split("/").filter((s) => s !== "")
      .map((s) => decodeURIComponent(s));
  } catch {
    return `Skill URI ${JSON.stringify(entry.uri)} cannot be decoded`;
  }
  const odd = segments.find((s) => !SEGMENT.test(s));
  if (odd !== undefined) {
    return `Skill path segment ${
      JSON.stringify(odd)
    } is not a plain name (letters, digits, ".", "_", "-"); left out`;
  }
  if (typeof entry.resources === "string") {
    return `Skill ${
      JSON.stringify(entry.uri)
    } lists its files as "dynamic", so they cannot be verified; left out`;
  }
  let frontmatter: AgentSkillFrontmatter;
  try {
    frontmatter = validateAgentSkillFrontmatter(entry.frontmatter, segments.at(-1));
  } catch (e) {
    return (e as Error).message;
  }
  let bytes = 0;
  for (const resource of entry.resources) bytes += resource.size;
  if (entry.resources.length > limits.files || bytes > limits.bytes) {
    return `Skill ${JSON.stringify(entry.uri)} lists ${entry.resources.length} files / ${bytes} ` +
      `bytes, over the limit of ${limits.files} files / ${limits.bytes} bytes; left out`;
  }
  const files = new Map<string, { uri: string; size: number }>();
  for (const resource of entry.resources) {
    const uri = new URL(resource.uri).href;
    if (!uri.startsWith(root)) continue;
    try {
      const path = normalizeResourcePath(
        uri.slice(root.length).split("/").map((s: string) => decodeURIComponent(s)).join("/"),
      );
      files.set(path, { uri: resource.uri, size: resource.size });
    } catch {
      warn(resource.uri, "not a valid resource path; left out");
    }
  }
  return new LazyBundle(
    `${origin}:${segments.join("/")}`,
    origin,
    entry,
    frontmatter,
    files,
  );
}

/**
 * A bundle whose instructions and file bytes arrive when fetched.
 *
 * | operation | cost |
 * |---|---|
 * | `has`, `fetched`, `uriOf`, `setBytes` | O(1) |
 * | `files.get(path).read(position, length)` | O(1) (a view of the fetched bytes) |
 */
export class LazyBundle implements McpSkillBundle {
  readonly name: string;
  readonly origin: string;
  readonly uri: string;
  /** The server's entry, for the SDK's verified reads. */
  readonly entry: Skill;
  readonly frontmatter: AgentSkillFrontmatter;
  readonly files: ReadonlyMap<string, ResourceFile>;
  readonly #uris: ReadonlyMap<string, string>;
  readonly #bytes = new Map<string, Uint8Array>();
  #instructions: string | undefined;

  constructor(
    name: string,
    origin: string,
    entry: Skill,
    frontmatter: AgentSkillFrontmatter,
    listed: ReadonlyMap<string, { uri: string; size: number }>,
  ) {
    this.name = name;
    this.origin = origin;
    this.uri = entry.uri;
    this.entry = entry;
    this.frontmatter = frontmatter;
    const files = new Map<string, ResourceFile>();
    const uris = new Map<string, string>();
    for (const [path, { uri, size }] of listed) {
      uris.set(path, uri);
      files.set(
        path,
        Object.freeze({ path, size, read: (p: number, l: number) => this.#read(path, p, l) }),
      );
    }
    this.files = files;
    this.#uris = uris;
  }

  get loaded(): boolean {
    return this.#instructions !== undefined;
  }

  get instructions(): string {
    if (this.#instructions === undefined) {
      throw new McpSkillError(
        "NOT_LOADED",
        `Skill ${JSON.stringify(this.name)} is not loaded yet: await load(${
          JSON.stringify(this.name)
        }) first`,
        this.uri,
      );
    }
    return this.#instructions;
  }

  /** Whether the entry lists `path` (normalised). */
  has(path: string): boolean {
    return this.#uris.has(path);
  }

  /** Whether the bytes of `path` were fetched. */
  fetched(path: string): boolean {
    return this.#bytes.has(path);
  }

  /** The URI the entry lists for `path` (SKILL.md: the entry's own). */
  uriOf(path: string): string {
    return this.#uris.get(path) ?? this.uri;
  }

  /** Keep SKILL.md's body, fetched and verified. */
  setInstructions(text: string): void {
    this.#instructions = text;
  }

  /** Keep the bytes of `path`, fetched and verified. */
  setBytes(path: string, bytes: Uint8Array): void {
    this.#bytes.set(path, bytes);
  }

  #read(path: string, position: number, length: number): Uint8Array {
    const bytes = this.#bytes.get(path);
    if (bytes === undefined) {
      throw new McpSkillError(
        "NOT_LOADED",
        `File ${JSON.stringify(path)} of skill ${JSON.stringify(this.name)} is not fetched yet: ` +
          `await load(${JSON.stringify(this.name)}, ${JSON.stringify(path)}) first`,
        this.#uris.get(path),
      );
    }
    return bytes.subarray(
      Math.min(position, bytes.length),
      Math.min(position + length, bytes.length),
    );
  }
}
