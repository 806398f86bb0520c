/**
 * Attacks from outside on the reads hardening (issue 9), through the public
 * API only, each built in a temp dir by the test itself. The open checks are
 * attacked both ways: with the real path of an opened file found from the
 * handle (Linux's `/proc/self/fd`) and the portable way (`realpath` after the
 * open, as off Linux), a racing attacker acting between the open and the
 * checks through the loader's test seam.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
} from "node:fs";
import { createServer } from "node:net";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  activateSkill,
  AgentSkillError,
  ExecutionError,
  handleSkillTool,
  readResource,
  renderActivation,
  ResourceReadError,
  type SafetyFlags,
} from "../../../mod.ts";
import { loadSkillFolder } from "../../../lib/load.ts";
import { _setOpenChecks } from "../../../lib/fs/_safe_open.ts";
import { link, write } from "../../_tree.ts";

let temp = "";
const SECRET = "OUTSIDE-SECRET\n";
const OPEN: SafetyFlags = { global_safety: false, skill_safety: false };
const STATES: readonly SafetyFlags[] = [
  {},
  { global_safety: false },
  { skill_safety: false },
  OPEN,
];

before(() => {
  temp = mkdtempSync(join(tmpdir(), "skillset-outsider-"));
  write(join(temp, "outside", "a.md"), SECRET);
});
after(() => rmSync(temp, { recursive: true, force: true }));

let folders = 0;
/** A fresh skill folder with a SKILL.md and `files`; its name is also the skill's. */
function skillFolder(files: Record<string, string> = {}): { dir: string; name: string } {
  const name = `s${folders++}`;
  const dir = join(temp, name);
  write(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: d\n---\nbody\n`);
  for (const [path, content] of Object.entries(files)) write(join(dir, path), content);
  return { dir, name };
}

/** Run `act` with the open checks done `way`, and `race` run once, just after the next open. */
function attacked<T>(
  way: "handle" | "path",
  race: ((full: string, fd: number) => void) | null,
  act: () => T,
): T {
  let armed = race !== null;
  const restore = _setOpenChecks({
    handlePaths: way === "handle",
    afterOpen: (full, fd) => {
      if (!armed) return;
      armed = false;
      race!(full, fd);
    },
  });
  try {
    return act();
  } finally {
    restore();
  }
}

/** What `act` returns, or the name and message of the typed error it throws: text a model might see, never the secret nor a host path. */
function outcome(act: () => { content: string }): string {
  let text: string;
  try {
    text = act().content;
  } catch (e) {
    assert.ok(
      e instanceof ExecutionError || e instanceof ResourceReadError || e instanceof RangeError,
      `not a typed error: ${String(e)}`,
    );
    text = `${e.name}: ${e.message}`;
  }
  assert.ok(!text.includes("OUTSIDE-SECRET"), "outside bytes were returned");
  assert.ok(!text.includes(temp), "a host path was returned");
  return text;
}

/** The ways the open checks find a real path here: from the handle only where the kernel names it (Linux). */
const WAYS: readonly ("handle" | "path")[] = existsSync("/proc/self/fd")
  ? ["handle", "path"]
  : ["path"];

const REPLACED =
  'ResourceReadError: Cannot read "references/a.md": it was replaced while it was being opened';

for (const way of WAYS) {
  describe(`open checks, real path from the ${way}`, () => {
    it("a folder on the path swapped for a link out at the open and back before the checks is refused", () => {
      const { dir } = skillFolder({ "references/a.md": "inside\n" });
      const skill = loadSkillFolder(dir);
      const refs = join(dir, "references");
      renameSync(refs, `${refs}.real`);
      link(join(temp, "outside"), refs); // the open follows it to the secret
      const swapBack = () => {
        unlinkSync(refs);
        renameSync(`${refs}.real`, refs);
      };
      for (const flags of STATES) {
        const seen = attacked(
          way,
          swapBack,
          () => outcome(() => readResource(skill, "references/a.md", flags)),
        );
        assert.equal(
          seen,
          way === "handle"
            ? 'ExecutionError: Refused to read "references/a.md": it does not lead to a regular file inside the skill folder'
            : REPLACED, // the real path is inside again: only device + inode tell the files apart
        );
        renameSync(refs, `${refs}.real`);
        link(join(temp, "outside"), refs);
      }
    });

    it("a listed link pointed out at the open and back inside before the checks is refused", () => {
      const { dir } = skillFolder({ "references/in.md": "inside\n" });
      link("../references/in.md", join(dir, "assets", "l.md"));
      const skill = loadSkillFolder(dir);
      const l = join(dir, "assets", "l.md");
      const point = (target: string) => {
        unlinkSync(l);
        symlinkSync(target, l);
      };
      point(join(temp, "outside", "a.md"));
      const seen = attacked(
        way,
        () => point("../references/in.md"),
        () => outcome(() => readResource(skill, "assets/l.md", OPEN)),
      );
      assert.equal(
        seen,
        way === "handle"
          ? 'ExecutionError: Refused to read "assets/l.md": it does not lead to a regular file inside the skill folder'
          : 'ResourceReadError: Cannot read "assets/l.md": it was replaced while it was being opened',
      );
      assert.equal(readResource(skill, "assets/l.md").content, "inside\n");
    });

    it("a file deleted between the open and the checks is refused", () => {
      const { dir } = skillFolder({ "references/a.md": "a\n" });
      const skill = loadSkillFolder(dir);
      const seen = attacked(
        way,
        (full) => unlinkSync(full),
        () => outcome(() => readResource(skill, "references/a.md")),
      );
      assert.equal(seen, REPLACED);
    });

    it("a file replaced by another inside between the open and the checks is refused", () => {
      const { dir } = skillFolder({ "references/a.md": "a\n", "references/b.md": "b\n" });
      const skill = loadSkillFolder(dir);
      const seen = attacked(
        way,
        (full) => renameSync(join(full, "..", "b.md"), full),
        () => outcome(() => readResource(skill, "references/a.md")),
      );
      assert.equal(seen, REPLACED);
    });

    it("a standard folder swapped for a link to a non-standard folder inside is gated by the real class", () => {
      const { dir } = skillFolder({ "references/a.md": "listed\n", "secret/a.md": "gated\n" });
      const skill = loadSkillFolder(dir);
      rmSync(join(dir, "references"), { recursive: true });
      link("secret", join(dir, "references"));
      const seen = attacked(
        way,
        null,
        () => STATES.map((flags) => outcome(() => readResource(skill, "references/a.md", flags))),
      );
      assert.deepEqual(seen, [
        ...STATES.slice(0, 3).map((flags) =>
          `ExecutionError: Refused to read non-standard resource "references/a.md": global safety is ${
            flags.global_safety !== false
          }, skill safety is ${flags.skill_safety !== false} (both must be false)`
        ),
        "gated\n",
      ]);
    });

    it("the attacks of the attack suite hold this way too", () => {
      attacked(way, null, () => {
        // A sibling folder whose name extends the skill folder's.
        const { dir, name } = skillFolder({ "references/own.md": "own\n" });
        write(join(temp, `${name}-private`, "x.md"), SECRET);
        link(`../../${name}-private/x.md`, join(dir, "references", "x.md"));
        // A listed file that becomes a link, even one that stays inside.
        link("own.md", join(dir, "references", "l.md"));
        write(join(dir, "references", "now-link.md"), "listed\n");
        write(join(dir, "references", "gone.md"), "listed\n");
        write(join(dir, "references", "dir.md"), "listed\n");
        const skill = loadSkillFolder(dir);
        unlinkSync(join(dir, "references", "now-link.md"));
        link("own.md", join(dir, "references", "now-link.md"));
        // A listed link re-pointed into a non-standard folder.
        write(join(dir, "secret", "y.md"), "gated\n");
        unlinkSync(join(dir, "references", "l.md"));
        link("../secret/y.md", join(dir, "references", "l.md"));
        unlinkSync(join(dir, "references", "gone.md"));
        unlinkSync(join(dir, "references", "dir.md"));
        mkdirSync(join(dir, "references", "dir.md"));
        const read = (path: string, flags: SafetyFlags = {}) =>
          outcome(() => readResource(skill, path, flags));
        assert.deepEqual(
          [
            read("references/x.md", OPEN),
            read("references/now-link.md"),
            read("references/l.md"),
            read("references/l.md", OPEN),
            read("references/gone.md"),
            read("references/dir.md"),
            read("references/own.md"),
          ],
          [
            'ExecutionError: Refused to read "references/x.md": it does not lead to a regular file inside the skill folder',
            'ResourceReadError: Cannot read "references/now-link.md": it is now a symbolic link, not the file that was listed',
            'ExecutionError: Refused to read non-standard resource "references/l.md": global safety is true, skill safety is true (both must be false)',
            "gated\n",
            'ResourceReadError: Cannot read "references/gone.md": it no longer exists',
            'ResourceReadError: Cannot read "references/dir.md": it is a folder, not a regular file',
            "own\n",
          ],
        );
      });
    });
  });
}

describe("a skill cannot probe the host through its links", () => {
  it("every target outside, existing or not, of any kind, gets the same answer", async () => {
    // What the host holds: a file, a folder, a named pipe, a socket, a link to a device, nothing.
    const host = join(temp, "host");
    write(join(host, "file"), SECRET);
    mkdirSync(join(host, "folder"));
    spawnSync("mkfifo", [join(host, "pipe")]);
    symlinkSync("/dev/null", join(host, "device"));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(host, "socket"), resolve));
    const names = ["file", "folder", "pipe", "socket", "device", "missing"];
    try {
      // Links to each, present when loading; links to an inside file re-pointed
      // after loading; a listed folder swapped for a link to the host folder.
      const { dir, name } = skillFolder({ "references/in.md": "in\n" });
      for (const n of names) {
        link(join(host, n), join(dir, "references", `at-load-${n}`));
        link("in.md", join(dir, "references", `later-${n}`));
        write(join(dir, "assets", "swapped", n), "listed\n");
      }
      const skill = loadSkillFolder(dir);
      for (const n of names) {
        unlinkSync(join(dir, "references", `later-${n}`));
        link(join(host, n), join(dir, "references", `later-${n}`));
      }
      rmSync(join(dir, "assets", "swapped"), { recursive: true });
      link(host, join(dir, "assets", "swapped"));
      for (const prefix of ["references/at-load-", "references/later-", "assets/swapped/"]) {
        for (const way of WAYS) {
          const answers = names.map((n) => {
            const path = `${prefix}${n}`;
            const answer = attacked(
              way,
              null,
              () =>
                handleSkillTool({ skill: name, resource: path }, {
                  skills: [skill],
                  global_safety: false,
                  skill_safety: () => false,
                }),
            );
            return answer.content.replace(JSON.stringify(path), "<path>");
          });
          assert.deepEqual(
            answers,
            names.map(() =>
              "Refused to read <path>: it does not lead to a regular file inside the skill folder"
            ),
            `${prefix} (${way})`,
          );
        }
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("a handle whose file fails under a read", () => {
  it("is a typed refusal naming only the path, not a raw file-system error", () => {
    // The descriptor is swapped for a folder's after the checks: a read then
    // fails with EISDIR from the kernel, as any I/O error would.
    const { dir, name } = skillFolder({ "references/a.md": "a\n" });
    const skill = loadSkillFolder(dir);
    const swapDescriptor = (_full: string, fd: number) => {
      closeSync(fd);
      assert.equal(openSync(dir, "r"), fd, "the folder did not get the freed descriptor");
    };
    const result = attacked(
      "path",
      swapDescriptor,
      () => handleSkillTool({ skill: name, resource: "references/a.md" }, { skills: [skill] }),
    );
    assert.deepEqual(result, {
      content: 'Cannot read "references/a.md": it is a folder, not a regular file',
      is_error: true,
    });
  });
});

describe("SKILL.md is the instructions: the gate applies to it", () => {
  it("a SKILL.md linked into a non-standard folder is refused, whatever the switches", () => {
    const dir = join(temp, "gated-md");
    write(join(dir, "docs", "SKILL.md"), "---\nname: gated-md\ndescription: d\n---\nGATED BODY\n");
    link("docs/SKILL.md", join(dir, "SKILL.md"));
    const message =
      'Invalid SKILL.md: SKILL.md is a link into the non-standard folder "docs", which the safety gate guards';
    assert.throws(() => loadSkillFolder(dir), (e: unknown) => {
      assert.ok(e instanceof AgentSkillError);
      assert.equal(e.message, `${message} (${join(dir, "SKILL.md")})`);
      return true;
    });
    const context = { skills: (n: string) => loadSkillFolder(join(temp, n)) };
    assert.deepEqual(handleSkillTool({ skill: "gated-md" }, context), {
      content: `${message} (SKILL.md)`,
      is_error: true,
    });
  });

  it("a SKILL.md linked to a file the gate always allows is the instructions", () => {
    const dir = join(temp, "linked-md");
    write(
      join(dir, "references", "guide.md"),
      "---\nname: linked-md\ndescription: d\n---\nGuide\n",
    );
    link("references/guide.md", join(dir, "SKILL.md"));
    const skill = loadSkillFolder(dir);
    assert.equal(skill.instructions, "Guide\n");
    assert.match(renderActivation(activateSkill(skill)), /\[reference\] references\/guide\.md/);
  });
});

describe("paging from outside", () => {
  // Line 1 is exactly the cap, line 2 one byte over it, line 3 has a 4-byte
  // character straddling the cap, line 4 has no final newline.
  const content = "1234567\n12345678\nabcde😀\nx";
  const cap = 8;

  function pagesOf(dir: string, options: { limit?: number } = {}): string[][] {
    const skill = loadSkillFolder(dir);
    const pages: string[][] = [];
    for (let offset: number | string | null = 0; offset !== null;) {
      const page = readResource(skill, "references/a.md", {
        ...options,
        offset,
        max_page_bytes: cap,
      });
      pages.push([page.range, page.content, String(page.next_offset)]);
      offset = page.next_offset;
    }
    return pages;
  }

  it("a line exactly at the cap, one byte over it and a character straddling it come in whole characters", () => {
    const { dir } = skillFolder({ "references/a.md": content });
    for (const limit of [1, 2, 1e9, Number.MAX_SAFE_INTEGER]) {
      const pages = pagesOf(dir, { limit });
      assert.deepEqual(pages, [
        ["lines 1-1 of 4", "1234567\n", "1"],
        ["line 2 of 4, bytes 0-7", "12345678", "1+8"],
        ["line 2 of 4, bytes 8-8", "\n", "2"],
        ["line 3 of 4, bytes 0-4", "abcde", "2+5"],
        ["line 3 of 4, bytes 5-9", "😀\n", "3"],
        ["lines 4-4 of 4", "x", "null"],
      ]);
      assert.equal(pages.map((p) => p[1]).join(""), content);
    }
  });

  it("garbage, negative, huge and past-the-end offsets are typed errors or an empty last page", () => {
    const { dir, name } = skillFolder({ "references/a.md": content });
    const skill = loadSkillFolder(dir);
    const read = (offset: unknown) =>
      outcome(() =>
        readResource(skill, "references/a.md", { offset: offset as number, max_page_bytes: cap })
      );
    const invalid = (offset: string) =>
      `RangeError: offset must be a whole number or "line+byte" (e.g. "12+262144"), got ${
        JSON.stringify(offset)
      }`;
    for (
      const offset of [
        "-1+0",
        "0+-1",
        "+1",
        "1+",
        "1+0 ",
        " 1+0",
        "1e3",
        "0x1",
        "01+0",
        "1+01",
        "１+0",
      ]
    ) {
      assert.equal(read(offset), invalid(offset));
    }
    assert.equal(read("1234567890123456+0"), invalid("1234567890123456+0")); // over 15 digits
    for (const offset of [-1, 0.5, Number.NaN, Infinity, 2 ** 53, 1e300]) {
      assert.equal(
        read(offset),
        `RangeError: offset must be a whole number of at least 0, got ${String(offset)}`,
      );
    }
    assert.deepEqual(
      [read("0+999999999999999"), read("3+1"), read("2+6"), read("99+5"), read("4+1")],
      [
        'RangeError: offset "0+999999999999999" is past the end of line 1 (8 bytes)',
        'RangeError: offset "3+1" is past the end of line 4 (1 byte)',
        'RangeError: offset "2+6" is not at a character boundary',
        'RangeError: offset "99+5" is past the end of the file (4 lines)',
        'RangeError: offset "4+1" is past the end of the file (4 lines)',
      ],
    );
    assert.deepEqual(
      [
        readResource(skill, "references/a.md", { offset: "99+0" }),
        readResource(skill, "references/a.md", { offset: 999_999_999_999_999 }),
      ]
        .map((p) => [p.range, p.content, p.next_offset]),
      [["lines none of 4", "", null], ["lines none of 4", "", null]],
    );
    // Through the skill tool: the same answers, as tool errors.
    const tool = (offset: unknown) =>
      handleSkillTool({ skill: name, resource: "references/a.md", offset } as never, {
        skills: [skill],
        max_page_bytes: cap,
      });
    assert.deepEqual(tool("99+5"), {
      content: 'offset "99+5" is past the end of the file (4 lines)',
      is_error: true,
    });
    for (const offset of ["0+-1", "x", -1, 1e300, null, [1], { line: 1 }]) {
      assert.equal(tool(offset).is_error, true);
    }
  });

  it('a page cap above 64 MiB is refused up front, not a false "changed" after a huge allocation', () => {
    const { dir } = skillFolder({ "references/a.md": content });
    const skill = loadSkillFolder(dir);
    for (const max_page_bytes of [2 ** 26 + 1, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
      assert.equal(
        outcome(() => readResource(skill, "references/a.md", { max_page_bytes })),
        `RangeError: max_page_bytes must be a whole number from 4 to 67108864, got ${max_page_bytes}`,
      );
    }
    assert.equal(
      readResource(skill, "references/a.md", { max_page_bytes: 2 ** 26 }).content,
      content,
    );
  });

  it("the manifest pages with odd offsets: typed errors, or empty pages past the end", () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 5; i++) files[`references/r${i}.md`] = "";
    const { dir, name } = skillFolder(files);
    const skill = loadSkillFolder(dir);
    for (const offset of [-1, 0.5, Number.NaN, 2 ** 53]) {
      assert.throws(() => activateSkill(skill, { offset }), { name: "RangeError" });
    }
    const past = activateSkill(skill, { offset: 5, max_entries: Number.MAX_SAFE_INTEGER });
    assert.deepEqual([past.resources.references, past.next_offset], [[], null]);
    const huge = activateSkill(skill, {
      offset: Number.MAX_SAFE_INTEGER,
      max_entries: Number.MAX_SAFE_INTEGER,
    });
    assert.deepEqual([huge.resources.references, huge.not_shown?.references], [[], 0]);
    const pages: string[] = [];
    for (let offset: number | null = 0; offset !== null;) {
      const page = activateSkill(skill, { offset, max_entries: 2 });
      pages.push(...page.resources.references.map((e) => e.path));
      offset = page.next_offset ?? null;
    }
    assert.deepEqual(pages, Object.keys(files));
    for (const offset of ["0+1", "1", -1, 1.5]) {
      assert.equal(
        handleSkillTool({ skill: name, offset } as never, { skills: [skill] }).is_error,
        true,
      );
    }
  });
});
