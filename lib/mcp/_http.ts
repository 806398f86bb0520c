/**
 * Streamable HTTP for the skills server: the SDK's web-standard
 * `createMcpHandler` behind a small `node:http` adapter (Node, Deno and Bun
 * all provide `node:http`), on a loopback address unless told otherwise,
 * with the SDK's Host and Origin checks against DNS rebinding.
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpServerFactory,
  originValidationResponse,
} from "@modelcontextprotocol/server";
import { McpSkillError } from "./_errors.ts";

/**
 * A per-request server factory of the SDK (`McpServerFactory` of `@modelcontextprotocol/server`).
 *
 * @internal
 */
type SdkMcpServerFactory = McpServerFactory;

/** Options of {@linkcode listenHttp}. */
export interface ListenHttpOptions {
  /** The address to listen on; a loopback address unless `allowRemote`. */
  readonly host: string;
  /** The port; 0 picks a free one. */
  readonly port: number;
  /** Allow a non-loopback `host` (then Host and Origin are not checked against localhost). */
  readonly allowRemote?: boolean;
  /** Out-of-band errors (default: ignored). */
  readonly onError?: (error: Error) => void;
}

/** A listening MCP endpoint. */
export interface HttpListener {
  /** The endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  /** Announce `resources/list_changed` to open subscriptions (2026-07-28 clients). */
  notifyResourcesChanged(): void;
  /** Stop listening and close open exchanges. */
  close(): Promise<void>;
}

const MAX_BODY = 4 * 1024 * 1024;

/**
 * Whether a host is a loopback address, the only kind `serve --http` binds without `--allow-remote`.
 *
 * @param host A host name or address.
 * @returns Whether it is a loopback address (`127.0.0.0/8`, `::1`, `localhost`).
 * @example
 * ```ts
 * import { isLoopbackHost } from "./_http.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * assert.equal(isLoopbackHost("127.0.0.1"), true);
 * assert.equal(isLoopbackHost("0.0.0.0"), false);
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  return bare === "localhost" || bare === "::1" ||
    /^127\.(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){2}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/.test(bare);
}

/**
 * Serve MCP over Streamable HTTP at `/mcp` (the 2026-07-28 revision, and
 * 2025-era clients through the SDK's stateless fallback).
 *
 * @param factory A fresh server per request (`SkillServer.createServer`).
 * @param options Address and port.
 * @returns The endpoint, once listening.
 * @throws {McpSkillError} `REMOTE_NOT_ALLOWED` for a non-loopback host without `allowRemote`.
 * @example
 * ```ts
 * import { listenHttp, serveSkills } from "../mcp.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const served = await serveSkills([new URL("../../examples/skills", import.meta.url).pathname]);
 * const refused = await listenHttp(served.createServer, { host: "192.0.2.1", port: 0 })
 *   .then(() => "listening", (e) => e.code);
 * assert.equal(refused, "REMOTE_NOT_ALLOWED");
 * const http = await listenHttp(served.createServer, { host: "127.0.0.1", port: 0 });
 * assert.ok(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/.test(http.url));
 * await http.close();
 * ```
 */
export async function listenHttp(
  factory: SdkMcpServerFactory,
  options: ListenHttpOptions,
): Promise<HttpListener> {
  const remote = options.allowRemote === true;
  if (!remote && !isLoopbackHost(options.host)) {
    throw new McpSkillError(
      "REMOTE_NOT_ALLOWED",
      `Refused to listen on ${
        JSON.stringify(options.host)
      }: not a loopback address (pass allowRemote, --allow-remote on the command line, to serve beyond this machine)`,
    );
  }
  const handler = createMcpHandler(factory, {
    ...(options.onError === undefined ? {} : { onerror: options.onError }),
  });
  const hostnames = localhostAllowedHostnames();
  const origins = localhostAllowedOrigins();
  const server = createServer((req, res) => {
    serve(req, res).catch((e) => {
      options.onError?.(e instanceof Error ? e : new Error(String(e)));
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host ?? options.host}`);
    if (url.pathname !== "/mcp") {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found: the endpoint is /mcp\n");
      return;
    }
    const request = await toRequest(req, url);
    if (request === undefined) {
      res.writeHead(413).end();
      return;
    }
    const rejected = remote ? undefined : hostHeaderValidationResponse(request, hostnames) ??
      originValidationResponse(request, origins);
    await send(rejected ?? await handler.fetch(request), res);
  };
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(options.port, options.host, () => {
      server.off("error", fail);
      ok();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/mcp`,
    notifyResourcesChanged: () => handler.notify.resourcesChanged(),
    close: async () => {
      await handler.close();
      const closed = new Promise<void>((ok) => server.close(() => ok()));
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await closed;
    },
  };
}

async function toRequest(req: IncomingMessage, url: URL): Promise<Request | undefined> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const method = req.method ?? "GET";
  let body: Uint8Array<ArrayBuffer> | undefined;
  if (method !== "GET" && method !== "HEAD") {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Uint8Array).length;
      if (size > MAX_BODY) return undefined;
      chunks.push(chunk as Uint8Array);
    }
    body = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      body.set(c, at);
      at += c.length;
    }
  }
  const controller = new AbortController();
  req.once("close", () => controller.abort());
  return new Request(url, {
    method,
    headers,
    signal: controller.signal,
    ...(body === undefined ? {} : { body }),
  });
}

async function send(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.once("close", () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}
