/**
 * The npm package as a user gets it: `npm pack` (which builds dist/), an
 * offline install of the tarball into a fresh project, then plain Node, the
 * `skillset` bin through npx, Bun, and a strict `tsc` consumer of the
 * shipped `.d.ts`.
 *
 * @module
 */
// @slow: builds and packs the package, and runs it under three runtimes (left out of `npm run test:quick`)
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { packAndInstall, ROOT, type Run, run } from "./_package.ts";
import { VERSION } from "../lib/cli/_version.ts";

const BIN = join(ROOT, "node_modules", ".bin");
const NODE_ONLY = !("Deno" in globalThis) && !("Bun" in globalThis);
const CATALOG = join(ROOT, "examples", "catalog.yaml");

/** Asserts a command succeeded and returns its stdout. */
function ok(result: Run): string {
  assert.equal(result.code, 0, `exit ${result.code}\n${result.stderr}\n${result.stdout}`);
  return result.stdout;
}

describe(
  NODE_ONLY
    ? "the packed npm package, installed offline into a fresh project"
    : "the packed npm package (skipped: runs under Node only, where npm and the built dist/ belong; Deno and Bun read the sources)",
  () => {
    if (!NODE_ONLY) {
      it.skip("packs, installs and imports the package", () => {});
      return;
    }
    let temp = "";
    let project = "";

    before(() => {
      temp = mkdtempSync(join(tmpdir(), "skillset-dist-"));
      project = packAndInstall(temp);
    });

    after(() => {
      if (temp !== "") rmSync(temp, { recursive: true, force: true });
    });

    it("ships dist/ with JavaScript, declarations and source maps, and no tests", () => {
      // What npm installed is what the tarball holds.
      const installed = join(project, "node_modules", "skillset");
      const listed = (readdirSync(installed, { recursive: true }) as string[])
        .map((p) => p.replaceAll("\\", "/"));
      for (
        const path of ["dist/mod.js", "dist/mod.d.ts", "dist/mod.js.map", "dist/bin/skillset.mjs"]
      ) {
        assert.ok(listed.includes(path), path);
      }
      assert.ok(listed.includes("skill.schema.json"));
      assert.ok(listed.includes("skillset.config.schema.json"));
      assert.ok(listed.includes("lib/load.ts"), "the sources, for Bun");
      // The README's links lead to files the package holds (the generated API reference aside).
      const readme = readFileSync(join(installed, "README.md"), "utf8");
      for (const [, target] of readme.matchAll(/\]\(((?:docs\/|LICENSE)[^)#]*)/g)) {
        if (target!.startsWith("docs/api/")) continue;
        assert.ok(listed.includes(target!), `README links to ${target}, which the package lacks`);
      }
      assert.deepEqual(
        listed.filter((p) => /^(tests|bench|examples|\.ci|node_modules)\b/.test(p)),
        [],
      );
      assert.ok(
        statSync(join(installed, "dist", "bin", "skillset.mjs")).mode & 0o111,
        "the bin is executable",
      );
    });

    it("(a) imports from a plain .mjs file under Node: resolve, a cycle, activate, read, load, testing", () => {
      writeFileSync(
        join(project, "main.mjs"),
        `import { activateSkill, createBundle, readResource, resolveTools, SkillCycleError } from "skillset";
import { loadCatalog } from "skillset/load";
import { assertResolverInvariants } from "skillset/testing";
import schema from "skillset/skill.schema.json" with { type: "json" };

const tools = resolveTools({ name: "local/a", includes: ["local/b"], tool_refs: ["x"] }, { "local/b": { name: "local/b", tool_refs: ["y", "x"] } });
let cycle = "";
try {
  resolveTools({ name: "local/a", includes: ["local/a"] }, { "local/a": { name: "local/a", includes: ["local/a"] } });
} catch (e) {
  cycle = (e instanceof SkillCycleError) + " " + e.message;
}
const bundle = createBundle({ frontmatter: { name: "pdf", description: "d" }, instructions: "hi", files: { "assets/a.bin": new Uint8Array([0, 255]), "references/r.md": "# R\\n" } });
const catalog = loadCatalog(${JSON.stringify(CATALOG)});
assertResolverInvariants((root, lookup) => resolveTools(root, lookup).values(), { numRuns: 5 });
console.log(JSON.stringify({
  keys: [...tools.keys()],
  cycle,
  assets: activateSkill(bundle).resources.assets.map((e) => e.path),
  content: readResource(bundle, "assets/a.bin").content,
  text: readResource(bundle, "references/r.md").content,
  pdfTools: [...resolveTools(catalog.skills.get("local/pdf-tools"), catalog.skills).keys()].length,
  schema: schema.title,
}));
`,
      );
      const out = ok(run(process.execPath, ["main.mjs"], project));
      assert.deepEqual(JSON.parse(out), {
        keys: ["y", "x"],
        cycle: "true Cycle detected in skill includes: local/a -> local/a",
        assets: ["assets/a.bin"],
        content: "AP8=",
        text: "# R\n",
        pdfTools: JSON.parse(
          ok(run(process.execPath, [
            "--import",
            "tsx",
            join(ROOT, "lib", "cli.ts"),
            "resolve",
            CATALOG,
            "local/pdf-tools",
            "--json",
          ], ROOT)),
        ).entries.length,
        schema: "skillset catalog file",
      });
    });

    it("(b) runs the skillset bin through npx: --version and resolve", () => {
      const version = ok(run("npx", ["--offline", "skillset", "--version"], project));
      assert.equal(version, `skillset ${VERSION}\n`);
      // init's $schema resolves in the installed project.
      ok(run("npx", ["--offline", "skillset", "init", "--force"], project));
      const config = JSON.parse(readFileSync(join(project, "skillset.json"), "utf8"));
      assert.equal(config.$schema, "./node_modules/skillset/skillset.config.schema.json");
      assert.ok(existsSync(join(project, config.$schema)), config.$schema);
      rmSync(join(project, "skillset.json"));
      const resolved = ok(
        run("npx", ["--offline", "skillset", "resolve", CATALOG, "local/pdf-tools"], project),
      );
      const fromSource = ok(run(process.execPath, [
        "--import",
        "tsx",
        join(ROOT, "lib", "cli.ts"),
        "resolve",
        CATALOG,
        "local/pdf-tools",
      ], ROOT));
      assert.equal(resolved, fromSource);
      const unknown = run(
        "npx",
        ["--offline", "skillset", "resolve", CATALOG, "local/nope"],
        project,
      );
      assert.equal(unknown.code, 1);
      assert.doesNotMatch(unknown.stderr, /\n\s+at /, "no stack trace");
    });

    it("(c) imports the installed package under Bun", () => {
      writeFileSync(
        join(project, "bun_main.ts"),
        `import { resolveTools } from "skillset";
import { loadCatalog } from "skillset/load";
const catalog = loadCatalog(${JSON.stringify(CATALOG)});
console.log([...resolveTools(catalog.skills.get("local/pdf-tools")!, catalog.skills).keys()].join(","));
`,
      );
      const out = ok(run(join(BIN, "bun"), ["bun_main.ts"], project));
      assert.match(out, /^read_file,write_file,.*mcp:github\/create_issue/);
    });

    // A strict consumer of all five entry points, type-checked with each TypeScript the
    // package supports, with and without Node's types in scope, and without skipLibCheck:
    // the shipped .d.ts and those of the dependencies they reach must check as they are.
    const CONSUMER =
      `import { type ResolvedToolEntry, resolveTools, type Skill, SkillCycleError } from "skillset";
import { loadCatalog, type Catalog } from "skillset/load";
import { catalogArbitrary, resolverProperties, assertResolverInvariants } from "skillset/testing";
import { main, type CliIO } from "skillset/cli";
import { McpSkillError, type SkillServer, serveSkills } from "skillset/mcp";
import fc from "fast-check";

const skill: Skill = { name: "local/a", tool_refs: ["x"] };
const entries: ResolvedToolEntry[] = [...resolveTools(skill, {}).values()];
const kind: "tool_ref" | "inline" | "mcp" | "agent_skill" = entries[0]!.kind;
const catalog: Catalog = loadCatalog("catalog.yaml");
const error: SkillCycleError | undefined = undefined;
fc.assert(fc.property(catalogArbitrary({ maxSkills: 3 }), (c) => c.root.name.length > 0));
fc.assert(resolverProperties((root, lookup) => resolveTools(root, lookup).values())["keeps first position"]);
assertResolverInvariants(resolveTools, { numRuns: 1 });
const io: CliIO = { stdout: () => {}, stderr: () => {}, color: false };
const code: number = main(["--version"], io);
const serve: typeof serveSkills = serveSkills;
const server: SkillServer | undefined = undefined;
const mcpError: string = new McpSkillError("UNLISTED_FILE", "m").code;
// @ts-expect-error: tool_refs is a list of names
const bad: Skill = { name: "local/b", tool_refs: "x" };
export { bad, catalog, code, error, kind, mcpError, serve, server };
`;
    const COMPILERS: [string, string][] = [
      ["TypeScript 7", join(ROOT, "node_modules", "typescript", "bin", "tsc")],
      ["TypeScript 5.9", join(ROOT, "node_modules", "typescript-5.9", "bin", "tsc")],
    ];
    /** The consumer without skillset/mcp (whose dependency's declarations need Node's types). */
    const WITHOUT_MCP = CONSUMER.split("\n")
      .filter((l) => !/skillset\/mcp|McpSkillError|serveSkills|SkillServer/.test(l))
      .join("\n").replace(", mcpError, serve, server", "");

    function typeCheck(
      compiler: string,
      types: string[] | undefined,
      source: string,
    ): Run {
      const tsc = COMPILERS.find(([c]) => c === compiler)![1];
      const name = `${compiler.replace(/\W/g, "")}-${
        types?.join("") ?? "default"
      }-${source.length}`;
      writeFileSync(join(project, `${name}.ts`), source);
      writeFileSync(
        join(project, `tsconfig.${name}.json`),
        JSON.stringify({
          compilerOptions: {
            target: "ES2023",
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            exactOptionalPropertyTypes: true,
            noUncheckedIndexedAccess: true,
            noEmit: true,
            skipLibCheck: false,
            ...(types === undefined ? {} : { types }),
            // Where this repository's @types/node is, as a consumer's own node_modules/@types.
            typeRoots: [join(ROOT, "node_modules", "@types")],
          },
          files: [`${name}.ts`],
        }),
      );
      const version = ok(run(process.execPath, [tsc, "--version"], project));
      assert.match(version, compiler === "TypeScript 7" ? /^Version 7\./ : /^Version 5\.9\./);
      return run(process.execPath, [tsc, "-p", `tsconfig.${name}.json`], project);
    }

    // TypeScript 5.9 checks the consumer once, with every installed @types package in scope (a
    // superset of `"types": ["node"]`): each run of its checker costs half a minute on two cores.
    it('(d) type-checks a strict consumer of all five entry points with TypeScript 7 and "types": ["node"]', () => {
      ok(typeCheck("TypeScript 7", ["node"], CONSUMER));
    });

    it('(d) type-checks it with TypeScript 5.9 and no "types" (every installed @types package is in scope)', () => {
      ok(typeCheck("TypeScript 5.9", undefined, CONSUMER));
    });

    it("(d) type-checks it with TypeScript 7 and no \"types\" (none in scope): skillset/mcp brings Node's types for the MCP SDK's Buffer", () => {
      ok(typeCheck("TypeScript 7", undefined, WITHOUT_MCP));
      ok(typeCheck("TypeScript 7", undefined, CONSUMER));
    });
  },
);

describe("the version", () => {
  it("is the same in lib/cli/_version.ts, package.json and deno.json", () => {
    const npm = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
    const deno = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")).version;
    assert.deepEqual([VERSION, VERSION], [npm, deno]);
  });
});
