// @slow: appends from several child processes at once (left out of `npm run test:quick`)
// @every-runtime: concurrent appends go through each runtime's fs
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fc, runs } from "../../_fc.ts";
import { exited, firstOutput, startChild } from "../../_spawn.ts";
import {
  type ActivationEvent,
  activationEvent,
  createBundle,
  formatActivationEvent,
  handleSkillTool,
  parseActivationEvent,
} from "../../../mod.ts";
import {
  appendActivationEvent,
  MAX_USAGE_LINE_BYTES,
  readUsageLog,
  tallyUsageLog,
  UsageLogError,
  usageLogSink,
} from "../../../lib/load.ts";

const NOW = Date.UTC(2026, 11, 1);
const temp = (): string => mkdtempSync(join(tmpdir(), "skillset-usage-"));
const line = (name: string, time = NOW, trigger: "model" | "user" = "model"): string =>
  formatActivationEvent(activationEvent({ name, origin: "local", trigger }, time));

function readAll(path: string, options: { maxLineBytes?: number } = {}) {
  const events: ActivationEvent[] = [];
  const summary = readUsageLog(path, (e) => events.push(e), options);
  return { names: events.map((e) => e.attributes["gen_ai.skill.name"]), summary };
}

describe("appending to the usage log", () => {
  it("each append is one whole line; a new log is private to its owner", () => {
    const log = join(temp(), "usage.jsonl");
    appendActivationEvent(
      log,
      activationEvent({ name: "pdf", origin: "local", trigger: "user" }, NOW),
    );
    appendActivationEvent(
      log,
      activationEvent({ name: "csv", origin: "docs", trigger: "model" }, NOW),
    );
    assert.equal(
      readFileSync(log, "utf8"),
      line("pdf", NOW, "user") + line("csv").replace('"local"', '"docs"'),
    );
    if (process.platform !== "win32") assert.equal(statSync(log).mode & 0o777, 0o600);
  });

  it("the sink times each activation by its clock, through the skill tool handler", () => {
    const log = join(temp(), "usage.jsonl");
    let clock = NOW;
    const pdf = createBundle({
      frontmatter: { name: "pdf", description: "PDF" },
      instructions: "",
    });
    const context = { skills: [pdf], on_activate: usageLogSink(log, { clock: () => clock }) };
    handleSkillTool({ skill: "pdf" }, context);
    clock += 1000;
    handleSkillTool({ skill: "pdf" }, context, { user: true });
    handleSkillTool({ skill: "pdf", resource: "SKILL.md" }, context);
    assert.equal(readFileSync(log, "utf8"), line("pdf", NOW) + line("pdf", NOW + 1000, "user"));
    assert.throws(() => usageLogSink(""), TypeError);
  });

  it("a line longer than the cap is refused whole, never written in part", () => {
    const log = join(temp(), "usage.jsonl");
    const wide = "🙂".repeat(512); // 1,024 code units, 2,048 bytes
    assert.throws(
      () =>
        appendActivationEvent(
          log,
          activationEvent({ name: wide, origin: wide, trigger: "model" }, NOW),
        ),
      (e: unknown) =>
        e instanceof UsageLogError && e.code === "EVENT_TOO_LARGE" && e.path === log &&
        /^The event's line has \d+ bytes, more than the 4096 a usage log holds$/.test(e.message),
    );
    assert.throws(() => statSync(log), { code: "ENOENT" });
  });

  it("a folder is not a log; a missing folder cannot be appended to", () => {
    const dir = temp();
    assert.throws(
      () =>
        appendActivationEvent(
          dir,
          activationEvent({ name: "a", origin: "local", trigger: "user" }, 0),
        ),
      {
        name: "UsageLogError",
        code: "LOG_NOT_A_FILE",
        message: "The usage log is not a regular file",
      },
    );
    assert.throws(
      () =>
        appendActivationEvent(
          join(dir, "no", "such.jsonl"),
          activationEvent({ name: "a", origin: "local", trigger: "user" }, 0),
        ),
      {
        name: "UsageLogError",
        code: "LOG_UNWRITABLE",
        message: "The usage log cannot be appended to (ENOENT)",
      },
    );
    assert.throws(() => readUsageLog(dir, () => {}), { code: "LOG_NOT_A_FILE" });
  });

  it("only a usage log is appended to: never through a link, never to another file", () => {
    const dir = temp();
    const event = activationEvent({ name: "a", origin: "local", trigger: "user" }, 0);
    // What a hostile skillset.json could name: a shell profile, directly or through a link.
    const profile = join(dir, ".bashrc");
    writeFileSync(profile, "export PATH=$HOME/bin:$PATH\n");
    symlinkSync(profile, join(dir, "usage.jsonl"));
    assert.throws(() => appendActivationEvent(join(dir, "usage.jsonl"), event), {
      name: "UsageLogError",
      code: "LOG_NOT_A_FILE",
      message: "The usage log is a link; name the file itself",
    });
    assert.throws(() => appendActivationEvent(profile, event), {
      name: "UsageLogError",
      code: "LOG_FOREIGN",
      message:
        "The file is not a usage log (its first line is not an activation event); not appended to",
    });
    assert.equal(readFileSync(profile, "utf8"), "export PATH=$HOME/bin:$PATH\n");
    // A first line longer than any event, or no line at all, is not a usage log either.
    const long = join(dir, "long");
    writeFileSync(long, "x".repeat(MAX_USAGE_LINE_BYTES + 10));
    assert.throws(() => appendActivationEvent(long, event), { code: "LOG_FOREIGN" });
    // An empty file and a log that starts with an event (then anything) are appended to.
    const empty = join(dir, "empty.jsonl");
    writeFileSync(empty, "");
    appendActivationEvent(empty, event);
    appendFileSync(empty, "torn garbage\n");
    appendActivationEvent(empty, event);
    assert.equal(readAll(empty).names.length, 2);
  });

  it("two processes appending at once never mix their lines", async () => {
    const dir = temp();
    const log = join(dir, "usage.jsonl");
    const go = join(dir, "go");
    const count = 1500;
    const writers = ["a", "b"].map((tag) =>
      startChild(["check", "_usage.ts", "appendMany", JSON.stringify([log, go, tag, count, 1024])])
    );
    await Promise.all(writers.map(firstOutput));
    writeFileSync(go, "");
    const codes = await Promise.all(writers.map(exited));
    assert.deepEqual(codes, [0, 0]);
    const { names, summary } = readAll(log);
    assert.deepEqual(summary, { exists: true, events: 2 * count, skipped: 0, too_long: 0 });
    // Each writer's lines whole and in its own order.
    for (const tag of ["a", "b"]) {
      const own = names.filter((n) => n.startsWith(`${tag}-`)).map((n) => Number(n.split("-")[1]));
      assert.deepEqual(own, Array.from({ length: count }, (_, i) => i));
    }
  });
});

describe("reading the usage log", () => {
  it("what the callback throws comes through as it is, the file closed", () => {
    const log = join(temp(), "usage.jsonl");
    writeFileSync(log, line("a") + line("b"));
    const stop = new Error("enough");
    assert.throws(() =>
      readUsageLog(log, () => {
        throw stop;
      }), (e: unknown) => e === stop);
  });

  it("a missing log reads as empty", () => {
    assert.deepEqual(readAll(join(temp(), "none.jsonl")).summary, {
      exists: false,
      events: 0,
      skipped: 0,
      too_long: 0,
    });
  });

  it("torn, garbled and foreign lines are skipped and counted; blank lines are nothing", () => {
    const log = join(temp(), "usage.jsonl");
    const torn = line("torn").slice(0, 30);
    writeFileSync(log, "");
    appendFileSync(log, line("a"));
    appendFileSync(log, `${torn}\n`); // a writer died mid-line, then a newline came
    appendFileSync(log, "\n   \n");
    appendFileSync(log, new Uint8Array([0xff, 0xfe, 0x7b, 0x0a])); // not UTF-8
    appendFileSync(
      log,
      '{"time_unix_nano":"1","event_name":"gen_ai.evaluation.result","attributes":{}}\n',
    );
    appendFileSync(log, "[1,2,3]\nnull\n");
    appendFileSync(log, torn + line("b")); // a torn line, the next append glued after it
    appendFileSync(log, line("c").slice(0, -1)); // the last line, its newline not yet written
    const { names, summary } = readAll(log);
    assert.deepEqual(names, ["a", "b", "c"]);
    assert.deepEqual(summary, { exists: true, events: 3, skipped: 5, too_long: 0 });
  });

  it("a line over the cap is skipped without being kept, even a well-formed event", () => {
    const log = join(temp(), "usage.jsonl");
    const padded = JSON.parse(line("big"));
    padded.attributes["x.padding"] = "p".repeat(MAX_USAGE_LINE_BYTES);
    writeFileSync(log, line("a") + `${JSON.stringify(padded)}\n` + line("b"));
    assert.ok(parseActivationEvent(JSON.stringify(padded)) !== undefined);
    assert.deepEqual(readAll(log), {
      names: ["a", "b"],
      summary: { exists: true, events: 2, skipped: 1, too_long: 1 },
    });
    // 8 MiB on one line with no newline at all: one skipped line, at the cap's cost.
    const huge = join(temp(), "huge.jsonl");
    writeFileSync(huge, line("a") + "x".repeat(8 << 20));
    assert.deepEqual(readAll(huge).summary, { exists: true, events: 1, skipped: 1, too_long: 1 });
  });

  it("reads what a simple reference reads, across chunk boundaries and caps", () => {
    const dir = temp();
    const pieceArb = fc.oneof(
      fc.record({ name: fc.string({ minLength: 1, maxLength: 40 }), time: fc.nat(NOW) }).map((e) =>
        line(e.name, e.time)
      ),
      fc.string({ maxLength: 80 }).map((s) => `${s}\n`),
      fc.string({ unit: "binary", maxLength: 20 }).map((s) => `${s}\n`),
      fc.constantFrom("\ufeff", "\ud800", "é\n", "\r\n"),
      fc.uint8Array({ maxLength: 8 }), // raw bytes: often not UTF-8
      fc.integer({ min: 1, max: 70_000 }).map((n) => `${"y".repeat(n)}\n`),
      fc.integer({ min: 1, max: 70_000 }).map((n) => "z".repeat(n)), // no newline: it runs on
      fc.constant("\n"),
    );
    fc.assert(
      fc.property(
        fc.array(pieceArb, { maxLength: 40 }),
        fc.constantFrom(64, 300, MAX_USAGE_LINE_BYTES, 100_000),
        (pieces, cap) => {
          const log = join(dir, "usage.jsonl");
          const parts = pieces.map((p) => typeof p === "string" ? new TextEncoder().encode(p) : p);
          const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
          parts.reduce((at, p) => (bytes.set(p, at), at + p.length), 0);
          writeFileSync(log, bytes);
          assert.deepEqual(readAll(log, { maxLineBytes: cap }), reference(bytes, cap));
        },
      ),
      runs(60),
    );
  });

  it("a named pipe is refused at once, not waited on", (t) => {
    const fifo = join(temp(), "usage.fifo");
    const made = spawnSync("mkfifo", [fifo]);
    if (made.status !== 0) {
      t.skip("mkfifo is not available: the refusal of a folder is tested instead");
      return;
    }
    assert.throws(() => readUsageLog(fifo, () => {}), { code: "LOG_NOT_A_FILE" });
  });

  it("tallyUsageLog counts in the window, with the tally's options", () => {
    const log = join(temp(), "usage.jsonl");
    writeFileSync(log, line("old", NOW - 3 * 86_400_000) + line("new", NOW) + "junk\n");
    const { tally, summary } = tallyUsageLog(log, { now: NOW, since: NOW - 86_400_000 });
    assert.deepEqual([...tally.rank()], [["new", 1]]);
    assert.deepEqual(summary, { exists: true, events: 2, skipped: 1, too_long: 0 });
    assert.throws(() => readUsageLog(log, () => {}, { maxLineBytes: 0 }), RangeError);
  });

  it("an unreadable log is a UsageLogError", (t) => {
    if (process.platform === "win32" || process.getuid?.() === 0) {
      t.skip("root reads any file: the refusal of a folder is tested instead");
      return;
    }
    const dir = temp();
    const log = join(dir, "usage.jsonl");
    writeFileSync(log, line("a"), { mode: 0o000 });
    assert.throws(() => readUsageLog(log, () => {}), {
      name: "UsageLogError",
      code: "LOG_UNREADABLE",
      message: "The usage log cannot be read (EACCES)",
    });
  });
});

/** The reference reader: split on newlines, cap, decode, parse. */
function reference(bytes: Uint8Array, cap: number) {
  const names: string[] = [];
  let events = 0, skipped = 0, tooLong = 0;
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(10, start);
    if (end === -1) end = bytes.length;
    const piece = bytes.subarray(start, end);
    start = end + 1;
    if (piece.length === 0) continue;
    if (piece.length > cap) {
      skipped++;
      tooLong++;
      continue;
    }
    let s: string;
    try {
      s = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(piece);
    } catch {
      skipped++;
      continue;
    }
    if (s.trim() === "") continue;
    const event = parseActivationEvent(s);
    if (event === undefined) skipped++;
    else {
      events++;
      names.push(event.attributes["gen_ai.skill.name"]);
    }
  }
  return { names, summary: { exists: true, events, skipped, too_long: tooLong } };
}
