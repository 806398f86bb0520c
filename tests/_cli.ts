/**
 * Runs the real `skillset` CLI as a subprocess, under the runtime running the
 * tests: Node (through tsx), Deno or Bun.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { main, mainAsync } from "../lib/cli.ts";

// The user's own state (config approvals) of every CLI run by a test: a fresh folder, never the
// developer's ~/.local/state/skillset.
process.env.SKILLSET_STATE_DIR ??= mkdtempSync(join(tmpdir(), "skillset-state-"));

export const ROOT = resolve(import.meta.dirname ?? ".", "..");
const CLI = join(ROOT, "lib", "cli.ts");
const TSX = join(ROOT, "node_modules", "tsx", "dist", "loader.mjs");

/** The runtime running this test file. */
export const RUNTIME: "node" | "deno" | "bun" = "Deno" in globalThis
  ? "deno"
  : "Bun" in globalThis
  ? "bun"
  : "node";

/**
 * The command line that runs the CLI sources under the runtime running the
 * tests. Under Node it is the bundle `tests/_select.mjs` builds from the
 * sources at the start of a run (`SKILLSET_TEST_CLI`, with inline source maps,
 * so coverage maps back to lib/), else tsx, which costs about a second of
 * start-up per run.
 */
export function cliArgv(): [string, string[]] {
  switch (RUNTIME) {
    case "deno":
      return [process.execPath, ["run", "-A", `--config=${join(ROOT, "deno.json")}`, CLI]];
    case "bun":
      return [process.execPath, [CLI]];
    default: {
      const bundle = process.env.SKILLSET_TEST_CLI;
      if (bundle !== undefined && bundle !== "") return [process.execPath, [bundle]];
      // tsx by path: the working directory may be a temporary folder without node_modules.
      return [process.execPath, ["--import", pathToFileURL(TSX).href, CLI]];
    }
  }
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** How long one CLI run may take before it counts as a hang (generous: a loaded 2-core CI). */
export const CLI_TIMEOUT_MS = 120_000;

/**
 * Run `skillset ...args` in `cwd` (the repository by default), without colour,
 * with `env` added to the environment. A run that outlives `timeoutMs` is
 * killed and throws, so a hang fails the test instead of blocking the suite.
 */
export function cli(
  args: readonly string[],
  cwd: string = ROOT,
  timeoutMs: number = CLI_TIMEOUT_MS,
  env: Readonly<Record<string, string>> = {},
): CliResult {
  const [bin, pre] = cliArgv();
  const result = spawnSync(bin, [...pre, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", ...env },
    maxBuffer: 64 * 1024 * 1024,
    timeout: timeoutMs,
    killSignal: "SIGKILL",
  });
  if (result.error !== undefined || result.signal !== null) {
    throw new Error(
      `skillset ${args.join(" ")} did not finish: ${
        result.error?.message ?? `killed by ${result.signal}`
      } (timeout ${timeoutMs} ms)\nstderr: ${result.stderr ?? ""}`,
    );
  }
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** The CLI in-process (`main` of `lib/cli.ts`, no colour): exit code and what it wrote. */
export function runInProcess(args: readonly string[]): CliResult {
  let stdout = "", stderr = "";
  const code = main(args, {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    color: false,
  });
  return { code, stdout, stderr };
}

/** The whole CLI in-process (`mainAsync`, the asynchronous commands too), run in `cwd`. */
export async function runIn(
  cwd: string,
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> {
  let out = "", err = "";
  const io = {
    stdout: (t: string) => void (out += t),
    stderr: (t: string) => void (err += t),
    color: false,
  };
  const before = process.cwd();
  process.chdir(cwd);
  try {
    return { code: await mainAsync(argv, io), out, err };
  } finally {
    process.chdir(before);
  }
}
