/**
 * A new user's first commands: `git clone`, `npm ci`, `npx skillset`. The
 * clone goes into a fresh temporary folder (mode 0700, as `mkdtemp` makes
 * it), `npm ci --offline` installs from the npm cache that installing this
 * checkout filled (no download) and its `prepare` script builds `dist/`, so
 * the package's own bin answers through npx. It clones the committed HEAD:
 * uncommitted edits are not in it.
 *
 * @module
 */
// @slow: clones the repository and installs it (left out of `npm run test:quick`)
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { ROOT } from "./_package.ts";
import { VERSION } from "../lib/cli/_version.ts";

const NODE_ONLY = !("Deno" in globalThis) && !("Bun" in globalThis);

/** Runs a command in `cwd` without the test runner's loader or coverage settings; a hang fails. */
function sh(command: string, args: readonly string[], cwd: string, timeoutMs = 240_000) {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1" };
  delete env["NODE_OPTIONS"];
  delete env["NODE_V8_COVERAGE"];
  const result = spawnSync(command, args, {
    cwd,
    env,
    encoding: "utf8",
    timeout: timeoutMs,
    killSignal: "SIGKILL",
  });
  return {
    code: result.status,
    out: `${result.error?.message ?? ""}${result.stderr ?? ""}\n${result.stdout ?? ""}`,
    stdout: result.stdout ?? "",
  };
}

/** Why the fresh clone cannot be made here, or null. */
function unavailable(): string | null {
  if (!NODE_ONLY) return "runs under Node only, where npm belongs";
  if (sh("git", ["--version"], ROOT).code !== 0) return "git is not installed";
  if (sh("git", ["rev-parse", "--verify", "HEAD"], ROOT).code !== 0) {
    return "this checkout is not a git repository with a commit";
  }
  if (sh("npm", ["--version"], ROOT).code !== 0) return "npm is not installed";
  return null;
}

const skip = unavailable();

describe(
  skip === null ? "a fresh clone: npm ci, then npx skillset" : `a fresh clone (skipped: ${skip})`,
  () => {
    if (skip !== null) {
      it.skip("clones, installs offline and runs the bin", () => {});
      return;
    }
    let temp = "";
    let clone = "";

    before(() => {
      temp = mkdtempSync(join(tmpdir(), "skillset-clone-"));
      clone = join(temp, "skillset");
      const cloned = sh("git", ["clone", "--quiet", "--no-hardlinks", ROOT, clone], temp);
      assert.equal(cloned.code, 0, cloned.out);
    });

    after(() => {
      if (temp !== "") rmSync(temp, { recursive: true, force: true });
    });

    it("has no dist/ until npm ci --offline builds it; then npx skillset --version answers", () => {
      assert.ok(!existsSync(join(clone, "dist")), "dist/ is not committed");
      const installed = sh("npm", ["ci", "--offline", "--no-audit", "--no-fund"], clone);
      assert.equal(installed.code, 0, installed.out);
      const bin = join(clone, "dist", "bin", "skillset.mjs");
      assert.ok(statSync(bin).mode & 0o111, "the bin is built and executable");
      const version = sh("npx", ["--offline", "skillset", "--version"], clone);
      assert.equal(version.code, 0, version.out);
      assert.equal(version.stdout, `skillset ${VERSION}\n`);
      const resolved = sh(
        "npx",
        ["--offline", "skillset", "resolve", "examples/catalog.yaml", "local/pdf-tools", "--json"],
        clone,
      );
      assert.equal(resolved.code, 0, resolved.out);
      assert.ok(JSON.parse(resolved.stdout).entries.length > 0);
    });
  },
);
