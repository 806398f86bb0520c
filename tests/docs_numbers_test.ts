/**
 * Numbers the guides quote from measurements stay true (issue 41): the
 * start-up cost in docs/install.md is the one bench/RESULTS.md records; and
 * the install-script approvals install.md describes match the lockfile.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./_cli.ts";

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The ratio of a row of RESULTS.md's cli_start table, by the start of its case. */
function startRatio(results: string, label: string): number {
  const section = results.slice(results.indexOf("### cli_start"));
  const row = section.split("\n").find((l) => l.startsWith(`| ${label}`));
  assert.ok(row !== undefined, `no cli_start row "${label}"`);
  const ratio = /\(([\d.]+)×\)/.exec(row)?.[1];
  assert.ok(ratio !== undefined, row);
  return Number(ratio);
}

describe("docs quote the benchmarks", () => {
  it("install.md's start-up cost is bench/RESULTS.md's, to one decimal", () => {
    const install = read("docs/install.md").replace(/\s+/g, " ");
    const quoted = /costs about ([\d.]+)× \(`--version`\) and ([\d.]+)× \(`resolve`\)/.exec(
      install,
    );
    assert.ok(quoted !== null, "install.md no longer quotes the start-up cost");
    const results = read("bench/RESULTS.md");
    assert.equal(
      Number(quoted[1]),
      Math.round(startRatio(results, "skillset --version") * 10) / 10,
    );
    assert.equal(Number(quoted[2]), Math.round(startRatio(results, "skillset resolve") * 10) / 10);
  });
});

describe("package.json", () => {
  it("allowScripts approves each locked package with an install script, by name", () => {
    const lock = JSON.parse(read("package-lock.json")) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const withScripts = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript === true)
      // By name: npm matches `name@version` only where the lockfile records
      // download addresses, and this one does not (docs/install.md).
      .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + 13))
      .sort();
    const allowed = JSON.parse(read("package.json")).allowScripts as Record<string, boolean>;
    assert.deepEqual(Object.keys(allowed).sort(), withScripts);
    assert.ok(Object.values(allowed).every((v) => v === true));
  });
});
