/**
 * Numbers and commands the guides quote stay true (issue 41): every ratio in docs/ and every time
 * in performance.md is one bench/RESULTS.md records (or listed with why it is from another run);
 * the start-up cost in docs/install.md is the one RESULTS.md records; every count the repository
 * can compute (requests, held-out splits, fixture skills, quick tests) is computed; every
 * `skillset <command> --flag` named in docs/ is a flag the CLI parses and its help names; and the
 * install-script approvals install.md describes match the lockfile.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./_cli.ts";

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The ratio of a row of RESULTS.md's cli_start table, by the start of its case. */
function startRatio(results: string, label: string): number {
  const section = results.slice(results.indexOf("### cli_start"));
  const row = section.split("\n").find((l) => l.startsWith(`| ${label}`));
  assert.ok(row !== undefined, `no cli_start row "${label}"`);
  const ratio = /\(([\d.]+)×\)/.exec(row)?.[1];
  assert.ok(ratio !== undefined, row);
  return Number(ratio);
}

describe("docs quote the benchmarks", () => {
  it("install.md's start-up cost is bench/RESULTS.md's, to one decimal", () => {
    const install = read("docs/install.md").replace(/\s+/g, " ");
    const quoted = /costs about ([\d.]+)× \(`--version`\) and ([\d.]+)× \(`resolve`\)/.exec(
      install,
    );
    assert.ok(quoted !== null, "install.md no longer quotes the start-up cost");
    const results = read("bench/RESULTS.md");
    assert.equal(
      Number(quoted[1]),
      Math.round(startRatio(results, "skillset --version") * 10) / 10,
    );
    assert.equal(Number(quoted[2]), Math.round(startRatio(results, "skillset resolve") * 10) / 10);
  });
});

describe("package.json", () => {
  it("allowScripts approves each locked package with an install script, by name", () => {
    const lock = JSON.parse(read("package-lock.json")) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const withScripts = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript === true)
      // By name: npm matches `name@version` only where the lockfile records
      // download addresses, and this one does not (docs/install.md).
      .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + 13))
      .sort();
    const allowed = JSON.parse(read("package.json")).allowScripts as Record<string, boolean>;
    assert.deepEqual(Object.keys(allowed).sort(), withScripts);
    assert.ok(Object.values(allowed).every((v) => v === true));
  });
});

/** A ratio or time a guide quotes: the doc, its line, the text, and the bench its paragraph names. */
interface Quoted {
  readonly doc: string;
  readonly line: number;
  readonly text: string;
  readonly numbers: readonly string[];
  readonly unit: string;
  /** After "≤": a target's bound, not a measurement. */
  readonly bound: boolean;
  readonly bench: string | null;
}

/** Ratios (`1.37×`, `1.88–2.66×`) in every guide; times (`0.37 s`, `818.4 ms`) in performance.md. */
function quotedFigures(doc: string): Quoted[] {
  const text = read(`docs/${doc}`);
  const out: Quoted[] = [];
  const figure = doc === "performance.md"
    ? /(?<![\w.×])(\d+(?:\.\d+)?)(?:–(\d+(?:\.\d+)?))?(?: ?(×)|\s(ms|s|µs)\b)/g
    : /(?<![\w.×])(\d+(?:\.\d+)?)(?:–(\d+(?:\.\d+)?))?(×)/g;
  // Node / Deno / Bun ratios of the same case: `0.99 / 0.81 / 0.91`.
  const triple = /(?<![\w.])(\d+\.\d+) \/ (\d+\.\d+) \/ (\d+\.\d+)(?![\d.])/g;
  let offset = 0;
  for (const paragraph of text.split(/\n\s*\n/)) {
    const flat = paragraph.replace(/\s+/g, " ");
    const found = [
      ...[...paragraph.matchAll(figure)].map((m) => ({
        m,
        numbers: [m[1]!, ...(m[2] === undefined ? [] : [m[2]])],
        unit: m[3] ?? m[4]!,
      })),
      ...(doc === "performance.md" ? [...paragraph.matchAll(triple)] : []).map((m) => ({
        m,
        numbers: [m[1]!, m[2]!, m[3]!],
        unit: "×",
      })),
    ];
    for (const { m, numbers, unit } of found) {
      const before = paragraph.slice(0, m.index).replace(/\s+/g, " ");
      const named = [...before.matchAll(/npm run bench -- (\w+)|bench\/(\w+)_bench\.ts/g)].at(-1) ??
        /npm run bench -- (\w+)|bench\/(\w+)_bench\.ts/.exec(flat);
      out.push({
        doc,
        line: text.slice(0, offset + m.index!).split("\n").length,
        text: m[0].replace(/\s+/g, " "),
        numbers,
        unit,
        bound: /≤\s*$/.test(before),
        bench: named === undefined || named === null ? null : (named[1] ?? named[2]!),
      });
    }
    offset += paragraph.length +
      (text.slice(offset + paragraph.length).match(/^\n\s*\n/)?.[0].length ?? 0);
  }
  return out;
}

/**
 * The numbers of RESULTS.md's `### <bench>` section and of its summary (headline, targets, what
 * bounds them); the whole file when no bench is named; none for a bench it has no section for.
 */
function resultNumbers(results: string, bench: string | null, unit: string): string[] {
  const text = section(results, bench);
  const pattern = unit === "×"
    ? /(?<![\w.])(-?\d+(?:\.\d+)?)(?:×| \(|\s*\|)/g
    : new RegExp(String.raw`(?<![\w.])(\d+(?:\.\d+)?) ${unit}\b`, "g");
  return [...text.matchAll(pattern)].map((m) => m[1]!);
}

/** RESULTS.md's summary and its `### <bench>` section; all of it when no bench is named. */
function section(results: string, bench: string | null): string {
  if (bench === null) return results;
  const start = results.indexOf(`\n### ${bench}\n`);
  const end = results.indexOf("\n### ", start + 1);
  return results.slice(0, results.indexOf("\n## Every measurement")) +
    (start < 0 ? "" : results.slice(start, end < 0 ? undefined : end));
}

/** Whether `quoted` is `measured`, or `measured` rounded to the decimals `quoted` shows. */
function sameFigure(quoted: string, measured: string): boolean {
  if (quoted === measured) return true;
  const decimals = quoted.split(".")[1]?.length ?? 0;
  const digits = measured.split(".")[1]?.length ?? 0;
  return decimals < digits && Number(measured).toFixed(decimals) === quoted;
}

/**
 * Figures the guides quote from runs RESULTS.md does not hold (an earlier run, the CPU-time
 * script, a one-off A/B), each with why; every entry must still be in its guide.
 */
const NOT_IN_RESULTS: readonly (readonly [string, string, string])[] = [
  ["performance.md", "1.51–1.56×", "one earlier full run at 10^6"],
  ["performance.md", "0.37 s", 'mcp_connect: its target row reads "not measured"'],
  ["performance.md", "3.4×", 'mcp_connect: its target row reads "not measured"'],
  ...["2.46×", "3.70×", "2.91×"].map((text) =>
    ["performance.md", text, "the last stop's committed tool_policy run"] as const
  ),
  ["performance.md", "2.86–2.92×", "five Deno-only tool_policy runs of the final code"],
  ["performance.md", "9.43×", "the last stop's Bun search run, a collection before each round"],
  ["performance.md", "497 µs", "the last stop's Bun search run, a collection before each round"],
  ["performance.md", "8.44×", "a Bun search run of this stop with a collection before each round"],
  ...["4.41×", "3.15×", "3.29×"].map((text) =>
    ["performance.md", text, "the last stop's committed author_kit run"] as const
  ),
  ["performance.md", "1.23–1.50×", "discovery before it entered skill folders"],
  ["performance.md", "70–110 ms", "the catalog's three runs on a shared machine"],
  ["performance.md", "4.25×", "an earlier search run, before typo candidates were grouped"],
  ["performance.md", "6.95×", "an earlier search run, before typo candidates were grouped"],
  ["performance.md", "4.70×", "an earlier search run, before typo candidates were grouped"],
  ["performance.md", "2.5 s", "indexing a long word before the fix; author_kit's CPU seconds"],
  ["performance.md", "8.8 µs", "a profile of the checked read, not a bench row"],
  ["performance.md", "4.0 µs", "a profile of the checked read, not a bench row"],
  ["performance.md", "1136 s", "the full run's wall time"],
  ["usage.md", "0.75–2.90×", "four catalog_usage runs, ranges over them"],
  ["usage.md", "1.23–4.58×", "four catalog_usage runs, ranges over them"],
  ["usage.md", "1.33–4.87×", "four catalog_usage runs, ranges over them"],
  ["usage.md", "0.61–0.98×", "four catalog_usage runs, ranges over them"],
  ["performance.md", "0.85–1.08×", "the catalog's three runs on a shared machine"],
  ["performance.md", "0.89–1.42×", "the catalog's three runs on a shared machine"],
  ["performance.md", "137 µs", "a scratch script timing the queries in a fresh Bun process"],
  ...["1.56 s", "1.84 s", "2.41 s"].map((text) =>
    ["performance.md", text, "author_kit's CPU seconds, a value row without a unit"] as const
  ),
  ["performance.md", "1.13×", "validate on bodies with no missing path, a one-off A/B profile"],
  ...["0.13–0.25×", "0.04–0.11×"].map((text) =>
    ["performance.md", text, "the catalog's selection alone, a CPU-time scratch script"] as const
  ),
];

/** Whether one line of `section` holds `numbers` in order (Node / Deno / Bun). */
function inOneLine(section: string, numbers: readonly string[]): boolean {
  return section.split("\n").some((line) => {
    const there = resultNumbers(line, null, "×");
    let at = 0;
    for (const n of numbers) {
      while (at < there.length && !sameFigure(n, there[at]!)) at++;
      if (at === there.length) return false;
      at++;
    }
    return true;
  });
}

describe("docs quote bench/RESULTS.md", () => {
  const results = read("bench/RESULTS.md");
  const bounds = new Set(
    [...results.matchAll(/^\| [^|]+\| ≤ ([\d.]+) +\|/gm)].map((m) => m[1]!),
  );
  const docs = readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).sort();
  it("the figures the guides quote from other runs are still quoted", () => {
    for (const [doc, text, why] of NOT_IN_RESULTS) {
      assert.ok(
        quotedFigures(doc).some((q) => q.text === text),
        `${doc}: ${text} (${why}) is gone`,
      );
    }
  });

  it("every ratio in docs/ and every time in performance.md is a measurement or a target of RESULTS.md", () => {
    const wrong: string[] = [];
    for (const doc of docs) {
      for (const q of quotedFigures(doc)) {
        const excused = NOT_IN_RESULTS.some(([d, text]) => d === doc && text === q.text);
        if (excused) continue;
        if (q.bound) {
          if (!bounds.has(q.numbers[0]!)) {
            wrong.push(`${doc}:${q.line}: target ≤ ${q.text} is no bound in RESULTS.md`);
          }
          continue;
        }
        const measured = resultNumbers(results, q.bench, q.unit);
        const missing = q.numbers.filter((n) => !measured.some((m) => sameFigure(n, m)));
        if (
          missing.length > 0 ||
          (q.numbers.length === 3 && !inOneLine(section(results, q.bench), q.numbers))
        ) {
          wrong.push(
            `${doc}:${q.line}: ${q.text} (${q.bench ?? "any bench"}) is not in RESULTS.md`,
          );
        }
      }
    }
    assert.deepEqual(wrong, []);
  });
});

/** `skillset <command> …` in a guide: in a code span, or a line of a fenced block. */
function commandLines(doc: string): { line: number; text: string }[] {
  const text = read(`docs/${doc}`);
  const out: { line: number; text: string }[] = [];
  const lineOf = (index: number) => text.slice(0, index).split("\n").length;
  // A span may wrap a line in the source: its newlines are spaces.
  for (const m of text.matchAll(/(?<!`)`([^`]+)`(?!`)/g)) {
    const span = m[1]!.replace(/\s+/g, " ");
    if (/^(?:npx |bunx )?skillset [a-z]/.test(span)) {
      out.push({ line: lineOf(m.index!), text: span });
    }
  }
  // In a fenced block, commands; in a console transcript, only the `$ ` lines (the rest is
  // output), and not one the transcript shows refused as unknown (`$ skillset verfy`).
  let fenced = false;
  let prompts = false;
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    if (/^ {0,3}(?:```|~~~)/.test(line)) {
      fenced = !fenced;
      const end = lines.findIndex((l, j) => j > i && /^ {0,3}(?:```|~~~)/.test(l));
      prompts = fenced && lines.slice(i + 1, end).some((l) => l.startsWith("$ "));
      return;
    }
    if (!fenced || (prompts && !line.startsWith("$ "))) return;
    if (/^skillset: unknown command/.test(lines[i + 1] ?? "")) return;
    if (/^\s*(?:\$ )?(?:npx |bunx )?skillset [a-z]/.test(line)) {
      out.push({ line: i + 1, text: line.trim().replace(/^\$ /, "") });
    }
  });
  return out;
}

describe("docs name only commands and flags the CLI has", () => {
  it("every `skillset <command> --flag` in docs/ is a command and flag of the CLI's help", async () => {
    const { COMMANDS, TOOL_HELP } = await import("../lib/cli/_commands.ts");
    const { mcpArgSpec } = await import("../lib/cli/mcp/_mcp.ts");
    const everyCommand = ["--json", "--help", "-h", "--quiet", "-q", "--verbose", "--version"];
    const wrong: string[] = [];
    const docs = readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).sort();
    let flags = 0;
    for (const doc of docs) {
      for (const { line, text } of commandLines(doc)) {
        // One command: up to a pipe, a list of commands, a comment, or the script's own arguments.
        const words = text.split(/\s(?:\||&&|;|#|--)(?:\s|$)/)[0]!.split(/\s+/);
        const name = words[words.indexOf("skillset") + 1]!;
        if (name === "help") continue;
        const spec = COMMANDS[name];
        if (spec === undefined) {
          wrong.push(`${doc}:${line}: no command "${name}" (${text})`);
          continue;
        }
        // What the CLI parses (the command's spec, and its MCP spec when it has one) and what
        // `skillset help <command>` shows: a flag must be both.
        const mcp = mcpArgSpec(name);
        const parsed = new Set([
          ...spec.values,
          ...(spec.switches ?? []),
          ...(mcp?.values ?? []),
          ...(mcp?.switches ?? []),
          ...everyCommand,
        ]);
        const shown = `${spec.usage} ${spec.help} ${TOOL_HELP}`;
        for (const word of words) {
          const flag = /^(--[a-z][\w-]*)/.exec(word)?.[1];
          if (flag === undefined) continue;
          flags++;
          if (!parsed.has(flag)) wrong.push(`${doc}:${line}: skillset ${name} has no ${flag}`);
          else if (!everyCommand.includes(flag) && !new RegExp(`${flag}(?![\\w-])`).test(shown)) {
            wrong.push(`${doc}:${line}: skillset help ${name} does not name ${flag}`);
          }
        }
      }
    }
    assert.deepEqual(wrong, []);
    assert.ok(flags > 50, `only ${flags} flags found: the scan no longer finds the commands`);
  });
});

describe("docs' counts are what the repository holds", () => {
  const requests = JSON.parse(read("bench/search_eval/requests.json")) as {
    collections: { source: string; skills: number }[];
    requests: { class: string; split: string; author?: string }[];
  };
  const servable = requests.requests.filter((r) => r.class !== "nomatch");
  const queries = JSON.parse(read("bench/search_queries.json")) as {
    tune: unknown[];
    eval: unknown[];
  };
  const fixtures = join(ROOT, "tests", "fixtures", "skill_collections");
  const fixtureSkills = new Map(
    readdirSync(fixtures, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => [
      e.name,
      (JSON.parse(read(`tests/fixtures/skill_collections/${e.name}/skills.json`)) as unknown[])
        .length,
    ]),
  );
  const skills = requests.collections.map((c) => c.skills);
  const words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
  const quick = readdirSync(join(ROOT, "tests"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith("_test.ts"))
    .map((f) => read(`tests/${f}`))
    .filter((text) => !text.includes("// @slow:"));
  // [guide, the sentence with the counts as groups, the counts as the repository has them]
  const counts: [string, RegExp, (string | number)[]][] = [
    ["performance.md", /the (\d+) real descriptions of `tests\/fixtures\/skill_collections`/, [
      [...fixtureSkills.values()].reduce((a, b) => a + b, 0),
    ]],
    ["performance.md", /On the older (\d+) held-out queries over (\d+) skills/, [
      queries.eval.length,
      [...fixtureSkills.values()].reduce((a, b) => a + b, 0),
    ]],
    [
      "performance.md",
      /Quality, on (\d+) requests written the way users ask for tasks over (\w+) public collections \(`bench\/search_eval\/`, (\d+) held out, (\d+) of them written by a second author/,
      [
        servable.length,
        words[requests.collections.length]!,
        servable.filter((r) => r.split === "eval").length,
        servable.filter((r) => r.author !== undefined).length,
      ],
    ],
    ["performance.md", /Of the (\d+) held-out requests no skill serves/, [
      requests.requests.filter((r) => r.class === "nomatch" && r.split === "eval").length,
    ]],
    [
      "large-libraries.md",
      /On (\d+) requests written the way users ask for tasks, over (\w+) public collections \((\d+) to (\d+) skills\), (\d+) held out/,
      [
        servable.length,
        words[requests.collections.length]!,
        Math.min(...skills),
        Math.max(...skills),
        servable.filter((r) => r.split === "eval").length,
      ],
    ],
    ["large-libraries.md", /On the (\d+) of them written by a second author/, [
      servable.filter((r) => r.author !== undefined).length,
    ]],
    ["large-libraries.md", /with it, [\d.]+ of the (\d+) held-out requests no skill serves/, [
      requests.requests.filter((r) => r.class === "nomatch" && r.split === "eval").length,
    ]],
    ["large-libraries.md", /block of a (\d+)-skill collection/, [
      fixtureSkills.get("sickn33+antigravity-awesome-skills")!,
    ]],
  ];
  // mcp.md's served counts: what a collection serves plus what it skips (not counting shadowed
  // skills, which discovery never loads) is what discovery found there — as recorded with its
  // commit in requests.json, or as the fixture holds it.
  const recorded = new Map(
    requests.collections.map((c) => [c.source, c.skills]),
  );
  const served = read("docs/mcp.md").replace(/\s+/g, " ");
  const number = (w: string) => words.includes(w) ? words.indexOf(w) : Number(w);
  const serves: [RegExp, number][] = [
    [
      /anthropics\/skills serves (\d+) \(skipped: `[^`]+`, (a) description/,
      recorded.get("anthropics/skills")!,
    ],
    [/obra\/superpowers (\d+),/, recorded.get("obra/superpowers")!],
    [
      /K-Dense-AI\/claude-scientific-skills (\d+) \(skipped: (\w+) description over 1,024 characters, (\w+) `metadata`/,
      recorded.get("K-Dense-AI/claude-scientific-skills")!,
    ],
    [
      /alirezarezvani\/claude-skills (\d+) \(\w+ shadowed by an earlier skill of the same name, one nested sample SKILL\.md, (\w+) `metadata`\)/,
      fixtureSkills.get("alirezarezvani+claude-skills")!,
    ],
    [
      /sickn33\/antigravity-awesome-skills (\d+) \((\d+) names such as `[^`]+` that are not one plain segment, \w+ shadowed, (\w+) frontmatter the SDK cannot read\)/,
      fixtureSkills.get("sickn33+antigravity-awesome-skills")!,
    ],
    [
      /ComposioHQ\/awesome-claude-skills (\d+) \((\d+) names with `_`\)/,
      recorded.get("ComposioHQ/awesome-claude-skills")!,
    ],
    [/openai\/skills (\d+) \(its skills/, recorded.get("openai/skills")!],
  ];
  for (const [sentence, found] of serves) {
    it(`mcp.md: ${sentence.source.slice(0, 40)}… serves what discovery found, less what it skips`, () => {
      const m = sentence.exec(served);
      assert.ok(m !== null, `mcp.md no longer says ${sentence.source}`);
      const [shown, ...skipped] = m.slice(1).map((w) => w === "a" ? 1 : number(w));
      assert.equal(shown! + skipped.reduce((a, b) => a + b, 0), found);
    });
  }

  for (const [doc, sentence, expected] of counts) {
    it(`${doc}: ${sentence.source.slice(0, 60)}…`, () => {
      const m = sentence.exec(read(`docs/${doc}`).replace(/\s+/g, " "));
      assert.ok(m !== null, `${doc} no longer says ${sentence.source}`);
      assert.deepEqual(m.slice(1), expected.map(String));
    });
  }

  it('development.md\'s "over 500 tests" in test:quick: the files it runs hold more', () => {
    const said = /\(under a minute on two cores, over (\d+) tests\)/.exec(
      read("docs/development.md").replace(/\s+/g, " "),
    );
    assert.ok(said !== null, "development.md no longer counts the quick tests");
    const found = quick.reduce((n, text) => n + (text.match(/^\s*it\(/gm)?.length ?? 0), 0);
    assert.ok(found > Number(said[1]), `${found} tests in the quick files`);
  });
});
