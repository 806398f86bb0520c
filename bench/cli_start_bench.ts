/**
 * CLI start to exit, from the installed tarball: `skillset --version` and
 * `skillset resolve examples/catalog.yaml local/pdf-tools` through the
 * package's bin (one bundled file), against `node -e 0` in the same run (and, for scale, the
 * sources through tsx). The processes are Node's whatever runs this file, so
 * it measures under Node only.
 * Run: `npm run bench -- cli_start`.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { packAndInstall, ROOT } from "../tests/_package.ts";
import { timeGroup } from "./_harness.ts";
import { CLI_START_WORKLOAD } from "./_report.ts";

if ("Deno" in globalThis || "Bun" in globalThis) {
  console.log("cli_start: measures Node processes; see the Node run");
  process.exit(0);
}

const temp = mkdtempSync(join(tmpdir(), "skillset-cli-start-"));
const project = packAndInstall(temp);
const skillset = join(project, "node_modules", ".bin", "skillset");
const catalog = join(ROOT, "examples", "catalog.yaml");
const TSX = pathToFileURL(join(ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href;
const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1" };
delete env["NODE_OPTIONS"];

function start(command: string, args: readonly string[]): void {
  const result = spawnSync(command, args, { cwd: project, env, stdio: "ignore" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.status}`);
}

await timeGroup("cli_start", CLI_START_WORKLOAD, 1, [
  { name: "node -e 0", fn: () => start(process.execPath, ["-e", "0"]), baseline: true },
  // For scale: the part of `resolve` that is only loading the yaml package.
  { name: "node importing yaml", fn: () => start(process.execPath, ["-e", 'require("yaml")']) },
  { name: "skillset --version (installed bin)", fn: () => start(skillset, ["--version"]) },
  {
    name: "skillset resolve examples/catalog.yaml local/pdf-tools (installed bin)",
    fn: () => start(skillset, ["resolve", catalog, "local/pdf-tools"]),
  },
  {
    name: "sources through tsx: skillset --version",
    fn: () => start(process.execPath, ["--import", TSX, join(ROOT, "lib", "cli.ts"), "--version"]),
  },
]);
rmSync(temp, { recursive: true, force: true });
