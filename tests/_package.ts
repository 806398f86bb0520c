/**
 * Packs this package and installs the tarball into a fresh project without
 * the network, as a user would get it; shared by the consumer tests and the
 * CLI start benchmark.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";

export const ROOT: string = resolve(import.meta.dirname ?? ".", "..");

/** The outcome of a command. */
export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command with no loader options inherited from the test runner. */
export function run(command: string, args: readonly string[], cwd: string): Run {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1" };
  delete env["NODE_OPTIONS"];
  // npm, the build, tsc and the installed package are not this checkout's sources: c8 would
  // collect (and later read) their coverage too, at a cost of minutes.
  delete env["NODE_V8_COVERAGE"];
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: 240_000 });
  if (result.error !== undefined) throw result.error;
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Runs a command and returns its stdout; throws with its output when it fails. */
export function ok(result: Run): string {
  if (result.code !== 0) {
    throw new Error(`Command failed with exit ${result.code}\n${result.stderr}\n${result.stdout}`);
  }
  return result.stdout;
}

/**
 * `npm pack` into `temp` (its prepare script builds dist/, so the tarball is fresh), then
 * `npm ci --offline` of a project depending on the tarball (and on
 * fast-check, for `skillset/testing`).
 *
 * @param temp An empty temporary folder.
 * @returns The consumer project's folder.
 */
export function packAndInstall(temp: string): string {
  ok(run("npm", ["pack", "--silent", "--pack-destination", temp], ROOT));
  const tarball = readdirSync(temp).find((f) => f.endsWith(".tgz"));
  if (tarball === undefined) throw new Error("npm pack wrote no tarball");
  const project = join(temp, "consumer");
  mkdirSync(project);
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  const dependencies = { skillset: `file:../${tarball}`, "fast-check": "4.11.0" };
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module", dependencies }),
  );
  // A lockfile, so npm needs no registry metadata: skillset from the tarball, its
  // dependency (and fast-check for ./testing) at the versions and integrity hashes
  // of this repository's lockfile, fetched from the npm cache that `npm ci` filled.
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")).packages;
  const packages: Record<string, unknown> = {
    "": { name: "consumer", dependencies },
    "node_modules/skillset": {
      version: manifest.version,
      resolved: `file:../${tarball}`,
      license: manifest.license,
      dependencies: manifest.dependencies,
      peerDependencies: manifest.peerDependencies,
      peerDependenciesMeta: manifest.peerDependenciesMeta,
      bin: manifest.bin,
      engines: manifest.engines,
    },
  };
  const todo = [...Object.keys(manifest.dependencies), "fast-check"];
  while (todo.length > 0) {
    const name = todo.pop()!;
    if (Object.hasOwn(packages, `node_modules/${name}`)) continue;
    const { dev: _, ...entry } = lock[`node_modules/${name}`];
    packages[`node_modules/${name}`] = entry;
    todo.push(...Object.keys(entry.dependencies ?? {}));
  }
  writeFileSync(
    join(project, "package-lock.json"),
    JSON.stringify({ name: "consumer", lockfileVersion: 3, requires: true, packages }),
  );
  ok(run("npm", ["ci", "--offline", "--no-audit", "--no-fund", "--ignore-scripts"], project));
  return project;
}
