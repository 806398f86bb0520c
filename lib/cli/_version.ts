/**
 * The package version, kept equal to `package.json` and `deno.json` by a
 * test, so the CLI prints it without reading files.
 *
 * Folder `lib/cli/` — the command line behind `lib/cli.ts`: the command table, flags, output, config.
 *
 * @module
 */

/** The version of this package. */
export const VERSION = "0.1.0";
