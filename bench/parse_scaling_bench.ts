/**
 * Scaling of loading, validating and resolving on the inputs that were once
 * quadratic (issue 10, item 1): each input at ×1, ×2, ×4 and ×8 of its size,
 * timed with mitata, and the log–log slope of time against size printed
 * (1 = linear, 2 = quadratic; the target is ≤ 1.2). The ×8 sizes are those of
 * the issue: ~85k `metadata` keys, 60k override keys, a 520 KB body line of
 * `references/a `, a body line of 100k `[`; the key-heavy inputs both through
 * the plain fast path and through the `yaml` package (where the duplicate-key
 * check and the locations live).
 * Run: `npm run bench -- parse_scaling`.
 *
 * @module
 */
import { do_not_optimize, measure } from "mitata";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveTools } from "../mod.ts";
import { loadCatalog, parseSkillMd, validatePaths } from "../lib/load.ts";

const temp = mkdtempSync(join(tmpdir(), "skillset-scaling-"));
const SCALES = [1, 2, 4, 8] as const;

interface Workload {
  readonly name: string;
  /** Makes the input at a scale and returns the work to time. */
  readonly setup: (scale: number) => () => unknown;
}

function skillFolder(name: string, body: string): string {
  const dir = join(temp, name);
  mkdirSync(join(dir, "references"), { recursive: true });
  writeFileSync(join(dir, "references", "a"), "a");
  writeFileSync(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: d\n---\n${body}\n`);
  return dir;
}

const workloads: Workload[] = [
  {
    name: "SKILL.md with 10.6k metadata keys (×8: 85k, ~1 MB): parseSkillMd",
    setup: (scale) => {
      const keys = Array.from({ length: 10_600 * scale }, (_, i) => `  key${i}: v\n`);
      const text = `---\nname: x\ndescription: d\nmetadata:\n${keys.join("")}---\n`;
      return () => parseSkillMd(text);
    },
  },
  {
    name: "the same through the yaml path (a trailing comment leaves the plain fast path)",
    setup: (scale) => {
      const keys = Array.from({ length: 10_600 * scale }, (_, i) => `  key${i}: v\n`);
      const text = `---\nname: x # yaml\ndescription: d\nmetadata:\n${keys.join("")}---\n`;
      return () => parseSkillMd(text);
    },
  },
  {
    name: "catalog with 7.5k override keys (×8: 60k): loadCatalog + resolveTools",
    setup: (scale) => {
      const keys = Array.from({ length: 7_500 * scale }, (_, i) => `t${i}`);
      const file = join(temp, `overrides-${scale}.yaml`);
      writeFileSync(
        file,
        `name: a/b\ntool_refs: [${keys.join(", ")}]\noverrides:\n` +
          keys.map((k) => `  ${k}: { timeout_s: 5 }\n`).join(""),
      );
      return () => {
        const catalog = loadCatalog(file);
        return resolveTools(catalog.skills.get("a/b")!, catalog.skills);
      };
    },
  },
  {
    name: "the same through the yaml path (a trailing comment leaves the plain fast path)",
    setup: (scale) => {
      const keys = Array.from({ length: 7_500 * scale }, (_, i) => `t${i}`);
      const file = join(temp, `overrides-yaml-${scale}.yaml`);
      writeFileSync(
        file,
        `name: a/b # yaml\ntool_refs: [${keys.join(", ")}]\noverrides:\n` +
          keys.map((k) => `  ${k}: { timeout_s: 5 }\n`).join(""),
      );
      return () => {
        const catalog = loadCatalog(file);
        return resolveTools(catalog.skills.get("a/b")!, catalog.skills);
      };
    },
  },
  {
    name: "catalog with 7.5k unmatched override keys (×8: 60k): validate (one warning each)",
    setup: (scale) => {
      const keys = Array.from({ length: 7_500 * scale }, (_, i) => `  t${i}: {}\n`);
      const file = join(temp, `unmatched-${scale}.yaml`);
      writeFileSync(file, `name: a/b\noverrides:\n${keys.join("")}`);
      return () => validatePaths([file]);
    },
  },
  {
    name: 'body line of 5k "references/a " (×8: 520 KB): validate',
    setup: (scale) => {
      const dir = skillFolder(`refs-${scale}`, "references/a ".repeat(5_000 * scale));
      return () => validatePaths([dir]);
    },
  },
  {
    name: 'body line of 12.5k "[" (×8: 100k): validate',
    setup: (scale) => {
      const dir = skillFolder(`brackets-${scale}`, "[".repeat(12_500 * scale));
      return () => validatePaths([dir]);
    },
  },
];

console.log("scale:      ×1        ×2        ×4        ×8     slope (log–log; ≤ 1.2)");
for (const workload of workloads) {
  const times: number[] = [];
  for (const scale of SCALES) {
    const work = workload.setup(scale);
    const stats = await measure(() => do_not_optimize(work()), {
      // Three samples at least: the ×8 points through yaml take 1–3 s each.
      min_samples: 3,
      max_samples: 5,
      min_cpu_time: 50 * 1e6,
    });
    times.push(stats.avg);
  }
  console.log(workload.name);
  console.log(
    `  ${times.map((t) => `${(t / 1e6).toFixed(1).padStart(7)} ms`).join(" ")}   ${
      slope(SCALES, times).toFixed(2)
    }`,
  );
}
rmSync(temp, { recursive: true, force: true });

/** Least-squares slope of log(time) against log(scale). */
function slope(xs: readonly number[], ys: readonly number[]): number {
  const lx = xs.map(Math.log), ly = ys.map(Math.log);
  const mx = lx.reduce((a, b) => a + b) / lx.length, my = ly.reduce((a, b) => a + b) / ly.length;
  let num = 0, den = 0;
  for (let i = 0; i < lx.length; i++) {
    num += (lx[i]! - mx) * (ly[i]! - my);
    den += (lx[i]! - mx) ** 2;
  }
  return num / den;
}
