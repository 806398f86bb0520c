/**
 * OpenSSH Ed25519 keys, read strictly: a public key line
 * (`ssh-ed25519 AAAA… comment`, as in a `.pub` file) and an unencrypted
 * private key file (`openssh-key-v1`), plus the typed error every SSH
 * signature parser throws. Web standards only: the private key becomes a
 * non-extractable WebCrypto Ed25519 key.
 *
 * Folder `lib/core/trust/` — trust as data: digests, manifests, lockfiles, approvals, pins, SSH signatures.
 *
 * @module
 */
import { SkillsetError } from "../errors.ts";
import { decodeBase64, encodeBase64 } from "../resources/base64.ts";
import {
  armorLabel,
  dearmor,
  type Fail,
  sameBytes,
  SshReader,
  SshWriter,
  strictBase64,
} from "./_ssh_wire.ts";

/** The codes of {@linkcode SshSignatureError}. */
export type SshSignatureCode =
  /** A key that is not a well-formed OpenSSH key (bad base64, truncated, trailing bytes, halves that differ). */
  | "INVALID_KEY"
  /** A key of another type than `ssh-ed25519`, or a file in another format than OpenSSH's. */
  | "UNSUPPORTED_KEY"
  /** A private key protected by a passphrase. */
  | "ENCRYPTED_KEY"
  /** An `allowed_signers` line that cannot be read. */
  | "INVALID_SIGNERS"
  /** A signature that is not a well-formed SSHSIG. */
  | "INVALID_SIGNATURE"
  /** A signature made for another namespace. */
  | "WRONG_NAMESPACE"
  /** A signing key that the allowed signers do not allow (for that identity, namespace or time). */
  | "UNKNOWN_SIGNER"
  /** A signature that does not match the signed bytes. */
  | "BAD_SIGNATURE"
  /** An allowed signers file that the change under check itself changes. */
  | "SIGNERS_IN_CHANGE";

/**
 * An SSH key, signature or allowed signers file that cannot be used, or a
 * signature that does not check out: never read as "signed".
 *
 * @example
 * ```ts
 * import { parseSshPublicKey, SshSignatureError } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
 *
 * let error: SshSignatureError | undefined;
 * try {
 *   parseSshPublicKey("ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC7 bob@example.com");
 * } catch (e) {
 *   if (e instanceof SshSignatureError) error = e;
 * }
 * assert.equal(error?.code, "UNSUPPORTED_KEY");
 * ```
 */
export class SshSignatureError extends SkillsetError {
  /** Always `"SshSignatureError"`. */
  override readonly name = "SshSignatureError";
  /** Which condition failed. */
  readonly code: SshSignatureCode;

  /**
   * Describe the failure.
   *
   * @param code Which condition failed.
   * @param message What failed and why.
   */
  constructor(code: SshSignatureCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** The one key type read: Ed25519. */
export const SSH_ED25519 = "ssh-ed25519";
/** The longest key line or key file read, in characters. */
export const MAX_SSH_KEY_CHARS = 64 * 1024;

/** An Ed25519 public key, as a `.pub` line or an `allowed_signers` line gives it. */
export interface SshPublicKey {
  /** Always `"ssh-ed25519"`. */
  readonly type: typeof SSH_ED25519;
  /** The key in the wire format, base64 (the second word of a `.pub` line). */
  readonly base64: string;
  /** The comment after it (`""` when none). */
  readonly comment: string;
}

/**
 * A thrower of typed errors with one code and a subject.
 *
 * @param code The code.
 * @param subject What is read, e.g. `The public key`.
 * @returns A function that throws `subject: reason`.
 */
export function failWith(code: SshSignatureCode, subject: string): Fail {
  return (reason) => {
    throw new SshSignatureError(code, `${subject} is malformed: ${lower(reason)}`);
  };
}

function lower(reason: string): string {
  return reason.charAt(0).toLowerCase() + reason.slice(1);
}

/**
 * Read a key in the wire format (`string "ssh-ed25519"`, `string key`).
 *
 * @param bytes The key blob.
 * @param subject What is read, for errors.
 * @param code The code of a malformed blob.
 * @returns The 32 bytes of the key.
 * @throws {SshSignatureError} `UNSUPPORTED_KEY` for another type, `code` when malformed.
 */
export function ed25519Blob(
  bytes: Uint8Array,
  subject: string,
  code: SshSignatureCode,
): Uint8Array {
  const r = new SshReader(bytes, failWith(code, subject));
  const type = r.text("key type", 64);
  unsupported(type, subject);
  const key = r.bytes("Ed25519 key", 32);
  if (key.length !== 32) failWith(code, subject)(`Its Ed25519 key is ${key.length} bytes, not 32`);
  r.end("key");
  return key;
}

function unsupported(type: string, subject: string): void {
  if (type !== SSH_ED25519) {
    throw new SshSignatureError(
      "UNSUPPORTED_KEY",
      `${subject} is of type "${type}": skillset signs and verifies with ssh-ed25519 keys only`,
    );
  }
}

/**
 * The wire blob of a 32-byte Ed25519 key.
 *
 * @param key The key's bytes.
 * @returns `string "ssh-ed25519"`, `string key`.
 */
export function blobOf(key: Uint8Array): Uint8Array {
  return new SshWriter().string(SSH_ED25519).string(key).finish();
}

/**
 * Read a public key line: `ssh-ed25519`, the base64 key and an optional
 * comment, as `ssh-keygen` writes it to a `.pub` file.
 *
 * @param line The line (a final line break is allowed).
 * @returns The key, frozen.
 * @throws {SshSignatureError} `UNSUPPORTED_KEY` for another type (on the line
 *   or in the key); `INVALID_KEY` for bad base64, a truncated key, trailing
 *   bytes, more than one line, or a line over {@linkcode MAX_SSH_KEY_CHARS}.
 * @example
 * ```ts
 * import { parseSshPublicKey, renderSshPublicKey } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
 *
 * const line = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGflI/oOqHPAYXKRGpcuyX68NYvbwsU4GeihmnblhxkM alice@example.com";
 * const key = parseSshPublicKey(`${line}\n`);
 * assert.equal(key.comment, "alice@example.com");
 * assert.equal(renderSshPublicKey(key), line);
 * ```
 */
export function parseSshPublicKey(line: string): SshPublicKey {
  const fail = failWith("INVALID_KEY", "The public key");
  if (line.length > MAX_SSH_KEY_CHARS) fail(`It is over ${MAX_SSH_KEY_CHARS} characters`);
  // Split by hand: a regular expression with an optional comment backtracks on a long line.
  const body = line.endsWith("\n") ? line.slice(0, line.endsWith("\r\n") ? -2 : -1) : line;
  const type = word(body, 0);
  const base64 = word(body, skipBlanks(body, type.length));
  let end = body.length;
  while (end > 0 && (body[end - 1] === " " || body[end - 1] === "\t")) end--;
  const comment = body.slice(skipBlanks(body, skipBlanks(body, type.length) + base64.length), end);
  if (type === "" || base64 === "" || /[\r\n]/.test(body)) {
    fail('It is not "type base64 [comment]" on one line');
  }
  unsupported(type, "The public key");
  const blob = strictBase64(base64) ?? fail("Its key is not base64");
  ed25519Blob(blob, "The public key", "INVALID_KEY");
  return Object.freeze({ type: SSH_ED25519, base64, comment });
}

/** The run of characters other than blanks and line breaks at `at`. */
function word(text: string, at: number): string {
  let end = at;
  while (end < text.length && !" \t\r\n".includes(text[end]!)) end++;
  return text.slice(at, end);
}

/** The first index at or after `at` that is not a space or a tab. */
function skipBlanks(text: string, at: number): number {
  while (text[at] === " " || text[at] === "\t") at++;
  return at;
}

/** p = 2^255 − 19, the field of Ed25519's coordinates. */
const FIELD_P = (1n << 255n) - 19n;
/** The y coordinates of Ed25519's eight points of small order (the identity, orders 2, 4 and 8). */
const SMALL_ORDER_Y = new Set([
  0n,
  1n,
  FIELD_P - 1n,
  2707385501144840649318225287225658788936804267575313519463743609750303402022n,
  55188659117513257062467267217118295137698188065244968500265048394206261417927n,
]);

/**
 * Whether a key is a point of small order, in any encoding: one that has no
 * secret, whose "signature" (the identity point and a zero) verifies any
 * bytes with OpenSSH and with WebCrypto on some runtimes.
 *
 * @param key The key.
 * @returns Whether anyone can sign with it.
 */
export function isSmallOrderKey(key: SshPublicKey): boolean {
  const blob = strictBase64(key.base64);
  if (blob === null || blob.length < 32) throw new TypeError("Not a parsed public key");
  let y = 0n;
  const point = blob.subarray(blob.length - 32);
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? point[i]! & 0x7f : point[i]!);
  return SMALL_ORDER_Y.has(y % FIELD_P);
}

/**
 * Write a public key line, as in a `.pub` file.
 *
 * @param key The key.
 * @returns `ssh-ed25519 <base64>` and the comment, if any, without a line break.
 */
export function renderSshPublicKey(key: SshPublicKey): string {
  return `${key.type} ${key.base64}${key.comment === "" ? "" : ` ${key.comment}`}`;
}

/**
 * The key's fingerprint as `ssh-keygen -l` prints it: `SHA256:` and the
 * base64 of the SHA-256 of its blob, without padding.
 *
 * @param key The key.
 * @returns The fingerprint.
 * @example
 * ```ts
 * import { parseSshPublicKey, sshFingerprint } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
 *
 * const key = parseSshPublicKey("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGflI/oOqHPAYXKRGpcuyX68NYvbwsU4GeihmnblhxkM");
 * assert.equal(await sshFingerprint(key), "SHA256:2X9A8gtaljJcf5HIM3AzCCdnVoFJWeqreuUCz4/mh4g");
 * ```
 */
export async function sshFingerprint(key: SshPublicKey): Promise<string> {
  const blob = strictBase64(key.base64);
  if (blob === null) throw new TypeError("Not a parsed public key");
  const hash = new Uint8Array(
    await crypto.subtle.digest("SHA-256", blob as Uint8Array<ArrayBuffer>),
  );
  return `SHA256:${encodeBase64(hash).replace(/=+$/, "")}`;
}

const MAGIC = new TextEncoder().encode("openssh-key-v1\0");
/** PKCS #8 for Ed25519 up to the 32-byte seed (RFC 8410 §7). */
const PKCS8_PREFIX = new Uint8Array([
  0x30,
  0x2e,
  0x02,
  0x01,
  0x00,
  0x30,
  0x05,
  0x06,
  0x03,
  0x2b,
  0x65,
  0x70,
  0x04,
  0x22,
  0x04,
  0x20,
]);

/**
 * An Ed25519 private key read from an OpenSSH key file. The secret stays in
 * a non-extractable WebCrypto key; only its public half is visible.
 */
export class SshPrivateKey {
  /** The public half, with the comment the key file records. */
  readonly publicKey: SshPublicKey;
  readonly #key: CryptoKey;

  /**
   * Use {@linkcode parseSshPrivateKey}.
   *
   * @param publicKey The public half.
   * @param key The WebCrypto private key.
   */
  private constructor(publicKey: SshPublicKey, key: CryptoKey) {
    this.publicKey = publicKey;
    this.#key = key;
  }

  /**
   * Make a key from its 32-byte Ed25519 seed (the first half of the secret
   * key an OpenSSH key file holds).
   *
   * @param seed The seed.
   * @param comment The key's comment.
   * @returns The private key.
   * @throws {RangeError} When the seed is not 32 bytes.
   * @example
   * ```ts
   * import { SshPrivateKey } from "../../../mod.ts";
   * import { assert } from "../_assert.ts";
   *
   * const key = await SshPrivateKey.fromSeed(new Uint8Array(32).fill(7), "ci@example.com");
   * assert.ok(key.publicKey.base64.startsWith("AAAAC3NzaC1lZDI1NTE5AAAAI"));
   * ```
   */
  static async fromSeed(seed: Uint8Array, comment = ""): Promise<SshPrivateKey> {
    if (seed.length !== 32) throw new RangeError(`An Ed25519 seed is 32 bytes, got ${seed.length}`);
    const der = new Uint8Array(PKCS8_PREFIX.length + 32);
    der.set(PKCS8_PREFIX);
    der.set(seed, PKCS8_PREFIX.length);
    try {
      const open = await crypto.subtle.importKey("pkcs8", der, "Ed25519", true, ["sign"]);
      const { x = "" } = await crypto.subtle.exportKey("jwk", open);
      const key = decodeBase64(x.replace(/-/g, "+").replace(/_/g, "/"));
      const secret = await crypto.subtle.importKey("pkcs8", der, "Ed25519", false, ["sign"]);
      const base64 = encodeBase64(blobOf(key));
      return new SshPrivateKey(Object.freeze({ type: SSH_ED25519, base64, comment }), secret);
    } finally {
      der.fill(0);
    }
  }

  /**
   * Sign bytes with Ed25519.
   *
   * @param data The bytes.
   * @returns The 64-byte signature.
   */
  async sign(data: Uint8Array): Promise<Uint8Array> {
    return new Uint8Array(
      await crypto.subtle.sign("Ed25519", this.#key, data as Uint8Array<ArrayBuffer>),
    );
  }
}

/**
 * Read an unencrypted OpenSSH private key file (`ssh-keygen -t ed25519 -N ''`).
 *
 * @param text The file's text.
 * @returns The key.
 * @throws {SshSignatureError} `ENCRYPTED_KEY` for a key with a passphrase (sign
 *   with `ssh-keygen -Y sign`, which asks for it or uses `ssh-agent`, or with an
 *   unencrypted key); `UNSUPPORTED_KEY` for another type or another format (a
 *   PEM, PKCS #8); `INVALID_KEY` for anything malformed: bad base64, wrong
 *   magic, truncated, trailing bytes, check numbers or padding that differ, a
 *   secret half that does not match the public one.
 * @example
 * ```ts
 * import { parseSshPrivateKey } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
 *
 * // A throwaway key made by `ssh-keygen -t ed25519 -N '' -C alice@example.com`.
 * const key = await parseSshPrivateKey(`-----BEGIN OPENSSH PRIVATE KEY-----
 * b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
 * QyNTUxOQAAACBn5SP6DqhzwGFykRqXLsl+vDWL28LFOBnooZp25YcZDAAAAJjciOtE3Ijr
 * RAAAAAtzc2gtZWQyNTUxOQAAACBn5SP6DqhzwGFykRqXLsl+vDWL28LFOBnooZp25YcZDA
 * AAAEB55HVY9un8FDi6MP/E7Licy4/tP5Q9807SMhwB2DOdWGflI/oOqHPAYXKRGpcuyX68
 * NYvbwsU4GeihmnblhxkMAAAAEWFsaWNlQGV4YW1wbGUuY29tAQIDBA==
 * -----END OPENSSH PRIVATE KEY-----
 * `);
 * assert.equal(key.publicKey.comment, "alice@example.com");
 * assert.equal((await key.sign(new Uint8Array([1, 2, 3]))).length, 64);
 * ```
 */
export async function parseSshPrivateKey(text: string): Promise<SshPrivateKey> {
  const subject = "The private key";
  const fail = failWith("INVALID_KEY", subject);
  if (text.length > MAX_SSH_KEY_CHARS) fail(`It is over ${MAX_SSH_KEY_CHARS} characters`);
  if (text.startsWith(`${SSH_ED25519} `)) {
    fail("It is a public key: give the private key file (the one without .pub)");
  }
  const label = armorLabel(text);
  if (label !== undefined && label !== "OPENSSH PRIVATE KEY") {
    throw new SshSignatureError(
      "UNSUPPORTED_KEY",
      `${subject} is a "${label}" file: skillset reads OpenSSH ed25519 keys (ssh-keygen -t ed25519)`,
    );
  }
  const r = new SshReader(dearmor(text, "OPENSSH PRIVATE KEY", fail), fail);
  if (!sameBytes(r.raw(Math.min(MAGIC.length, r.left), "magic"), MAGIC)) {
    fail('It does not start with "openssh-key-v1"');
  }
  const cipher = r.text("cipher name", 64);
  const kdf = r.text("KDF name", 64);
  const kdfOptions = r.bytes("KDF options", 1024);
  if (cipher !== "none") {
    throw new SshSignatureError(
      "ENCRYPTED_KEY",
      `${subject} is encrypted ("${cipher}"): sign with ssh-keygen -Y sign -n skillset-lock ` +
        "(it asks for the passphrase or uses ssh-agent), or use a key without a passphrase",
    );
  }
  if (kdf !== "none" || kdfOptions.length !== 0) fail(`It has a KDF ("${kdf}") but no cipher`);
  const count = r.u32("key count");
  if (count !== 1) fail(`It holds ${count} keys, not 1`);
  const key = ed25519Blob(r.bytes("public key", 1024), subject, "INVALID_KEY");
  const section = r.bytes("private section", 4096);
  r.end("private section");
  if (section.length % 8 !== 0) fail("Its private section is not padded to 8 bytes");
  const p = new SshReader(section, fail);
  if (p.u32("check number") !== p.u32("check number")) fail("Its two check numbers differ");
  unsupported(p.text("key type", 64), subject);
  if (!sameBytes(p.bytes("public key", 32), key)) fail("Its two public keys differ");
  const secret = p.bytes("secret key", 64);
  if (secret.length !== 64 || !sameBytes(secret.subarray(32), key)) {
    fail("Its secret key is not the seed and the public key");
  }
  const comment = p.text("comment", 4096);
  const padding = p.raw(p.left, "padding");
  if (padding.some((b, i) => b !== i + 1)) fail("Its padding is not 1, 2, 3, …");
  const parsed = await SshPrivateKey.fromSeed(secret.subarray(0, 32), comment);
  if (parsed.publicKey.base64 !== encodeBase64(blobOf(key))) {
    fail("Its secret half does not match its public key");
  }
  return parsed;
}
