// @slow: serves and consumes over MCP with child processes (left out of `npm run test:quick`)
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  Client,
  InMemoryTransport,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { type Skill, SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { McpServer } from "@modelcontextprotocol/server";
import {
  memorySkillFiles,
  SkillsExtension,
  type SkillWarning,
} from "@modelcontextprotocol/server/ext/skills";
import { fc, runs } from "../_fc.ts";
import {
  BINARY,
  cliCommand,
  commandLine,
  digest,
  entryOf,
  eventually,
  GEN_NONSTANDARD,
  GEN_STANDARD,
  generatedSkills,
  hostileClient,
  type HostileContent,
  listPage,
  put,
  ROOT,
  skillMd,
  startHttpServer,
  tempDir,
  within,
} from "../_mcp.ts";
import { cli } from "../_cli.ts";
import {
  activateSkill,
  handleSkillTool,
  readResource,
  renderActivation,
  skillToolDefinition,
} from "../../mod.ts";
import { loadSkillFolder } from "../../lib/load.ts";
import {
  listenHttp,
  mcpSkillBundles,
  McpSkillError,
  serveSkills,
  type SkillServer,
} from "../../lib/mcp.ts";
import { runMcpCli, splitCommand } from "../../lib/cli/mcp/_mcp.ts";
import { mainAsync } from "../../lib/cli.ts";

const MCP_SERVE_USAGE = "skillset serve <folder>... [--root scope=path]... " +
  "[--http 127.0.0.1:PORT [--allow-remote] [--token-file FILE | --token-env NAME]] [--watch] [--prefix <p>] [--page-size N] [--tool-budget N] " +
  "[--usage-log FILE] " +
  "[--class NAME=references|assets|scripts]... [--global-safety true|false] [--skill-safety true|false] " +
  "[--lockfile FILE] [--approvals FILE] [--modes FILE] [--profile NAME [--profiles FILE]] [--paths PATH]... " +
  "[--ttl-ms N] [--cache-scope public|private] [--allow-empty] [--allow-scripts [run's flags]]";

const EXAMPLES = join(ROOT, "examples", "skills");
const TIME = 60_000;
const temps: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});
function temp(): string {
  const dir = tempDir();
  temps.push(dir);
  return dir;
}

/** A client connected in-process to a fresh server of `served`. */
async function connectInMemory(server: McpServer): Promise<Client> {
  const [here, there] = InMemoryTransport.createLinkedPair();
  await server.connect(there);
  const client = new Client({ name: "test-host", version: "1.0.0" });
  await client.connect(here);
  return client;
}

/** The relative path of a resource URI of a skill, decoded. */
function relative(skill: Skill, uri: string): string {
  const root = skill.uri.slice(0, -"SKILL.md".length);
  return uri.slice(root.length).split("/").map(decodeURIComponent).join("/");
}

/** What a local read of the same file gives, whole. */
function localBytes(folder: string, path: string): Uint8Array {
  const bundle = loadSkillFolder(folder);
  const file = bundle.files.get(path === "SKILL.md" ? "SKILL.md" : path)!;
  return file.read(0, file.size + 1);
}

async function rpcError(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
  } catch (e) {
    return (e as { code?: number }).code;
  }
  assert.fail("expected an error");
}

/**
 * The whole SEP-2640 surface against a connected client: capability, paging
 * at page size 1, get of every entry, read of every file against the local
 * bytes, digests and sizes, and the -32602 answers.
 */
async function roundTrip(client: Client, folders: Record<string, string>): Promise<void> {
  const extensions = client.getServerCapabilities()?.extensions as Record<string, unknown>;
  assert.deepEqual(extensions["io.modelcontextprotocol/skills"], { directoryRead: true });
  const skills = new SkillsClient(client);
  // Page size 1: every page holds one whole entry; the walk sees each once.
  const walked: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await listPage(client, cursor);
    assert.ok(page.skills.length <= 1, "a page holds at most one entry");
    walked.push(...page.skills.map((s) => s.uri));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const { skills: entries } = await skills.list();
  assert.deepEqual(walked, entries.map((e) => e.uri));
  assert.deepEqual(entries.map((e) => e.frontmatter.name).sort(), Object.keys(folders).sort());
  for (const entry of entries) {
    const folder = folders[entry.frontmatter.name as string]!;
    assert.deepEqual((await skills.get(entry.uri)).skill, entry);
    assert.ok(Array.isArray(entry.resources));
    const resources = entry.resources as { uri: string; digest: string; size: number }[];
    for (const resource of resources) {
      const path = relative(entry, resource.uri);
      const local = localBytes(folder, path);
      const file = await skills.read(entry, resource.uri);
      assert.deepEqual(file.bytes, local, `${resource.uri} equals the local read`);
      assert.equal(resource.size, local.length);
      assert.equal(resource.digest, await digest(local));
      if (path === "SKILL.md") {
        const read = await client.readResource({ uri: resource.uri });
        const content = read.contents[0] as { mimeType?: string };
        assert.equal(content.mimeType, "text/markdown");
      }
    }
    // A file is not a directory.
    assert.equal(
      await rpcError(skills.readDirectory(resources.at(-1)!.uri)),
      -32602,
    );
  }
  assert.equal(await rpcError(skills.get("skill://no-such-skill/SKILL.md")), -32602);
  // resources/list shows each SKILL.md with the frontmatter's name and description.
  const listed = (await client.listResources()).resources;
  assert.deepEqual(
    listed.map((r) => [r.uri, r.name, r.description, r.mimeType]),
    entries.map((e) => [e.uri, e.frontmatter.name, e.frontmatter.description, "text/markdown"]),
  );
}

describe("serveSkills", () => {
  for (const era of ["2025-11-25", "2026-07-28"] as const) {
    it(`round trip over stdio with the official client, protocol ${era}: examples and a generated folder, page size 1`, async () => {
      const root = temp();
      const generated = generatedSkills(root);
      const transport = new StdioClientTransport({
        ...cliCommand(["serve", EXAMPLES, generated, "--page-size", "1"]),
        stderr: "pipe",
      });
      const client = new Client(
        { name: "test-host", version: "1.0.0" },
        era === "2026-07-28" ? { versionNegotiation: { mode: { pin: era } } } : {},
      );
      await within(TIME, client.connect(transport), "connect over stdio");
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), era);
        await within(
          TIME,
          roundTrip(client, { pdf: join(EXAMPLES, "pdf"), gen: join(generated, "gen") }),
          "stdio round trip",
        );
      } finally {
        await client.close();
      }
    });
  }

  for (const era of ["2025-11-25", "2026-07-28"] as const) {
    it(`round trip over Streamable HTTP on 127.0.0.1, protocol ${era}`, async () => {
      const root = temp();
      const generated = generatedSkills(root);
      const server = await startHttpServer([EXAMPLES, generated, "--page-size", "1"]);
      const client = new Client(
        { name: "test-host", version: "1.0.0" },
        era === "2026-07-28" ? { versionNegotiation: { mode: { pin: era } } } : {},
      );
      try {
        assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        await within(
          TIME,
          client.connect(new StreamableHTTPClientTransport(new URL(server.url))),
          "connect over HTTP",
        );
        assert.equal(client.getNegotiatedProtocolVersion(), era);
        await within(
          TIME,
          roundTrip(client, { pdf: join(EXAMPLES, "pdf"), gen: join(generated, "gen") }),
          "HTTP round trip",
        );
        if (era === "2026-07-28") {
          // The CLI's own client negotiates over HTTP.
          const read = cli([
            "read",
            "--mcp-url",
            server.url,
            "--origin",
            "web",
            "web:gen",
            "top.txt",
          ]);
          assert.equal(read.code, 0, read.stderr);
          assert.match(read.stdout, /^skill: web:gen$/m);
          assert.match(read.stdout, /^top level$/m);
        }
      } finally {
        await client.close();
        await server.stop();
      }
    });
  }

  it("HTTP refuses a request whose Host is not localhost (DNS rebinding)", async () => {
    const server = await startHttpServer([EXAMPLES]);
    try {
      const url = new URL(server.url);
      const status = await new Promise<number>((ok, fail) => {
        const req = httpRequest({
          host: url.hostname,
          port: url.port,
          path: "/mcp",
          method: "POST",
          headers: { host: "attacker.example", "content-type": "application/json" },
        }, (res) => {
          res.resume();
          ok(res.statusCode ?? 0);
        });
        req.on("error", fail);
        req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
      });
      assert.equal(status, 403);
    } finally {
      await server.stop();
    }
  });

  it("the CLI refuses a non-loopback --http address without --allow-remote", () => {
    const result = cli(["serve", EXAMPLES, "--http", "192.0.2.1:8765"]);
    assert.equal(result.code, 2);
    assert.equal(
      result.stderr,
      'skillset: refused to serve on "192.0.2.1": not a loopback address (add --allow-remote to serve beyond this machine)\n',
    );
  });

  describe("the gate over MCP", () => {
    const states = [
      { global_safety: true, skill_safety: true },
      { global_safety: true, skill_safety: false },
      { global_safety: false, skill_safety: true },
      { global_safety: false, skill_safety: false },
    ];
    for (const flags of states) {
      const open = !flags.global_safety && !flags.skill_safety;
      it(
        `global ${flags.global_safety}, skill ${flags.skill_safety}: non-standard files ${
          open ? "served" : "hidden"
        } in skills/list, skills/get, resources/read, directory reads and the skill tool`,
        async () => {
          const skills = generatedSkills(temp());
          const served = await serveSkills([skills], { ...flags, onWarning: () => {} });
          const client = await connectInMemory(served.server);
          try {
            const sc = new SkillsClient(client);
            const { skills: [entry] } = await sc.list();
            const paths = (entry!.resources as { uri: string }[]).map((r) =>
              relative(entry!, r.uri)
            )
              .sort();
            const expected = [...GEN_STANDARD, ...(open ? GEN_NONSTANDARD : [])].sort();
            assert.deepEqual(paths, expected, "skills/list");
            assert.deepEqual((await sc.get(entry!.uri)).skill, entry, "skills/get");
            for (const path of GEN_NONSTANDARD) {
              const uri = `skill://gen/${path}`;
              const read = client.readResource({ uri });
              if (open) {
                const contents = (await read).contents[0] as { text?: string };
                assert.equal(contents.text, "non-standard secret\n", "resources/read");
              } else {
                assert.equal(await rpcError(read), -32602, "resources/read of a gated file");
              }
            }
            const top = (await sc.readDirectory("skill://gen")).resources.map((r) => r.name).sort();
            assert.deepEqual(
              top,
              [
                "SKILL.md",
                "assets",
                "references",
                "scripts",
                "top.txt",
                ...(open ? ["extras"] : []),
              ]
                .sort(),
            );
            const refs = (await sc.readDirectory("skill://gen/references")).resources
              .map((r) => r.name).sort();
            assert.equal(refs.includes("leak.md"), open, "directory read of references/");
            assert.equal(refs.includes("alias.md"), true);
            if (!open) {
              assert.equal(await rpcError(sc.readDirectory("skill://gen/extras")), -32602);
            }
            const activation = await client.callTool({
              name: "skill",
              arguments: { skill: "gen" },
            });
            const text = (activation.content as { text: string }[])[0]!.text;
            assert.equal(text.includes("extras/secret.txt"), open, "the skill tool's manifest");
            const secret = await client.callTool({
              name: "skill",
              arguments: { skill: "gen", resource: "extras/secret.txt" },
            });
            assert.equal(secret.isError === true, !open, "the skill tool's read");
            assert.equal(
              (secret.content as { text: string }[])[0]!.text.includes("non-standard secret"),
              open,
            );
          } finally {
            await client.close();
          }
        },
      );
    }
  });

  it("a link out of the skill is never published, whatever the gate", async () => {
    const skills = generatedSkills(temp());
    const served = await serveSkills([skills], {
      global_safety: false,
      skill_safety: false,
      onWarning: () => {},
    });
    const uris = (served.catalog.entries[0]!.resources as { uri: string }[]).map((r) => r.uri);
    assert.equal(uris.includes("skill://gen/assets/outside.txt"), false);
    const client = await connectInMemory(served.server);
    try {
      assert.equal(
        await rpcError(client.readResource({ uri: "skill://gen/assets/outside.txt" })),
        -32602,
      );
    } finally {
      await client.close();
    }
  });

  it("a listed link re-pointed into a non-standard folder is refused at read time", async () => {
    const root = temp();
    const skills = generatedSkills(root);
    const gen = join(skills, "gen");
    // Same bytes, so only the class decided on the opened handle can refuse it.
    writeFileSync(join(gen, "extras/secret.txt"), readFileSync(join(gen, "references/guide.md")));
    const warnings: SkillWarning[] = [];
    const served = await serveSkills([skills], { onWarning: (w) => warnings.push(w) });
    const client = await connectInMemory(served.server);
    try {
      // references/alias.md -> guide.md was listed as a link; it now leads into extras/.
      rmSync(join(gen, "references/alias.md"));
      symlinkSync("../extras/secret.txt", join(gen, "references/alias.md"));
      assert.equal(
        await rpcError(client.readResource({ uri: "skill://gen/references/alias.md" })),
        -32603,
      );
      assert.deepEqual(warnings.at(-1), {
        path: "gen/references/alias.md",
        message:
          'could not be read: Refused to read non-standard resource "references/alias.md": ' +
          "global safety is true, skill safety is true (both must be false)",
      });
    } finally {
      await client.close();
    }
  });

  it("published files are exactly what the gate lets a model see (generated trees, four states)", async () => {
    const segment = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,6}$/);
    const folder = fc.constantFrom("references", "assets", "scripts", "extra", "References", "");
    const file = fc.tuple(folder, fc.array(segment, { maxLength: 2 }), segment).map(
      ([top, middle, name]) => [top, ...middle, `${name}.txt`].filter((s) => s !== "").join("/"),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(file, { maxLength: 8 }),
        fc.boolean(),
        fc.boolean(),
        async (files, global_safety, skill_safety) => {
          const root = temp();
          put(root, "prop/SKILL.md", skillMd("prop"));
          const taken = new Set<string>();
          const kept = files.filter((f) => {
            // A file and a folder cannot share a path.
            const parts = f.split("/");
            for (let i = 1; i <= parts.length; i++) {
              const prefix = parts.slice(0, i).join("/");
              if (
                taken.has(prefix) ||
                (i === parts.length && [...taken].some((t) => t.startsWith(`${f}/`)))
              ) return false;
            }
            taken.add(f);
            return true;
          });
          for (const f of kept) put(join(root, "prop"), f, f);
          const served = await serveSkills([join(root, "prop")], {
            global_safety,
            skill_safety,
            onWarning: () => {},
          });
          const published = (served.catalog.entries[0]!.resources as { uri: string }[])
            .map((r) => relative(served.catalog.entries[0]!, r.uri)).sort();
          const bundle = loadSkillFolder(join(root, "prop"));
          const visible = activateSkill(bundle, { global_safety, skill_safety }).resources;
          const expected = ["SKILL.md", ...Object.values(visible).flat().map((e) => e.path)]
            .sort();
          assert.deepEqual(published, expected);
        },
      ),
      runs(15),
    );
  });

  it("a skill over the 512-file limit is not published, with a warning naming it", async () => {
    const root = temp();
    put(root, "big/SKILL.md", skillMd("big"));
    for (let i = 0; i < 512; i++) put(root, `big/references/f${i}.md`, "x");
    put(root, "small/SKILL.md", skillMd("small"));
    const warnings: SkillWarning[] = [];
    const served = await serveSkills([root], { onWarning: (w) => warnings.push(w) });
    assert.deepEqual(served.catalog.entries.map((e) => e.uri), ["skill://small/SKILL.md"]);
    assert.deepEqual(warnings, [{
      path: join(root, "big"),
      message: `Skill "big" is not published: 513 files / ${
        512 + skillMd("big").length
      } bytes exceed the limit of 512 files / 16777216 bytes`,
    }]);
  });

  it("a skill over the byte limit is not published", async () => {
    const root = temp();
    put(root, "heavy/SKILL.md", skillMd("heavy"));
    put(root, "heavy/assets/blob.bin", new Uint8Array(2000));
    const warnings: SkillWarning[] = [];
    const served = await serveSkills([root], {
      limits: { bytes: 1000 },
      onWarning: (w) => warnings.push(w),
    });
    assert.equal(served.catalog.entries.length, 0);
    assert.match(warnings[0]!.message, /^Skill "heavy" is not published: 2 files \/ \d+ bytes/);
  });

  it("a skill the SDK's frontmatter reader refuses is skipped with a warning naming it; the rest serve", async () => {
    const root = temp();
    put(root, "anch/SKILL.md", "---\nname: anch\ndescription: &d Uses an anchor\n---\nBody\n");
    put(root, "multi/SKILL.md", '---\nname: multi\ndescription: "one\n  two"\n---\nBody\n');
    put(root, "good/SKILL.md", skillMd("good"));
    put(root, "good/references/r.md", "ok\n");
    // This project's loader reads all three.
    assert.equal(loadSkillFolder(join(root, "anch")).frontmatter.description, "Uses an anchor");
    assert.equal(loadSkillFolder(join(root, "multi")).frontmatter.description, "one two");
    const warnings: SkillWarning[] = [];
    const served = await serveSkills([root], { onWarning: (w) => warnings.push(w) });
    assert.deepEqual(served.catalog.entries.map((e) => e.uri), ["skill://good/SKILL.md"]);
    assert.deepEqual([...served.skills.keys()], ["good"]);
    assert.deepEqual(warnings.map((w) => w.path).sort(), ["anch/SKILL.md", "multi/SKILL.md"]);
    assert.match(warnings.find((w) => w.path === "anch/SKILL.md")!.message, /anchors.*skipped/);
    const client = await connectInMemory(served.createServer());
    try {
      // Nowhere: not in resources, not readable, not in the skill tool.
      assert.equal(
        await rpcError(client.readResource({ uri: "skill://anch/SKILL.md" })),
        -32602,
      );
      const tools = (await client.listTools()).tools;
      assert.doesNotMatch(tools[0]!.description!, /anch|multi/);
      const call = await client.callTool({ name: "skill", arguments: { skill: "anch" } });
      assert.equal(call.isError, true);
      const good = await client.callTool({
        name: "skill",
        arguments: { skill: "good", resource: "references/r.md" },
      });
      assert.equal(good.isError, false);
      // Fixing the odd skill publishes it on the next reload.
      put(root, "anch/SKILL.md", skillMd("anch"));
      assert.deepEqual((await served.reload()).added, ["skill://anch/SKILL.md"]);
      assert.deepEqual([...served.skills.keys()].sort(), ["anch", "good"]);
    } finally {
      await client.close();
    }
  });

  it("an empty folder serves no skill and no tool; the tool appears with the first skill", async () => {
    const root = temp();
    const warnings: SkillWarning[] = [];
    const served = await serveSkills([root], { onWarning: (w) => warnings.push(w) });
    assert.deepEqual(warnings.map((w) => w.message), [
      "no skills found (a skill is a folder containing SKILL.md)",
    ]);
    const client = await connectInMemory(served.createServer());
    try {
      assert.deepEqual((await client.listTools()).tools, []);
      put(root, "first/SKILL.md", skillMd("first"));
      const changes = await served.reload();
      assert.deepEqual(changes.added, ["skill://first/SKILL.md"]);
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ["skill"]);
      const result = await client.callTool({ name: "skill", arguments: { skill: "first" } });
      assert.match((result.content as { text: string }[])[0]!.text, /^skill: first$/m);
      // A broken edit: the reload fails with the loader's error and the catalog stays.
      put(root, "first/SKILL.md", "---\nname: First\n---\n");
      await assert.rejects(served.reload(), { name: "AgentSkillError" });
      assert.deepEqual(served.catalog.entries.map((e) => e.uri), ["skill://first/SKILL.md"]);
      assert.deepEqual([...served.skills.keys()], ["first"]);
    } finally {
      await client.close();
    }
  });

  it("two folders with the same skill name are refused", async () => {
    const a = temp(), b = temp();
    put(a, "same/SKILL.md", skillMd("same"));
    put(b, "same/SKILL.md", skillMd("same"));
    await assert.rejects(serveSkills([a, b]), (e: unknown) => {
      assert.ok(e instanceof McpSkillError);
      assert.equal(e.code, "DUPLICATE_SKILL");
      assert.equal(
        e.message,
        `Two folders hold the skill "same": ${JSON.stringify(join(a, "same"))} and ${
          JSON.stringify(join(b, "same"))
        }`,
      );
      return true;
    });
  });
});

describe("mcpSkillBundles", () => {
  it("consumes this project's server: activation, reads and the skill tool match the local folder", async () => {
    const skills = generatedSkills(temp());
    const served = await serveSkills([skills], { onWarning: () => {} });
    const client = await connectInMemory(served.server);
    try {
      const remote = await mcpSkillBundles(client, { origin: "srv" });
      assert.deepEqual([...remote.bundles.keys()], ["srv:gen"]);
      const local = loadSkillFolder(join(skills, "gen"));
      const bundle = remote.get("srv:gen")!;
      assert.equal(bundle.loaded, false, "nothing fetched before activation");
      const activation = await remote.activate("srv:gen");
      const nonce = "0123456789abcdef0123456789abcdef"; // the same nonce on both sides
      assert.equal(
        renderActivation(activation, nonce),
        renderActivation(activateSkill(local), nonce).replaceAll('"gen"', '"srv:gen"').replace(
          "skill: gen",
          "skill: srv:gen",
        ),
      );
      for (const path of GEN_STANDARD.filter((p) => p !== "SKILL.md")) {
        const page = await remote.read("srv:gen", path, { limit: 3 });
        const expected = readResource(local, path, { limit: 3 });
        assert.deepEqual({ ...page, skill: "gen" }, expected, path);
      }
      const viaTool = await remote.handleSkillTool({
        skill: "srv:gen",
        resource: "assets/blob.bin",
      });
      const localTool = handleSkillTool({ skill: "gen", resource: "assets/blob.bin" }, {
        skills: [local],
      });
      const nonces = (text: string) => text.replace(/nonce=[0-9a-f]{32}/g, "nonce=N");
      assert.equal(
        nonces(viaTool.content),
        nonces(localTool.content).replace("skill: gen", "skill: srv:gen"),
      );
      const refused = await remote.handleSkillTool({
        skill: "srv:gen",
        resource: "extras/secret.txt",
      });
      assert.equal(refused.is_error, true);
      assert.equal(skillToolDefinition(remote.bundles.values()).name, "skill");
      assert.deepEqual(await remote.handleSkillTool({ skill: "srv:gen", extra: 1 }), {
        content: 'Invalid input: unknown field "extra" (known: skill, resource, offset, limit)',
        is_error: true,
      });
      assert.deepEqual(await remote.handleSkillTool({ skill: "gen" }), {
        content: 'Unknown skill "gen" (nearest: "srv:gen")',
        is_error: true,
      });
    } finally {
      await client.close();
    }
  });

  it("consumes a plain SDK server (SkillsExtension.load(memorySkillFiles(...)))", async () => {
    const record: Record<string, string | Uint8Array> = {
      "refunds/SKILL.md": skillMd("refunds", "Refund orders", "Check the policy.\n"),
      "refunds/references/policy.md": "Refunds within 30 days.\n",
      "refunds/assets/table.bin": BINARY,
    };
    const catalog = await SkillsExtension.load(memorySkillFiles(record));
    const server = new McpServer({ name: "plain", version: "1.0.0" });
    catalog.attach(server);
    const client = await connectInMemory(server);
    try {
      const remote = await mcpSkillBundles(client, { origin: "plain" });
      const activation = await remote.activate("plain:refunds");
      assert.equal(activation.instructions.trim(), "Check the policy.");
      assert.deepEqual(activation.resources.references.map((e) => e.path), [
        "references/policy.md",
      ]);
      const page = await remote.read("plain:refunds", "assets/table.bin");
      assert.equal(page.encoding, "base64");
      assert.equal(page.size, BINARY.length);
      assert.deepEqual(Uint8Array.from(atob(page.content), (c) => c.charCodeAt(0)), BINARY);
    } finally {
      await client.close();
    }
  });

  it("a file changed on the server after listing fails verification; skills/get recovers", async () => {
    const record: Record<string, string | Uint8Array> = {
      "refunds/SKILL.md": skillMd("refunds"),
      "refunds/references/policy.md": "Refunds within 30 days.\n",
    };
    const catalog = await SkillsExtension.load(memorySkillFiles(record));
    const server = new McpServer({ name: "plain", version: "1.0.0" });
    catalog.attach(server);
    const client = await connectInMemory(server);
    try {
      const remote = await mcpSkillBundles(client, { origin: "plain" });
      record["refunds/references/policy.md"] = "Refunds within 7 days.\n";
      await catalog.reload();
      await assert.rejects(remote.read("plain:refunds", "references/policy.md"), (e: unknown) => {
        assert.ok(e instanceof McpSkillError);
        assert.equal(e.code, "VERIFICATION_FAILED");
        assert.equal(e.uri, "skill://refunds/references/policy.md");
        assert.equal(
          e.message,
          '"references/policy.md" of skill "plain:refunds" failed verification (size); call refresh("plain:refunds") to fetch the entry again',
        );
        return true;
      });
      const viaTool = await remote.handleSkillTool({
        skill: "plain:refunds",
        resource: "references/policy.md",
      });
      assert.deepEqual(viaTool, {
        content:
          '"references/policy.md" of skill "plain:refunds" failed verification (size); call refresh("plain:refunds") to fetch the entry again',
        is_error: true,
      });
      await remote.refresh("plain:refunds");
      const page = await remote.read("plain:refunds", "references/policy.md");
      assert.equal(page.content, "Refunds within 7 days.\n");
    } finally {
      await client.close();
    }
  });

  it("a file changed on disk behind this project's server fails verification; refresh recovers", async () => {
    const skills = generatedSkills(temp());
    const served: SkillServer = await serveSkills([skills], { onWarning: () => {} });
    const client = await connectInMemory(served.server);
    try {
      const remote = await mcpSkillBundles(client, { origin: "srv" });
      writeFileSync(join(skills, "gen/references/guide.md"), "# Guide\n\nline 2!\n");
      await served.reload();
      await assert.rejects(remote.read("srv:gen", "references/guide.md"), {
        name: "McpSkillError",
        code: "VERIFICATION_FAILED",
      });
      await remote.refresh("srv:gen");
      assert.equal(
        (await remote.read("srv:gen", "references/guide.md")).content,
        "# Guide\n\nline 2!\n",
      );
    } finally {
      await client.close();
    }
  });

  it("an unlisted file, an unknown skill and a read before fetching are typed errors", async () => {
    const served = await serveSkills([EXAMPLES]);
    const client = await connectInMemory(served.server);
    try {
      const remote = await mcpSkillBundles(client, { origin: "ex" });
      const bundle = remote.get("ex:pdf")!;
      assert.throws(() => bundle.instructions, { name: "McpSkillError", code: "NOT_LOADED" });
      assert.throws(() => bundle.files.get("references/forms.md")!.read(0, 10), {
        name: "McpSkillError",
        code: "NOT_LOADED",
        message:
          'File "references/forms.md" of skill "ex:pdf" is not fetched yet: await load("ex:pdf", "references/forms.md") first',
      });
      await assert.rejects(remote.load("ex:pdf", "references/none.md"), {
        name: "McpSkillError",
        code: "UNLISTED_FILE",
        message: 'File "references/none.md" is not listed by skill "ex:pdf"',
      });
      await assert.rejects(remote.activate("pdf"), {
        name: "McpSkillError",
        code: "UNKNOWN_SKILL",
        message: 'Unknown skill "pdf" from origin "ex"',
      });
      await assert.rejects(mcpSkillBundles(client, { origin: "a:b" }), {
        name: "TypeError",
        message: 'Invalid origin "a:b": use a short label of letters, digits, ".", "_" and "-"',
      });
    } finally {
      await client.close();
    }
  });

  it("two servers serving the same skill name stay distinct, and never shadow a local folder", async () => {
    const make = async (policy: string) => {
      const catalog = await SkillsExtension.load(memorySkillFiles({
        "refunds/SKILL.md": skillMd("refunds", `Refunds (${policy})`),
        "refunds/references/policy.md": policy,
      }));
      const server = new McpServer({ name: policy, version: "1.0.0" });
      catalog.attach(server);
      return await connectInMemory(server);
    };
    const [a, b] = [await make("30 days"), await make("7 days")];
    try {
      const fromA = await mcpSkillBundles(a, { origin: "shop-a" });
      const fromB = await mcpSkillBundles(b, { origin: "shop-b" });
      const root = temp();
      put(root, "refunds/SKILL.md", skillMd("refunds", "Local refunds"));
      const local = loadSkillFolder(join(root, "refunds"));
      const all = [local, ...fromA.bundles.values(), ...fromB.bundles.values()];
      assert.deepEqual(all.map((s) => s.name), ["refunds", "shop-a:refunds", "shop-b:refunds"]);
      const tool = skillToolDefinition(all);
      assert.deepEqual((tool.input_schema.properties as { skill: { enum: string[] } }).skill.enum, [
        "refunds",
        "shop-a:refunds",
        "shop-b:refunds",
      ]);
      assert.equal((await fromA.read("shop-a:refunds", "references/policy.md")).content, "30 days");
      assert.equal((await fromB.read("shop-b:refunds", "references/policy.md")).content, "7 days");
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe("skillset serve --watch", () => {
  it("add, change and break a skill while a client is connected", async () => {
    const root = temp();
    put(root, "alpha/SKILL.md", skillMd("alpha"));
    put(root, "alpha/references/a.md", "first\n");
    const transport = new StdioClientTransport({
      ...cliCommand(["serve", root, "--watch"]),
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d: Uint8Array) => (stderr += new TextDecoder().decode(d)));
    const client = new Client({ name: "test-host", version: "1.0.0" });
    let notified = 0;
    client.setNotificationHandler("notifications/resources/list_changed", () => {
      notified++;
    });
    await within(TIME, client.connect(transport), "connect");
    try {
      const sc = new SkillsClient(client);
      const uris = async () => (await sc.list()).skills.map((s) => s.uri);
      assert.deepEqual(await uris(), ["skill://alpha/SKILL.md"]);
      // Add.
      put(root, "beta/SKILL.md", skillMd("beta"));
      await eventually(
        TIME,
        "beta to appear",
        async () => (await uris()).includes("skill://beta/SKILL.md") ? true : undefined,
      );
      await eventually(TIME, "a list_changed notification", () => notified >= 1 ? true : undefined);
      // Change.
      const before = (await sc.get("skill://alpha/SKILL.md")).skill;
      const seen = notified;
      writeFileSync(join(root, "alpha/references/a.md"), "second, longer\n");
      const changed = await eventually(TIME, "alpha's new digest", async () => {
        const now = (await sc.get("skill://alpha/SKILL.md")).skill;
        return JSON.stringify(now) === JSON.stringify(before) ? undefined : now;
      });
      const file = await sc.read(changed, "references/a.md");
      assert.equal(file.text, "second, longer\n");
      await eventually(
        TIME,
        "a notification for the change",
        () => notified > seen ? true : undefined,
      );
      // Break: beta keeps its last good version, alpha is unaffected.
      writeFileSync(join(root, "beta/SKILL.md"), "---\nname: Not Valid\n---\n");
      await eventually(
        TIME,
        "the reload warning",
        () => stderr.includes("still serving its last good version") ? true : undefined,
      );
      assert.deepEqual(await uris(), ["skill://alpha/SKILL.md", "skill://beta/SKILL.md"]);
      assert.equal((await sc.read(changed, "references/a.md")).text, "second, longer\n");
    } finally {
      await client.close();
    }
  });
});

describe("skillset serve --watch over HTTP", () => {
  it("add, change and break a skill while a 2026-07-28 client listens on 127.0.0.1", async () => {
    const root = temp();
    put(root, "alpha/SKILL.md", skillMd("alpha"));
    put(root, "alpha/references/a.md", "first\n");
    const server = await startHttpServer([root, "--watch"]);
    const client = new Client(
      { name: "test-host", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    let notified = 0;
    client.setNotificationHandler("notifications/resources/list_changed", () => {
      notified++;
    });
    try {
      await within(
        TIME,
        client.connect(new StreamableHTTPClientTransport(new URL(server.url))),
        "connect over HTTP",
      );
      const subscription = await within(
        TIME,
        client.listen({ resourcesListChanged: true }),
        "subscriptions/listen",
      );
      const sc = new SkillsClient(client);
      const uris = async () => (await sc.list()).skills.map((s) => s.uri);
      assert.deepEqual(await uris(), ["skill://alpha/SKILL.md"]);
      // Add: the listener hears of it and the next list shows it.
      put(root, "beta/SKILL.md", skillMd("beta"));
      await eventually(TIME, "a list_changed notification", () => notified >= 1 ? true : undefined);
      assert.deepEqual(await uris(), ["skill://alpha/SKILL.md", "skill://beta/SKILL.md"]);
      // Change.
      const seen = notified;
      writeFileSync(join(root, "alpha/references/a.md"), "second, longer\n");
      await eventually(
        TIME,
        "a notification for the change",
        () => notified > seen ? true : undefined,
      );
      const changed = (await sc.get("skill://alpha/SKILL.md")).skill;
      assert.equal((await sc.read(changed, "references/a.md")).text, "second, longer\n");
      // Break: beta keeps its last good version, alpha is unaffected.
      writeFileSync(join(root, "beta/SKILL.md"), "---\nname: Not Valid\n---\n");
      await eventually(
        TIME,
        "the reload warning",
        () => server.stderr().includes("still serving its last good version") ? true : undefined,
      );
      assert.deepEqual(await uris(), ["skill://alpha/SKILL.md", "skill://beta/SKILL.md"]);
      assert.equal((await sc.read(changed, "references/a.md")).text, "second, longer\n");
      await subscription.close();
    } finally {
      await client.close();
      await server.stop();
    }
  });
});

describe("CLI with an MCP source", () => {
  const server = commandLine(cliCommand(["serve", EXAMPLES]));
  it("activate, read and to-prompt with --mcp-stdio print what the folder gives", () => {
    const activated = cli(["activate", "--mcp-stdio", server, "pdf"]);
    assert.equal(activated.code, 0, activated.stderr);
    const local = cli(["activate", join(EXAMPLES, "pdf")]);
    const nonces = (text: string) => text.replace(/nonce=[0-9a-f]{32}/g, "nonce=N");
    assert.equal(
      nonces(activated.stdout),
      nonces(local.stdout).replaceAll('"pdf"', '"mcp:pdf"').replace("skill: pdf", "skill: mcp:pdf"),
    );
    const read = cli(["read", "--mcp-stdio", server, "mcp:pdf", "references/forms.md", "--json"]);
    assert.equal(read.code, 0, read.stderr);
    const localRead = cli(["read", join(EXAMPLES, "pdf"), "references/forms.md", "--json"]);
    assert.deepEqual(
      { ...JSON.parse(read.stdout), skill: "pdf" },
      JSON.parse(localRead.stdout),
    );
    const prompt = cli(["to-prompt", "--mcp-stdio", server, "--json"]);
    assert.equal(prompt.code, 0, prompt.stderr);
    assert.deepEqual(JSON.parse(prompt.stdout).map((e: { name: string }) => e.name), ["mcp:pdf"]);
    // --budget and --rank work with an MCP source too.
    const budgeted = cli(["to-prompt", "--mcp-stdio", server, "--budget", "200", "--rank", "name"]);
    assert.equal(budgeted.code, 0, budgeted.stderr);
    assert.ok([...budgeted.stdout].length <= 201, budgeted.stdout);
    assert.match(budgeted.stdout, /^<available_skills>\n[\s\S]*<\/available_skills>\n$/);
    const refused = cli(["read", "--mcp-stdio", server, "pdf", "canvas-fonts/NOTICE.txt"]);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /Refused to read non-standard resource "canvas-fonts\/NOTICE.txt"/,
    );
  });
});

describe("CLI usage errors of the MCP commands", () => {
  const cases: [string[], string][] = [
    [
      ["activate", "--mcp-stdio", "x", "--mcp-url", "http://127.0.0.1:1/mcp", "pdf"],
      "skillset: give exactly one of --mcp-stdio and --mcp-url\n",
    ],
    [
      ["read", "--mcp-url", "not a url", "pdf", "a.md"],
      'skillset: --mcp-url takes a URL, got "not a url"\n',
    ],
    [["activate", "--mcp-stdio", "", "pdf"], "skillset: --mcp-stdio needs a command\n"],
    [
      ["activate", "--mcp-url", "http://127.0.0.1:1/mcp", "--origin", "a:b", "pdf"],
      'skillset: --origin takes a short label of letters, digits, ".", "_" and "-", got "a:b"\n',
    ],
    [
      ["serve", EXAMPLES, "--http", "127.0.0.1"],
      'skillset: --http takes HOST:PORT (e.g. 127.0.0.1:3000), got "127.0.0.1"\n',
    ],
    [
      ["serve", EXAMPLES, "--page-size", "0"],
      'skillset: --page-size takes a whole number of at least 1, got "0"\n',
    ],
    [
      ["graph", "--mcp-url", "http://127.0.0.1:1/mcp"],
      "skillset: graph: --mcp-stdio and --mcp-url work with activate, read and to-prompt\n",
    ],
    [
      ["serve", EXAMPLES, "--bogus"],
      `skillset: serve: unknown option "--bogus"\nusage: ${MCP_SERVE_USAGE}\n`,
    ],
  ];
  for (const [argv, message] of cases) {
    it(`exit 2: ${argv.join(" ")}`, async () => {
      let out = "", err = "";
      const io = {
        stdout: (s: string) => (out += s),
        stderr: (s: string) => (err += s),
        color: false,
      };
      assert.equal(await mainAsync(argv, io), 2);
      assert.equal(err, message);
      assert.equal(out, "");
    });
  }
});

describe("the HTTP endpoint and the CLI's MCP source, in process", () => {
  it("listenHttp: loopback only unless allowed, /mcp only, bounded bodies", async () => {
    const served = await serveSkills([EXAMPLES]);
    await assert.rejects(listenHttp(served.createServer, { host: "0.0.0.0", port: 0 }), {
      name: "McpSkillError",
      code: "REMOTE_NOT_ALLOWED",
    });
    const http = await listenHttp(served.createServer, { host: "127.0.0.1", port: 0 });
    try {
      const base = http.url.slice(0, -"/mcp".length);
      const other = await fetch(`${base}/other`);
      assert.equal(other.status, 404);
      assert.equal(await other.text(), "Not found: the endpoint is /mcp\n");
      const huge = await fetch(http.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: new Uint8Array(4 * 1024 * 1024 + 1),
      }).then((r) => r.status, () => 413); // the server may cut the upload short
      assert.equal(huge, 413);
    } finally {
      await http.close();
    }
  });

  it("to-prompt, activate and read against an HTTP server; an unknown skill names the known ones", async () => {
    const root = temp();
    put(root, "x/SKILL.md", skillMd("x", 'Use <x> & "y"', "Read references/r.md.\n"));
    put(root, "x/references/r.md", "one\ntwo\nthree\n");
    const served = await serveSkills([root]);
    const http = await listenHttp(served.createServer, { host: "127.0.0.1", port: 0 });
    const run = async (argv: string[]) => {
      let stdout = "", stderr = "";
      const code = await mainAsync(argv, {
        stdout: (s) => (stdout += s),
        stderr: (s) => (stderr += s),
        color: false,
      });
      return { code, stdout, stderr };
    };
    try {
      const prompt = await run(["to-prompt", "--mcp-url", http.url, "--origin", "web"]);
      assert.equal(prompt.code, 0, prompt.stderr);
      assert.equal(
        prompt.stdout,
        "<available_skills>\n<skill>\n<name>web:x</name>\n" +
          "<description>Use &lt;x&gt; &amp; &quot;y&quot;</description>\n" +
          "<location>skill://x/SKILL.md</location>\n</skill>\n</available_skills>\n",
      );
      const activated = await run(["activate", "--mcp-url", http.url, "x"]);
      assert.equal(activated.code, 0, activated.stderr);
      assert.match(activated.stdout, /^skill: mcp:x$/m);
      const page = await run([
        "read",
        "--mcp-url",
        http.url,
        "mcp:x",
        "references/r.md",
        "--offset",
        "1",
        "--limit",
        "1",
        "--json",
      ]);
      assert.equal(page.code, 0, page.stderr);
      assert.equal(JSON.parse(page.stdout).content, "two\n");
      const unknown = await run(["activate", "--mcp-url", http.url, "nope"]);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /Unknown skill "nope" \(the server has: mcp:x\)/);
      const help = await runMcpCli(["read", "--mcp-url", http.url, "--help"], {
        stdout: (s) => assert.match(s, /^usage: skillset read/),
        stderr: () => {},
      });
      assert.equal(help, 0);
    } finally {
      await http.close();
    }
  });
});

describe("the README's Skills over MCP section, as a new user follows it", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Skills over MCP"));

  it("the mcpServers entry starts a server from a host's own working directory", async () => {
    const block = /```json\n(\{\n {2}"mcpServers"[\s\S]*?)```/.exec(section)?.[1];
    assert.ok(block !== undefined, "the README has an mcpServers entry");
    const entry = JSON.parse(
      block.replaceAll("/path/to/skillset", ROOT).replaceAll("/path/to/skills", EXAMPLES),
    ).mcpServers.skills as { command: string; args: string[] };
    // A host's working directory is its own: not the repository, no node_modules.
    const transport = new StdioClientTransport({ ...entry, cwd: temp(), stderr: "pipe" });
    let stderr = "";
    transport.stderr?.on("data", (d: Uint8Array) => (stderr += new TextDecoder().decode(d)));
    const client = new Client({ name: "test-host", version: "1.0.0" });
    try {
      await within(TIME, client.connect(transport), `connect (stderr: ${stderr})`);
      const { skills } = await new SkillsClient(client).list();
      assert.deepEqual(skills.map((s) => s.uri), ["skill://pdf/SKILL.md"]);
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ["skill"]);
    } finally {
      await client.close();
    }
  });
});

describe("the test helper cli()", () => {
  it("kills a CLI that outlives its timeout and fails, instead of hanging the suite", () => {
    // `serve --http` runs until stopped: the stand-in for a hang.
    assert.throws(() => cli(["serve", EXAMPLES, "--http", "127.0.0.1:0"], ROOT, 3_000), {
      message: /^skillset serve .* did not finish: .*\(timeout 3000 ms\)/,
    });
  });
});

describe("splitCommand", () => {
  it("gives back the words of a shell-quoted command line", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 5 }),
        (words) => {
          const line = words.map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(" ");
          assert.deepEqual(splitCommand(line), words);
        },
      ),
      runs(200),
    );
    assert.deepEqual(splitCommand(`a "b c" d\\ e`), ["a", "b c", "d e"]);
    assert.throws(() => splitCommand(`a "b`), { message: 'unclosed " in "a \\"b"' });
  });
});

describe("mcpSkillBundles against a hostile server", () => {
  const md = (name: string, description = "D") =>
    `---\nname: ${name}\ndescription: ${description}\n---\nBody\n`;
  const fm = (name: string, description = "D") => ({ name, description });
  const honestFiles = { "SKILL.md": md("pdf"), "references/a.md": "aaa" };
  /** A hostile server listing `entries` and serving `files` (URI to text) as given. */
  const hostile = (
    entries: unknown[],
    read: (uri: string) => HostileContent[] | undefined = () => undefined,
    get?: (uri: string) => unknown,
  ) => hostileClient({ list: () => entries, read, ...(get === undefined ? {} : { get }) });
  const honestRead = (uri: string): HostileContent[] | undefined => {
    const path = uri.slice("skill://pdf/".length) as keyof typeof honestFiles;
    return honestFiles[path] === undefined ? undefined : [{ uri, text: honestFiles[path] }];
  };

  it("skill paths that are not plain names are left out, escaped in the warning; the rest serve", async () => {
    const odd = [
      "skill://a%2Fb/pdf", // a slash inside a segment
      "skill://x%1B%5B2J/pdf", // a terminal escape
      "skill://../pdf", // a dot-dot authority
      "skill://a/b:c/pdf", // a colon, as in an origin
      "skill://a/%E2%80%AEfdp/pdf", // a bidirectional override
      "skill://a%20b/pdf", // a space
    ];
    const entries = [await entryOf("skill://pdf", fm("pdf"), { "SKILL.md": md("pdf") })];
    for (const root of odd) entries.push(await entryOf(root, fm("pdf"), { "SKILL.md": md("pdf") }));
    const { client } = await hostile(entries);
    try {
      const remote = await mcpSkillBundles(client, { origin: "evil" });
      assert.deepEqual([...remote.bundles.keys()], ["evil:pdf"]);
      assert.deepEqual(remote.warnings.map((w) => w.uri), odd.map((r) => `${r}/SKILL.md`));
      for (const w of remote.warnings) {
        assert.match(w.message, /^Skill path segment ".*" is not a plain name/);
        // deno-lint-ignore no-control-regex
        assert.doesNotMatch(w.message + w.uri, /[\u0000-\u001f\u007f-\u009f\u202e]/);
      }
      assert.ok(remote.warnings[1]!.message.includes("x\\u001b[2J"));
    } finally {
      await client.close();
    }
  });

  it("two entries that come out as one name are both left out, never a silent shadow", async () => {
    const { client } = await hostile([
      await entryOf("skill://ok/pdf", fm("pdf", "first"), { "SKILL.md": md("pdf", "first") }),
      await entryOf("skill://o%6B/pdf", fm("pdf", "second"), { "SKILL.md": md("pdf", "second") }),
      await entryOf("skill://other", fm("other"), { "SKILL.md": md("other") }),
    ]);
    try {
      const remote = await mcpSkillBundles(client, { origin: "evil" });
      assert.deepEqual([...remote.bundles.keys()], ["evil:other"]);
      assert.deepEqual(remote.warnings, [
        {
          uri: "skill://ok/pdf/SKILL.md",
          message: 'another entry is also named "evil:ok/pdf"; both left out',
        },
        {
          uri: "skill://o%6B/pdf/SKILL.md",
          message: 'another entry is also named "evil:ok/pdf"; both left out',
        },
      ]);
    } finally {
      await client.close();
    }
  });

  it("an invalid entry is left out with a warning; the server's other skills still serve", async () => {
    const good = await entryOf("skill://pdf", fm("pdf"), honestFiles);
    const file = (uri: string, digest: unknown, size: unknown) => ({ uri, digest, size });
    const zero = `sha256:${"0".repeat(64)}`;
    const bad = [
      // A digest of the wrong shape (upper case, short, another algorithm).
      {
        uri: "skill://d1/SKILL.md",
        frontmatter: fm("d1"),
        resources: [file("skill://d1/SKILL.md", "sha256:ABC", 1)],
      },
      {
        uri: "skill://d2/SKILL.md",
        frontmatter: fm("d2"),
        resources: [file("skill://d2/SKILL.md", `md5:${"0".repeat(32)}`, 1)],
      },
      // Sizes that are not sizes.
      {
        uri: "skill://s1/SKILL.md",
        frontmatter: fm("s1"),
        resources: [file("skill://s1/SKILL.md", zero, -1)],
      },
      {
        uri: "skill://s2/SKILL.md",
        frontmatter: fm("s2"),
        resources: [file("skill://s2/SKILL.md", zero, 1.5)],
      },
      {
        uri: "skill://s3/SKILL.md",
        frontmatter: fm("s3"),
        resources: [file("skill://s3/SKILL.md", zero, "1")],
      },
      // A file outside the skill, or a dot-dot segment.
      {
        uri: "skill://o1/SKILL.md",
        frontmatter: fm("o1"),
        resources: [
          file("skill://o1/SKILL.md", zero, 1),
          file("skill://pdf/references/a.md", zero, 3),
        ],
      },
      {
        uri: "skill://o2/SKILL.md",
        frontmatter: fm("o2"),
        resources: [file("skill://o2/SKILL.md", zero, 1), file("skill://o2/%2e%2E%2Fx", zero, 3)],
      },
      // A name that is not its folder's, SKILL.md not listed, a file listed twice.
      {
        uri: "skill://n1/SKILL.md",
        frontmatter: fm("pdf"),
        resources: [file("skill://n1/SKILL.md", zero, 1)],
      },
      {
        uri: "skill://n2/SKILL.md",
        frontmatter: fm("n2"),
        resources: [file("skill://n2/a.md", zero, 1)],
      },
      {
        uri: "skill://n3/SKILL.md",
        frontmatter: fm("n3"),
        resources: [file("skill://n3/SKILL.md", zero, 1), file("skill://n3/SKILL.md", zero, 1)],
      },
      // Not an entry at all; a "__proto__" frontmatter.
      "skill://x/SKILL.md",
      JSON.parse(
        '{"uri":"skill://p/SKILL.md","frontmatter":{"name":"p","description":"d","__proto__":{"x":1}},"resources":[]}',
      ),
      // "dynamic" files cannot be verified.
      { uri: "skill://dyn/SKILL.md", frontmatter: fm("dyn"), resources: "dynamic" },
    ];
    const { client } = await hostile([...bad, good], honestRead);
    try {
      const remote = await mcpSkillBundles(client, { origin: "evil" });
      assert.deepEqual([...remote.bundles.keys()], ["evil:pdf"]);
      assert.equal(remote.warnings.length, bad.length);
      assert.equal((await remote.read("evil:pdf", "references/a.md")).content, "aaa");
    } finally {
      await client.close();
    }
  });

  it("an entry listing more than the limits is left out before any byte is fetched", async () => {
    const good = await entryOf("skill://pdf", fm("pdf"), honestFiles);
    const huge = {
      ...good,
      resources: (good.resources as { uri: string }[]).map((r) => ({ ...r, size: 2 ** 53 - 1 })),
    };
    const many = await entryOf(
      "skill://many",
      fm("many"),
      Object.fromEntries([
        ["SKILL.md", md("many")],
        ...Array.from({ length: 3 }, (_, i) => [`f${i}`, ""]),
      ]),
    );
    const { client, requests } = await hostile([huge, many], honestRead);
    try {
      const remote = await mcpSkillBundles(client, { origin: "evil", limits: { files: 3 } });
      assert.deepEqual([...remote.bundles.keys()], []);
      assert.deepEqual(remote.warnings.map((w) => w.message), [
        `Skill "skill://pdf/SKILL.md" lists 2 files / ${2 * (2 ** 53 - 1)} bytes, over the limit ` +
        "of 3 files / 16777216 bytes; left out",
        `Skill "skill://many/SKILL.md" lists 4 files / ${md("many").length} bytes, over the ` +
        "limit of 3 files / 16777216 bytes; left out",
      ]);
      assert.deepEqual(requests.filter((r) => r.startsWith("resources/")), []);
    } finally {
      await client.close();
    }
  });

  it("bytes that do not match the entry never reach the model: each answer is a typed error", async () => {
    const good = await entryOf("skill://pdf", fm("pdf"), honestFiles);
    const cases: [string, (uri: string) => HostileContent[] | undefined][] = [
      ["a size that lies", (uri) => [{ uri, text: uri.endsWith("a.md") ? "aaaa" : md("pdf") }]],
      [
        "same size, other bytes",
        (uri) => [{ uri, text: uri.endsWith("a.md") ? "bbb" : md("pdf") }],
      ],
      [
        "frontmatter other than the entry's",
        (uri) => [{ uri, text: uri.endsWith("a.md") ? "aaa" : md("pdf", "X") }],
      ],
      ["no contents", (uri) => uri.endsWith("a.md") ? [] : honestRead(uri)],
      [
        "contents of another URI",
        (uri) =>
          uri.endsWith("a.md") ? [{ uri: "skill://pdf/SKILL.md", text: "aaa" }] : honestRead(uri),
      ],
      [
        "a blob that is not base64",
        (uri) => uri.endsWith("a.md") ? [{ uri, blob: "!!!" }] : honestRead(uri),
      ],
      ["an error", (uri) => uri.endsWith("a.md") ? undefined : honestRead(uri)],
    ];
    for (const [what, read] of cases) {
      const { client } = await hostile([good], read);
      try {
        const remote = await mcpSkillBundles(client, { origin: "evil" });
        const failed = await remote.read("evil:pdf", "references/a.md").then(
          () => assert.fail(`${what}: the read succeeded`),
          (e: unknown) => e,
        );
        if (what === "an error") {
          // The server's error is this module's typed error now, its text quoted and cut.
          assert.ok(failed instanceof McpSkillError, `${what}: ${String(failed)}`);
          assert.equal(failed.code, "SERVER_ERROR", what);
          assert.equal(((failed as Error).cause as { code?: number }).code, -32602, what);
        } else {
          assert.ok(failed instanceof McpSkillError, `${what}: ${String(failed)}`);
          assert.equal(failed.code, "VERIFICATION_FAILED", what);
        }
        const viaTool = await remote.handleSkillTool({
          skill: "evil:pdf",
          resource: "references/a.md",
        });
        assert.equal(viaTool.is_error, true, what);
        assert.doesNotMatch(viaTool.content, /aaaa|bbb|description: X/, what);
      } finally {
        await client.close();
      }
    }
  });

  it("an unlisted file is refused without asking the server", async () => {
    const good = await entryOf("skill://pdf", fm("pdf"), honestFiles);
    const { client, requests } = await hostile(
      [good],
      (uri) => uri.endsWith("secret.md") ? [{ uri, text: "secret" }] : honestRead(uri),
    );
    try {
      const remote = await mcpSkillBundles(client, { origin: "evil" });
      await assert.rejects(remote.read("evil:pdf", "references/secret.md"), {
        code: "UNLISTED_FILE",
      });
      await assert.rejects(remote.read("evil:pdf", "../other/SKILL.md"), {
        name: "InvalidResourcePathError",
      });
      const viaTool = await remote.handleSkillTool({
        skill: "evil:pdf",
        resource: "references/secret.md",
      });
      assert.equal(viaTool.is_error, true);
      assert.ok(!requests.some((r) => r.includes("secret")), requests.join("\n"));
    } finally {
      await client.close();
    }
  });

  it("a SKILL.md that changes between list and get: refresh refuses another skill, an invalid entry, a vanished one", async () => {
    const good = await entryOf("skill://pdf", fm("pdf"), honestFiles);
    const answers: [string, unknown, string][] = [
      [
        "another skill",
        await entryOf("skill://evil", fm("evil"), { "SKILL.md": md("evil") }),
        "VERIFICATION_FAILED",
      ],
      ["an invalid entry", { ...good, resources: "nope" }, "VERIFICATION_FAILED"],
      ["a renamed skill", { ...good, frontmatter: fm("other") }, "VERIFICATION_FAILED"],
      ["nothing", undefined, "UNKNOWN_SKILL"],
    ];
    for (const [what, answer, code] of answers) {
      const { client } = await hostile([good], honestRead, () => answer);
      try {
        const remote = await mcpSkillBundles(client, { origin: "evil" });
        const before = remote.get("evil:pdf");
        await assert.rejects(remote.refresh("evil:pdf"), { name: "McpSkillError", code }, what);
        assert.equal(remote.get("evil:pdf"), before, `${what}: the old entry stays`);
      } finally {
        await client.close();
      }
    }
  });

  it("a listing that never ends and a server that never answers fail in bounded time", async () => {
    let pages = 0;
    const endless = await hostileClient({
      list: (cursor) => ({ skills: [], nextCursor: `${Number(cursor ?? 0) + 1}` }),
      read: () => undefined,
    });
    try {
      await assert.rejects(
        within(TIME, mcpSkillBundles(endless.client, { origin: "evil" }), "the endless listing"),
        (e: unknown) => (pages = endless.requests.length, e instanceof Error),
      );
      assert.ok(pages <= 66, `${pages} requests`);
    } finally {
      await endless.client.close();
    }
    const good = await entryOf("skill://pdf", fm("pdf"), honestFiles);
    const silent = await hostileClient({
      list: () => [good],
      read: (uri) => uri.endsWith("a.md") ? "silent" : honestRead(uri),
    });
    try {
      const remote = await mcpSkillBundles(silent.client, { origin: "evil", timeoutMs: 200 });
      await assert.rejects(remote.read("evil:pdf", "references/a.md"), {
        name: "SdkError",
        code: "REQUEST_TIMEOUT",
      });
      const viaTool = await remote.handleSkillTool({
        skill: "evil:pdf",
        resource: "references/a.md",
      });
      assert.equal(viaTool.is_error, true);
      assert.throws(() => remote.get("evil:pdf")!.files.get("references/a.md")!.read(0, 9), {
        code: "NOT_LOADED",
      });
    } finally {
      await silent.client.close();
    }
    const mute = await hostileClient({ list: () => "silent", read: () => undefined });
    try {
      await assert.rejects(mcpSkillBundles(mute.client, { origin: "evil", timeoutMs: 200 }), {
        code: "REQUEST_TIMEOUT",
      });
    } finally {
      await mute.client.close();
    }
  });

  it("property: whatever a server lists, bundles have plain names and reads return only verified bytes", async () => {
    const decoded = (uri: string) =>
      URL.parse(uri)?.href.split("/").map((s) => {
        try {
          return decodeURIComponent(s);
        } catch {
          return s;
        }
      }).join("/");
    const segment = fc.oneof(
      fc.constantFrom(
        "pdf",
        "a",
        "..",
        ".",
        "a:b",
        "%2F",
        "%00",
        "%1B",
        "%E2%80%AE",
        "x%20y",
        "ok",
      ),
      fc.string({ maxLength: 4 }),
    );
    const hostileFile = fc.record({
      path: fc.oneof(
        fc.constantFrom("a.md", "references/a.md", "%2e%2e/x", "../x", "a%00b", "SKILL.md"),
        fc.string({ maxLength: 6 }),
      ),
      text: fc.string({ maxLength: 8 }),
      lie: fc.constantFrom("none", "size", "digest", "shape"),
      served: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
    });
    const hostileEntry = fc.record({
      prefix: fc.array(segment, { maxLength: 2 }),
      name: fc.constantFrom("pdf", "ok", "Bad", ""),
      files: fc.array(hostileFile, { maxLength: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(hostileEntry, { maxLength: 4 }), async (specs) => {
        const served = new Map<string, string>();
        const entries: unknown[] = [];
        const truth = new Map<string, string>();
        for (const spec of specs) {
          const root = `skill://${[...spec.prefix, spec.name].join("/")}`;
          const resources: unknown[] = [];
          const manifest = md(spec.name);
          for (
            const f of [
              { path: "SKILL.md", text: manifest, lie: "none", served: undefined },
              ...spec.files,
            ]
          ) {
            const uri = `${root}/${f.path}`;
            const bytes = new TextEncoder().encode(f.text);
            const size = f.lie === "size" ? bytes.length + 1 : bytes.length;
            const d = f.lie === "digest"
              ? `sha256:${"0".repeat(64)}`
              : f.lie === "shape"
              ? "sha256:x"
              : await digest(bytes);
            resources.push({ uri, digest: d, size });
            served.set(uri, f.served ?? f.text);
            if (f.lie === "none" && (f.served ?? f.text) === f.text) truth.set(uri, f.text);
          }
          entries.push({ uri: `${root}/SKILL.md`, frontmatter: fm(spec.name), resources });
        }
        const { client } = await hostile(entries, (uri) => {
          const text = served.get(uri);
          return text === undefined ? undefined : [{ uri, text }];
        });
        try {
          const remote = await mcpSkillBundles(client, { origin: "evil" });
          for (const [name, bundle] of remote.bundles) {
            assert.match(name, /^evil:[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/);
            for (const path of bundle.files.keys()) {
              let page;
              try {
                page = await remote.read(name, path, { global_safety: false, skill_safety: false });
              } catch (e) {
                if (e instanceof McpSkillError || (e as { code?: unknown }).code === -32602) {
                  continue;
                }
                throw e;
              }
              // The file's URI as the server listed it, both sides decoded segment by segment.
              const key = decoded(bundle.uri)!.slice(0, -"SKILL.md".length) + path;
              const expected = [...truth].find(([u]) => decoded(u) === key)?.[1];
              assert.notEqual(
                expected,
                undefined,
                `${name} ${path}: read bytes that were not honest`,
              );
              if (page.encoding === "utf-8" && page.next_offset === null) {
                assert.equal(page.content, expected);
              }
            }
          }
        } finally {
          await client.close();
        }
      }),
      runs(30),
    );
  });
});
