/**
 * A server process for the serve benches: `skillset` (this project's
 * `serveSkills` + `listenHttp`) or the peer built from the official SDK alone
 * (`SkillsExtension.load(nodeSkillFiles(folder))` behind `createMcpHandler`
 * and a plain `node:http` adapter). Prints `listening <url>` on stdout, and
 * answers `rss` on stdin with its RSS and used heap after a collection (and
 * a settle of half a second), `cpu` with the microseconds of CPU it has used.
 *
 * `locked` is `skillset` serving the folder under a lockfile made at start.
 *
 * Run: `tsx bench/_serve_child.ts skillset|sdk|locked <folder>`.
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import { nodeSkillFiles } from "@modelcontextprotocol/server/ext/skills/node";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { discoverSkills, lockSkills, writeLockfile } from "../lib/load.ts";
import { listenHttp, serveSkills } from "../lib/mcp.ts";

const [mode, folder] = process.argv.slice(2);
if (folder === undefined || (mode !== "skillset" && mode !== "sdk" && mode !== "locked")) {
  throw new Error("usage: _serve_child.ts skillset|sdk|locked <folder>");
}

/** How long the memory reading waits after a collection for freed pages to be returned. */
const SETTLE_MS = 500;

let url: string;
if (mode === "skillset" || mode === "locked") {
  const discovery = discoverSkills([{ scope: "bench", path: folder }], { maxFolders: 1_000_000 });
  let lock: string | undefined;
  if (mode === "locked") {
    // Locked before the server starts (as `skillset lock` would), then served with --lockfile.
    lock = join(mkdtempSync(join(tmpdir(), "skillset-serve-lock-")), "skills.lock.json");
    writeLockfile(lock, (await lockSkills(discovery, { base: dirname(lock) })).lock);
  }
  const served = await serveSkills(discovery, {
    onWarning: () => {},
    ...(lock === undefined ? {} : { lock }),
  });
  if (served.skills.size !== discovery.skills.length) throw new Error("a skill was not served");
  const listener = await listenHttp(served.createServer, { host: "127.0.0.1", port: 0 });
  url = listener.url;
} else {
  const catalog = await SkillsExtension.load(nodeSkillFiles(folder), { onWarning: () => {} });
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "sdk-peer", version: "1.0.0" });
    catalog.attach(server);
    return server;
  });
  const server = createServer((req, res) => void serve(handler, req, res));
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}
process.stdout.write(`listening ${url}\n`);
process.stdin.setEncoding("utf8").on("data", async (line: string) => {
  if (line.includes("cpu")) {
    const cpu = process.cpuUsage();
    process.stdout.write(`cpu ${cpu.user + cpu.system}\n`);
  }
  if (!line.includes("rss")) return;
  // A collection returns before the collector's own threads have swept and given
  // freed pages back: RSS read at once swings by ±20 % from one reading to the next.
  collect();
  await new Promise((ok) => setTimeout(ok, SETTLE_MS));
  collect();
  collect();
  const memory = process.memoryUsage();
  process.stdout.write(`rss ${memory.rss} ${memory.heapUsed}\n`);
});
process.stdin.on("end", () => process.exit(0));

/** A full collection where the runtime offers one (Node and Deno with --expose-gc, Bun). */
function collect(): void {
  const g = globalThis as { gc?: () => void; Bun?: { gc(force: boolean): void } };
  if (g.Bun !== undefined) g.Bun.gc(true);
  else g.gc?.();
}

async function serve(
  handler: ReturnType<typeof createMcpHandler>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const chunks: Uint8Array[] = [];
  for await (const c of req) chunks.push(c as Uint8Array);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) { for (const x of Array.isArray(v) ? v : [v]) headers.append(k, x); }
  }
  const method = req.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? undefined : Buffer.concat(chunks);
  const response = await handler.fetch(
    new Request(`http://127.0.0.1${req.url}`, { method, headers, ...(body ? { body } : {}) }),
  );
  const out: Record<string, string> = {};
  response.headers.forEach((v, k) => (out[k] = v));
  res.writeHead(response.status, out);
  if (response.body === null) return void res.end();
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}
