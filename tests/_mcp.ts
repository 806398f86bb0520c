/**
 * Helpers for the MCP tests: a generated skill folder with every kind of
 * file the gate cares about, the CLI as a command for the SDK's transports,
 * bounded waits, and byte comparisons.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { cliArgv, ROOT, RUNTIME } from "./_cli.ts";

export { ROOT, RUNTIME };

/** The CLI as `{ command, args }` for `StdioClientTransport` or `spawn`, under the running runtime. */
export function cliCommand(args: readonly string[]): { command: string; args: string[] } {
  const [command, pre] = cliArgv();
  return { command, args: [...pre, ...args] };
}

/** A shell-quoted command line for `--mcp-stdio`. */
export function commandLine(parts: { command: string; args: string[] }): string {
  return [parts.command, ...parts.args].map((p) => `'${p.replaceAll("'", `'\\''`)}'`).join(" ");
}

/** A fresh temporary folder. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "skillset-mcp-"));
}

/** Write a file, making its folders. */
import { put } from "./_tree.ts";
export { put };

/** A SKILL.md. */
export function skillMd(
  name: string,
  description = `The ${name} skill`,
  body = "Do it.\n",
): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

/** Bytes 0..255 twice: not UTF-8, with NULs. */
export const BINARY: Uint8Array = Uint8Array.from({ length: 512 }, (_, i) => i % 256);

/**
 * A skill folder `gen` under `<root>/skills` with text, binary, nested
 * folders, an awkward file name, a non-standard folder, a link into it from
 * `references/` (non-standard by the stricter-class rule), a link inside the
 * skill, and a link out of it.
 *
 * @returns The folder of skills.
 */
export function generatedSkills(root: string): string {
  const skills = join(root, "skills");
  const gen = join(skills, "gen");
  put(gen, "SKILL.md", skillMd("gen", "Generated test skill", "Read references/guide.md.\n"));
  put(gen, "top.txt", "top level\n");
  put(gen, "references/guide.md", "# Guide\n\nline two\n");
  put(gen, "references/deep/nested/note.txt", "nested\n");
  put(gen, "references/a b ü.md", "awkward name\n");
  put(gen, "assets/blob.bin", BINARY);
  put(gen, "assets/empty.txt", "");
  put(gen, "scripts/run.sh", "#!/bin/sh\necho hi\n");
  put(gen, "extras/secret.txt", "non-standard secret\n");
  put(root, "outside/host.txt", "outside the skill\n");
  symlinkSync("../extras/secret.txt", join(gen, "references/leak.md"));
  symlinkSync("guide.md", join(gen, "references/alias.md"));
  symlinkSync(join(root, "outside/host.txt"), join(gen, "assets/outside.txt"));
  return skills;
}

/** Paths of `gen` a model may see with the gate closed. */
export const GEN_STANDARD: readonly string[] = [
  "SKILL.md",
  "assets/blob.bin",
  "assets/empty.txt",
  "references/a b ü.md",
  "references/alias.md",
  "references/deep/nested/note.txt",
  "references/guide.md",
  "scripts/run.sh",
  "top.txt",
];
/** Paths of `gen` a model may see only with the gate open. */
export const GEN_NONSTANDARD: readonly string[] = ["extras/secret.txt", "references/leak.md"];

/** Reject after `ms` unless `promise` settles first. */
export function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`Timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Poll `check` every `everyMs` until it returns a value other than `undefined`, for at most `ms`. */
export async function eventually<T>(
  ms: number,
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  everyMs = 100,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`Timed out after ${ms} ms waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, everyMs));
  }
}

/** `sha256:<hex>` of bytes. */
export async function digest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new Uint8Array(bytes).buffer as ArrayBuffer),
  );
  return `sha256:${[...hash].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** One raw page of `skills/list` (the SDK's `SkillsClient.list` walks them all). */
export async function listPage(
  client: Client,
  cursor?: string,
): Promise<{ skills: { uri: string }[]; nextCursor?: string }> {
  const passThrough = {
    "~standard": { version: 1 as const, vendor: "test", validate: (value: unknown) => ({ value }) },
  };
  return await client.request(
    { method: "skills/list", params: cursor === undefined ? {} : { cursor } },
    passThrough,
  ) as { skills: { uri: string }[]; nextCursor?: string };
}

/**
 * Start `skillset serve --http 127.0.0.1:0 …` and wait for the URL it logs.
 *
 * @returns The URL, the stderr so far, and a stop function.
 */
export async function startHttpServer(
  args: readonly string[],
): Promise<{ url: string; stderr: () => string; stop: () => Promise<void> }> {
  const { command, args: full } = cliCommand(["serve", "--http", "127.0.0.1:0", ...args]);
  const child = spawn(command, full, { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  let stdout = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  const exited = new Promise<void>((ok) => child.once("exit", () => ok()));
  const url = await eventually(30_000, "the HTTP server's URL", () => {
    if (child.exitCode !== null) throw new Error(`serve exited early: ${stderr}`);
    return /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
  });
  return {
    url,
    stderr: () => stderr,
    stop: async () => {
      child.kill("SIGTERM");
      await within(10_000, exited, "serve to stop");
      if (stdout !== "") throw new Error(`serve wrote to stdout: ${stdout}`);
    },
  };
}

/** A file a hostile server answers `resources/read` with. */
export interface HostileContent {
  readonly uri: string;
  readonly text?: string;
  readonly blob?: string;
  readonly mimeType?: string;
}

/** What a hostile server answers; anything it returns goes on the wire as is. */
export interface HostileServer {
  /** The entries, or a whole `skills/list` page (to send a `nextCursor`), or never an answer. */
  readonly list: (
    cursor: string | undefined,
  ) => unknown[] | { skills: unknown[]; nextCursor?: string } | "silent";
  readonly get?: (uri: string) => unknown;
  readonly read: (uri: string) => HostileContent[] | undefined | "silent";
}

/**
 * A client connected in-process to a hand-written, hostile server: it
 * declares the skills extension and answers `skills/list`, `skills/get` and
 * `resources/read` with whatever `server` returns, unchecked (an attacker
 * does not use the SDK's server). Every request's method and URI is logged.
 */
export async function hostileClient(
  server: HostileServer,
): Promise<{ client: Client; requests: string[] }> {
  const [here, there] = InMemoryTransport.createLinkedPair();
  const requests: string[] = [];
  there.onmessage = (message: unknown) => {
    const m = message as { id?: number; method?: string; params?: Record<string, unknown> };
    if (m.id === undefined || m.method === undefined) return;
    const uri = m.params?.uri as string | undefined;
    requests.push(uri === undefined ? m.method : `${m.method} ${uri}`);
    const reply = (result: unknown) =>
      void there.send({ jsonrpc: "2.0", id: m.id!, result } as never);
    const fail = (code: number, text: string) =>
      void there.send({ jsonrpc: "2.0", id: m.id!, error: { code, message: text } } as never);
    switch (m.method) {
      case "initialize":
        return reply({
          protocolVersion: m.params?.protocolVersion,
          capabilities: {
            resources: {},
            extensions: { "io.modelcontextprotocol/skills": { directoryRead: true } },
          },
          serverInfo: { name: "hostile", version: "6.6.6" },
        });
      case "skills/list": {
        const page = server.list(m.params?.cursor as string | undefined);
        if (page === "silent") return;
        return reply(Array.isArray(page) ? { skills: page } : page);
      }
      case "skills/get": {
        const skill = server.get?.(uri!);
        return skill === undefined ? fail(-32602, "Unknown skill") : reply({ skill });
      }
      case "resources/read": {
        const contents = server.read(uri!);
        if (contents === "silent") return;
        return contents === undefined ? fail(-32602, "Unknown resource") : reply({ contents });
      }
      default:
        return fail(-32601, "Method not found");
    }
  };
  await there.start();
  const client = new Client({ name: "test-host", version: "1.0.0" });
  await client.connect(here);
  return { client, requests };
}

/**
 * An honest SEP-2640 entry for `files` (path to text) under `root`
 * (`skill://…/<name>`, no trailing slash), frontmatter from `files["SKILL.md"]`'s name.
 */
export async function entryOf(
  root: string,
  frontmatter: Record<string, unknown>,
  files: Readonly<Record<string, string>>,
): Promise<{ uri: string; frontmatter: Record<string, unknown>; resources: unknown[] }> {
  const resources = [];
  for (const [path, text] of Object.entries(files)) {
    const bytes = new TextEncoder().encode(text);
    resources.push({ uri: `${root}/${path}`, digest: await digest(bytes), size: bytes.length });
  }
  return { uri: `${root}/SKILL.md`, frontmatter, resources };
}
