/**
 * An MCP host connecting to the README's `mcpServers` entry: spawn to the
 * first `resources/list` answer over stdio, for `node <bin> serve
 * examples/skills` (the installed package's bin) against a server built from
 * the official SDK alone (`bench/_sdk_stdio_server.mjs`: the skills extension
 * over `nodeSkillFiles`, plain JavaScript) in the same run, rounds
 * alternating so machine noise hits both; and, for scale, the sources through
 * tsx. Node processes only, as the host would start them.
 * Run: `npm run bench -- mcp_connect`.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { packAndInstall, ROOT } from "../tests/_package.ts";
import { QUICK, recordValue } from "./_harness.ts";
import {
  MCP_CONNECT_OURS,
  MCP_CONNECT_PEER,
  MCP_CONNECT_TSX,
  MCP_CONNECT_WORKLOAD,
} from "./_report.ts";

if ("Deno" in globalThis || "Bun" in globalThis) {
  console.log("mcp_connect: measures Node processes; see the Node run");
  process.exit(0);
}

const temp = mkdtempSync(join(tmpdir(), "skillset-mcp-connect-"));
const project = packAndInstall(temp);
const skills = join(ROOT, "examples", "skills");
const env: Record<string, string> = Object.fromEntries(
  Object.entries(process.env).filter((e): e is [string, string] =>
    e[1] !== undefined && e[0] !== "NODE_OPTIONS"
  ),
);

const COMMANDS: Record<string, readonly string[]> = {
  [MCP_CONNECT_PEER]: [join(ROOT, "bench", "_sdk_stdio_server.mjs"), skills],
  [MCP_CONNECT_OURS]: [
    join(project, "node_modules", "skillset", "dist", "bin", "skillset.mjs"),
    "serve",
    skills,
  ],
  [MCP_CONNECT_TSX]: [
    "--import",
    new URL(`file://${join(ROOT, "node_modules", "tsx", "dist", "loader.mjs")}`).href,
    join(ROOT, "lib", "cli.ts"),
    "serve",
    skills,
  ],
};

/** Milliseconds from spawning the server to its first `resources/list` answer. */
async function connect(args: readonly string[]): Promise<number> {
  const t0 = performance.now();
  const client = new Client({ name: "bench-host", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [...args], env, stderr: "ignore" }),
  );
  const listed = await client.listResources();
  const ms = performance.now() - t0;
  await client.close();
  if (listed.resources.length === 0) throw new Error(`${args.join(" ")}: no resources`);
  return ms;
}

const ROUNDS = QUICK ? 3 : 9;
const times = new Map<string, number[]>(Object.keys(COMMANDS).map((k) => [k, []]));
try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = Object.keys(COMMANDS);
    if (round % 2 === 1) order.reverse();
    for (const name of order) {
      // The tsx case is for scale only: three rounds are enough.
      if (name === MCP_CONNECT_TSX && round >= 3) continue;
      times.get(name)!.push(await connect(COMMANDS[name]!));
    }
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor((s.length - 1) / 2)]!;
  };
  const peer = median(times.get(MCP_CONNECT_PEER)!) * 1e6;
  for (const [name, ms] of times) {
    const ns = median(ms) * 1e6;
    recordValue({
      bench: "mcp_connect",
      workload: MCP_CONNECT_WORKLOAD,
      size: 1,
      case: name,
      median: ns,
      p75: null,
      p99: null,
      samples: ms.length,
      baseline: name === MCP_CONNECT_PEER ? null : MCP_CONNECT_PEER,
      ratio: name === MCP_CONNECT_PEER ? null : ns / peer,
    });
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
