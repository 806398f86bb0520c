/**
 * A response cap for the SDK's HTTP client transport: {@linkcode cappedFetch}
 * cuts every response body after a number of bytes, so a server that never
 * stops sending costs the host at most that much.
 *
 * Folder `lib/mcp/` — skills over MCP behind `lib/mcp.ts`: serve, consume, watch, HTTP, remote trust.
 *
 * @module
 */
import { McpSkillError } from "./_errors.ts";

/**
 * The most bytes of one HTTP response {@linkcode cappedFetch} passes on by default (64 MiB).
 *
 * @example
 * ```ts
 * import { RESPONSE_BYTES } from "../mcp.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * assert.equal(RESPONSE_BYTES, 64 * 1024 * 1024);
 * ```
 */
export const RESPONSE_BYTES: number = 64 * 1024 * 1024;

/**
 * A `fetch` for the SDK's HTTP client transport that cuts every response
 * body after `max` bytes with an error, so a server that never stops
 * sending holds at most that much, not until the request times out.
 *
 * @param max The most bytes of one response body; default {@linkcode RESPONSE_BYTES}.
 * @param inner The fetch to wrap; default `globalThis.fetch`.
 * @returns The capped fetch: pass it as the `fetch` option of `StreamableHTTPClientTransport`.
 * @example
 * ```ts
 * import { cappedFetch } from "../mcp.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const endless = () =>
 *   Promise.resolve(new Response(new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(1024)) })));
 * const response = await cappedFetch(4096, endless)("http://127.0.0.1/mcp");
 * const failed = await response.arrayBuffer().then(() => "read", (e) => e.code);
 * assert.equal(failed, "FILE_TOO_LARGE");
 * ```
 */
export function cappedFetch(
  max: number = RESPONSE_BYTES,
  inner: typeof fetch = (input, init) => globalThis.fetch(input, init),
): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.body === null) return response;
    let seen = 0;
    const cut = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.length;
        if (seen > max) {
          controller.error(
            new McpSkillError(
              "FILE_TOO_LARGE",
              `The server's response is over the limit of ${max} bytes; cut`,
            ),
          );
          return;
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(cut), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
