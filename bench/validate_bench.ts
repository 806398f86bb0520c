/**
 * `validate` of a folder of 5,000 Agent Skills against a bare script that only
 * reads every SKILL.md; and the split between parsing and resolving when a
 * 10,000-skill catalog folder is loaded and its top skill resolved.
 * Run: `npm run bench -- validate`.
 *
 * @module
 */
import { bench, do_not_optimize, group, run, summary } from "mitata";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveTools } from "../mod.ts";
import { loadCatalog, validatePaths } from "../lib/load.ts";

const temp = mkdtempSync(join(tmpdir(), "skillset-validate-"));

// 5,000 Agent Skills: SKILL.md plus a reference, an asset and a script each.
const skills = join(temp, "skills");
for (let i = 0; i < 5000; i++) {
  const dir = join(skills, `skill-${i}`);
  mkdirSync(join(dir, "references"), { recursive: true });
  mkdirSync(join(dir, "assets"));
  mkdirSync(join(dir, "scripts"));
  writeFileSync(
    join(dir, "SKILL.md"),
    `---\nname: skill-${i}\ndescription: Skill number ${i}; use it for task ${i}.\nlicense: MIT\n---\n` +
      `# Skill ${i}\n\nRead [the guide](references/guide.md) and fill \`assets/template.txt\`.\n`,
  );
  writeFileSync(join(dir, "references", "guide.md"), "# Guide\n");
  writeFileSync(join(dir, "assets", "template.txt"), "Name: ____\n");
  writeFileSync(join(dir, "scripts", "run.py"), "print('hi')\n");
}

/** The bare baseline: list the folder and read every SKILL.md, nothing else. */
function readEverySkillMd(root: string): number {
  let bytes = 0;
  for (const name of readdirSync(root)) bytes += readFileSync(join(root, name, "SKILL.md")).length;
  return bytes;
}

const errors = validatePaths([skills]).filter((d) => d.severity === "error");
if (errors.length > 0) {
  throw new Error(`the generated skills should be valid: ${errors[0]!.message}`);
}

group("validate 5,000 Agent Skill folders", () => {
  summary(() => {
    bench("bare: read every SKILL.md", () => do_not_optimize(readEverySkillMd(skills))).baseline(
      true,
    );
    bench("validatePaths (skillset validate)", () => do_not_optimize(validatePaths([skills])));
  });
});

// A 10,000-skill catalog folder: 100 files of 100 skills; a chain of includes with fan-out.
const catalog = join(temp, "catalog");
mkdirSync(catalog);
for (let f = 0; f < 100; f++) {
  const lines: string[] = [];
  for (let k = 0; k < 100; k++) {
    const i = f * 100 + k;
    const includes = [i + 1, i + 2, i + 50].filter((j) => j < 10_000).map((j) => `cat/s${j}`);
    lines.push(
      `- name: cat/s${i}`,
      `  includes: [${includes.join(", ")}]`,
      `  tool_refs: [tool_${i % 997}, shared]`,
      `  inline_tools:`,
      `    - { description: Tool ${i}, read_only: true }`,
    );
  }
  writeFileSync(join(catalog, `part-${String(f).padStart(3, "0")}.yaml`), lines.join("\n") + "\n");
}
const loaded = loadCatalog(catalog);

group("load a 10,000-skill catalog folder and resolve its top skill", () => {
  summary(() => {
    bench("parse (loadCatalog)", () => do_not_optimize(loadCatalog(catalog))).baseline(true);
    bench(
      "resolve (resolveTools on the loaded catalog)",
      () => do_not_optimize(resolveTools(loaded.skills.get("cat/s0")!, loaded.skills)),
    );
  });
});

await run();
rmSync(temp, { recursive: true, force: true });
