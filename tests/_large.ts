/**
 * The large-input checks (a 1,000,000-skill chain, a skill of 100,000
 * files), each taking its size, and {@linkcode runLarge}, which runs one in
 * a child process under a time limit: a test first runs the check at a small
 * size in-process (a cheap equivalent that names a wrong answer at once),
 * then at full size in the child, so a regression that makes it hang or
 * turn quadratic fails within the limit instead of holding back the file.
 *
 * @module
 */
import assert from "node:assert/strict";
import { activateSkill, createBundle, handleSkillTool, renderActivation } from "../mod.ts";
import { resolveTools } from "../mod.ts";
import { includeChain } from "../lib/testing.ts";
import { seed } from "./_fc.ts";
import { runChild } from "./_spawn.ts";

/** How long a large-input check may run in its child before it counts as a regression. */
export const LARGE_TIMEOUT_MS = 60_000;

/**
 * Run `check(...args)`, an export of `tests/<module>`, in a child process
 * under the runtime running the tests, with this run's fast-check seed; fail
 * with its output when it fails, and say so when it outlives `timeoutMs`.
 *
 * @param module The file under `tests/`, e.g. `_large.ts`.
 * @param check The name of the exported function.
 * @param args Its arguments (JSON).
 * @param timeoutMs The time limit.
 */
export function runLarge(
  module: string,
  check: string,
  args: readonly unknown[],
  timeoutMs: number = LARGE_TIMEOUT_MS,
): void {
  const started = Date.now();
  const result = runChild(["check", module, check, JSON.stringify(args)], timeoutMs, {
    env: { FC_SEED: String(seed) },
  });
  const call = `${check}(${args.map((a) => JSON.stringify(a)).join(", ")})`;
  if (result.code === null) {
    assert.fail(
      `${call} did not finish within ${timeoutMs / 1000} s (killed after ${
        Date.now() - started
      } ms): a regression made it hang or slow down\n${result.stdout}\n${result.stderr}`,
    );
  }
  assert.equal(result.code, 0, `${call} failed:\n${result.stdout}\n${result.stderr}`);
  assert.match(result.stdout, /\{"ok":true\}\n$/, result.stdout);
}

/**
 * A chain of `n` skills, each including the next and declaring `shared` and
 * `t{i}`, resolves without recursion: `shared` first (last written by the
 * root), then `t{n-1}` … `t0`.
 *
 * @param n The length of the chain.
 */
export function checkChain(n: number): void {
  const { root, lookup: skills } = includeChain(n);
  const tools = resolveTools(root, skills);
  assert.equal(tools.size, n + 1);
  const keys = [...tools.keys()];
  assert.deepEqual(keys.slice(0, 3), ["shared", `t${n - 1}`, `t${n - 2}`]);
  assert.deepEqual(keys.slice(-2), ["t1", "t0"]);
  assert.equal(tools.get("shared")?.source_skill, "chain/s0");
  assert.equal(tools.get(`t${n - 1}`)?.source_skill, `chain/s${n - 1}`);
}

/**
 * A skill of `n` reference files (and one asset) gives a manifest capped at
 * 500 entries that says how many more there are, pages through all of them,
 * and answers the skill tool at an offset near the end.
 *
 * @param n The number of reference files, above 600.
 */
export function checkManyFiles(n: number): void {
  const files = new Map<string, string>();
  for (let i = 0; i < n; i++) files.set(`references/f${String(i).padStart(6, "0")}.md`, "");
  files.set("assets/a.png", "");
  const bundle = createBundle({
    frontmatter: { name: "many", description: "d" },
    instructions: "",
    files,
  });
  const first = activateSkill(bundle);
  assert.equal(first.resources.references.length, 500);
  assert.deepEqual(first.not_shown, { root: 0, references: n - 500, assets: 0, scripts: 0 });
  assert.equal(first.next_offset, 500);
  const text = renderActivation(first);
  assert.ok(text.length < 40_000, `${text.length} characters`);
  assert.ok(
    text.includes(
      `  ... ${
        n - 500
      } more files not shown (activate again with offset 500 to list the next ones)`,
    ),
  );
  const seen: string[] = [];
  for (let offset: number | null | undefined = 0; offset !== null;) {
    const page = activateSkill(bundle, { offset: offset!, max_entries: 20_000 });
    seen.push(...page.resources.references.map((e) => e.path));
    offset = page.next_offset;
  }
  assert.deepEqual(seen, [...files.keys()].filter((p) => p.startsWith("references/")));
  const tool = handleSkillTool({ skill: "many", offset: n - 100 }, {
    skills: [bundle],
    max_manifest_entries: 100,
  });
  assert.ok(tool.content.includes(`references/f${String(n - 1).padStart(6, "0")}.md`));
  assert.ok(!tool.content.includes("more files not shown"));
}
