#!/usr/bin/env node
/**
 * The `skillset` executable of the npm package: answers `--version` without
 * loading the CLI (or `yaml`), and otherwise runs {@linkcode main}.
 *
 * @module
 */
import process from "node:process";
import { VERSION } from "./_version.ts";

const argv = process.argv.slice(2);
if (argv[0] === "--version") {
  process.stdout.write(`skillset ${VERSION}\n`);
} else {
  const { main } = await import("./cli.ts");
  process.exitCode = await main(argv);
}
