/**
 * Signatures over the lockfile from the command line: `skillset sign
 * --key FILE` writes `<lockfile>.sig` (an SSH signature, namespace
 * `skillset-lock`, as `ssh-keygen -Y sign` writes it), and `skillset verify
 * --signers FILE` checks it before anything else. The bytes checked are the
 * bytes then parsed as the lockfile: it is read once.
 *
 * Folder `lib/cli/trust/` — the trust commands: lock, verify, approve, sign.
 *
 * @module
 */
import { resolve } from "node:path";
import { escapeControls as esc } from "../../core/_text.ts";
import {
  MAX_ALLOWED_SIGNERS_CHARS,
  parseAllowedSigners,
} from "../../core/trust/allowed_signers.ts";
import { type Lockfile, LOCKFILE_NAME, parseLockfile } from "../../core/trust/lockfile.ts";
import {
  MAX_SSH_KEY_CHARS,
  parseSshPrivateKey,
  renderSshPublicKey,
  sshFingerprint,
  SshSignatureError,
} from "../../core/trust/ssh_key.ts";
import {
  LOCK_SIGNATURE_NAMESPACE,
  parseSshSignature,
  type SignatureCheck,
  signSshsig,
  verifySshsig,
} from "../../core/trust/sshsig.ts";
import { signersChange } from "./_signers_change.ts";
import { MAX_TRUST_FILE_BYTES, TrustFileError } from "../../core/trust/trust_file.ts";
import { readTrustBytes, trustFileText, writeOwnFile } from "../../fs/trust/trust_files.ts";
import { type Args, UsageError } from "../_args.ts";
import type { CliIO } from "../_io.ts";

/** Key, signature and signers files are text; bytes that are not UTF-8 fail their parser. */
const TEXT = new TextDecoder();

/**
 * Read a file that must exist.
 *
 * @param path The file.
 * @param maxBytes Its largest size.
 * @param missing What to say when it does not exist.
 * @returns Its bytes.
 * @throws {TrustFileError} `NOT_FOUND`, `UNREADABLE` or `TOO_LARGE`.
 */
function mustRead(path: string, maxBytes: number, missing: string): Uint8Array {
  const bytes = readTrustBytes(path, maxBytes);
  if (bytes === null) throw new TrustFileError("NOT_FOUND", path, missing);
  return bytes;
}

/**
 * `skillset sign [--lockfile FILE] --key KEY [--signature FILE]`: sign the
 * lockfile's bytes, as they are on disk, with an unencrypted OpenSSH
 * ed25519 key; write the signature atomically.
 *
 * @param args The parsed command line.
 * @param io Where to write.
 * @returns The exit code: 0.
 * @throws {UsageError} Without `--key`.
 * @throws {TrustFileError} For a missing, unreadable or malformed lockfile, or a missing key.
 * @throws {SshSignatureError} For a key that is encrypted, of another type or malformed.
 */
export async function signCommand(args: Args, io: CliIO): Promise<number> {
  const keyFile = args.flags.get("--key");
  if (keyFile === undefined) {
    throw new UsageError(
      "sign: --key FILE is required: an ed25519 private key (ssh-keygen -t ed25519)",
    );
  }
  const file = resolve(args.flags.get("--lockfile") ?? LOCKFILE_NAME);
  const signatureFile = resolve(args.flags.get("--signature") ?? `${file}.sig`);
  const bytes = mustRead(file, MAX_TRUST_FILE_BYTES, "No lockfile here: run `skillset lock` first");
  parseLockfile(trustFileText(bytes, file), file); // A malformed lockfile is not signed.
  const key = await parseSshPrivateKey(
    TEXT.decode(mustRead(keyFile, MAX_SSH_KEY_CHARS, "No private key here")),
  );
  writeOwnFile(
    signatureFile,
    await signSshsig(bytes, key),
    "signature",
    (text) => text.trimStart().startsWith("-----BEGIN SSH SIGNATURE-----"),
  );
  const fingerprint = await sshFingerprint(key.publicKey), comment = key.publicKey.comment;
  if (args.json) {
    const report = { lockfile: file, signature: signatureFile, key: fingerprint };
    io.stdout(`${JSON.stringify({ ...report, namespace: LOCK_SIGNATURE_NAMESPACE }, null, 2)}\n`);
  } else {
    const who = comment === "" ? fingerprint : `${fingerprint} (${esc(comment)})`;
    io.stdout(`Signed ${esc(file)} with ${who} in ${esc(signatureFile)}\n`);
  }
  return 0;
}

/** A lockfile whose signature checked out. */
export interface SignedLock {
  /** The lockfile, parsed from the bytes that were checked. */
  readonly lock: Lockfile;
  /** Who signed it. */
  readonly check: SignatureCheck;
  /** The signature file. */
  readonly signature: string;
}

/** A key's SHA-256 fingerprint as ssh-keygen prints it. */
const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

/**
 * The signature check of `verify --signers FILE | --signer KEY...
 * [--signature FILE] [--identity PRINCIPAL] [--allow-changed-signers]`: the
 * lockfile is read once, its signature checked against the allowed signers
 * (a file, or keys named on the command line: an allowed signers line, or a
 * fingerprint `SHA256:…` that allows that very key under any principal), and
 * the lockfile parsed from those bytes. A signers file that the commit under
 * check changes is refused unless `--allow-changed-signers`
 * (`docs/security.md#signers-outside-the-change`). In text mode, a line says
 * who signed.
 *
 * @param file The lockfile.
 * @param args The parsed command line.
 * @param io Where to write.
 * @returns The checked lockfile, or `undefined` without `--signers` or `--signer`.
 * @throws {UsageError} For `--signature` or `--identity` without signers, both `--signers` and
 *   `--signer`, or a malformed fingerprint.
 * @throws {TrustFileError} For a missing or unreadable lockfile, signature or signers file.
 * @throws {SshSignatureError} For a signature that is malformed, for another
 *   namespace, over other bytes, or by a key the signers do not allow;
 *   `SIGNERS_IN_CHANGE` for a signers file the commit under check changes.
 */
export async function checkSignature(
  file: string,
  args: Args,
  io: CliIO,
): Promise<SignedLock | undefined> {
  const signersFile = args.flags.get("--signers");
  const named = args.repeated.get("--signer") ?? [];
  const identity = args.flags.get("--identity");
  if (signersFile === undefined && named.length === 0) {
    if (args.flags.has("--signature") || identity !== undefined) {
      throw new UsageError(
        "verify: --signature and --identity check a signature: give --signers FILE or --signer KEY",
      );
    }
    return undefined;
  }
  if (signersFile !== undefined && named.length > 0) {
    throw new UsageError("verify: give the signers as --signers FILE or as --signer KEY, not both");
  }
  for (const key of named) {
    if (key.startsWith("SHA256:") && !FINGERPRINT.test(key)) {
      throw new UsageError(
        `verify: --signer "${esc(key)}" is not a fingerprint (SHA256: and 43 base64 characters)`,
      );
    }
  }
  if (signersFile !== undefined && !args.switches.has("--allow-changed-signers")) {
    const change = signersChange(signersFile);
    if (change !== undefined) {
      throw new SshSignatureError(
        "SIGNERS_IN_CHANGE",
        `The signers file "${signersFile}" is part of the change under check: ${change}; keep it ` +
          "out of the change (a CI variable, a protected branch, or --signer with the key or its " +
          "fingerprint), or give --allow-changed-signers",
      );
    }
  }
  const signature = resolve(args.flags.get("--signature") ?? `${file}.sig`);
  // The signature first: nothing parses the lockfile's bytes before they are known to be signed.
  const bytes = mustRead(file, MAX_TRUST_FILE_BYTES, "No lockfile here: run `skillset lock` first");
  const signatureText = TEXT.decode(mustRead(
    signature,
    MAX_SSH_KEY_CHARS,
    "No signature here: sign the lockfile with `skillset sign --key KEY`",
  ));
  const signers = signersFile !== undefined
    ? parseAllowedSigners(
      TEXT.decode(mustRead(signersFile, MAX_ALLOWED_SIGNERS_CHARS, "No allowed signers file here")),
      signersFile,
    )
    : parseAllowedSigners(await namedSigners(named, signatureText), "--signer");
  const check = await verifySshsig(bytes, signatureText, signers, {
    ...identity === undefined ? {} : { identity },
  });
  const lock = parseLockfile(trustFileText(bytes, file), file);
  if (!args.json) {
    io.stdout(
      `Good signature of ${esc(file)} by ${
        esc(check.principals.join(", "))
      } (${check.fingerprint})\n`,
    );
  }
  return { lock, check, signature };
}

/**
 * The allowed signers text of `--signer` values: each allowed signers line
 * as given, and for each fingerprint that is the signature's key, a line
 * allowing that key under any principal (a fingerprint names the key itself).
 */
async function namedSigners(named: readonly string[], signatureText: string): Promise<string> {
  const lines = named.filter((k) => !FINGERPRINT.test(k));
  const fingerprints = named.filter((k) => FINGERPRINT.test(k));
  if (fingerprints.length > 0) {
    const key = parseSshSignature(signatureText).publicKey;
    if (fingerprints.includes(await sshFingerprint(key))) {
      lines.push(`* namespaces="${LOCK_SIGNATURE_NAMESPACE}" ${renderSshPublicKey(key)}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
