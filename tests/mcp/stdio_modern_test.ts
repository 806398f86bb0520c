// @slow: spawns stdio MCP servers and the CLI as child processes (left out of `npm run test:quick`)
// @every-runtime: the stdio client spawns and negotiates through each runtime's child_process
/**
 * MCP 2026-07-28 over stdio: the CLI's stdio client probes the newer
 * revision and falls back to the 2025 handshake; `serve --ttl-ms` and
 * `--cache-scope` set the cache hints a 2026-07-28 client sees.
 *
 * @module
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import process from "node:process";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { cli } from "../_cli.ts";
import { listenHttp, serveSkills, trustedMcpSkills } from "../../lib/mcp.ts";
import { cliCommand, commandLine, put, ROOT, RUNTIME, skillMd, tempDir } from "../_mcp.ts";

/** The fixture server runs under Node whatever runs the tests (it is plain JavaScript). */
const NODE = RUNTIME === "node" ? process.execPath : "node";
const MODERN_ONLY = join(ROOT, "tests", "fixtures", "mcp", "modern_only_server.mjs");

function skillsFolder(): string {
  const root = tempDir();
  put(root, "refunds/SKILL.md", skillMd("refunds", "Refund orders"));
  put(root, "refunds/references/policy.md", "Refunds within 30 days.\n");
  return root;
}

describe("the stdio client negotiates the protocol revision", () => {
  it("to-prompt --mcp-stdio lists a server that offers skills only on 2026-07-28 connections", () => {
    const server = commandLine({ command: NODE, args: [MODERN_ONLY, skillsFolder()] });
    const prompt = cli(["to-prompt", "--mcp-stdio", server, "--json"]);
    assert.equal(prompt.code, 0, prompt.stderr);
    assert.deepEqual(JSON.parse(prompt.stdout).map((e: { name: string }) => e.name), [
      "mcp:refunds",
    ]);
    const read = cli(["read", "--mcp-stdio", server, "refunds", "references/policy.md", "--json"]);
    assert.equal(read.code, 0, read.stderr);
    assert.equal(JSON.parse(read.stdout).content, "Refunds within 30 days.\n");
  });

  it("falls back to the 2025 handshake for a server that exits on the probe", () => {
    // A 2025-only server: it answers `initialize` and `skills/list`, and exits on anything else
    // before `initialize` (the shape of servers built on SDKs that end on an unknown request).
    const dir = tempDir();
    put(
      dir,
      "legacy.mjs",
      [
        'import { createInterface } from "node:readline";',
        "let ready = false;",
        "const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');",
        "createInterface({ input: process.stdin }).on('line', (line) => {",
        "  const m = JSON.parse(line);",
        "  if (m.method === 'initialize') {",
        "    ready = true;",
        "    send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion,",
        "      capabilities: {}, serverInfo: { name: 'legacy', version: '1' } } });",
        "  } else if (!ready) process.exit(1);",
        "  else if (m.id !== undefined) send({ jsonrpc: '2.0', id: m.id,",
        "    error: { code: -32601, message: 'Method not found' } });",
        "});",
      ].join("\n"),
    );
    const server = commandLine({ command: NODE, args: [join(dir, "legacy.mjs")] });
    const prompt = cli(["to-prompt", "--mcp-stdio", server, "--json"]);
    assert.equal(prompt.code, 0, prompt.stderr);
    assert.deepEqual(JSON.parse(prompt.stdout), []);
    // Said on stderr, not in the JSON on stdout.
    assert.match(
      prompt.stderr,
      /^mcp: warning: the server does not offer the skills extension \(io\.modelcontextprotocol\/skills\)$/m,
    );
  });
});

describe("serve --ttl-ms and --cache-scope", () => {
  async function listOver(
    args: readonly string[],
  ): Promise<{ ttlMs?: number; cacheScope?: string }> {
    const client = new Client({ name: "test", version: "1.0.0" }, {
      versionNegotiation: { mode: "auto" },
    });
    const { command, args: full } = cliCommand(["serve", skillsFolder(), ...args]);
    await client.connect(new StdioClientTransport({ command, args: full, stderr: "ignore" }));
    try {
      const listing = await new SkillsClient(client).list();
      assert.deepEqual(listing.skills.map((s) => s.uri), ["skill://refunds/SKILL.md"]);
      const got = await new SkillsClient(client).get("skill://refunds/SKILL.md");
      assert.equal(got.ttlMs, listing.ttlMs);
      assert.equal(got.cacheScope, listing.cacheScope);
      return {
        ...(listing.ttlMs === undefined ? {} : { ttlMs: listing.ttlMs }),
        ...(listing.cacheScope === undefined ? {} : { cacheScope: listing.cacheScope }),
      };
    } finally {
      await client.close();
    }
  }

  it("sets the hints on listings (defaults unchanged)", async () => {
    assert.deepEqual(await listOver([]), { ttlMs: 0, cacheScope: "private" });
    assert.deepEqual(await listOver(["--ttl-ms", "60000", "--cache-scope", "public"]), {
      ttlMs: 60_000,
      cacheScope: "public",
    });
  });

  it("serveSkills refuses a cacheHint out of range before serving", async () => {
    await assert.rejects(serveSkills([skillsFolder()], { cacheHint: { ttlMs: -1 } }), {
      name: "RangeError",
      message: "Invalid ttlMs -1: use an integer from 0 to 86400000",
    });
    await assert.rejects(
      serveSkills([skillsFolder()], { cacheHint: { cacheScope: "shared" as "public" } }),
      { name: "RangeError", message: 'Invalid cacheScope "shared": use "public" or "private"' },
    );
  });

  it("refuses hints out of range", () => {
    const folder = skillsFolder();
    const scope = cli(["serve", folder, "--cache-scope", "shared"]);
    assert.equal(scope.code, 2);
    assert.equal(scope.stderr, 'skillset: --cache-scope takes public or private, got "shared"\n');
    const ttl = cli(["serve", folder, "--ttl-ms", "86400001"]);
    assert.equal(ttl.code, 2);
    assert.equal(
      ttl.stderr,
      "skillset: --ttl-ms takes at most 86400000 (24 hours), got 86400001\n",
    );
  });
});

describe("the consumer honours ttlMs", () => {
  async function served(cacheHint: { ttlMs: number }) {
    const skills = await serveSkills([skillsFolder()], { cacheHint, onWarning: () => {} });
    const http = await listenHttp(() => skills.createServer(), { host: "127.0.0.1", port: 0 });
    let lists = 0;
    const counting: typeof fetch = async (input, init) => {
      if (typeof init?.body === "string" && init.body.includes('"skills/list"')) lists++;
      return await fetch(input, init);
    };
    const client = new Client({ name: "test", version: "1.0.0" }, {
      versionNegotiation: { mode: "auto" },
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { fetch: counting }));
    return {
      client,
      lists: () => lists,
      close: async () => {
        await client.close();
        await http.close();
      },
    };
  }

  it("refresh() keeps a listing younger than its ttlMs and lists again after it", async () => {
    const server = await served({ ttlMs: 60_000 });
    try {
      const trusted = await trustedMcpSkills(server.client, { origin: "web" });
      assert.equal(trusted.all.ttlMs, 60_000);
      assert.deepEqual([...trusted.bundles.keys()], ["web:refunds"]);
      const before = server.lists();
      await trusted.refresh();
      assert.equal(server.lists(), before);
    } finally {
      await server.close();
    }
  });

  it("refresh() lists again at once when the server sends ttlMs 0 (the default)", async () => {
    const server = await served({ ttlMs: 0 });
    try {
      const trusted = await trustedMcpSkills(server.client, { origin: "web" });
      assert.equal(trusted.all.ttlMs, 0);
      const before = server.lists();
      await trusted.refresh();
      assert.equal(server.lists(), before + 1);
    } finally {
      await server.close();
    }
  });
});
