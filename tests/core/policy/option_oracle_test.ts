// @slow: runs git, npm, tar, zip, sort, find and rg for real in bubblewrap under strace (left out of `npm run test:quick`)
//
// The oracle of the option tables, which does not share them: every command a
// policy allows from `Bash(<program>:*)` runs for real, inside bubblewrap
// (only a scratch folder writable, no network) under `strace -f`, and must
// execute nothing but the named program and its own helpers (git's `git-*`,
// the `sh` its transports, npm's scripts and tar's compressors run through) and write
// nothing outside the scratch folder. The commands mix the tables' own
// options, in every spelling their parsers accept, with options known to run
// code (each with a payload that executes /sandbox/PWNED, or writes to /tmp)
// in every spelling too, and operands.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fc, runs } from "../../_fc.ts";
import { decideToolCall, shellWords } from "../../../mod.ts";
import { OPTION_TABLES, type OptionTableSpec } from "../../../lib/core/policy/option_tables.ts";
import {
  compileOptionTables,
  type OptionTables,
  unapprovedOption,
} from "../../../lib/core/policy/options.ts";
import { codeRunningOptions } from "../../../lib/testing/_code_running_options.ts";

type Program = "git" | "npm" | "tar" | "zip" | "sort" | "find" | "rg";
const PROGRAMS: readonly Program[] = ["git", "npm", "tar", "zip", "sort", "find", "rg"];

/** What each program may execute besides itself: its own documented helpers. */
const HELPERS: Readonly<Record<Program, (name: string) => boolean>> = {
  // git runs its own git-* programs, `sh -c` for its transports' commands, and ssh for an ssh remote.
  git: (n) => n === "git" || n.startsWith("git-") || n === "sh" || n === "ssh",
  // npm is a node script (through env); it runs a package's scripts with sh.
  npm: (n) => ["npm", "npm-cli.js", "node", "env", "sh"].includes(n),
  // tar runs its compressors through `sh -c`.
  tar: (n) => ["tar", "sh", "gzip", "bzip2", "xz", "zstd", "lzip", "lzma", "lzop"].includes(n),
  zip: (n) => n === "zip",
  sort: (n) => n === "sort",
  find: (n) => n === "find",
  rg: (n) => n === "rg",
};

function which(name: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;
}

const MISSING = ["bwrap", "strace"].filter((p) => !which(p));
const SKIP = MISSING.length > 0 ? `no ${MISSING.join(" or ")} on this machine` : false;
const PRESENT = PROGRAMS.filter(which);

const BWRAP = [
  "--unshare-all",
  "--die-with-parent",
  "--new-session",
  "--ro-bind",
  "/usr",
  "/usr",
  "--symlink",
  "usr/bin",
  "/bin",
  "--symlink",
  "usr/lib",
  "/lib",
  "--symlink",
  "usr/lib64",
  "/lib64",
  "--ro-bind",
  "/etc",
  "/etc",
  "--proc",
  "/proc",
  "--dev",
  "/dev",
];

/** The scratch folder every command starts from: a repository with a remote, a package, data. */
function template(): string {
  const root = mkdtempSync(join(tmpdir(), "skillset-options-"));
  const dir = join(root, "template");
  for (const sub of ["work/src", "home", "tmp", "evil"]) {
    mkdirSync(join(dir, sub), { recursive: true });
  }
  writeFileSync(join(dir, "PWNED"), "#!/bin/sh\nexit 0\n");
  chmodSync(join(dir, "PWNED"), 0o755);
  writeFileSync(
    join(dir, "pwned.js"),
    'require("child_process").execFileSync("/sandbox/PWNED");\n',
  );
  writeFileSync(join(dir, "home", ".gitconfig"), "[user]\n\tname = a\n\temail = a@b\n");
  // Scripts that start node, so node's options (`--node-options`) would show.
  const scripts = { test: "node -e 0", build: "node -e 0" };
  writeFileSync(
    join(dir, "work", "package.json"),
    JSON.stringify({ name: "x", version: "1.0.0", scripts }),
  );
  writeFileSync(
    join(dir, "evil", "package.json"),
    JSON.stringify({
      name: "e",
      version: "1.0.0",
      scripts: { test: "/sandbox/PWNED", build: "/sandbox/PWNED" },
    }),
  );
  // Enough lines that `sort -S 1K` spills to temporary files (and runs a compressor it is given).
  const lines = Array.from({ length: 20_000 }, (_, i) => `${(i * 7919) % 20_000},b${i}`).join("\n");
  writeFileSync(join(dir, "work", "data.csv"), lines + "\n");
  writeFileSync(join(dir, "work", "a.txt"), "TODO a\n");
  writeFileSync(join(dir, "work", "src", "b.txt"), "TODO b\n");
  const git = (...args: string[]) => {
    const r = spawnSync("git", args, {
      cwd: join(dir, "work"),
      env: {
        PATH: process.env.PATH ?? "/usr/bin",
        HOME: join(dir, "home"),
        GIT_CONFIG_NOSYSTEM: "1",
      },
      stdio: "ignore",
    });
    if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed in the template`);
  };
  git("init", "-q", "-b", "main", ".");
  git("add", "a.txt", "src");
  git("commit", "-q", "-m", "one");
  writeFileSync(join(dir, "work", "a.txt"), "TODO a\nmore\n");
  git("commit", "-q", "-am", "two");
  git("init", "-q", "--bare", "../origin.git");
  git("remote", "add", "origin", "../origin.git");
  git("push", "-q", "origin", "main");
  spawnSync("tar", ["-czf", "arch.tgz", "a.txt"], { cwd: join(dir, "work") });
  spawnSync("gzip", ["-k", "a.txt"], { cwd: join(dir, "work") });
  return dir;
}

/** What one command did in the sandbox: the programs it executed, the writes outside the scratch folder. */
interface Observed {
  readonly execs: readonly string[];
  readonly outside: readonly string[];
}

const WRITE_FLAGS = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/;
const WRITE_CALLS =
  /^(?:creat|mkdir|mkdirat|rename|renameat|renameat2|unlink|unlinkat|symlink|symlinkat|link|linkat|truncate)$/;

function observe(base: string, words: readonly string[], n: number): Observed {
  const scratch = join(base, "..", `run-${n}`);
  cpSync(base, scratch, { recursive: true });
  try {
    const r = spawnSync("bwrap", [
      ...BWRAP,
      "--bind",
      scratch,
      "/sandbox",
      "--chdir",
      "/sandbox/work",
      "/usr/bin/env",
      "-i",
      "PATH=/usr/local/bin:/usr/bin",
      "HOME=/sandbox/home",
      "TMPDIR=/sandbox/tmp",
      // The host's editor is the host's: ":" makes git run none (`git commit` without -m).
      "GIT_EDITOR=:",
      "strace",
      "-f",
      "-qq",
      "-s",
      "512",
      "-o",
      "/sandbox/trace",
      "-e",
      "trace=execve,open,openat,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,symlink,symlinkat,link,linkat,truncate",
      "--",
      ...words,
    ], { stdio: "ignore", timeout: 60_000, input: "" });
    if (r.error !== undefined) throw r.error;
    const trace = readFileSync(join(scratch, "trace"), "utf8");
    const execs: string[] = [];
    const outside: string[] = [];
    for (const line of trace.split("\n")) {
      const m = /^\d+\s+(\w+)\((.*)\)\s+=\s+(-?\d+)(?:\s+(\w+))?/.exec(line);
      if (m === null) continue;
      const [, call, args, , errno] = m;
      const path = /"((?:[^"\\]|\\.)*)"/.exec(args!)?.[1] ?? "";
      if (call === "execve") {
        execs.push(path.slice(path.lastIndexOf("/") + 1));
        continue;
      }
      const writes = WRITE_CALLS.test(call!) ||
        ((call === "open" || call === "openat") && WRITE_FLAGS.test(args!));
      if (!writes) continue;
      // Only the scratch folder is writable: a refused write was aimed outside it.
      if (errno === "EROFS" || errno === "EACCES" || errno === "EPERM") {
        outside.push(`${call} ${path} ${errno}`);
      } else if (
        path.startsWith("/") && !path.startsWith("/sandbox/") &&
        !/^\/dev\/(null|tty|pts\/)/.test(path) &&
        !path.startsWith("/proc/")
      ) outside.push(`${call} ${path}`);
    }
    return { execs, outside };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const VALUES = ["1", "a.txt", "src", "HEAD", "out.tgz", "x"];
const OPERANDS = [
  "a.txt",
  "src",
  ".",
  "HEAD",
  "HEAD~1",
  "main",
  "origin",
  "data.csv",
  "out.zip",
  "x=1",
  "a:b",
];
const P = "/sandbox/PWNED";

/** Every spelling of one table entry, with a value where it takes one: the oracle's atoms (word lists). */
function spellings(style: OptionTableSpec["style"], entry: string): string[][] {
  if (entry.startsWith("!")) return [];
  if (entry === "-#") return [["-3"]];
  const m = /^(-{1,2})([\w-]+)(=|=\?|=path)?$/.exec(entry);
  if (m === null) return [];
  const [, dashes, name, arity] = m;
  const v = VALUES[name!.length % VALUES.length]!;
  const out: string[][] = [];
  const spell = (word: string) => {
    if (arity === undefined) out.push([word]);
    else if (arity === "=?") out.push([word], [`${word}=${v}`]);
    else if (dashes === "-" && name!.length === 1 && style === "getopt") {
      out.push([word, v], [`${word}${v}`]);
    } else out.push([word, v], [`${word}=${v}`]);
  };
  spell(`${dashes}${name}`);
  if (style === "npm") {
    spell(`---${name}`);
    spell(`-${name!.toUpperCase().replaceAll("-", "_")}`);
  }
  if (style === "go") spell(`--${name}`);
  return out;
}

/** The table's own options of a spec, spelled (clusters of two short flags too). */
function tableAtoms(spec: OptionTableSpec): string[][] {
  const entries = spec.options.split(" ").filter((e) => e !== "");
  const atoms = entries.flatMap((e) => spellings(spec.style, e));
  const flags = entries.filter((e) => /^-[A-Za-z0-9]$/.test(e));
  if (spec.style === "getopt") {
    for (let i = 0; i + 1 < flags.length; i += 2) {
      atoms.push([`${flags[i]}${flags[i + 1]!.slice(1)}`]);
    }
  }
  return atoms;
}

/** Options known to run code or write where they are told, each in several spellings, with payloads. */
const HOSTILE: Readonly<Record<Program, readonly (readonly string[])[]>> = {
  git: [
    ["-c", `core.fsmonitor=${P}`],
    ["--upload-pack", P],
    [`--upload-pack=${P}`],
    [`--upload-pa=${P}`],
    [`--receive-pack=${P}`],
    [`--exec=${P}`],
    [`-O${P}`],
    [`--open-files-in-pager=${P}`],
    ["--output=/tmp/out"],
    ["--outp", "/tmp/out"],
    ["-S"],
    ["--gpg-sign"],
    ["-x", P],
    ["--exec", P],
    ["--ext-diff"],
  ],
  npm: [
    [`--script-shell=${P}`],
    [`---script-shell=${P}`],
    [`----script-shell=${P}`],
    ["-script-shell", P],
    [`--script_shell=${P}`],
    [`--SCRIPT-SHELL=${P}`],
    ["--node-options=--require=/sandbox/pwned.js"],
    ["---node-options=--require=/sandbox/pwned.js"],
    ["--node_options", "--require=/sandbox/pwned.js"],
    ["--prefix=/sandbox/evil"],
    ["---prefix", "/sandbox/evil"],
    ["-C", "/sandbox/evil"],
  ],
  tar: [
    ["-I", P],
    [`--use-compress-program=${P}`],
    [`--use-compress=${P}`],
    [`--to-command=${P}`],
    ["--checkpoint=1", `--checkpoint-action=exec=${P}`],
    [`--info-script=${P}`, "-M"],
    ["-F", P, "-M"],
    [`--rsh-command=${P}`, "-f", "h:x.tar"],
    ["-f", "h:x.tar"],
    ["-P", "-f", "/tmp/out.tar"],
  ],
  zip: [
    ["-T", "-TT", P],
    ["-TT", P, "-T"],
    ["--unzip-command", P, "-T"],
    ["-T"],
    ["-b", "/tmp"],
  ],
  sort: [
    ["-S", "1K", `--compress-program=${P}`],
    ["-S1K", `--compress-prog=${P}`],
    ["--buffer-size=1K", "--compress-program", P],
    ["-T", "/tmp"],
  ],
  find: [
    ["-exec", P, ";"],
    ["-execdir", P, "{}", "+"],
    ["-fprint", "/tmp/out"],
    ["-fprintf", "/tmp/out", "%p"],
    ["-fls", "/tmp/out"],
  ],
  rg: [
    ["--pre", P],
    [`--pre=${P}`],
    ["-z"],
    ["--search-zip"],
    ["--pre-glob", "*", "--pre", P],
  ],
};

/** The subcommands a generated command may start with (table ones and others). */
const LEADS: Readonly<Record<Program, readonly (readonly string[])[]>> = {
  git: [
    ...[...OPTION_TABLES.get("git")!.subcommands!.keys()].map((s) => [s]),
    ["config", "core.pager", P],
    ["rebase"],
    ["difftool"],
    ["grep", "TODO"],
    ["--no-pager", "log"],
    ["-c", `alias.x=!${P}`, "x"],
  ],
  npm: [["test"], ["run", "build"], ["t"], ["run-script", "test"], ["exec", "--", P], ["explore"]],
  tar: [["-czf", "out.tgz"], ["czf", "out.tgz"], ["-xzf", "arch.tgz"], ["tzf", "arch.tgz"], [
    "-c",
    "-f",
    "out.tar",
  ]],
  zip: [["out.zip"], ["-r", "out.zip"]],
  sort: [["data.csv"], []],
  find: [["."], ["src"], ["--", "."]],
  rg: [["TODO"], ["-n", "TODO"]],
};

/**
 * Generated commands of one program. With `aim`, each command carries one of
 * the options known to run code that the aim matches, beside a lead and up to
 * two operands (a file among them more often than not): an aimed law runs
 * only such commands, so it does not depend on chance to meet one.
 */
function commandArbitrary(program: Program, aim: RegExp | null): fc.Arbitrary<string[]> {
  const spec = OPTION_TABLES.get(program)!;
  const own = tableAtoms(spec);
  const lead = fc.constantFrom(...LEADS[program]);
  if (aim !== null) {
    const hit = HOSTILE[program].filter((a) => aim.test(a.join(" ")));
    if (hit.length === 0) throw new Error(`no hostile option of ${program} matches ${aim}`);
    const operand = fc.constantFrom("a.txt", "src", ".", ...OPERANDS).map((o) => [o]);
    return fc.tuple(
      lead,
      fc.constantFrom(...hit),
      fc.array(operand, { maxLength: 2 }),
      fc.boolean(),
    )
      .map(([head, h, operands, first]) => {
        const rest = first ? [h, ...operands] : [...operands, h];
        return [program, ...head, ...rest.flat()];
      });
  }
  return lead.chain((head) => {
    const sub = spec.subcommands?.get(head[0] ?? "");
    const pool = sub === undefined ? own : [...own, ...tableAtoms(sub)];
    const atom = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...pool) },
      { weight: 2, arbitrary: fc.constantFrom(...HOSTILE[program]) },
      { weight: 2, arbitrary: fc.constantFrom(...OPERANDS).map((o) => [o]) },
      { weight: 1, arbitrary: fc.constant(["--"]) },
    );
    return fc.array(atom, { maxLength: 4 }).map((
      atoms,
    ) => [program, ...head, ...atoms.flat()]);
  });
}

/** A command as a tool call holds it: each word single-quoted. */
function quoted(words: readonly string[]): string {
  return words.map((w) => `'${w}'`).join(" ");
}

type Decide = (program: Program, command: string) => boolean;

/** The policy itself. */
const policy: Decide = (program, command) =>
  decideToolCall({
    call: { name: "Bash", input: { command } },
    active: [{ name: "s", allowed_tools: `Bash(${program}:*)` }],
    mode: "restrict",
    trusted: true,
  }).verdict === "allow";

/** The policy's rule for `Bash(<program>:*)` over other tables. */
const withTables = (tables: OptionTables): Decide => (program, command) => {
  const words = shellWords(command);
  return words !== undefined && words[0] === program &&
    unapprovedOption(words, 1, null, tables) === undefined;
};

/** The code before issue 39: a prefix, and none of the listed code-running options. */
const before: Decide = (program, command) => {
  const words = shellWords(command);
  return words !== undefined && words[0] === program && codeRunningOptions(words).length === 0;
};

/** What is wrong with running one allowed command: programs it should not run, writes outside. */
function violation(
  base: string,
  program: Program,
  words: readonly string[],
  n: number,
): string | undefined {
  const seen = observe(base, words, n);
  const stray = seen.execs.filter((e) => !HELPERS[program](e));
  if (stray.length === 0 && seen.outside.length === 0) return undefined;
  return `${quoted(words)} was allowed from Bash(${program}:*) and ran ${
    JSON.stringify(stray)
  }, wrote outside ${JSON.stringify(seen.outside)}`;
}

/**
 * Run the law over generated commands of `programs`: the first violation
 * (without shrinking: each run is a sandboxed process), and how many
 * commands ran.
 */
function law(
  base: string,
  decide: Decide,
  programs: readonly Program[],
  numRuns: number,
  aim: RegExp | null = null,
): { ran: number; failure: string | undefined } {
  let ran = 0;
  let failure: string | undefined;
  // npm takes seconds a command: it comes up half as often as the others.
  const weighted = programs.map((p) => ({
    weight: p === "npm" ? 1 : 2,
    arbitrary: fc.constant(p),
  }));
  const commands = fc.oneof(...weighted).chain((p) =>
    commandArbitrary(p, aim).map((w) => [p, w] as const)
  );
  fc.check(
    fc.property(commands, ([p, words]) => {
      // An aimed law runs only the commands that carry an aimed option.
      if (aim !== null && !aim.test(words.join(" "))) return true;
      if (!decide(p, quoted(words))) return true;
      failure = violation(base, p, words, ran++);
      return failure === undefined;
    }),
    { numRuns, endOnFailure: true },
  );
  return { ran, failure };
}

describe(
  "the option tables against the programs themselves (strace in bubblewrap)",
  { skip: SKIP },
  () => {
    const base = SKIP === false ? template() : "";
    after(() => {
      if (base !== "") rmSync(join(base, ".."), { recursive: true, force: true });
    });

    it("every command the policy allows from Bash(<program>:*) runs only that program and its helpers, and writes only in its folder", () => {
      const { ran, failure } = law(base, policy, PRESENT, runs(60).numRuns);
      assert.equal(failure, undefined);
      assert.ok(ran > 0, "no generated command was allowed");
    });

    it("finds what the code before this law let through: npm's ---node-options and zip's -TT", () => {
      const cases: readonly [Program, readonly string[]][] = [
        ["npm", ["npm", "test", "---node-options=--require=/sandbox/pwned.js"]],
        ["npm", ["npm", "test", `----script-shell=${P}`]],
        ["zip", ["zip", "-T", "-TT", P, "out.zip", "a.txt"]],
      ];
      for (const [program, words] of cases) {
        if (!PRESENT.includes(program)) continue;
        assert.ok(before(program, quoted(words)), `the old list allowed ${quoted(words)}`);
        assert.match(violation(base, program, words, 0) ?? "", /PWNED/);
        assert.equal(policy(program, quoted(words)), false);
      }
      // And the generated law finds them under the old list by itself.
      const aims: readonly [Program, RegExp][] = [
        ["npm", /node.options|script.shell/i],
        ["zip", /-TT/],
      ];
      for (const [program, aim] of aims) {
        if (!PRESENT.includes(program)) continue;
        // Every aimed command carries the option; the first violation ends the run.
        const { failure } = law(base, before, [program], 100, aim);
        assert.match(failure ?? "no failure", aim, program);
      }
    });

    it("fails when a table gains one code-running option", () => {
      const mutations: readonly [Program, string][] = [
        ["sort", "--compress-program="],
        ["find", "-exec="],
        ["rg", "--pre="],
        ["tar", "--use-compress-program="],
      ];
      for (const [program, option] of mutations) {
        if (!PRESENT.includes(program)) continue;
        const spec = OPTION_TABLES.get(program)!;
        const tables = compileOptionTables(
          new Map([...OPTION_TABLES, [program, { ...spec, options: `${spec.options} ${option}` }]]),
        );
        const aim = new RegExp(option.slice(1, -1));
        const { failure } = law(base, withTables(tables), [program], 100, aim);
        assert.match(
          failure ?? "no failure",
          aim,
          `${program} ${option}`,
        );
      }
    });
  },
);
