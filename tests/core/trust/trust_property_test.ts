/**
 * The law of a lock (issue 28): for any sequence of changes to a locked
 * skill's folder — content, same-size rewrites, added and removed entries
 * of any kind, renames — made before the check or after it, the model is
 * given exactly the locked bytes or the skill is refused; never anything
 * else. Runs on Node, Deno and Bun.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { handleLockedSkillTool, handleSkillTool, type Lockfile } from "../../../mod.ts";
import { discoverSkills, loadSkillFolder, lockSkills, trustDiscovery } from "../../../lib/load.ts";
import { fc, runs } from "../../_fc.ts";
import { put } from "../../_tree.ts";

const temps: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

const hasMkfifo = process.platform !== "win32" && spawnSync("mkfifo", ["--version"]).status === 0;

const LOCKED: Readonly<Record<string, string>> = {
  "SKILL.md": "---\nname: law\ndescription: The law\n---\nRead references/a.md.\n",
  "references/a.md": "alpha\n",
  "references/b.md": "bravo\n",
  "scripts/run.py": "import json\n",
};
const FILES = Object.keys(LOCKED);

type Op =
  | { kind: "write"; file: number; text: string }
  | { kind: "same-size"; file: number; seed: number }
  | { kind: "remove"; file: number }
  | { kind: "add"; name: string; text: string }
  | { kind: "link"; name: string; out: boolean }
  | { kind: "fifo"; name: string }
  | { kind: "rename"; file: number; name: string };

const name = fc.constantFrom(
  "references/new.md",
  "scripts/json.py",
  "top.txt",
  "references/\x1bx.md",
);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant("write" as const),
    file: fc.nat(3),
    text: fc.string({ maxLength: 12 }),
  }),
  fc.record({ kind: fc.constant("same-size" as const), file: fc.nat(3), seed: fc.nat(255) }),
  fc.record({ kind: fc.constant("remove" as const), file: fc.nat({ max: 3 }) }),
  fc.record({ kind: fc.constant("add" as const), name, text: fc.string({ maxLength: 8 }) }),
  fc.record({ kind: fc.constant("link" as const), name, out: fc.boolean() }),
  fc.record({ kind: fc.constant("fifo" as const), name }),
  fc.record({ kind: fc.constant("rename" as const), file: fc.nat(3), name }),
);

function apply(skill: string, o: Op): void {
  const at = (i: number) => join(skill, FILES[i]!);
  try {
    switch (o.kind) {
      case "write":
        writeFileSync(at(o.file), o.text);
        break;
      case "same-size": {
        const text = LOCKED[FILES[o.file]!]!;
        const c = String.fromCharCode(97 + (o.seed % 26));
        writeFileSync(at(o.file), c.repeat(Buffer.byteLength(text)));
        break;
      }
      case "remove":
        rmSync(at(o.file), { force: true });
        break;
      case "add":
        // Never write through a named pipe left by an earlier change: that would wait forever.
        rmSync(join(skill, o.name), { force: true });
        put(skill, o.name, o.text);
        break;
      case "link":
        rmSync(join(skill, o.name), { force: true });
        put(skill, `${o.name}.tmp`, "");
        rmSync(join(skill, `${o.name}.tmp`));
        symlinkSync(o.out ? "/etc/hostname" : join(skill, "references/b.md"), join(skill, o.name));
        break;
      case "fifo":
        if (!hasMkfifo) break;
        rmSync(join(skill, o.name), { force: true });
        put(skill, `${o.name}.tmp`, "");
        rmSync(join(skill, `${o.name}.tmp`));
        spawnSync("mkfifo", [join(skill, o.name)]);
        break;
      case "rename":
        if (existsSync(at(o.file))) {
          put(skill, `${o.name}.tmp`, "");
          rmSync(join(skill, `${o.name}.tmp`));
          rmSync(join(skill, o.name), { force: true });
          renameSync(at(o.file), join(skill, o.name));
        }
        break;
    }
  } catch {
    // A change the file system refuses is no change.
  }
}

/** Every text the model is given for the skill: nothing, or exactly the locked bytes. */
function assertLockedOrRefused(text: string, isError: boolean, what: string): void {
  if (isError) return;
  const body = LOCKED["SKILL.md"]!.split("---\n")[2]!;
  const ok = text.includes(body.trim()) ||
    FILES.some((f) => f !== "SKILL.md" && text.includes(LOCKED[f]!.trim()));
  assert.ok(ok, `${what} gave ${JSON.stringify(text.slice(0, 300))}`);
  // Never a byte written by a change.
  assert.doesNotMatch(text, /\[(?:evil)\]/);
}

describe("a locked skill", () => {
  it("gives the model exactly the locked bytes or is refused, whatever changes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 4 }),
        fc.array(op, { maxLength: 3 }),
        async (before, afterCheck) => {
          const dir = realpathSync(mkdtempSync(join(tmpdir(), "skillset-law-")));
          temps.push(dir);
          const skill = join(dir, "skills/law");
          for (const [path, text] of Object.entries(LOCKED)) put(skill, path, text);
          const roots = [{ scope: "project", path: join(dir, "skills") }];
          const { lock } = await lockSkills(discoverSkills(roots), { base: dir });
          for (const o of before) apply(skill, o);
          const trusted = await trustDiscovery(discoverSkills(roots), { lock, lockBase: dir });
          const loaded = (() => {
            try {
              return loadSkillFolder(skill, { lenient: true });
            } catch {
              return undefined;
            }
          })();
          const locked = loaded === undefined ? undefined : handleLockedSkillTool(
            { skill: "law", resource: "references/a.md" },
            { skills: [loaded], lock: lock as Lockfile },
          );
          for (const o of afterCheck) apply(skill, o);
          await check(trusted, lock, locked, readdirSync(skill).join(","));
        },
      ),
      runs(25),
    );
  });
});

async function check(
  trusted: Awaited<ReturnType<typeof trustDiscovery>>,
  lock: Lockfile,
  locked: ReturnType<typeof handleLockedSkillTool> | undefined,
  where: string,
): Promise<void> {
  if (trusted.skill("law") !== undefined) {
    assert.equal(trusted.skill("law")!.description, "The law");
    const activation = handleSkillTool({ skill: "law" }, { skills: trusted });
    assertLockedOrRefused(activation.content, activation.is_error, `activation (${where})`);
    for (const path of FILES.slice(1)) {
      const read = handleSkillTool({ skill: "law", resource: path }, { skills: trusted });
      if (!read.is_error) {
        assert.ok(read.content.includes(LOCKED[path]!.trim()), `${path}: ${read.content}`);
      }
    }
  }
  if (locked !== undefined) {
    const result = await locked;
    if (!result.is_error) assert.ok(result.content.includes("alpha"), result.content);
  }
  assert.ok(lock.skills.length === 1);
}
