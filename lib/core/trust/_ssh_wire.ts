/**
 * The SSH wire format (RFC 4251 §5) as the key, signature and armor parsers
 * read and write it: big-endian `uint32`s and length-prefixed strings, read
 * strictly (a length past the end or over its bound, a missing or a trailing
 * byte is a failure, reported through the caller's `fail`), strict base64
 * and PEM-like armor. Web standards only.
 *
 * Folder `lib/core/trust/` — trust as data: digests, manifests, lockfiles, approvals, pins, SSH signatures.
 *
 * @module
 */
import { decodeBase64, encodeBase64 } from "../resources/base64.ts";

/** Reports a malformed input: throws the caller's typed error. */
export type Fail = (reason: string) => never;

const UTF8 = new TextDecoder("utf-8", { fatal: true });
const ENCODER = new TextEncoder();

/** Reads one buffer front to back; every read checks its bounds. */
export class SshReader {
  readonly #bytes: Uint8Array;
  readonly #fail: Fail;
  #at = 0;

  /**
   * @param bytes What to read.
   * @param fail Called with the reason when the bytes are malformed.
   */
  constructor(bytes: Uint8Array, fail: Fail) {
    this.#bytes = bytes;
    this.#fail = fail;
  }

  /** How many bytes are left. */
  get left(): number {
    return this.#bytes.length - this.#at;
  }

  /**
   * @param n How many bytes.
   * @param what What they are, for the error.
   * @returns The next `n` bytes (a view).
   */
  raw(n: number, what: string): Uint8Array {
    if (n > this.left) this.#fail(`It ends inside its ${what}`);
    const out = this.#bytes.subarray(this.#at, this.#at + n);
    this.#at += n;
    return out;
  }

  /**
   * @param what What it is, for the error.
   * @returns The next big-endian 32-bit unsigned integer.
   */
  u32(what: string): number {
    const b = this.raw(4, what);
    return ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
  }

  /**
   * @param what What it is, for the error.
   * @param max The longest allowed.
   * @returns The next length-prefixed string's bytes (a view).
   */
  bytes(what: string, max: number): Uint8Array {
    const n = this.u32(`${what}'s length`);
    if (n > max) this.#fail(`Its ${what} is ${n} bytes long, over ${max}`);
    return this.raw(n, what);
  }

  /**
   * @param what What it is, for the error.
   * @param max The longest allowed, in bytes.
   * @returns The next length-prefixed string, as UTF-8 text without NUL characters.
   */
  text(what: string, max: number): string {
    const bytes = this.bytes(what, max);
    let text: string;
    try {
      text = UTF8.decode(bytes);
    } catch {
      return this.#fail(`Its ${what} is not UTF-8`);
    }
    if (text.includes("\0")) this.#fail(`Its ${what} holds a NUL character`);
    return text;
  }

  /**
   * Check that nothing is left.
   *
   * @param what What was read, for the error.
   */
  end(what: string): void {
    if (this.left !== 0) this.#fail(`${this.left} bytes follow the ${what}`);
  }
}

/** Builds a buffer of `uint32`s and length-prefixed strings. */
export class SshWriter {
  readonly #parts: Uint8Array[] = [];
  #length = 0;

  /**
   * @param bytes Bytes written as they are.
   * @returns This writer.
   */
  raw(bytes: Uint8Array): this {
    this.#parts.push(bytes);
    this.#length += bytes.length;
    return this;
  }

  /**
   * @param n A 32-bit unsigned integer, written big-endian.
   * @returns This writer.
   */
  u32(n: number): this {
    return this.raw(new Uint8Array([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]));
  }

  /**
   * @param value Bytes, or text written as UTF-8, after their length.
   * @returns This writer.
   */
  string(value: Uint8Array | string): this {
    const bytes = typeof value === "string" ? ENCODER.encode(value) : value;
    return this.u32(bytes.length).raw(bytes);
  }

  /** @returns Everything written, in one buffer. */
  finish(): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(this.#length);
    let at = 0;
    for (const p of this.#parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

/**
 * Decode base64 that is exactly what an encoder writes: padded, no white
 * space, no stray bits in the last character.
 *
 * @param text The base64 text.
 * @returns Its bytes, or `null` when it is not canonical base64.
 */
export function strictBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (text.length % 4 !== 0) return null;
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = decodeBase64(text) as Uint8Array<ArrayBuffer>;
  } catch {
    return null;
  }
  return encodeBase64(bytes) === text ? bytes : null;
}

/**
 * Armor bytes as OpenSSH does: the BEGIN line, base64 in lines of 70
 * characters, the END line, each ended by a line feed.
 *
 * @param label The armor's label, e.g. `SSH SIGNATURE`.
 * @param bytes The content.
 * @returns The armored text.
 */
export function armor(label: string, bytes: Uint8Array): string {
  const base64 = encodeBase64(bytes);
  let out = `-----BEGIN ${label}-----\n`;
  for (let i = 0; i < base64.length; i += 70) out += `${base64.slice(i, i + 70)}\n`;
  return `${out}-----END ${label}-----\n`;
}

/** The label of a text's first BEGIN line, if it starts with one. */
export function armorLabel(text: string): string | undefined {
  return /^-----BEGIN ([A-Z0-9 ]{1,40})-----\r?\n/.exec(text)?.[1];
}

/**
 * Read armored bytes strictly: the BEGIN line first, then only base64 lines
 * (line feeds or CR LF), the END line, and nothing after it but white space.
 *
 * @param text The armored text.
 * @param label The label expected.
 * @param fail Called with the reason when the text is malformed.
 * @returns The content.
 */
export function dearmor(text: string, label: string, fail: Fail): Uint8Array {
  const begin = `-----BEGIN ${label}-----`, end = `-----END ${label}-----`;
  const lines = text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  if (lines[0] !== begin) fail(`It does not start with "${begin}"`);
  const last = lines.indexOf(end);
  if (last === -1) fail(`It has no "${end}" line`);
  if (lines.slice(last + 1).some((l) => l.trim() !== "")) fail(`Text follows "${end}"`);
  const body = lines.slice(1, last);
  if (body.length === 0) fail("It holds no base64 text");
  for (const [i, l] of body.entries()) {
    if (!/^[A-Za-z0-9+/=]+$/.test(l)) fail(`Line ${i + 2} is not base64`);
  }
  return strictBase64(body.join("")) ?? fail("Its base64 text is malformed");
}

/**
 * Compare two byte strings.
 *
 * @param a One.
 * @param b The other.
 * @returns Whether they hold the same bytes.
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
