// The SDK-only stdio server of bench/mcp_connect_bench.ts: the official SDK's skills extension
// over `nodeSkillFiles(folder)`, served over stdio, and nothing else. Plain JavaScript, so Node
// runs it without a loader, as it runs the `skillset` bin.
// Run: node bench/_sdk_stdio_server.mjs <folder>
import process from "node:process";
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import { nodeSkillFiles } from "@modelcontextprotocol/server/ext/skills/node";

const folder = process.argv[2];
if (folder === undefined) throw new Error("usage: _sdk_stdio_server.mjs <folder>");
const catalog = await SkillsExtension.load(nodeSkillFiles(folder), { onWarning: () => {} });
const handle = serveStdio(() => {
  const server = new McpServer({ name: "sdk-peer", version: "1.0.0" });
  catalog.attach(server);
  return server;
});
process.stdin.once("end", () => void handle.close());
