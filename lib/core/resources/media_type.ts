/**
 * Media types guessed from file extensions, so listing a folder reads no file.
 *
 * Folder `lib/core/resources/` — a skill's bundled files: paths and classes, the gate, bundles, reads.
 *
 * @module
 */

const TYPES: ReadonlyMap<string, string> = new Map([
  ["md", "text/markdown"],
  ["markdown", "text/markdown"],
  ["txt", "text/plain"],
  ["text", "text/plain"],
  ["csv", "text/csv"],
  ["tsv", "text/tab-separated-values"],
  ["html", "text/html"],
  ["htm", "text/html"],
  ["css", "text/css"],
  ["xml", "application/xml"],
  ["json", "application/json"],
  ["jsonl", "application/jsonl"],
  ["yaml", "application/yaml"],
  ["yml", "application/yaml"],
  ["toml", "application/toml"],
  ["js", "text/javascript"],
  ["mjs", "text/javascript"],
  ["cjs", "text/javascript"],
  ["ts", "text/x-typescript"],
  ["py", "text/x-python"],
  ["sh", "application/x-sh"],
  ["bash", "application/x-sh"],
  ["rb", "text/x-ruby"],
  ["go", "text/x-go"],
  ["rs", "text/x-rust"],
  ["java", "text/x-java"],
  ["c", "text/x-c"],
  ["h", "text/x-c"],
  ["cpp", "text/x-c++"],
  ["sql", "application/sql"],
  ["png", "image/png"],
  ["jpg", "image/jpeg"],
  ["jpeg", "image/jpeg"],
  ["gif", "image/gif"],
  ["webp", "image/webp"],
  ["svg", "image/svg+xml"],
  ["ico", "image/vnd.microsoft.icon"],
  ["pdf", "application/pdf"],
  ["zip", "application/zip"],
  ["gz", "application/gzip"],
  ["tar", "application/x-tar"],
  ["wasm", "application/wasm"],
  ["ttf", "font/ttf"],
  ["otf", "font/otf"],
  ["woff", "font/woff"],
  ["woff2", "font/woff2"],
  ["mp3", "audio/mpeg"],
  ["wav", "audio/wav"],
  ["mp4", "video/mp4"],
  ["docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
  ["xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"],
  ["pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"],
]);

/**
 * Guess a media type from a file name.
 *
 * @param path A file path.
 * @returns The media type its extension suggests (case-insensitive), or
 *   `application/octet-stream`.
 * @example
 * ```ts
 * import { mediaTypeOf } from "./media_type.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(mediaTypeOf("references/forms.MD"), "text/markdown");
 * assert.equal(mediaTypeOf("assets/blob"), "application/octet-stream");
 * ```
 */
export function mediaTypeOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  if (dot <= 0) return "application/octet-stream";
  return TYPES.get(base.slice(dot + 1).toLowerCase()) ?? "application/octet-stream";
}
