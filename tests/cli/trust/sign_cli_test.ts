// @slow: signs and verifies through ssh-keygen and the CLI as a subprocess (left out of `npm run test:quick`)
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderSshPublicKey, SshPrivateKey } from "../../../mod.ts";
import { cli, runIn as run } from "../../_cli.ts";
import { fc, runs } from "../../_fc.ts";

const temps: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

const HAS_SSH_KEYGEN = spawnSync("ssh-keygen", ["-?"], { stdio: "ignore" }).error === undefined;
const NO_SSH_KEYGEN = HAS_SSH_KEYGEN ? false : "ssh-keygen is not installed (openssh-client)";

function sshKeygen(args: string[], input = ""): { code: number; out: string } {
  const r = spawnSync("ssh-keygen", args, { input, encoding: "utf8" });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

/** A project with two skills, locked. */
async function project(): Promise<string> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "skillset-sign-cli-")));
  temps.push(dir);
  for (const name of ["one", "two"]) {
    mkdirSync(join(dir, "skills", name), { recursive: true });
    writeFileSync(
      join(dir, "skills", name, "SKILL.md"),
      `---\nname: ${name}\ndescription: Skill ${name}\n---\nBody\n`,
    );
  }
  assert.equal((await run(dir, "lock", "--root", "project=skills")).code, 0);
  return dir;
}

/** An unencrypted OpenSSH ed25519 key file written without ssh-keygen, and its allowed_signers line. */
async function keyFiles(dir: string, name: string): Promise<{ key: string; signer: string }> {
  const seed = crypto.getRandomValues(new Uint8Array(32));
  const key = await SshPrivateKey.fromSeed(seed, `${name}@example.com`);
  const pub = Uint8Array.from(atob(key.publicKey.base64), (c) => c.charCodeAt(0)).subarray(19);
  const str = (b: Uint8Array | string) => {
    const bytes = typeof b === "string" ? new TextEncoder().encode(b) : b;
    return [
      bytes.length >>> 24,
      (bytes.length >>> 16) & 255,
      (bytes.length >>> 8) & 255,
      bytes.length & 255,
      ...bytes,
    ];
  };
  const blob = [...str("ssh-ed25519"), ...str(pub)];
  const section = [
    0,
    0,
    0,
    1,
    0,
    0,
    0,
    1,
    ...blob,
    ...str(Uint8Array.from([...seed, ...pub])),
    ...str(`${name}@example.com`),
  ];
  for (let i = 1; section.length % 8 !== 0; i++) section.push(i);
  const bytes = Uint8Array.from([
    ...new TextEncoder().encode("openssh-key-v1\0"),
    ...str("none"),
    ...str("none"),
    ...str(""),
    0,
    0,
    0,
    1,
    ...str(Uint8Array.from(blob)),
    ...str(Uint8Array.from(section)),
  ]);
  const b64 = btoa(String.fromCharCode(...bytes)).match(/.{1,70}/g)!.join("\n");
  const path = join(dir, name);
  writeFileSync(
    path,
    `-----BEGIN OPENSSH PRIVATE KEY-----\n${b64}\n-----END OPENSSH PRIVATE KEY-----\n`,
    { mode: 0o600 },
  );
  return { key: path, signer: `${name}@example.com ${renderSshPublicKey(key.publicKey)}` };
}

describe("skillset sign and verify --signers", () => {
  it("sign writes skills.lock.json.sig; verify --signers checks it, then verifies the skills", async () => {
    const dir = await project();
    const { key, signer } = await keyFiles(dir, "alice");
    writeFileSync(join(dir, "allowed_signers"), `${signer}\n`);
    const signed = await run(dir, "sign", "--key", key);
    assert.equal(signed.code, 0, signed.err);
    assert.match(
      signed.out,
      /^Signed .*skills\.lock\.json with SHA256:\S+ \(alice@example\.com\) in .*skills\.lock\.json\.sig\n$/,
    );
    assert.match(
      readFileSync(join(dir, "skills.lock.json.sig"), "utf8"),
      /^-----BEGIN SSH SIGNATURE-----\n/,
    );
    const json = await run(dir, "sign", "--key", key, "--json");
    assert.deepEqual(JSON.parse(json.out), {
      lockfile: join(dir, "skills.lock.json"),
      signature: join(dir, "skills.lock.json.sig"),
      key: JSON.parse(json.out).key,
      namespace: "skillset-lock",
    });
    assert.match(JSON.parse(json.out).key, /^SHA256:[A-Za-z0-9+/]{43}$/);
    const verified = await run(dir, "verify", "--signers", "allowed_signers");
    assert.equal(verified.code, 0, verified.err);
    assert.match(
      verified.out,
      /^Good signature of .*skills\.lock\.json by alice@example\.com \(SHA256:\S+\)\nOK: 2 locked skills verified\n$/,
    );
    const checked = await run(
      dir,
      "verify",
      "--signers",
      "allowed_signers",
      "--identity",
      "alice@example.com",
      "--json",
    );
    const report = JSON.parse(checked.out);
    assert.deepEqual([checked.code, report.ok, report.signature.principals], [0, true, [
      "alice@example.com",
    ]]);
    // A changed skill still fails verify after a good signature.
    appendFileSync(join(dir, "skills", "one", "SKILL.md"), "more\n");
    const changed = await run(dir, "verify", "--signers", "allowed_signers");
    assert.equal(changed.code, 1);
    assert.match(changed.out, /^Good signature .*\nchanged /);
  });

  it("any flipped byte of the lockfile or of its signature fails verify before anything is verified", async () => {
    const dir = await project();
    const { key, signer } = await keyFiles(dir, "alice");
    writeFileSync(join(dir, "allowed_signers"), `${signer}\n`);
    assert.equal((await run(dir, "sign", "--key", key)).code, 0);
    const lockfile = readFileSync(join(dir, "skills.lock.json"));
    const signature = readFileSync(join(dir, "skills.lock.json.sig"));
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        async (inLock, at, flip) => {
          const [lock, sig] = [Uint8Array.from(lockfile), Uint8Array.from(signature)];
          const target = inLock ? lock : sig;
          target[at % target.length]! ^= flip;
          writeFileSync(join(dir, "skills.lock.json"), lock);
          writeFileSync(join(dir, "skills.lock.json.sig"), sig);
          const r = await run(dir, "verify", "--signers", "allowed_signers");
          assert.deepEqual([r.code, r.out], [1, ""], r.err);
          assert.match(r.err, /^skillset: error: The (signature|signing key)/);
          if (inLock) assert.match(r.err, /does not match the signed bytes/);
        },
      ),
      runs(25),
    );
  });

  it("refuses a missing signature, an unknown signer, another identity, and --signature without --signers", async () => {
    const dir = await project();
    const alice = await keyFiles(dir, "alice");
    const mallory = await keyFiles(dir, "mallory");
    writeFileSync(join(dir, "allowed_signers"), `${alice.signer}\n`);
    const missing = await run(dir, "verify", "--signers", "allowed_signers");
    assert.equal(missing.code, 1);
    assert.equal(
      missing.err,
      `skillset: error: ${
        join(dir, "skills.lock.json.sig")
      }: No signature here: sign the lockfile with \`skillset sign --key KEY\`\n`,
    );
    assert.equal(
      (await run(dir, "sign", "--key", mallory.key, "--signature", "by-mallory.sig")).code,
      0,
    );
    const unknown = await run(
      dir,
      "verify",
      "--signers",
      "allowed_signers",
      "--signature",
      "by-mallory.sig",
    );
    assert.equal(unknown.code, 1);
    assert.match(
      unknown.err,
      /^skillset: error: The signing key SHA256:\S+ is not in allowed_signers\n$/,
    );
    assert.equal((await run(dir, "sign", "--key", alice.key)).code, 0);
    const other = await run(
      dir,
      "verify",
      "--signers",
      "allowed_signers",
      "--identity",
      "bob@example.com",
    );
    assert.equal(other.code, 1);
    assert.match(
      other.err,
      /allowed_signers:1 lists the key for "alice@example.com", not "bob@example.com"/,
    );
    const usage = await run(dir, "verify", "--signature", "skills.lock.json.sig");
    assert.deepEqual([usage.code, usage.err], [
      2,
      "skillset: verify: --signature and --identity check a signature: give --signers FILE or --signer KEY\n",
    ]);
    const noKey = await run(dir, "sign");
    assert.deepEqual([noKey.code, noKey.err], [
      2,
      "skillset: sign: --key FILE is required: an ed25519 private key (ssh-keygen -t ed25519)\n",
    ]);
  });

  it("checks the signature before reading the lockfile: a malformed unsigned lockfile is a signature error", async () => {
    const dir = await project();
    const { key, signer } = await keyFiles(dir, "alice");
    writeFileSync(join(dir, "allowed_signers"), `${signer}\n`);
    assert.equal((await run(dir, "sign", "--key", key)).code, 0);
    writeFileSync(join(dir, "skills.lock.json"), "{ not json");
    const r = await run(dir, "verify", "--signers", "allowed_signers");
    assert.equal(r.code, 1);
    assert.match(r.err, /does not match the signed bytes/);
    // sign refuses to sign a malformed lockfile.
    const s = await run(dir, "sign", "--key", key);
    assert.equal(s.code, 1);
    assert.match(s.err, /skills\.lock\.json:1:3: /);
  });

  it("the real CLI signs and verifies (a subprocess, under the runtime running the tests)", async () => {
    const dir = await project();
    const { key, signer } = await keyFiles(dir, "alice");
    writeFileSync(join(dir, "allowed_signers"), `${signer}\n`);
    assert.equal(cli(["sign", "--key", key], dir).code, 0);
    const r = cli(
      ["verify", "--signers", "allowed_signers", "--identity", "alice@example.com"],
      dir,
    );
    assert.equal(r.code, 0, r.stderr);
  });
});

describe("skillset sign and ssh-keygen", { skip: NO_SSH_KEYGEN }, () => {
  it("ssh-keygen -Y verify accepts skillset sign's signature, and skillset verify accepts ssh-keygen -Y sign's", async () => {
    const dir = await project();
    const key = join(dir, "id_ed25519");
    assert.equal(
      sshKeygen(["-q", "-t", "ed25519", "-N", "", "-C", "ci@example.com", "-f", key]).code,
      0,
    );
    writeFileSync(
      join(dir, "allowed_signers"),
      `ci@example.com ${readFileSync(`${key}.pub`, "utf8")}`,
    );
    assert.equal((await run(dir, "sign", "--key", key)).code, 0);
    const lockfile = readFileSync(join(dir, "skills.lock.json"), "utf8");
    const sig = join(dir, "skills.lock.json.sig");
    const theirs = sshKeygen(
      [
        "-Y",
        "verify",
        "-f",
        join(dir, "allowed_signers"),
        "-I",
        "ci@example.com",
        "-n",
        "skillset-lock",
        "-s",
        sig,
      ],
      lockfile,
    );
    assert.equal(theirs.code, 0, theirs.out);
    assert.equal(
      sshKeygen(["-Y", "check-novalidate", "-n", "skillset-lock", "-s", sig], lockfile).code,
      0,
    );
    rmSync(sig);
    assert.equal(
      sshKeygen(["-Y", "sign", "-f", key, "-n", "skillset-lock", join(dir, "skills.lock.json")])
        .code,
      0,
    );
    const ours = await run(
      dir,
      "verify",
      "--signers",
      "allowed_signers",
      "--identity",
      "ci@example.com",
    );
    assert.equal(ours.code, 0, ours.err);
    // A signature for another namespace (git's) is refused.
    rmSync(sig);
    assert.equal(
      sshKeygen(["-Y", "sign", "-f", key, "-n", "git", join(dir, "skills.lock.json")]).code,
      0,
    );
    const git = await run(dir, "verify", "--signers", "allowed_signers");
    assert.deepEqual([git.code, git.err], [
      1,
      'skillset: error: The signature is for the namespace "git", not "skillset-lock"\n',
    ]);
  });

  it("sign refuses a key with a passphrase, saying what to do instead", async () => {
    const dir = await project();
    const key = join(dir, "id_ed25519");
    assert.equal(sshKeygen(["-q", "-t", "ed25519", "-N", "secret", "-f", key]).code, 0);
    const r = await run(dir, "sign", "--key", key);
    assert.equal(r.code, 1);
    assert.equal(
      r.err,
      'skillset: error: The private key is encrypted ("aes256-ctr"): sign with ssh-keygen -Y sign -n skillset-lock ' +
        "(it asks for the passphrase or uses ssh-agent), or use a key without a passphrase\n",
    );
  });
});
