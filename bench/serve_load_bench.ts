/**
 * The load test of `skillset serve --http` (a server child on this runtime,
 * 1,000 synthetic skills): 20,000 requests with RSS after a collection
 * compared with the RSS after the first 1,000; 1,000 clients that connect,
 * read and are abandoned, then RSS again; 1,100 half-sent requests held open
 * while a normal client keeps asking (its slowest answer); 300 stalled
 * bodies behind a bad Host (RSS growth). The first two loads also run
 * against the server built from the SDK alone, for scale (what the runtime
 * and the SDK do to RSS by themselves). RSS is read after a collection and
 * half a second for the collector to give freed pages back
 * (`bench/_serve_child.ts`). Bounded in count and time; loopback only.
 * Run: `npm run bench -- serve`.
 *
 * @module
 */
import { rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { QUICK, recordValue } from "./_harness.ts";
import { type ServerChild, startServer, syntheticSkills } from "./_serve_lib.ts";
import {
  SERVE_LOAD_ABANDONED,
  SERVE_LOAD_BENCH,
  SERVE_LOAD_HALF_SENT,
  SERVE_LOAD_REQUESTS,
  SERVE_LOAD_STALLED,
  SERVE_PEER,
} from "./_report.ts";

const SKILLS = 1000;
const REQUESTS = QUICK ? 5000 : 20_000;
const folder = syntheticSkills(SKILLS);
const MiB = 1024 * 1024;
const mib = (n: number) => (n / MiB).toFixed(0);

function value(workload: string, name: string, v: number, note: string): void {
  recordValue({
    bench: SERVE_LOAD_BENCH,
    workload,
    size: SKILLS,
    case: name,
    median: null,
    p75: null,
    p99: null,
    samples: 1,
    baseline: null,
    ratio: null,
    value: v,
    note,
  });
}

async function client(server: ServerChild): Promise<Client> {
  const c = new Client({ name: "load", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  return c;
}
const uri = (i: number) => `skill://skill-${String(i % SKILLS).padStart(5, "0")}/references/a.md`;

/** 1. REQUESTS requests from 8 clients (reads, one in ten `tools/list`): memory at 1,000, half, all. */
async function steady(server: ServerChild) {
  const pool = await Promise.all(Array.from({ length: 8 }, () => client(server)));
  let sent = 0;
  const run = async (until: number) =>
    await Promise.all(pool.map(async (c) => {
      while (sent < until) {
        const i = sent++;
        if (i % 10 === 0) await c.listTools();
        else await c.readResource({ uri: uri(i) });
      }
    }));
  await run(1000);
  const after1k = await server.memory();
  await run(REQUESTS / 2);
  const middle = await server.memory();
  await run(REQUESTS);
  const afterAll = await server.memory();
  for (const c of pool) await c.close();
  return { after1k, middle, afterAll };
}

/** 2. 1,000 clients that connect, read once and are abandoned (never closed): RSS before and after. */
async function abandon(server: ServerChild) {
  const before = await server.rss();
  let abandoned: Client[] = [];
  for (let i = 0; i < 1000; i += 50) {
    abandoned.push(
      ...await Promise.all(Array.from({ length: 50 }, async () => {
        const c = await client(server);
        await c.readResource({ uri: uri(i) });
        return c;
      })),
    );
  }
  abandoned = [];
  await new Promise((ok) => setTimeout(ok, 1000));
  return { before, freed: await server.rss() };
}

// The same two loads on the server built from the SDK alone first, for scale: what
// the runtime and the SDK do to RSS by themselves (no targets on these rows).
try {
  const peer = await startServer("sdk", folder);
  try {
    const p = await steady(peer);
    value(
      SERVE_LOAD_REQUESTS,
      `${SERVE_PEER}: RSS after ${REQUESTS} requests ÷ after 1,000`,
      p.afterAll.rss / p.after1k.rss,
      `${mib(p.after1k.rss)} → ${mib(p.middle.rss)} → ${mib(p.afterAll.rss)} MiB`,
    );
    const a = await abandon(peer);
    value(
      SERVE_LOAD_ABANDONED,
      `${SERVE_PEER}: RSS after 1,000 abandoned clients ÷ before`,
      a.freed / a.before,
      `${mib(a.before)} → ${mib(a.freed)} MiB`,
    );
  } finally {
    await peer.stop();
  }

  const server = await startServer("skillset", folder);
  const { port } = new URL(server.url);
  try {
    const r = await steady(server);
    value(
      SERVE_LOAD_REQUESTS,
      `RSS after ${REQUESTS} requests ÷ after 1,000`,
      r.afterAll.rss / r.after1k.rss,
      `${mib(r.after1k.rss)} → ${mib(r.middle.rss)} → ${mib(r.afterAll.rss)} MiB at 1,000, ${
        REQUESTS / 2
      }, ${REQUESTS}`,
    );
    value(
      SERVE_LOAD_REQUESTS,
      `RSS after ${REQUESTS} requests ÷ after ${REQUESTS / 2}`,
      r.afterAll.rss / r.middle.rss,
      "the second half",
    );
    value(
      SERVE_LOAD_REQUESTS,
      `used heap after ${REQUESTS} requests ÷ after 1,000`,
      r.afterAll.heap / r.after1k.heap,
      `${mib(r.after1k.heap)} → ${mib(r.middle.heap)} → ${mib(r.afterAll.heap)} MiB`,
    );

    const a = await abandon(server);
    value(
      SERVE_LOAD_ABANDONED,
      "RSS after 1,000 abandoned clients ÷ before",
      a.freed / a.before,
      `${mib(a.before)} → ${mib(a.freed)} MiB`,
    );

    // 3. 1,100 half-sent requests while a normal client keeps asking.
    const half: Socket[] = [];
    for (let i = 0; i < 1100; i++) {
      const s = connect(Number(port), "127.0.0.1");
      s.on("error", () => {});
      s.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 1000\r\n\r\n{"js`);
      half.push(s);
    }
    const normal = await client(server);
    let slowest = 0;
    const end = performance.now() + (QUICK ? 3000 : 10_000);
    for (let i = 0; performance.now() < end; i++) {
      const t0 = performance.now();
      await normal.readResource({ uri: uri(i) });
      slowest = Math.max(slowest, performance.now() - t0);
    }
    value(
      SERVE_LOAD_HALF_SENT,
      "slowest answer (ms) beside 1,100 half-sent requests",
      slowest,
      "bound 1,000 ms",
    );
    await normal.close();
    for (const s of half) s.destroy();

    // 4. 300 stalled bodies behind a bad Host.
    await new Promise((ok) => setTimeout(ok, 500));
    const quiet = await server.rss();
    const stalled: Socket[] = [];
    const chunk = "x".repeat(64 * 1024);
    for (let i = 0; i < 300; i++) {
      const s = connect(Number(port), "127.0.0.1");
      s.on("error", () => {});
      s.write(`POST /mcp HTTP/1.1\r\nHost: evil.example\r\nContent-Length: ${4 * MiB}\r\n\r\n`);
      for (let k = 0; k < 16; k++) s.write(chunk);
      stalled.push(s);
    }
    await new Promise((ok) => setTimeout(ok, 2000));
    const loaded = await server.rss();
    value(
      SERVE_LOAD_STALLED,
      "RSS growth (MiB) with 300 stalled bodies behind a bad Host",
      (loaded - quiet) / MiB,
      "bound 100 MiB",
    );
    for (const s of stalled) s.destroy();
  } finally {
    await server.stop();
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
