#!/usr/bin/env node
/**
 * The `skillset` command line: resolve, graph, validate, activate, read,
 * to-prompt, list. Runs under `npx tsx`, `deno run -A` and `bun`.
 *
 * Exit codes: 0 ok, 1 invalid input or refused access, 2 bad usage.
 *
 * @module
 */
import { runIfMain } from "./cli/main.ts";

export { main, mainAsync } from "./cli/main.ts";
export type { CliIO } from "./cli/_io.ts";

runIfMain(import.meta.url);
