/**
 * `skillset serve` against a server built from the official SDK alone
 * (`SkillsExtension.load(nodeSkillFiles(folder))` behind `createMcpHandler`),
 * same synthetic folder, same run, each in its own process on this runtime,
 * driven by the official client over HTTP: `resources/read` throughput with
 * 1 and 32 concurrent clients (as time per read, so a ratio under 1 is
 * faster), the server's own CPU time per read (user + system, read from the
 * server process, so the client's cost is left out), p99 latency, and cold
 * start (spawn to the first `resources/list` answer). Rounds alternate the two servers so machine noise hits both.
 * Run: `npm run bench -- serve`.
 *
 * @module
 */
import { rmSync } from "node:fs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { QUICK, recordValue } from "./_harness.ts";
import { quantile, type ServerChild, startServer, syntheticSkills } from "./_serve_lib.ts";
import {
  SERVE_BENCH,
  SERVE_COLD,
  SERVE_CPU,
  SERVE_OURS,
  SERVE_PEER,
  SERVE_READ_1,
  SERVE_READ_32,
} from "./_report.ts";

/** This project's server under a lockfile made at start (`serve --lockfile`): every read checked. */
const SERVE_LOCKED = "skillset serve --lockfile";

const SKILLS = QUICK ? 1000 : 10_000;
// Many short rounds, alternating which server goes first, so a drift of the machine
// (or of the client process) falls on both servers alike.
const ROUND_MS = QUICK ? 500 : 1000;
const ROUNDS = QUICK ? 2 : 5;
const folder = syntheticSkills(SKILLS);

type Mode = "sdk" | "skillset" | "locked";

async function clients(url: string, n: number): Promise<Client[]> {
  return await Promise.all(
    Array.from({ length: n }, async () => {
      const client = new Client({ name: "bench", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      return client;
    }),
  );
}

const uri = (i: number) =>
  `skill://skill-${String(i % SKILLS).padStart(5, "0")}/references/${i % 2 ? "a" : "b"}.md`;

/** Reads for `ms` by every client at once; each read's latency in ms. */
async function readFor(all: readonly Client[], ms: number): Promise<number[]> {
  const latencies: number[] = [];
  const end = performance.now() + ms;
  let next = Math.floor(Math.random() * SKILLS);
  await Promise.all(all.map(async (client) => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const read = await client.readResource({ uri: uri(next++) });
      if (read.contents.length !== 1) throw new Error("bad read");
      latencies.push(performance.now() - t0);
    }
  }));
  return latencies;
}

async function coldStart(mode: "skillset" | "sdk"): Promise<number> {
  const t0 = performance.now();
  const server = await startServer(mode, folder);
  const [client] = await clients(server.url, 1);
  await client!.listResources();
  const ms = performance.now() - t0;
  await client!.close();
  await server.stop();
  return ms;
}

function row(
  workload: string,
  name: string,
  ns: number,
  p99: number | null,
  base: number | null,
  samples: number,
) {
  recordValue({
    bench: SERVE_BENCH,
    workload,
    size: SKILLS,
    case: name,
    median: ns,
    p75: null,
    p99,
    samples,
    baseline: name === SERVE_PEER ? null : SERVE_PEER,
    ratio: base === null ? null : ns / base,
  });
}

try {
  // Cold start, alternating.
  const cold = { sdk: [] as number[], skillset: [] as number[] };
  for (let i = 0; i < 2; i++) {
    cold.sdk.push(await coldStart("sdk"));
    cold.skillset.push(await coldStart("skillset"));
  }
  const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);
  const coldPeer = median(cold.sdk) * 1e6;
  row(SERVE_COLD, SERVE_PEER, coldPeer, null, null, 2);
  row(SERVE_COLD, SERVE_OURS, median(cold.skillset) * 1e6, null, coldPeer, 2);

  const servers: Record<Mode, ServerChild> = {
    sdk: await startServer("sdk", folder),
    skillset: await startServer("skillset", folder),
    locked: await startServer("locked", folder),
  };
  try {
    for (const [workload, n] of [[SERVE_READ_1, 1], [SERVE_READ_32, 32]] as const) {
      const pool = {
        sdk: await clients(servers.sdk.url, n),
        skillset: await clients(servers.skillset.url, n),
        locked: await clients(servers.locked.url, n),
      };
      const got = {
        sdk: { reads: 0, ms: 0, cpu: 0, lat: [] as number[] },
        skillset: { reads: 0, ms: 0, cpu: 0, lat: [] as number[] },
        locked: { reads: 0, ms: 0, cpu: 0, lat: [] as number[] },
      };
      await readFor(pool.sdk, 300);
      await readFor(pool.skillset, 300);
      await readFor(pool.locked, 300);
      const orders: readonly (readonly Mode[])[] = [
        ["sdk", "skillset", "locked"],
        ["locked", "skillset", "sdk"],
        ["skillset", "locked", "sdk"],
      ];
      for (let round = 0; round < ROUNDS; round++) {
        for (const mode of orders[round % orders.length]!) {
          const cpu0 = await servers[mode].cpu();
          const lat = await readFor(pool[mode], ROUND_MS);
          got[mode].cpu += await servers[mode].cpu() - cpu0;
          got[mode].reads += lat.length;
          got[mode].ms += ROUND_MS;
          got[mode].lat.push(...lat);
        }
      }
      const per = (m: Mode) => (got[m].ms * 1e6) / got[m].reads;
      const p99 = (m: Mode) => quantile(got[m].lat.sort((a, b) => a - b), 0.99) * 1e6;
      row(workload, SERVE_PEER, per("sdk"), p99("sdk"), null, got.sdk.reads);
      row(workload, SERVE_OURS, per("skillset"), p99("skillset"), per("sdk"), got.skillset.reads);
      row(workload, SERVE_LOCKED, per("locked"), p99("locked"), per("sdk"), got.locked.reads);
      // The server's own CPU per read: what the server spends, whatever the client costs.
      const cpu = (m: Mode) => (got[m].cpu * 1e3) / got[m].reads;
      const cpuWorkload = SERVE_CPU[workload]!;
      row(cpuWorkload, SERVE_PEER, cpu("sdk"), null, null, got.sdk.reads);
      row(cpuWorkload, SERVE_OURS, cpu("skillset"), null, cpu("sdk"), got.skillset.reads);
      row(cpuWorkload, SERVE_LOCKED, cpu("locked"), null, cpu("sdk"), got.locked.reads);
      console.log(
        `  ${workload}: ${(1e9 / per("skillset")).toFixed(0)} (locked ${
          (1e9 / per("locked")).toFixed(0)
        }) vs ${(1e9 / per("sdk")).toFixed(0)} reads/s; ` +
          `p99 ${(p99("skillset") / 1e6).toFixed(1)} (locked ${
            (p99("locked") / 1e6).toFixed(1)
          }) vs ${(p99("sdk") / 1e6).toFixed(1)} ms`,
      );
      for (const c of [...pool.sdk, ...pool.skillset, ...pool.locked]) await c.close();
    }
  } finally {
    await servers.sdk.stop();
    await servers.skillset.stop();
    await servers.locked.stop();
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
