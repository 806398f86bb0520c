/**
 * Base64 (RFC 4648, with padding) for bytes; `@std/encoding` is not reachable
 * here, so it is written out: a 12-bit table gives two output characters per
 * lookup. Where the runtime has a built-in encoder it is used instead, found
 * by feature detection without an import: a global `Buffer` (Node, Bun,
 * Deno), else the web-standard `Uint8Array.prototype.toBase64` (ES2026). The
 * output is the same.
 *
 * Folder `lib/core/resources/` — a skill's bundled files: paths and classes, the gate, bundles, reads.
 *
 * @module
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const CHARS = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Every 12-bit value as the two ASCII characters that spell it, laid out for a Uint16Array. */
const PAIRS = new Uint16Array(4096);
for (let i = 0; i < 4096; i++) {
  const hi = CHARS[i >> 6]!, lo = CHARS[i & 63]!;
  PAIRS[i] = LITTLE_ENDIAN ? hi | (lo << 8) : (hi << 8) | lo;
}
const ASCII = new TextDecoder();
/** Bytes encoded per slice, so the output buffer stays bounded (a multiple of 3). */
const SLICE = 3 * 1024 * 1024;

/**
 * Encode bytes as base64.
 *
 * @param bytes Any bytes.
 * @returns Their base64 text, padded with `=`.
 * @example
 * ```ts
 * import { encodeBase64 } from "./base64.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(encodeBase64(new TextEncoder().encode("Man")), "TWFu");
 * assert.equal(encodeBase64(new Uint8Array([0xff])), "/w==");
 * ```
 */
export function encodeBase64(bytes: Uint8Array): string {
  return ENCODE(bytes);
}

/** The shape of Node's `Buffer` this module uses (a view, then `toString`). */
interface BufferLike {
  from(buffer: ArrayBufferLike, offset: number, length: number): { toString(enc: string): string };
}

/**
 * The fastest encoder this runtime has: a global `Buffer` (Node, Bun, Deno:
 * native code, many times faster than Deno's `toBase64`), else
 * `Uint8Array#toBase64`, else the table.
 */
const ENCODE: (bytes: Uint8Array) => string = (() => {
  const buffer = (globalThis as { Buffer?: BufferLike }).Buffer;
  if (typeof buffer?.from === "function") {
    // A view on the same memory: no copy.
    return (bytes: Uint8Array) =>
      buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  }
  const toBase64 = (Uint8Array.prototype as { toBase64?: (this: Uint8Array) => string })
    .toBase64;
  if (typeof toBase64 === "function") return (bytes: Uint8Array) => toBase64.call(bytes);
  return encodeBase64Table;
})();

/**
 * The table encoder, used where the runtime has no `toBase64`.
 *
 * @param bytes Any bytes.
 * @returns Their base64 text, padded with `=`.
 */
export function encodeBase64Table(bytes: Uint8Array): string {
  if (bytes.length <= SLICE) return encodeSlice(bytes);
  let out = "";
  for (let i = 0; i < bytes.length; i += SLICE) out += encodeSlice(bytes.subarray(i, i + SLICE));
  return out;
}

function encodeSlice(bytes: Uint8Array): string {
  const n = bytes.length;
  const whole = n - (n % 3);
  const groups = ((n + 2) / 3) | 0;
  // One 32-bit word (four characters) per three bytes.
  const words = new Uint32Array(groups);
  let j = 0;
  for (let i = 0; i < whole; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    words[j++] = LITTLE_ENDIAN
      ? PAIRS[v >> 12]! | (PAIRS[v & 4095]! << 16)
      : (PAIRS[v >> 12]! << 16) | PAIRS[v & 4095]!;
  }
  const view = new Uint8Array(words.buffer);
  if (n > whole) {
    const v = (bytes[whole]! << 16) | (n - whole === 2 ? bytes[whole + 1]! << 8 : 0);
    const k = 4 * j;
    view[k] = CHARS[v >> 18]!;
    view[k + 1] = CHARS[(v >> 12) & 63]!;
    view[k + 2] = n - whole === 2 ? CHARS[(v >> 6) & 63]! : 61; // "="
    view[k + 3] = 61;
  }
  return ASCII.decode(view);
}

/**
 * Decode base64 text.
 *
 * @param text Base64 text (padding optional, no white space).
 * @returns The bytes it encodes.
 * @throws {SyntaxError} When `text` is not base64.
 */
export function decodeBase64(text: string): Uint8Array {
  const clean = text.replace(/=+$/, "");
  if (clean.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(clean)) {
    throw new SyntaxError("Invalid base64 text");
  }
  const out = new Uint8Array((clean.length * 3) >> 2);
  let bits = 0, value = 0, j = 0;
  for (let i = 0; i < clean.length; i++) {
    value = (value << 6) | ALPHABET.indexOf(clean[i]!);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[j++] = (value >> bits) & 255;
    }
  }
  return out;
}
