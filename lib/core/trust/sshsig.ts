/**
 * SSH signatures (OpenSSH's `PROTOCOL.sshsig`, what `ssh-keygen -Y sign`
 * writes) over any bytes — a lockfile, under the namespace `skillset-lock`:
 * the armored format read and written strictly, Ed25519 signing and
 * verification with WebCrypto, and the check against an allowed signers
 * file. A signature from `ssh-keygen -Y sign -n skillset-lock` verifies
 * here, and one made here verifies with `ssh-keygen -Y verify`.
 *
 * Folder `lib/core/trust/` — trust as data: digests, manifests, lockfiles, approvals, pins, SSH signatures.
 *
 * @module
 */
import { encodeBase64 } from "../resources/base64.ts";
import { type AllowedSigners, signersOf } from "./allowed_signers.ts";
import { armor, dearmor, sameBytes, SshReader, SshWriter, strictBase64 } from "./_ssh_wire.ts";
import {
  blobOf,
  ed25519Blob,
  failWith,
  isSmallOrderKey,
  MAX_SSH_KEY_CHARS,
  SSH_ED25519,
  sshFingerprint,
  type SshPrivateKey,
  type SshPublicKey,
  SshSignatureError,
} from "./ssh_key.ts";

/** The namespace of a lockfile's signature: `ssh-keygen -Y sign -n skillset-lock`. */
export const LOCK_SIGNATURE_NAMESPACE = "skillset-lock";

/** The hash algorithms of an SSH signature: `sha512` (what `ssh-keygen` writes) or `sha256`. */
export type SshHashAlgorithm = "sha512" | "sha256";

/** An SSH signature, read from its armored text. */
export interface SshSignature {
  /** The key that made it (its comment is `""`: a signature records none). */
  readonly publicKey: SshPublicKey;
  /** What kind of data it signs, e.g. `skillset-lock`. */
  readonly namespace: string;
  /** The hash of the signed bytes that was signed. */
  readonly hashAlgorithm: SshHashAlgorithm;
  /** The Ed25519 signature, base64 (64 bytes). */
  readonly signature: string;
  /** The reserved field, base64 (empty as `ssh-keygen` writes it; not signed, ignored). */
  readonly reserved: string;
}

/** A signature that checked out. */
export interface SignatureCheck {
  /** The signing key. */
  readonly key: SshPublicKey;
  /** Its fingerprint, as `ssh-keygen -l` prints it (`SHA256:…`). */
  readonly fingerprint: string;
  /** The principals of every allowed signers line that allows it. */
  readonly principals: readonly string[];
  /** The namespace checked. */
  readonly namespace: string;
}

/** Options of {@linkcode verifySshsig}. */
export interface VerifySshsigOptions {
  /** The namespace the signature must be for (default {@linkcode LOCK_SIGNATURE_NAMESPACE}). */
  readonly namespace?: string;
  /** An identity the signer's principals must match (as `ssh-keygen -Y verify -I`). */
  readonly identity?: string;
  /** The time the validity of a signer is checked at (default now). */
  readonly now?: Date;
}

/** Options of {@linkcode signSshsig}. */
export interface SignSshsigOptions {
  /** The namespace (default {@linkcode LOCK_SIGNATURE_NAMESPACE}). */
  readonly namespace?: string;
  /** The hash of the data that is signed (default `sha512`). */
  readonly hashAlgorithm?: SshHashAlgorithm;
}

const MAGIC = new TextEncoder().encode("SSHSIG");
const LABEL = "SSH SIGNATURE";
const HASHES: Readonly<Record<SshHashAlgorithm, string>> = { sha512: "SHA-512", sha256: "SHA-256" };

/**
 * Read an armored SSH signature (`-----BEGIN SSH SIGNATURE-----`).
 *
 * @param text The signature file's text.
 * @returns The signature, frozen.
 * @throws {SshSignatureError} `INVALID_SIGNATURE` for bad armor or base64, a
 *   wrong magic or version, a hash other than sha256/sha512, an empty
 *   namespace, a truncated blob or trailing bytes, a text over 64 KiB;
 *   `UNSUPPORTED_KEY` for a signature by another key type than ssh-ed25519.
 * @example
 * ```ts
 * import { parseSshSignature, renderSshSignature } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
 *
 * // `ssh-keygen -Y sign -n skillset-lock` of "hello\n".
 * const text = `-----BEGIN SSH SIGNATURE-----
 * U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAgZ+Uj+g6oc8BhcpEaly7Jfrw1i9
 * vCxTgZ6KGaduWHGQwAAAANc2tpbGxzZXQtbG9jawAAAAAAAAAGc2hhNTEyAAAAUwAAAAtz
 * c2gtZWQyNTUxOQAAAEBnabsrqBjaJklZ829apEdbplH+kaLHIYgPwQ403V9yugqlimi3Hj
 * GxrLAmW2fv0CLm5Rdj3+CkPR1TxhiKGioL
 * -----END SSH SIGNATURE-----
 * `;
 * const signature = parseSshSignature(text);
 * assert.deepEqual([signature.namespace, signature.hashAlgorithm], ["skillset-lock", "sha512"]);
 * assert.equal(renderSshSignature(signature), text);
 * ```
 */
export function parseSshSignature(text: string): SshSignature {
  const subject = "The signature";
  const fail = failWith("INVALID_SIGNATURE", subject);
  if (text.length > MAX_SSH_KEY_CHARS) fail(`It is over ${MAX_SSH_KEY_CHARS} characters`);
  const r = new SshReader(dearmor(text, LABEL, fail), fail);
  if (!sameBytes(r.raw(Math.min(MAGIC.length, r.left), "magic"), MAGIC)) {
    fail('It does not start with "SSHSIG"');
  }
  const version = r.u32("version");
  if (version !== 1) fail(`Its version is ${version}, not 1`);
  const key = ed25519Blob(r.bytes("public key", 1024), subject, "INVALID_SIGNATURE");
  const namespace = r.text("namespace", 1024);
  if (namespace === "") fail("Its namespace is empty");
  const reserved = r.bytes("reserved field", 1024);
  const hash = r.text("hash algorithm", 64);
  if (hash !== "sha512" && hash !== "sha256") {
    fail(`Its hash algorithm "${hash}" is not sha512 or sha256`);
  }
  const inner = new SshReader(r.bytes("signature", 1024), fail);
  r.end("signature");
  const type = inner.text("signature type", 64);
  if (type !== SSH_ED25519) fail(`Its signature is of type "${type}", not ssh-ed25519`);
  const signature = inner.bytes("Ed25519 signature", 64);
  if (signature.length !== 64) fail(`Its Ed25519 signature is ${signature.length} bytes, not 64`);
  inner.end("Ed25519 signature");
  return Object.freeze({
    publicKey: Object.freeze({ type: SSH_ED25519, base64: encodeBase64(blobOf(key)), comment: "" }),
    namespace,
    hashAlgorithm: hash as SshHashAlgorithm,
    signature: encodeBase64(signature),
    reserved: encodeBase64(reserved),
  });
}

/**
 * Write a signature as `ssh-keygen -Y sign` does: armored, base64 in lines
 * of 70 characters.
 *
 * @param signature The signature.
 * @returns Its armored text, ending with a line feed.
 * @throws {TypeError} When a field is not what {@linkcode parseSshSignature} gives.
 */
export function renderSshSignature(signature: SshSignature): string {
  const key = strictBase64(signature.publicKey.base64);
  const sig = strictBase64(signature.signature);
  const reserved = strictBase64(signature.reserved);
  if (key === null || sig === null || reserved === null || !(signature.hashAlgorithm in HASHES)) {
    throw new TypeError("Not a parsed SSH signature");
  }
  return armor(
    LABEL,
    signatureBlob(key, signature.namespace, reserved, signature.hashAlgorithm, sig),
  );
}

function signatureBlob(
  key: Uint8Array,
  namespace: string,
  reserved: Uint8Array,
  hash: SshHashAlgorithm,
  signature: Uint8Array,
): Uint8Array {
  return new SshWriter().raw(MAGIC).u32(1).string(key).string(namespace).string(reserved)
    .string(hash).string(new SshWriter().string(SSH_ED25519).string(signature).finish()).finish();
}

/**
 * The bytes an SSH signature signs: the magic, namespace, an empty reserved
 * field, hash name and hash. Empty whatever the signature's reserved field
 * holds, as OpenSSH signs and verifies: a signature over other reserved bytes
 * is one `ssh-keygen -Y verify` refuses.
 */
async function signedData(
  message: Uint8Array,
  namespace: string,
  hash: SshHashAlgorithm,
): Promise<Uint8Array<ArrayBuffer>> {
  const digest = new Uint8Array(
    await crypto.subtle.digest(HASHES[hash], message as Uint8Array<ArrayBuffer>),
  );
  return new SshWriter().raw(MAGIC).string(namespace).string(new Uint8Array(0)).string(hash)
    .string(digest).finish();
}

/**
 * Sign bytes as `ssh-keygen -Y sign -n <namespace>` does.
 *
 * @param message The bytes (a lockfile's, exactly as on disk).
 * @param key The private key ({@linkcode parseSshPrivateKey}).
 * @param options The namespace and hash.
 * @returns The armored signature, ending with a line feed.
 * @throws {RangeError} For an empty namespace or one holding a NUL character.
 * @example
 * ```ts
 * import { parseAllowedSigners, signSshsig, SshPrivateKey, verifySshsig } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
 *
 * const key = await SshPrivateKey.fromSeed(crypto.getRandomValues(new Uint8Array(32)));
 * const lockfile = new TextEncoder().encode('{ "version": 1, "skills": [] }\n');
 * const signature = await signSshsig(lockfile, key);
 * const signers = parseAllowedSigners(`ci@example.com ssh-ed25519 ${key.publicKey.base64}\n`);
 * const check = await verifySshsig(lockfile, signature, signers, { identity: "ci@example.com" });
 * assert.deepEqual(check.principals, ["ci@example.com"]);
 * ```
 */
export async function signSshsig(
  message: Uint8Array,
  key: SshPrivateKey,
  options: SignSshsigOptions = {},
): Promise<string> {
  const { namespace = LOCK_SIGNATURE_NAMESPACE, hashAlgorithm = "sha512" } = options;
  if (namespace === "" || namespace.includes("\0")) {
    throw new RangeError(`Not a namespace: "${namespace}"`);
  }
  if (!(hashAlgorithm in HASHES)) throw new RangeError(`Unknown hash "${hashAlgorithm}"`);
  const empty = new Uint8Array(0);
  const signature = await key.sign(await signedData(message, namespace, hashAlgorithm));
  const blob = strictBase64(key.publicKey.base64)!;
  return armor(LABEL, signatureBlob(blob, namespace, empty, hashAlgorithm, signature));
}

/**
 * Check a signature as `ssh-keygen -Y verify` does: its namespace, the
 * Ed25519 signature over the bytes, then the allowed signers — a line with
 * the same key whose principals match `identity` (when given), whose
 * `namespaces` allow the namespace and whose validity holds `now`.
 *
 * @param message The signed bytes.
 * @param signature The armored signature, or one already read.
 * @param signers Who may sign ({@linkcode parseAllowedSigners}).
 * @param options The namespace, identity and time.
 * @returns The key, its fingerprint and the principals that allow it, frozen.
 * @throws {SshSignatureError} `INVALID_SIGNATURE` or `UNSUPPORTED_KEY` (as
 *   {@linkcode parseSshSignature}); `WRONG_NAMESPACE`; `BAD_SIGNATURE` when
 *   the bytes or the signature changed; `UNKNOWN_SIGNER` when no allowed
 *   signers line allows the key, the message saying what each line with that
 *   key lacks.
 * @example
 * ```ts
 * import { parseAllowedSigners, SshSignatureError, signSshsig, SshPrivateKey, verifySshsig } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
 *
 * const key = await SshPrivateKey.fromSeed(crypto.getRandomValues(new Uint8Array(32)));
 * const signers = parseAllowedSigners(`ci@example.com ssh-ed25519 ${key.publicKey.base64}\n`);
 * const signature = await signSshsig(new TextEncoder().encode("v1"), key);
 * let code = "";
 * try {
 *   await verifySshsig(new TextEncoder().encode("v2"), signature, signers);
 * } catch (e) {
 *   if (e instanceof SshSignatureError) code = e.code;
 * }
 * assert.equal(code, "BAD_SIGNATURE");
 * ```
 */
export async function verifySshsig(
  message: Uint8Array,
  signature: string | SshSignature,
  signers: AllowedSigners,
  options: VerifySshsigOptions = {},
): Promise<SignatureCheck> {
  const sig = typeof signature === "string" ? parseSshSignature(signature) : signature;
  const namespace = options.namespace ?? LOCK_SIGNATURE_NAMESPACE;
  if (sig.namespace !== namespace) {
    throw new SshSignatureError(
      "WRONG_NAMESPACE",
      `The signature is for the namespace "${sig.namespace}", not "${namespace}"`,
    );
  }
  const key = strictBase64(sig.publicKey.base64);
  const raw = strictBase64(sig.signature);
  const reserved = strictBase64(sig.reserved);
  if (key === null || raw === null || reserved === null || !(sig.hashAlgorithm in HASHES)) {
    throw new TypeError("Not a parsed SSH signature");
  }
  const fingerprint = await sshFingerprint(sig.publicKey);
  if (isSmallOrderKey(sig.publicKey)) {
    throw new SshSignatureError(
      "BAD_SIGNATURE",
      `The signature is by ${fingerprint}, a key of small order: anyone can sign with it`,
    );
  }
  const data = await signedData(message, namespace, sig.hashAlgorithm);
  let good = false;
  try {
    const publicKey = await crypto.subtle.importKey(
      "raw",
      ed25519Blob(key, "The signature's key", "INVALID_SIGNATURE") as Uint8Array<ArrayBuffer>,
      "Ed25519",
      false,
      ["verify"],
    );
    good = await crypto.subtle.verify("Ed25519", publicKey, raw, data);
  } catch {
    good = false; // A point WebCrypto refuses is no signature.
  }
  if (!good) {
    throw new SshSignatureError(
      "BAD_SIGNATURE",
      `The signature by ${fingerprint} does not match the signed bytes: they or the signature changed`,
    );
  }
  const { allowed, refusals } = signersOf(signers, sig.publicKey, {
    namespace,
    identity: options.identity,
    now: (options.now ?? new Date()).getTime(),
  });
  if (allowed.length === 0) {
    const ignored = signers.ignored.filter((i) => i.key === sig.publicKey.base64)
      .map((i) => `${signers.file}:${i.line} is ignored (${i.reason})`);
    const why = refusals.length > 0
      ? ` is not allowed: ${listed(refusals)}`
      : ` is not in ${signers.file}${ignored.length > 0 ? `: ${listed(ignored)}` : ""}`;
    throw new SshSignatureError("UNKNOWN_SIGNER", `The signing key ${fingerprint}${why}`);
  }
  return Object.freeze({
    key: sig.publicKey,
    fingerprint,
    principals: Object.freeze(allowed.map((s) => s.principals)),
    namespace,
  });
}

/** Reasons joined, the first five of them. */
function listed(reasons: readonly string[]): string {
  const more = reasons.length - 5;
  return `${reasons.slice(0, 5).join("; ")}${more > 0 ? `; and ${more} more` : ""}`;
}
