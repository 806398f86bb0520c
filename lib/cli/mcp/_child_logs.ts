/**
 * `--quiet` reaching an `--mcp-stdio` child: its stderr, piped, keeps only
 * the lines that report an error (whatever server it is).
 *
 * Folder `lib/cli/mcp/` — the MCP commands: serve, and reading skills from MCP servers.
 *
 * @module
 */
import { escapeControls as esc } from "../../core/_text.ts";
import type { CliIO } from "../_io.ts";

/**
 * Forward a child's stderr line by line, keeping only the lines that report an error.
 *
 * @param stream The child's stderr, when piped.
 * @param io Where to write.
 */
export function errorsOnly(stream: NodeJS.ReadableStream | null, io: Pick<CliIO, "stderr">): void {
  if (stream === null) return;
  let pending = "";
  const pass = (line: string) => {
    if (/\berror\b/i.test(line)) io.stderr(`${esc(line)}\n`);
  };
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop()!.slice(-65_536);
    lines.forEach(pass);
  });
  stream.on("end", () => pending !== "" && pass(pending));
}
