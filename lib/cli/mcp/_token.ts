/**
 * The bearer token of `serve --http`: from a file (`--token-file`) or an
 * environment variable (`--token-env`), required with `--allow-scripts` —
 * any local process can reach a loopback port, and `run_skill_script` runs
 * with the grants the host gave.
 *
 * Folder `lib/cli/mcp/` — the MCP commands: serve, and reading skills from MCP servers.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import process from "node:process";
import { escapeControls as esc } from "../../core/_text.ts";
import { type Args, UsageError } from "../_args.ts";
import { MIN_TOKEN_CHARS } from "../../mcp/_http.ts";

/**
 * The bearer token of `--token-file` or `--token-env`: over HTTP, required
 * with `--allow-scripts` (any local process can reach a loopback port).
 */
export function tokenFlag(args: Args, http: boolean): string | undefined {
  const file = args.flags.get("--token-file");
  const env = args.flags.get("--token-env");
  if (file !== undefined && env !== undefined) {
    throw new UsageError("give one of --token-file and --token-env");
  }
  if (!http) {
    if (file !== undefined || env !== undefined) {
      throw new UsageError(
        `serve: ${file !== undefined ? "--token-file" : "--token-env"} needs --http`,
      );
    }
    return undefined;
  }
  let token: string | undefined;
  if (file !== undefined) {
    let text: string;
    try {
      const bytes = readFileSync(resolve(file));
      if (bytes.length > 4096) throw new Error("over 4,096 bytes");
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch (e) {
      throw new UsageError(
        `--token-file "${esc(file)}" cannot be read: ${
          esc(e instanceof Error ? e.message : String(e))
        }`,
      );
    }
    token = text.trim();
  } else if (env !== undefined) {
    token = process.env[env]?.trim();
    if (token === undefined) throw new UsageError(`--token-env: no variable "${esc(env)}" is set`);
  }
  if (token === undefined) {
    if (args.switches.has("--allow-scripts")) {
      throw new UsageError(
        "serve --http --allow-scripts needs a bearer token, so other local processes cannot run " +
          "scripts: give --token-file FILE or --token-env NAME",
      );
    }
    return undefined;
  }
  if (token.length < MIN_TOKEN_CHARS || /\s/.test(token)) {
    throw new UsageError(
      `the bearer token must be at least ${MIN_TOKEN_CHARS} characters without spaces`,
    );
  }
  return token;
}
