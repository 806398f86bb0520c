/**
 * The fuzzing targets of `tests/cli/fuzz_test.ts`, each taking its number of
 * cases, so a test can run a few in-process and the many in a child process
 * under a time limit (see `runLarge` in `tests/_large.ts`). In the child a
 * run also stops early, as passed, after {@linkcode FUZZ_TIME_MS}, so a slow
 * machine runs fewer cases instead of failing; a case that hangs is killed.
 *
 * @module
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fc, runs } from "./_fc.ts";
import { AgentSkillError, SkillDefinitionError } from "../mod.ts";
import { parseCatalogText, parseSkillMd } from "../lib/load.ts";
import { main } from "../lib/cli.ts";

/** How long the cases of one target may run before the run stops early, as passed. */
export const FUZZ_TIME_MS = 40_000;

function options(cases: number): fc.Parameters<unknown> {
  return { ...runs(cases), interruptAfterTimeLimit: FUZZ_TIME_MS };
}

const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
const text = fc.string({ maxLength: 20 });

/** Valid catalogs: one skill or a list, with every field. */
const validCatalog = fc.record({
  name: word,
  tools: fc.array(word, { maxLength: 3 }),
  description: text,
  list: fc.boolean(),
}).map(({ name, tools, description, list }) => {
  const skill = [
    `name: local/${name}`,
    `description: ${JSON.stringify(description)}`,
    "safety: false",
    "includes:\n  - local/other\n  - { name: local/more }",
    `tool_refs: [${tools.join(", ")}]`,
    "inline_tools:\n  - description: Format\n    read_only: true\n    side_effects: [network]",
    "mcp_servers:\n  - server: github\n    tools: [create_issue]",
    "agent_skills: [skills/pdf]",
    `overrides:\n  ${tools[0] ?? "read_file"}: { timeout_s: 5 }`,
  ].join("\n");
  return list ? `- ${skill.replaceAll("\n", "\n  ")}\n` : `${skill}\n`;
});

/** Valid SKILL.md files. */
const validSkillMd = fc.record({ name: word, description: text, body: text }).map((
  { name, description, body },
) =>
  [
    "---",
    `name: ${name}`,
    `description: ${JSON.stringify(description || "d")}`,
    "license: MIT",
    "compatibility: any",
    "metadata:\n  author: me\n  version: '1.0'",
    "allowed-tools: Read Write",
    "---",
    body,
  ].join("\n")
);

const SPECIAL = [
  ":",
  "-",
  "[",
  "]",
  "{",
  "}",
  "&a ",
  "*a",
  "!!set ",
  "!custom ",
  "!!binary ",
  "|",
  ">",
  "'",
  '"',
  "#",
  "%YAML 1.3\n",
  "---\n",
  "...\n",
  "? ",
  "<<: ",
  "\n",
  "  ",
  "\t",
  "\u0000",
  "\u2028",
  "\ufeff",
  "\ud800",
  "~",
  "0x",
  ".nan",
  // The separators of an error's field path (`metadata.author`, `skills[0]`).
  ".",
  "[0]",
];

/** A mutation at a relative position: delete, insert a YAML-special piece, or repeat a slice. */
const mutation = fc.tuple(
  fc.double({ min: 0, max: 1, noNaN: true }),
  fc.oneof(
    fc.constant({ kind: "delete" as const, piece: "" }),
    fc.constantFrom(...SPECIAL).map((piece) => ({ kind: "insert" as const, piece })),
    fc.string({ unit: "binary", maxLength: 3 }).map((piece) => ({
      kind: "insert" as const,
      piece,
    })),
    fc.constant({ kind: "repeat" as const, piece: "" }),
  ),
);

function mutate(
  source: string,
  mutations: readonly (readonly [number, { kind: string; piece: string }])[],
): string {
  let s = source;
  for (const [at, { kind, piece }] of mutations) {
    const i = Math.floor(at * s.length);
    if (kind === "delete") s = s.slice(0, i) + s.slice(i + 1 + (i % 3));
    else if (kind === "insert") s = s.slice(0, i) + piece + s.slice(i);
    else s = s.slice(0, i) + s.slice(i, i + 12).repeat(3) + s.slice(i);
  }
  return s;
}

/** Random bytes, decoded as a loader would (invalid UTF-8 becomes U+FFFD). */
const randomBytes = fc.uint8Array({ maxLength: 200 }).map((b) => new TextDecoder().decode(b));

function nearValid(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 4 })).map(([s, m]) =>
    mutate(s, m)
  );
}

function onlyTyped(run: () => unknown, ...types: (new (...args: never[]) => Error)[]): void {
  try {
    run();
  } catch (e) {
    if (!types.some((t) => e instanceof t)) throw e;
    assert.ok((e as Error).message.length > 0);
  }
}

/** The catalog parser throws only SkillDefinitionError. */
export function fuzzCatalogParser(cases: number): void {
  fc.assert(
    fc.property(fc.oneof(randomBytes, nearValid(validCatalog), validCatalog), (input) => {
      onlyTyped(() => parseCatalogText(input, "c.yaml"), SkillDefinitionError);
    }),
    options(cases),
  );
}

/** The SKILL.md parser throws only AgentSkillError. */
export function fuzzSkillMdParser(cases: number): void {
  const withFrontmatter = randomBytes.map((s) => `---\n${s}\n---\n`);
  fc.assert(
    fc.property(
      fc.oneof(randomBytes, withFrontmatter, nearValid(validSkillMd), validSkillMd),
      (input) => {
        onlyTyped(
          () => parseSkillMd(input, { file: "x/SKILL.md", folder: "x" }),
          AgentSkillError,
        );
      },
    ),
    options(cases),
  );
}

/** The CLI in-process never crashes on a fuzzed catalog or SKILL.md. */
export function fuzzCli(cases: number): void {
  const temp = mkdtempSync(join(tmpdir(), "skillset-fuzz-"));
  try {
    const catalog = join(temp, "c.yaml");
    const folder = join(temp, "skill");
    mkdirSync(join(folder, "references"), { recursive: true });
    writeFileSync(join(folder, "references", "a.md"), "a\n");
    const io = { out: "", err: "" };
    const sink = {
      stdout: (s: string) => void (io.out += s),
      stderr: (s: string) => void (io.err += s),
      color: false,
    };
    let n = 0;
    fc.assert(
      fc.property(
        fc.oneof(randomBytes, nearValid(validCatalog), nearValid(validSkillMd)),
        fc.constantFrom("validate", "resolve", "to-prompt", "activate", "graph"),
        (input, command) => {
          io.out = io.err = "";
          const onSkill = command === "to-prompt" || command === "activate" || n++ % 2 === 0;
          let code: number;
          if (onSkill && command !== "resolve" && command !== "graph") {
            writeFileSync(join(folder, "SKILL.md"), input);
            code = main([command, folder], sink);
          } else {
            writeFileSync(catalog, input);
            const args = command === "resolve" ? [command, catalog, "local/x"] : [command, catalog];
            code = main(args, sink);
          }
          assert.ok(code === 0 || code === 1, `exit ${code}: ${io.err}`);
          assert.ok(!io.err.includes("internal error"), io.err);
        },
      ),
      options(cases),
    );
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}
