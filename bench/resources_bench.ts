/**
 * Resources: activation of a 10,000-file skill folder against a bare
 * recursive readdir + stat of the same folder, and base64 of a 16 MiB asset
 * against the runtime's built-ins. Run: `npm run bench -- resources`.
 *
 * @module
 */
import { bench, do_not_optimize, group, run, summary } from "mitata";
import { Buffer } from "node:buffer";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { activateSkill, encodeBase64 } from "../mod.ts";
import { encodeBase64Table } from "../lib/base64.ts";
import { loadSkillFolder } from "../lib/load.ts";

const temp = mkdtempSync(join(tmpdir(), "skillset-bench-"));
const skill = join(temp, "big-skill");
const FOLDERS = ["references", "assets", "scripts", "extras", "references/deep", "assets/img"];
for (const folder of FOLDERS) mkdirSync(join(skill, folder), { recursive: true });
writeFileSync(
  join(skill, "SKILL.md"),
  "---\nname: big-skill\ndescription: Many files\n---\nBody\n",
);
for (let i = 0; i < 10_000; i++) {
  writeFileSync(join(skill, FOLDERS[i % FOLDERS.length]!, `file-${i}.md`), `# ${i}\n`);
}

/** The bare baseline: readdir per folder, stat per file, nothing else. */
function bareWalk(root: string): number {
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else total += statSync(full).size;
    }
  }
  return total;
}

group("activate a 10,000-file skill folder", () => {
  summary(() => {
    bench("bare recursive readdir + stat", () => do_not_optimize(bareWalk(skill))).baseline(true);
    bench(
      "loadSkillFolder + activateSkill",
      () => do_not_optimize(activateSkill(loadSkillFolder(skill))),
    );
  });
});

const bytes = Uint8Array.from({ length: 16 * 1024 * 1024 }, (_, i) => (i * 2654435761) >>> 24);
const native = (Uint8Array.prototype as { toBase64?: (this: Uint8Array) => string }).toBase64;

group("base64 of a 16 MiB binary asset", () => {
  summary(() => {
    bench('Buffer.from(bytes).toString("base64")', () => Buffer.from(bytes).toString("base64"))
      .baseline(true);
    if (native !== undefined) {
      bench("built-in Uint8Array#toBase64", () => native.call(bytes));
    }
    bench("encodeBase64 (what reads use)", () => encodeBase64(bytes));
    bench("encodeBase64Table (the portable encoder)", () => encodeBase64Table(bytes));
  });
});

await run();
rmSync(temp, { recursive: true, force: true });
