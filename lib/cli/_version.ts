/**
 * The package version, kept equal to `package.json` and `deno.json` by a
 * test, so the CLI prints it without reading files.
 *
 * @module
 */

/** The version of this package. */
export const VERSION = "0.1.0";
