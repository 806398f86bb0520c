/**
 * `serve --http` with a bearer token: every request must carry it, and with
 * `--allow-scripts` the command line refuses to listen without one.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { listenHttp, serveSkills } from "../../lib/mcp.ts";
import { runIn } from "../_cli.ts";
import { skillFolder, tempFolders } from "../_run.ts";

const temp = tempFolders("skillset-serve-token-", 0o755);
const TOKEN = "s3cret-token-of-the-host-0123456789";

async function listening() {
  const dir = skillFolder(temp(), { "scripts/a.sh": "echo a\n" }, "runner", "Runs a script");
  const served = await serveSkills([dir], { onWarning: () => {}, scripts: {} });
  return await listenHttp(() => served.createServer(), {
    host: "127.0.0.1",
    port: 0,
    bearerToken: TOKEN,
  });
}

function post(url: string, authorization?: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
}

describe("listenHttp with a bearer token", () => {
  it("answers 401 to a request without the token or with another, before the tools are reached", async () => {
    const http = await listening();
    try {
      for (const header of [undefined, "Bearer wrong", `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
        const res = await post(http.url, header);
        assert.equal(res.status, 401, String(header));
        assert.equal(res.headers.get("www-authenticate"), "Bearer");
        assert.match(await res.text(), /Unauthorized: this server needs its bearer token/);
      }
    } finally {
      await http.close();
    }
  });

  it("serves a client that sends the token, run_skill_script among the tools", async () => {
    const http = await listening();
    const client = new Client({ name: "host", version: "1.0.0" });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(http.url), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === "run_skill_script"));
    } finally {
      await client.close();
      await http.close();
    }
  });

  it("refuses a token shorter than 16 characters", async () => {
    await assert.rejects(
      listenHttp(() => {
        throw new Error("never called");
      }, { host: "127.0.0.1", port: 0, bearerToken: "short" }),
      { name: "RangeError", message: "bearerToken must hold at least 16 characters" },
    );
  });
});

describe("skillset serve --http --allow-scripts", () => {
  it(
    "exits non-zero naming the token options when no token is given",
    { timeout: 30_000 },
    async () => {
      const dir = skillFolder(temp(), { "scripts/a.sh": "echo a\n" }, "runner", "Runs a script");
      const result = await runIn(temp(), "serve", dir, "--http", "127.0.0.1:0", "--allow-scripts");
      assert.equal(result.code, 2);
      assert.match(
        result.err,
        /serve --http --allow-scripts needs a bearer token, so other local processes cannot run scripts: give --token-file FILE or --token-env NAME/,
      );
    },
  );

  it("refuses a token option without --http (stdio is unchanged)", async () => {
    const dir = skillFolder(temp(), {}, "plain", "Nothing to run");
    const result = await runIn(temp(), "serve", dir, "--token-env", "SKILLSET_TEST_TOKEN");
    assert.equal(result.code, 2);
    assert.match(result.err, /serve: --token-env needs --http/);
  });
});
