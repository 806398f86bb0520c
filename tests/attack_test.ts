/**
 * Attacks on the loader and the reads (issue 9), each built in a temp dir by
 * the test itself: a hostile skill folder must not escape the gate, hang a
 * read, or flood memory.
 */
// @slow: attacks the package from child processes (left out of `npm run test:quick`)
// @every-runtime: the package is attacked through each runtime's fs and child_process
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  appendFileSync,
  chmodSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import {
  activateSkill,
  decodeBase64,
  ExecutionError,
  handleSkillTool,
  InvalidResourcePathError,
  type ReadOptions,
  readResource,
  ResourceNotFoundError,
  type ResourceRead,
  ResourceReadError,
  type SafetyFlags,
  type SkillBundle,
  SkillFolderError,
} from "../mod.ts";
import { loadSkillFolder } from "../lib/load.ts";
import { seed } from "./_fc.ts";
import { checkManyFiles, runLarge } from "./_large.ts";
import { exited, firstOutput, runChild, startChild, unreadableBy } from "./_spawn.ts";
import { link, write } from "./_tree.ts";

let temp = "";
const SECRET = "OUTSIDE-SECRET\n";
const CHILD_TIMEOUT = 60_000;

before(() => {
  temp = mkdtempSync(join(tmpdir(), "skillset-attack-"));
  write(join(temp, "outside", "secret.txt"), SECRET);
});
after(() => rmSync(temp, { recursive: true, force: true }));

/** A skill folder `name` (also its skill name) in the temp dir with a SKILL.md and `files`. */
function skillFolder(name: string, files: Record<string, string | Uint8Array> = {}): string {
  const dir = join(temp, name);
  write(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: d\n---\nbody\n`);
  for (const [path, content] of Object.entries(files)) write(join(dir, path), content);
  return dir;
}

const OPEN: SafetyFlags = { global_safety: false, skill_safety: false };
const STATES: readonly SafetyFlags[] = [
  {},
  { global_safety: false },
  { skill_safety: false },
  OPEN,
];

/** The errors a read may throw: all typed errors of this module. */
function isTyped(e: unknown): boolean {
  return e instanceof ExecutionError || e instanceof ResourceReadError ||
    e instanceof ResourceNotFoundError || e instanceof InvalidResourcePathError;
}

function allPages(bundle: SkillBundle, path: string, options: ReadOptions = {}): ResourceRead[] {
  const pages = [readResource(bundle, path, options)];
  for (let next = pages[0]!.next_offset; next !== null; next = pages.at(-1)!.next_offset) {
    assert.ok(pages.length < 100_000, "pagination does not end");
    pages.push(readResource(bundle, path, { ...options, offset: next }));
  }
  return pages;
}

function pageBytes(page: ResourceRead): number {
  return page.encoding === "base64"
    ? decodeBase64(page.content).length
    : new TextEncoder().encode(page.content).length;
}

/** The last line a child printed, as JSON (the lines before may be fast-check's seed). */
function lastLine(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

describe("attack 1: check-then-open race", () => {
  it("a file flipped between a regular file and a link out is read right or refused, never followed out", async () => {
    const dir = skillFolder("race", {
      "references/a.md": "inside\n",
      "references/in.md": "linked inside\n",
    });
    link("../references/in.md", join(dir, "assets", "b.md"));
    const secret = join(temp, "outside", "secret.txt");
    const skill = loadSkillFolder(dir);
    const flippers = [
      startChild(["flip", "4000", join(dir, "references", "a.md"), "file:inside\n", secret]),
      startChild(["flip", "4000", join(dir, "assets", "b.md"), "../references/in.md", secret]),
    ];
    await Promise.all(flippers.map(firstOutput));
    const expected = new Map([["references/a.md", "inside\n"], ["assets/b.md", "linked inside\n"]]);
    const tally = new Map([...expected.keys()].map((k) => [k, { read: 0, refused: 0 }]));
    const end = Date.now() + 2500;
    for (let round = 0; Date.now() < end; round++) {
      for (const [path, content] of expected) {
        try {
          assert.equal(readResource(skill, path, STATES[round % 4]).content, content);
          tally.get(path)!.read++;
        } catch (e) {
          if (!isTyped(e)) throw e;
          tally.get(path)!.refused++;
        }
      }
    }
    for (const child of flippers) {
      child.kill("SIGKILL");
      await exited(child);
    }
    console.log(`race: ${JSON.stringify(Object.fromEntries(tally))}`);
    for (const [path, { read, refused }] of tally) {
      assert.ok(read > 0 && refused > 0, `${path}: ${read} read, ${refused} refused`);
    }
  });

  it("a link into a sibling folder whose name extends the skill folder's is outside", () => {
    const dir = skillFolder("pfx", { "references/own.md": "own\n" });
    write(join(temp, "pfx-private", "x.md"), SECRET);
    link("../../pfx-private/x.md", join(dir, "references", "x.md"));
    const skill = loadSkillFolder(dir);
    assert.equal(activateSkill(skill, OPEN).resources.references.length, 1);
    for (const flags of STATES) {
      assert.throws(() => readResource(skill, "references/x.md", flags), {
        name: "ExecutionError",
        message:
          'Refused to read "references/x.md": it does not lead to a regular file inside the skill folder',
      });
    }
    // Swapped in after loading, through a link that was inside when listed.
    link("own.md", join(dir, "references", "later.md"));
    const later = loadSkillFolder(dir);
    unlinkSync(join(dir, "references", "later.md"));
    link("../../pfx-private/x.md", join(dir, "references", "later.md"));
    assert.throws(() => readResource(later, "references/later.md", OPEN), {
      name: "ExecutionError",
      message:
        'Refused to read "references/later.md": it does not lead to a regular file inside the skill folder',
    });
  });
});

describe("attack 1b: a listed file is opened without following a link", () => {
  it("a regular file replaced by any link is refused, even one that stays inside", () => {
    const dir = skillFolder("nofollow", { "references/a.md": "a\n", "references/b.md": "b\n" });
    const skill = loadSkillFolder(dir);
    unlinkSync(join(dir, "references", "a.md"));
    link("b.md", join(dir, "references", "a.md"));
    assert.throws(() => readResource(skill, "references/a.md"), {
      name: "ResourceReadError",
      code: "NOT_A_REGULAR_FILE",
      message:
        'Cannot read "references/a.md": it is now a symbolic link, not the file that was listed',
    });
  });
});

describe("attack 2: class fixed at listing time", () => {
  it("a listed link re-pointed into a non-standard folder is gated by the class found at read time", () => {
    const dir = skillFolder("reclass", {
      "assets/x.md": "asset\n",
      "secret/y.md": "gated\n",
    });
    link("../assets/x.md", join(dir, "references", "a.md"));
    const skill = loadSkillFolder(dir);
    assert.equal(readResource(skill, "references/a.md").class, "references");
    unlinkSync(join(dir, "references", "a.md"));
    link("../secret/y.md", join(dir, "references", "a.md"));
    for (const flags of STATES.slice(0, 3)) {
      assert.throws(() => readResource(skill, "references/a.md", flags), {
        name: "ExecutionError",
        message: `Refused to read non-standard resource "references/a.md": global safety is ${
          flags.global_safety !== false
        }, skill safety is ${flags.skill_safety !== false} (both must be false)`,
      });
    }
    const page = readResource(skill, "references/a.md", OPEN);
    assert.deepEqual([page.class, page.content], ["nonstandard", "gated\n"]);
  });
});

describe("attack 3: named pipes and devices", () => {
  it("a SKILL.md that is a link to a named pipe in the folder does not hang activation", () => {
    const dir = join(temp, "fifo-md");
    mkdirSync(join(dir, "assets"), { recursive: true });
    spawnSync("mkfifo", [join(dir, "assets", "pipe")]);
    link("assets/pipe", join(dir, "SKILL.md"));
    const result = runChild(["activate", dir], CHILD_TIMEOUT);
    assert.equal(result.code, 0, `the child hung or failed: ${result.stderr}`);
    assert.deepEqual(lastLine(result.stdout).error, {
      name: "AgentSkillError",
      code: "INVALID_AGENT_SKILL",
      message: `Invalid SKILL.md: no SKILL.md in the folder (${dir})`,
    });
  });

  it("a listed file or link target replaced by a named pipe is refused by the skill tool, not waited on", () => {
    const dir = skillFolder("fifo-read", { "references/a.md": "a\n", "references/t.md": "t\n" });
    link("../references/t.md", join(dir, "assets", "l.md"));
    for (
      const [pipe, path] of [["references/a.md", "references/a.md"], [
        "references/t.md",
        "assets/l.md",
      ]]
    ) {
      const result = runChild(["fifo-read", dir, pipe!, path!], CHILD_TIMEOUT);
      assert.equal(result.code, 0, `the child hung or failed: ${result.stderr}`);
      assert.deepEqual(lastLine(result.stdout), {
        content: `Cannot read ${JSON.stringify(path)}: it is a named pipe, not a regular file`,
        is_error: true,
      });
      rmSync(join(dir, pipe!));
      write(join(dir, pipe!), "again\n");
    }
  });

  it("a socket swapped in after loading is refused", async () => {
    const dir = skillFolder("sock", { "assets/s": "s\n" });
    const skill = loadSkillFolder(dir);
    unlinkSync(join(dir, "assets", "s"));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, "assets", "s"), resolve));
    try {
      assert.throws(() => readResource(skill, "assets/s"), {
        name: "ResourceReadError",
        code: "NOT_A_REGULAR_FILE",
        message: 'Cannot read "assets/s": it is a socket or a device, not a regular file',
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("a link to a device is outside the folder: never listed, never read", () => {
    const dir = skillFolder("device");
    mkdirSync(join(dir, "assets"));
    link("/dev/zero", join(dir, "assets", "zero"));
    const skill = loadSkillFolder(dir);
    assert.deepEqual(activateSkill(skill, OPEN).resources.assets, []);
    assert.throws(() => readResource(skill, "assets/zero", OPEN), { name: "ExecutionError" });
  });
});

describe("attack 4: pages unbounded in bytes", () => {
  it("a one-line file far over the page cap comes in pieces of at most max_page_bytes that rebuild it", () => {
    const line = "é€😀x".repeat(400_000); // 4 MiB of multi-byte text, no newline
    const dir = skillFolder("long-line", { "scripts/min.js": line });
    const skill = loadSkillFolder(dir);
    for (const limit of [undefined, 1, 1e9, Number.MAX_SAFE_INTEGER]) {
      const options = limit === undefined ? {} : { limit };
      const pages = allPages(skill, "scripts/min.js", options);
      const size = Buffer.byteLength(line);
      assert.ok(pages.length >= size / 262144 && pages.length <= size / 262141 + 1);
      for (const page of pages) assert.ok(pageBytes(page) <= 262144);
      assert.equal(pages.map((p) => p.content).join(""), line);
      const first = pageBytes(pages[0]!); // cut before a character that does not fit whole
      assert.ok(first > 262140);
      assert.equal(pages[0]!.range, `line 1 of 1, bytes 0-${first - 1}`);
      assert.equal(pages[0]!.next_offset, `0+${first}`);
    }
  });

  it("huge limits on many lines and on binary stay within the cap", () => {
    const text = "0123456789\n".repeat(100_000);
    const bytes = Uint8Array.from({ length: 1_000_000 }, (_, i) => (i * 7) & 255);
    const dir = skillFolder("huge-limit", { "references/t.md": text, "assets/b.bin": bytes });
    const skill = loadSkillFolder(dir);
    for (const limit of [1e9, Number.MAX_SAFE_INTEGER]) {
      const pages = allPages(skill, "references/t.md", { limit });
      assert.ok(pages.every((p) => pageBytes(p) <= 262144));
      assert.equal(pages.map((p) => p.content).join(""), text);
      const small = allPages(skill, "assets/b.bin", { limit, max_page_bytes: 100_000 });
      assert.ok(small.every((p) => pageBytes(p) <= 99_999));
      assert.deepEqual(decodeBase64(small.map((p) => p.content).join("")), bytes);
    }
  });
});

describe("attack 5: file-system failures are typed and name no host path", () => {
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;

  function refusal(
    skill: SkillBundle,
    path: string,
    code: string,
    message: string,
  ): void {
    assert.throws(() => readResource(skill, path), (e: unknown) => {
      assert.ok(e instanceof ResourceReadError);
      assert.deepEqual([e.code, e.message], [code, message]);
      return true;
    });
    const result = handleSkillTool({ skill: skill.name, resource: path }, { skills: [skill] });
    assert.deepEqual(result, { content: message, is_error: true });
    assert.ok(!result.content.includes(temp));
  }

  it("a file deleted or turned into a folder after loading", () => {
    const dir = skillFolder("gone", { "references/a.md": "a\n", "references/b.md": "b\n" });
    const skill = loadSkillFolder(dir);
    unlinkSync(join(dir, "references", "a.md"));
    refusal(
      skill,
      "references/a.md",
      "RESOURCE_GONE",
      'Cannot read "references/a.md": it no longer exists',
    );
    unlinkSync(join(dir, "references", "b.md"));
    mkdirSync(join(dir, "references", "b.md"));
    refusal(
      skill,
      "references/b.md",
      "NOT_A_REGULAR_FILE",
      'Cannot read "references/b.md": it is a folder, not a regular file',
    );
  });

  // The child runs as nobody when the tests run as root: that user must be able to start the
  // runtime and reach the temporary folder (runChild stages the child where it can read it).
  const unprivileged = isRoot ? unreadableBy(65534, 65534, [tmpdir()]) : null;
  (unprivileged === null ? it : it.skip)(
    `an unreadable file (as an unprivileged user)${
      unprivileged === null ? "" : ` (skipped: ${unprivileged})`
    }`,
    () => {
      const dir = skillFolder("unreadable", { "references/a.md": "a\n" });
      chmodSync(temp, 0o755); // the child may run as nobody: let it reach the folder
      chmodSync(join(dir, "references", "a.md"), 0o000);
      const result = runChild(
        ["read", dir, "references/a.md"],
        CHILD_TIMEOUT,
        isRoot ? { uid: 65534, gid: 65534 } : {},
      );
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(lastLine(result.stdout).error, {
        name: "ResourceReadError",
        code: "RESOURCE_UNREADABLE",
        message: 'Cannot read "references/a.md": permission denied',
      });
    },
  );

  it("invalid UTF-8 appearing after loading is read as base64, not thrown", () => {
    const dir = skillFolder("turned", { "assets/a.txt": "plain text\n" });
    const skill = loadSkillFolder(dir);
    assert.equal(readResource(skill, "assets/a.txt").encoding, "utf-8");
    writeFileSync(join(dir, "assets", "a.txt"), Uint8Array.of(0x70, 0xff, 0xfe, 0x0a));
    const page = readResource(skill, "assets/a.txt");
    assert.deepEqual([page.encoding, page.size, page.content], ["base64", 4, "cP/+Cg=="]);
  });

  it("a missing folder says no such folder; a broken SKILL.md reaches a model without a host path", () => {
    assert.throws(() => loadSkillFolder(join(temp, "nope")), (e: unknown) => {
      assert.ok(e instanceof SkillFolderError);
      assert.deepEqual([e.code, e.message], ["NO_SUCH_FOLDER", 'No such folder "nope"']);
      return true;
    });
    const dir = join(temp, "broken");
    write(join(dir, "SKILL.md"), "---\nname: [\n---\n");
    const context = { skills: (name: string) => loadSkillFolder(join(temp, name)) };
    const broken = handleSkillTool({ skill: "broken" }, context);
    assert.equal(broken.is_error, true);
    assert.ok(!broken.content.includes(temp), broken.content);
    assert.match(broken.content, /^Invalid SKILL\.md.* \(SKILL\.md:\d+:\d+\)$/);
    assert.deepEqual(handleSkillTool({ skill: "nope" }, context), {
      content: 'No such folder "nope"',
      is_error: true,
    });
  });
});

describe("attack 6: stale listings", () => {
  it("a file grown or rewritten after loading is read whole, with its new size and lines", () => {
    const before = Array.from({ length: 10 }, (_, i) => `line ${i}\n`).join("");
    const dir = skillFolder("stale", { "references/a.md": before });
    const skill = loadSkillFolder(dir);
    assert.equal(readResource(skill, "references/a.md", { limit: 3 }).range, "lines 1-3 of 10");
    const grown = before + Array.from({ length: 3000 }, (_, i) => `more ${i}\n`).join("");
    appendFileSync(join(dir, "references", "a.md"), grown.slice(before.length));
    const pages = allPages(skill, "references/a.md", { limit: 7 });
    assert.equal(pages.map((p) => p.content).join(""), grown);
    assert.equal(pages[0]!.size, Buffer.byteLength(grown));
    assert.equal(pages[0]!.range, "lines 1-7 of 3010");
    const rewritten = "x".repeat(before.length - 1) + "\n"; // same size, one line
    writeFileSync(join(dir, "references", "a.md"), rewritten);
    const page = readResource(skill, "references/a.md");
    assert.deepEqual([page.range, page.content], ["lines 1-1 of 1", rewritten]);
  });
});

describe("attack 7: names", () => {
  it("skips names that are not valid UTF-8 and paths with bidi controls, separators or slash look-alikes", () => {
    const dir = skillFolder("names", { "references/ok.md": "ok\n" });
    const refs = join(dir, "references");
    spawnSync("sh", ["-c", `printf bad > "$(printf 'dup\\377.md')"`], { cwd: refs });
    writeFileSync(join(refs, "dup\uFFFD.md"), "genuine\n");
    for (const name of ["evil\u202Edm.txt", "two\u2028lines.md", "references\u2215x.md"]) {
      writeFileSync(join(refs, name), "hidden\n");
    }
    const skill = loadSkillFolder(dir);
    assert.deepEqual([...skill.files.keys()].sort(), [
      "SKILL.md",
      "references/dup\uFFFD.md",
      "references/ok.md",
    ]);
    assert.equal(readResource(skill, "references/dup\uFFFD.md").content, "genuine\n");
    const warnings = skill.warnings.map((w) => w.message).sort();
    assert.equal(warnings.length, 4, warnings.join("\n"));
    assert.ok(warnings.some((m) => m.includes("not valid UTF-8")), warnings.join("\n"));
    assert.equal(warnings.filter((m) => m.startsWith("Invalid resource path")).length, 3);
  });
});

describe("attack 8: unbounded output", () => {
  it("a skill of 100,000 files gives a capped manifest that says how many more there are and pages (2,000 first)", () => {
    checkManyFiles(2_000);
    runLarge("_large.ts", "checkManyFiles", [100_000]);
  });
});

describe("attack 9: hard links", () => {
  it("a hard link to a file outside is listed with a warning and readable (documented)", () => {
    const dir = skillFolder("hard");
    const outside = join(temp, "outside", "hard.txt");
    write(outside, "shared\n");
    mkdirSync(join(dir, "references"), { recursive: true });
    linkSync(outside, join(dir, "references", "hard.md"));
    const skill = loadSkillFolder(dir);
    assert.deepEqual(skill.warnings, [{
      path: "references/hard.md",
      message:
        "has 2 hard links: its content is shared with another name, perhaps outside the folder; listed",
    }]);
    assert.equal(readResource(skill, "references/hard.md").content, "shared\n");
  });
});

describe("property: swaps between loading and reading", () => {
  it("a read returns the bytes of a contained regular file the gate allows, or a typed error", () => {
    // In a child process: the generated folders hold named pipes, and a regression must fail, not hang.
    const result = runChild(["swap-property", temp], 5 * CHILD_TIMEOUT, {
      env: { FC_SEED: String(seed) },
    });
    assert.equal(
      result.code,
      0,
      `the property failed or hung:\n${result.stdout}\n${result.stderr}`,
    );
    assert.match(result.stdout, /"ok":true/);
  });
});
