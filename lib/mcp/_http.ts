/**
 * Streamable HTTP for the skills server: the SDK's web-standard
 * `createMcpHandler` behind a small `node:http` adapter (Node, Deno and Bun
 * all provide `node:http`), on a loopback address unless told otherwise,
 * with Host and Origin checked against DNS rebinding before any body byte is
 * read, and every resource a client can hold bounded: connections, buffered
 * body bytes, subscription streams, and how long a request may take to
 * arrive. With a bearer token, every request must carry it (compared in
 * constant time), so another local process cannot call the tools — the
 * command line insists on one when the server runs scripts.
 *
 * Folder `lib/mcp/` — skills over MCP behind `lib/mcp.ts`: serve, consume, watch, HTTP, remote trust.
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createHash, timingSafeEqual } from "node:crypto";
import { createMcpHandler, type McpServerFactory } from "@modelcontextprotocol/server";
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
  /**
   * A token every request must carry as `Authorization: Bearer <token>`
   * (401 otherwise), compared in constant time; at least 16 characters.
   * Serve `run_skill_script` over HTTP only with one: any local process can
   * reach a loopback port.
   */
  readonly bearerToken?: string;
  /**
   * Open connections at most; default 256. A connection over the cap evicts
   * the oldest one that never completed a request (half-sent or silent), else
   * the oldest idle one, else the connection of a subscription stream (as a
   * new stream over the stream cap does), else it is closed at once. A
   * connection with a request in flight is never evicted.
   */
  readonly maxConnections?: number;
  /** Bytes of one request body at most (413 beyond); default 4 MiB. */
  readonly maxBodyBytes?: number;
  /** Bytes of request bodies buffered at once, all requests together (503 beyond); default 32 MiB. */
  readonly maxBufferedBytes?: number;
  /**
   * Open `subscriptions/listen` streams at most, all clients together; default 64, and never more
   * than half of `maxConnections`, so ordinary requests always find a connection. A new stream
   * over the cap evicts the oldest stream of the peer address holding the most.
   */
  readonly maxSubscriptions?: number;
  /**
   * Open `subscriptions/listen` streams per session (`Mcp-Session-Id`) or, without one, per
   * connection at most; default 16. Not per address: every local client shares 127.0.0.1, and
   * one local process can use every 127.x.y.z.
   */
  readonly maxSubscriptionsPerClient?: number;
  /** Time for a request's headers to arrive, in milliseconds; default 5,000. */
  readonly headersTimeoutMs?: number;
  /** Time for a whole request (headers and body) to arrive; default 15,000. */
  readonly requestTimeoutMs?: number;
  /** Time a connection may stay silent (no byte either way); default 30,000. */
  readonly idleTimeoutMs?: number;
}

/**
 * The defaults of {@linkcode ListenHttpOptions}' bounds.
 *
 * @example
 * ```ts
 * import { HTTP_DEFAULTS } from "../mcp.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * assert.equal(HTTP_DEFAULTS.maxConnections, 256);
 * assert.equal(HTTP_DEFAULTS.headersTimeoutMs, 5_000);
 * ```
 */
export const HTTP_DEFAULTS: Readonly<{
  maxConnections: number;
  maxBodyBytes: number;
  maxBufferedBytes: number;
  maxSubscriptions: number;
  maxSubscriptionsPerClient: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
}> = Object.freeze({
  maxConnections: 256,
  maxBodyBytes: 4 * 1024 * 1024,
  maxBufferedBytes: 32 * 1024 * 1024,
  maxSubscriptions: 64,
  maxSubscriptionsPerClient: 16,
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 15_000,
  idleTimeoutMs: 30_000,
});

/** A listening MCP endpoint. */
export interface HttpListener {
  /** The endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  /** Announce `resources/list_changed` to open subscriptions (2026-07-28 clients). */
  notifyResourcesChanged(): void;
  /** Stop listening and close open exchanges. */
  close(): Promise<void>;
}

const OCTET = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

/**
 * Whether a host is a loopback address, the only kind `serve --http` binds
 * without `--allow-remote`, and the only kind a Host or Origin header may
 * name when serving on loopback: `localhost`, a dotted-quad `127.x.y.z`,
 * `::1`, or `::ffff:127.x.y.z` (bracketed or not). Short forms (`127.1`),
 * names under another domain (`127.0.0.1.nip.io`) and `localhost.` are not.
 *
 * @param host A host name or address.
 * @returns Whether it is a loopback address.
 * @example
 * ```ts
 * import { isLoopbackHost } from "./_http.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * assert.equal(isLoopbackHost("127.0.0.1"), true);
 * assert.equal(isLoopbackHost("[::1]"), true);
 * assert.equal(isLoopbackHost("127.0.0.1.nip.io"), false);
 * assert.equal(isLoopbackHost("0.0.0.0"), false);
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  if (typeof host !== "string") return false;
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare === "localhost") return true;
  if (IPV4.test(bare)) return bare.startsWith("127.");
  if (!/^[0-9A-Fa-f:.]+$/.test(bare) || !bare.includes(":")) return false;
  let canonical: string;
  try {
    canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return false;
  }
  return canonical === "::1" || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canonical);
}

/** The host name a Host header names (without the port), or `undefined` when it is not one. */
function hostOf(header: string | undefined): string | undefined {
  if (header === undefined || header === "" || /[/@?#\s\\]/.test(header)) return undefined;
  try {
    return new URL(`http://${header}/`).hostname;
  } catch {
    return undefined;
  }
}

/** Why a request from a browser page or a rebound DNS name is refused, or `undefined`. */
function refusedOrigin(req: IncomingMessage): string | undefined {
  const host = hostOf(req.headers.host);
  if (host === undefined || !isLoopbackHost(host)) return "Invalid Host header";
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return "Invalid Origin header";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "Invalid Origin header";
  return isLoopbackHost(url.hostname) ? undefined : "Invalid Origin header";
}

interface Connection {
  /** Requests received whole and not yet answered (subscription streams included). */
  busy: number;
  /** Requests answered on it so far. */
  answered: number;
  /** Its open subscription streams (each also counts in `busy`). */
  streams: number;
}

/** An open `subscriptions/listen` stream. */
interface Stream {
  /** The session, or the connection, it counts against (`maxSubscriptionsPerClient`). */
  readonly holder: unknown;
  /** The peer's address, by which eviction is shared out. */
  readonly address: string;
  readonly socket: Socket;
}

/**
 * Every open stream, oldest first, with counts by holder and by address: the
 * stream to evict is the oldest of the address holding the most.
 */
class Streams {
  /** Insertion order is age. */
  readonly #open = new Set<Stream>();
  readonly #byHolder = new Map<unknown, number>();
  readonly #byAddress = new Map<string, number>();

  get size(): number {
    return this.#open.size;
  }

  held(holder: unknown): number {
    return this.#byHolder.get(holder) ?? 0;
  }

  add(stream: Stream): void {
    this.#open.add(stream);
    bump(this.#byHolder, stream.holder, 1);
    bump(this.#byAddress, stream.address, 1);
  }

  delete(stream: Stream): void {
    if (!this.#open.delete(stream)) return;
    bump(this.#byHolder, stream.holder, -1);
    bump(this.#byAddress, stream.address, -1);
  }

  /** The oldest stream of the address holding the most (the oldest such address on a tie). */
  victim(): Stream | undefined {
    let most = 0;
    for (const n of this.#byAddress.values()) most = Math.max(most, n);
    for (const stream of this.#open) {
      if (this.#byAddress.get(stream.address) === most) return stream;
    }
    return undefined;
  }
}

function bump<K>(counts: Map<K, number>, key: K, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n === 0) counts.delete(key);
  else counts.set(key, n);
}

/**
 * Serve MCP over Streamable HTTP at `/mcp` (the 2026-07-28 revision, and
 * 2025-era clients through the SDK's stateless fallback). On loopback, Host
 * must name a loopback address (any: the one bound, `localhost`, …) and
 * Origin, when sent, too — checked on the headers, before any body byte is
 * read. Bounded (see {@linkcode HTTP_DEFAULTS}): open connections (for a new
 * one, the oldest that never completed a request is evicted, else the oldest
 * idle one, else a subscription stream's; never one with a request in
 * flight), one body's bytes, all buffered bodies' bytes, open subscription
 * streams (overall, at most half the connections, the oldest stream of the
 * address holding the most evicted first; and per session or connection),
 * and the time headers, a whole request, and silence may take.
 *
 * @param factory A fresh server per request (`SkillServer.createServer`).
 * @param options Address, port and bounds.
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
  const token = options.bearerToken === undefined ? undefined : digestOf(options.bearerToken);
  if (options.bearerToken !== undefined && options.bearerToken.length < MIN_TOKEN_CHARS) {
    throw new RangeError(`bearerToken must hold at least ${MIN_TOKEN_CHARS} characters`);
  }
  if (!remote && !isLoopbackHost(options.host)) {
    throw new McpSkillError(
      "REMOTE_NOT_ALLOWED",
      `Refused to listen on ${
        JSON.stringify(options.host)
      }: not a loopback address (pass allowRemote, --allow-remote on the command line, to serve beyond this machine)`,
    );
  }
  const bound = (name: keyof typeof HTTP_DEFAULTS): number => {
    const value = options[name] ?? HTTP_DEFAULTS[name];
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`${name} must be a whole number of at least 1, got ${String(value)}`);
    }
    return value;
  };
  const limits = Object.fromEntries(
    Object.keys(HTTP_DEFAULTS).map((k) => [k, bound(k as keyof typeof HTTP_DEFAULTS)]),
  ) as Record<keyof typeof HTTP_DEFAULTS, number>;
  // Streams hold a connection each for as long as they are open: at most half the connections.
  const maxStreams = Math.max(1, Math.min(limits.maxSubscriptions, limits.maxConnections >> 1));
  const handler = createMcpHandler(factory, {
    maxRequestBodySize: limits.maxBodyBytes,
    // Bounded here (with eviction); the SDK's count lags a stream closed by eviction.
    maxSubscriptions: maxStreams + limits.maxConnections,
    ...(options.onError === undefined ? {} : { onerror: options.onError }),
  });
  const connections = new Map<Socket, Connection>();
  const streams = new Streams();
  let buffered = 0;
  /** Close the stream to evict, with its connection; whether there was one. */
  const evictStream = (): boolean => {
    const victim = streams.victim();
    if (victim === undefined) return false;
    streams.delete(victim);
    connections.delete(victim.socket);
    victim.socket.destroy();
    return true;
  };
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
      keepAliveTimeout: Math.min(5000, limits.idleTimeoutMs),
    } as Parameters<typeof createServer>[0],
    (req, res) => {
      serve(req, res).catch((e) => {
        options.onError?.(e instanceof Error ? e : new Error(String(e)));
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    },
  );
  server.timeout = limits.idleTimeoutMs;
  server.on("connection", (socket: Socket) => {
    if (connections.size >= limits.maxConnections) {
      // Evict the oldest connection that never completed a request (half-sent, silent), else
      // the oldest one nobody is waiting on; else refuse this one.
      let oldest: Socket | undefined;
      let idle: Socket | undefined;
      for (const [s, c] of connections) {
        if (c.busy !== 0) continue;
        if (c.answered === 0) {
          oldest = s;
          break;
        }
        idle ??= s;
      }
      oldest ??= idle;
      if (oldest !== undefined) {
        connections.delete(oldest);
        oldest.destroy();
      } else if (!evictStream()) {
        // Every connection has a request in flight: those are never evicted.
        socket.destroy();
        return;
      }
    }
    connections.set(socket, { busy: 0, answered: 0, streams: 0 });
    socket.once("close", () => connections.delete(socket));
  });
  const refuse = (res: ServerResponse, status: number, message: string): void => {
    const body = JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });
    res.shouldKeepAlive = false;
    res.writeHead(status, { "content-type": "application/json", connection: "close" }).end(body);
  };
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!remote) {
      const refused = refusedOrigin(req);
      if (refused !== undefined) return refuse(res, 403, refused);
    }
    if (token !== undefined && !bearerMatches(req.headers.authorization, token)) {
      res.setHeader("www-authenticate", "Bearer");
      return refuse(res, 401, "Unauthorized: this server needs its bearer token");
    }
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/mcp") {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found: the endpoint is /mcp\n");
      return;
    }
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > limits.maxBodyBytes) return refuse(res, 413, "Request body too large");
    const read = await readBody(req, limits.maxBodyBytes, (n) => {
      if (buffered + n > limits.maxBufferedBytes) return false;
      buffered += n;
      return true;
    });
    buffered -= read.held;
    if (read.status !== undefined) {
      return refuse(res, read.status, read.status === 413 ? "Request body too large" : "Busy");
    }
    const connection = connections.get(req.socket);
    if (connection !== undefined) connection.busy++;
    res.once("close", () => {
      if (connection === undefined) return;
      connection.busy--;
      connection.answered++;
    });
    // Parsed once here (the SDK is handed the result), so the body is not read twice.
    const parsed = read.body === undefined ? undefined : parseJson(read.body);
    if (parsed !== undefined && isListen(parsed.value)) {
      const session = req.headers["mcp-session-id"];
      const holder = typeof session === "string" ? `session:${session}` : req.socket;
      if (streams.held(holder) >= limits.maxSubscriptionsPerClient) {
        return refuse(res, 429, "Subscription limit reached");
      }
      if (streams.size >= maxStreams) evictStream();
      const stream: Stream = {
        holder,
        address: req.socket.remoteAddress ?? "",
        socket: req.socket,
      };
      streams.add(stream);
      if (connection !== undefined) connection.streams++;
      res.once("close", () => {
        streams.delete(stream);
        if (connection !== undefined) connection.streams--;
      });
    }
    const url = new URL(req.url ?? "/", `http://${req.headers.host ?? options.host}`);
    // The exchange is abandoned when the response closes before it is finished (the client left).
    const controller = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    const request = toRequest(
      req,
      url,
      parsed === undefined ? read.body : undefined,
      controller.signal,
    );
    await send(
      await handler.fetch(request, parsed === undefined ? undefined : { parsedBody: parsed.value }),
      res,
    );
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
      for (const socket of connections.keys()) socket.destroy();
      await closed;
    },
  };
}

/** The fewest characters of a bearer token. */
export const MIN_TOKEN_CHARS = 16;

function digestOf(text: string): Uint8Array {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * Whether an `Authorization` header carries the token: the digests of both
 * compared in constant time (equal lengths whatever was sent), so the time
 * taken says nothing about how much of it was right.
 */
function bearerMatches(header: string | undefined, token: Uint8Array): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return timingSafeEqual(digestOf(match?.[1] ?? ""), token) && match !== null;
}

const UTF8 = new TextDecoder();

/** A body as JSON, or `undefined` when it is not JSON (the SDK then answers the parse error). */
function parseJson(body: Uint8Array): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(UTF8.decode(body)) };
  } catch {
    return undefined;
  }
}

/** Whether a JSON-RPC message (or batch) asks for a subscription stream. */
function isListen(message: unknown): boolean {
  return (Array.isArray(message) ? message : [message]).some((m) =>
    (m as { method?: unknown } | null)?.method === "subscriptions/listen"
  );
}

/**
 * A request's body, at most `max` bytes, each chunk first granted by
 * `grant` (the shared budget of buffered bytes); `held` is what was granted.
 */
async function readBody(
  req: IncomingMessage,
  max: number,
  grant: (bytes: number) => boolean,
): Promise<{ body?: Uint8Array<ArrayBuffer>; status?: number; held: number }> {
  const method = req.method ?? "GET";
  if (method === "GET" || method === "HEAD") return { held: 0 };
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      const bytes = chunk as Uint8Array;
      if (size + bytes.length > max) return { status: 413, held: size };
      if (!grant(bytes.length)) return { status: 503, held: size };
      size += bytes.length;
      chunks.push(bytes);
    }
  } catch {
    return { status: 400, held: size };
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.length;
  }
  return { body, held: size };
}

function toRequest(
  req: IncomingMessage,
  url: URL,
  body: Uint8Array<ArrayBuffer> | undefined,
  signal: AbortSignal,
): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(url, {
    method: req.method ?? "GET",
    headers,
    signal,
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
