/**
 * skillset writes only files of its own kind (docs/security.md#own-files):
 * a lockfile, an approval file or a signature is created exclusively where
 * nothing is, replaced only where one of its kind is, and never written
 * through a link or over a file of another kind — whatever names the path
 * (the command line, a config, a library caller).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runIn } from "../../_cli.ts";
import { link, write } from "../../_tree.ts";
import { TrustFileError } from "../../../mod.ts";
import { JsonFileApprovalStore, writeOwnFile } from "../../../lib/fs/trust/trust_files.ts";

let temp = "";
const t = (...parts: string[]) => join(temp, ...parts);
const skill = (name: string) =>
  `---\nname: ${name}\ndescription: The ${name} skill does ${name} things.\n---\nBody.\n`;
const PROFILE = "alias ls='ls --color'\n";

before(() => {
  temp = mkdtempSync(join(tmpdir(), "skillset-own-files-"));
  write(t("proj", ".git", "HEAD"), "ref: refs/heads/main\n");
  write(t("proj", "skills", "pdf", "SKILL.md"), skill("pdf"));
});
after(() => rmSync(temp, { recursive: true, force: true }));

const foreign = (message: string) => (e: unknown) =>
  e instanceof TrustFileError && e.code === "FOREIGN_FILE" && e.message.includes(message);

describe("writeOwnFile", () => {
  it("creates a new file exclusively, leaving no temporary file behind", () => {
    mkdirSync(t("new"));
    writeOwnFile(t("new", "x.lock.json"), "{}\n", "lockfile", () => false);
    assert.equal(readFileSync(t("new", "x.lock.json"), "utf8"), "{}\n");
    assert.deepEqual(readdirSync(t("new")), ["x.lock.json"]);
  });

  it("replaces a file of its kind, and refuses any other file, a link or a folder (docs/security.md#own-files)", () => {
    const profile = write(t("home", ".bashrc"), PROFILE);
    assert.throws(
      () => writeOwnFile(profile, "{}\n", "lockfile", (text) => text.startsWith("{")),
      foreign("The file is not a lockfile; not replaced"),
    );
    link(profile, t("home", "skills.lock.json"));
    assert.throws(
      () => writeOwnFile(t("home", "skills.lock.json"), "{}\n", "lockfile", () => true),
      foreign("The lockfile is a link; name the file itself"),
    );
    assert.throws(
      () => writeOwnFile(t("home"), "{}\n", "lockfile", () => true),
      foreign("Not a regular file"),
    );
    assert.equal(readFileSync(profile, "utf8"), PROFILE);
    const own = write(t("home", "own.json"), "{ }\n");
    writeOwnFile(own, "{}\n", "lockfile", (text) => text.startsWith("{"));
    assert.equal(readFileSync(own, "utf8"), "{}\n");
  });
});

describe("the commands write only their own files", () => {
  it("lock --lockfile naming a shell profile, or a link to one, leaves it as it was", async () => {
    const profile = write(t("home2", ".profile"), PROFILE);
    const r = await runIn(t("proj"), "lock", "--root", "project=skills", "--lockfile", profile);
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      /The file is not a lockfile; not replaced \(remove it, or name another file\)/,
    );
    link(profile, t("proj", "skills.lock.json"));
    const linked = await runIn(t("proj"), "lock", "--root", "project=skills");
    assert.equal(linked.code, 1);
    assert.match(linked.err, /The lockfile is a link; name the file itself/);
    assert.equal(readFileSync(profile, "utf8"), PROFILE);
    rmSync(t("proj", "skills.lock.json"));
    // Where nothing is, and over its own lockfile, lock writes.
    assert.equal((await runIn(t("proj"), "lock", "--root", "project=skills")).code, 0);
    assert.equal((await runIn(t("proj"), "lock", "--root", "project=skills")).code, 0);
    assert.match(readFileSync(t("proj", "skills.lock.json"), "utf8"), /"pdf"/);
  });

  it("approve --approvals naming a foreign file or a link refuses it", async () => {
    const profile = write(t("home3", ".profile"), PROFILE);
    const r = await runIn(
      t("proj"),
      "approve",
      "--all",
      "--root",
      "project=skills",
      "--approvals",
      profile,
    );
    assert.equal(r.code, 1);
    link(profile, t("proj", "approvals-link.json"));
    assert.throws(
      () =>
        new JsonFileApprovalStore(t("proj", "approvals-link.json")).put({
          origin: "file",
          path: t("proj", "skills", "pdf"),
          name: "pdf",
          digest: `sha256:${"0".repeat(64)}`,
          frontmatter_digest: `sha256:${"0".repeat(64)}`,
          files: [],
        }),
      (e: unknown) => e instanceof TrustFileError,
    );
    assert.equal(readFileSync(profile, "utf8"), PROFILE);
    assert.equal(existsSync(t("home3", "skills.approvals.json")), false);
  });
});
