/**
 * A tiny static server for importing skillset by URL from Deno: it serves a
 * clone's files read-only on a loopback address, with `.ts` as
 * `application/typescript`. (A server that sends `.ts` as JavaScript — most
 * static servers do, or as `video/mp2t` — makes Deno read TypeScript as
 * JavaScript, which fails at the first `export type {` with a `SyntaxError`.)
 *
 * Run from the clone's root, with the port as the argument:
 * `deno run --allow-net=127.0.0.1 --allow-read=. examples/serve_sources.ts 8000`
 * (or `npx tsx examples/serve_sources.ts 8000`, `bun examples/serve_sources.ts 8000`).
 *
 * @module
 */
import { createServer, type Server } from "node:http";
import { readFile, realpath } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** The media type of each extension served; anything else is `application/octet-stream`. */
const MEDIA_TYPES: ReadonlyMap<string, string> = new Map([
  [".ts", "application/typescript; charset=utf-8"],
  [".mts", "application/typescript; charset=utf-8"],
  [".js", "text/javascript; charset=utf-8"],
  [".mjs", "text/javascript; charset=utf-8"],
  [".json", "application/json; charset=utf-8"],
  [".md", "text/markdown; charset=utf-8"],
]);

/**
 * Serve the files under `root` on `host:port`, read-only: no listing, nothing
 * outside `root` (links included), no dot-folders and no `node_modules`.
 *
 * @param root The folder to serve (the clone's root).
 * @param port The port; 0 picks a free one.
 * @param host The address; a loopback one by default.
 * @returns The server, listening, and its base URL (ending in `/`).
 */
export async function serveSources(
  root: string,
  port: number,
  host = "127.0.0.1",
): Promise<{ server: Server; url: string }> {
  const base = await realpath(resolve(root));
  const server = createServer(async (request, response) => {
    let path: string;
    try {
      path = decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname);
    } catch {
      response.writeHead(400).end();
      return;
    }
    const segments = path.split("/").filter((s) => s !== "");
    if (segments.some((s) => s.startsWith(".") || s === "node_modules" || s.includes("\\"))) {
      response.writeHead(403).end();
      return;
    }
    try {
      const file = await realpath(join(base, ...segments));
      if (!file.startsWith(base + sep)) throw new Error("outside the root");
      const body = await readFile(file);
      const type = MEDIA_TYPES.get(extname(file)) ?? "application/octet-stream";
      response.writeHead(200, { "content-type": type }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(port, host, () => done());
  });
  const address = server.address() as { port: number };
  return { server, url: `http://${host}:${address.port}/` };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.argv[2] ?? 8000);
  const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
  const { url } = await serveSources(root, Number.isSafeInteger(port) ? port : 8000);
  console.log(`Serving ${root} at ${url} (import ${url}mod.ts); Ctrl-C stops`);
}
