// @slow: imports the package by URL under Deno (left out of `npm run test:quick`)
// @every-runtime: imports the package by URL under the runtime that can
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Server } from "node:http";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { serveSources } from "../examples/serve_sources.ts";

const ROOT = resolve(import.meta.dirname ?? ".", "..");
const DENO = join(ROOT, "node_modules", ".bin", "deno");

let server: Server;
let port = 0;
let temp = "";

before(async () => {
  // The documented server (examples/serve_sources.ts): the repository read-only, .ts as TypeScript.
  ({ server } = await serveSources(ROOT, 0));
  port = (server.address() as { port: number }).port;
  temp = mkdtempSync(join(tmpdir(), "skillset-url-"));
});

after(() => {
  server.close();
  rmSync(temp, { recursive: true, force: true });
});

function run(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: "1" } });
    let out = "", err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => done({ code: code ?? -1, out, err }));
  });
}

describe("skillset imported by URL in Deno", () => {
  it("the documented server sends .ts as TypeScript, and nothing outside the clone", async () => {
    const typeOf = async (path: string) => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`);
      await response.arrayBuffer();
      return [response.status, response.headers.get("content-type")];
    };
    assert.deepEqual(await typeOf("/mod.ts"), [200, "application/typescript; charset=utf-8"]);
    assert.deepEqual((await typeOf("/node_modules/yaml/package.json"))[0], 403);
    assert.deepEqual((await typeOf("/.git/HEAD"))[0], 403);
    assert.notEqual((await typeOf("/%2e%2e/%2e%2e/etc/passwd"))[0], 200);
    assert.deepEqual((await typeOf("/nope.ts"))[0], 404);
  });

  it("runs in Deno with no import map, no config and no file system access", async () => {
    const script = join(temp, "main.ts");
    writeFileSync(
      script,
      `import { activateSkill, createBundle, readResource, resolveTools } from "http://127.0.0.1:${port}/mod.ts";
const tools = resolveTools({ name: "local/a", includes: ["local/b"], tool_refs: ["x"] }, { "local/b": { name: "local/b", tool_refs: ["y", "x"] } });
const bundle = createBundle({ frontmatter: { name: "pdf", description: "d" }, instructions: "hi", files: { "assets/a.bin": new Uint8Array([0, 255]) } });
console.log(JSON.stringify({ keys: [...tools.keys()], assets: activateSkill(bundle).resources.assets.length, content: readResource(bundle, "assets/a.bin").content }));
`,
    );
    const result = await run(DENO, [
      "run",
      "--no-config",
      "--no-lock",
      `--allow-import=127.0.0.1:${port}`,
      "--deny-read",
      "--deny-write",
      "--deny-env",
      script,
    ], temp);
    assert.equal(result.code, 0, result.err);
    assert.deepEqual(JSON.parse(result.out), { keys: ["y", "x"], assets: 1, content: "AP8=" });
  });

  it("lib/load.ts runs in Deno by URL with the README's import map for yaml", async () => {
    // The map the README gives, written as a user would; yaml comes from the project's
    // node_modules (Deno's manual mode), so the test needs no network.
    writeFileSync(join(temp, "import_map.json"), '{ "imports": { "yaml": "npm:yaml@2.9.1" } }\n');
    symlinkSync(join(ROOT, "node_modules"), join(temp, "node_modules"), "dir");
    writeFileSync(join(temp, "package.json"), '{ "dependencies": { "yaml": "2.9.1" } }\n');
    writeFileSync(
      join(temp, "catalog.yaml"),
      "- name: local/a\n  includes: [local/b]\n  tool_refs: [x]\n- name: local/b\n  tool_refs: [y, x]\n",
    );
    const script = join(temp, "load.ts");
    writeFileSync(
      script,
      `import { loadCatalog } from "http://127.0.0.1:${port}/lib/load.ts";
import { resolveTools } from "http://127.0.0.1:${port}/mod.ts";
const catalog = loadCatalog("catalog.yaml");
console.log(JSON.stringify([...resolveTools(catalog.skills.get("local/a")!, catalog.skills).keys()]));
`,
    );
    const result = await run(DENO, [
      "run",
      "--no-config",
      "--no-lock",
      "--node-modules-dir=manual",
      "--import-map=import_map.json",
      `--allow-import=127.0.0.1:${port}`,
      `--allow-read=${temp}`,
      "--allow-env=LOG_TOKENS,LOG_STREAM", // yaml's debug switches
      "--deny-write",
      script,
    ], temp);
    assert.equal(result.code, 0, result.err);
    assert.deepEqual(JSON.parse(result.out), ["y", "x"]);
  });

  it("lib/testing.ts runs in Deno by URL with fast-check in the import map", async () => {
    const dir = join(temp, "testing");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "import_map.json"),
      '{ "imports": { "fast-check": "npm:fast-check@4.11.0" } }\n',
    );
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    writeFileSync(join(dir, "package.json"), '{ "dependencies": { "fast-check": "4.11.0" } }\n');
    const script = join(dir, "guard.ts");
    writeFileSync(
      script,
      `import { assertResolverInvariants } from "http://127.0.0.1:${port}/lib/testing.ts";
import { resolveTools } from "http://127.0.0.1:${port}/mod.ts";
assertResolverInvariants((root, lookup) => resolveTools(root, lookup).values(), { numRuns: 5 });
let caught = "";
try {
  assertResolverInvariants((root) => resolveTools({ ...root, includes: [] }, {}).values(), { numRuns: 50 });
} catch (e) {
  caught = (e as Error).name;
}
console.log(caught);
`,
    );
    const result = await run(DENO, [
      "run",
      "--no-config",
      "--no-lock",
      "--node-modules-dir=manual",
      "--import-map=import_map.json",
      `--allow-import=127.0.0.1:${port}`,
      `--allow-read=${dir}`,
      "--deny-write",
      script,
    ], dir);
    assert.equal(result.code, 0, result.err);
    assert.equal(result.out, "InvariantViolationError\n");
  });
});
