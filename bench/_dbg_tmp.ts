import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findSkillMd, loadSkillFolder, parseSkillMd, validatePaths } from "../lib/load.ts";
const temp = mkdtempSync(join(tmpdir(), "dbg-"));
for (let i = 0; i < 5000; i++) {
  const dir = join(temp, `skill-${i}`);
  mkdirSync(join(dir, "references"), { recursive: true });
  mkdirSync(join(dir, "assets"));
  mkdirSync(join(dir, "scripts"));
  writeFileSync(
    join(dir, "SKILL.md"),
    `---\nname: skill-${i}\ndescription: "Skill number ${i}: use it for task ${i}."\nlicense: MIT\nmetadata:\n  author: bench\n  version: "1.${
      i % 10
    }"\n---\n# Skill ${i}\n\nRead [the guide](references/guide.md) and fill \`assets/template.txt\`.\n`,
  );
  writeFileSync(join(dir, "references", "guide.md"), "# Guide\n");
  writeFileSync(join(dir, "assets", "template.txt"), "Name: ____\n");
  writeFileSync(join(dir, "scripts", "run.py"), "print('hi')\n");
}
const t = (label: string, f: () => unknown) => {
  f();
  const t0 = performance.now();
  for (let i = 0; i < 3; i++) f();
  console.log(label, ((performance.now() - t0) / 3).toFixed(1), "ms");
};
const names = readdirSync(temp);
t("bare", () => {
  for (const n of names) readFileSync(join(temp, n, "SKILL.md"));
});
t("readdir only", () => {
  for (const n of names) readdirSync(join(temp, n));
});
t("index", () => {
  for (const n of names) {
    const f = findSkillMd(join(temp, n))!;
    parseSkillMd(readFileSync(f, "utf8"), { folder: n });
  }
});
t("loadSkillFolder", () => {
  for (const n of names) loadSkillFolder(join(temp, n));
});
t("validatePaths", () => validatePaths([temp]));
t("readdir root + 3 subfolders (withFileTypes)", () => {
  for (const n of names) {
    readdirSync(join(temp, n), { withFileTypes: true });
    for (const s of ["references", "assets", "scripts"]) {
      readdirSync(join(temp, n, s), { withFileTypes: true });
    }
  }
});
const texts = names.map((n) => [n, readFileSync(join(temp, n, "SKILL.md"), "utf8")] as const);
t("read utf8", () => {
  for (const n of names) readFileSync(join(temp, n, "SKILL.md"), "utf8");
});
t("findSkillMd", () => {
  for (const n of names) findSkillMd(join(temp, n));
});
t("parseSkillMd only", () => {
  for (const [n, s] of texts) parseSkillMd(s, { folder: n });
});
import { parsePlainYaml } from "../lib/_plain_yaml.ts";
const fms = texts.map(([, s]) => s.slice(4, s.indexOf("\n---\n") + 1));
t("parsePlainYaml only", () => {
  for (const s of fms) parsePlainYaml(s);
});
