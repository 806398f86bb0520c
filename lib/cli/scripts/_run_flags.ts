/**
 * The flags of `skillset run`, shared with `serve --allow-scripts` and the
 * help table in `main.ts`. Their own module, free of imports, so the
 * dispatcher names them without loading the script runner.
 *
 * Folder `lib/cli/scripts/` — `skillset run` and the script grant and limit flags.
 *
 * @module
 */

/** The flags that grant and limit a run, for `run` and `serve --allow-scripts`. */
export const RUN_VALUE_FLAGS: readonly string[] = [
  "--cwd",
  "--allow-read",
  "--allow-write",
  "--env",
  "--timeout-ms",
  "--cpu-seconds",
  "--memory-bytes",
  "--processes",
  "--file-bytes",
  "--max-output-chars",
  "--sandbox",
  "--allow-unbounded",
];
/** The run flags that may be given more than once. */
export const RUN_REPEATED_FLAGS: readonly string[] = [
  "--allow-read",
  "--allow-write",
  "--env",
  "--allow-unbounded",
];
/** The run switches. */
export const RUN_SWITCHES: readonly string[] = ["--allow-net", "--dangerously-run-unsandboxed"];
