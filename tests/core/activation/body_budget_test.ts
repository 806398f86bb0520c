// Issue 43: activation caps a SKILL.md body to `max_body_tokens` and points to the paged read
// of the rest; the core counts with the caller's function, else characters ÷ 4.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fc, runs } from "../../_fc.ts";
import {
  activateSkill,
  capBody,
  createBundle,
  estimateTokens,
  handleSkillTool,
  readResource,
  renderActivation,
} from "../../../mod.ts";
import { loadSkillFolder } from "../../../lib/load.ts";
import { put } from "../../_tree.ts";

const tmp = mkdtempSync(join(tmpdir(), "skillset-body-budget-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** Lines of words, blank lines, long lines and astral characters: bodies a cut must survive. */
const bodies = fc.array(
  fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 40 }),
    fc.string({ unit: "binary", maxLength: 300 }),
    fc.constant(""),
  ),
  { maxLength: 12 },
).chain((lines) =>
  fc.boolean().map((end) => lines.map((l) => l.replace(/\n/g, " ")).join("\n") + (end ? "\n" : ""))
);

/** A counter unlike characters ÷ 4: one token per word and per punctuation mark. */
const wordCounter = (text: string): number =>
  (text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? []).length;

describe("estimateTokens", () => {
  it("is characters (code points) ÷ 4, rounded up, for any text, lone surrogates included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        assert.equal(estimateTokens(text), Math.ceil([...text].length / 4));
      }),
      runs(200),
    );
  });
});

describe("capBody", () => {
  it("keeps a prefix within the budget, whole when it fits, under the estimate and a word counter", () => {
    fc.assert(
      fc.property(bodies, fc.integer({ min: 1, max: 200 }), fc.boolean(), (body, max, words) => {
        const count = words ? wordCounter : estimateTokens;
        const capped = capBody(body, max, words ? wordCounter : undefined);
        assert.ok(body.startsWith(capped.text));
        assert.ok(count(capped.text) <= max, `${count(capped.text)} > ${max}`);
        if (count(body) <= max) {
          assert.deepEqual(capped, { text: body });
          return;
        }
        const cut = capped.cut!;
        assert.deepEqual(
          [cut.tokens, cut.shown_tokens, cut.max_tokens, cut.counted_by],
          [
            count(body),
            capped.text === "" ? 0 : count(capped.text),
            max,
            words ? "counter" : "estimate",
          ],
        );
        // The rest starts where the text stops: `line` lines in, `byte` bytes into that line.
        const lines = capped.text.split("\n");
        assert.equal(cut.rest.line, lines.length - 1);
        assert.equal(cut.rest.byte, new TextEncoder().encode(lines.at(-1)!).length);
        // At a line end whenever the first line fits whole; the next line would not fit.
        const firstLine = body.slice(0, body.indexOf("\n") + 1 || body.length);
        if (count(firstLine) <= max) {
          assert.equal(cut.rest.byte, 0);
          const next = body.indexOf("\n", capped.text.length);
          assert.ok(count(body.slice(0, next < 0 ? body.length : next + 1)) > max);
        }
      }),
      runs(300),
    );
  });

  it("holds the cap for a counter that is not monotonic, and never splits a surrogate pair", () => {
    // Odd lengths cost 1000: only even-length prefixes fit; no bisection step may trust the shape.
    const odd = (text: string): number => (text.length % 2 === 1 ? 1000 : estimateTokens(text));
    fc.assert(
      fc.property(bodies, fc.integer({ min: 1, max: 50 }), (body, max) => {
        const { text } = capBody(body, max, odd);
        assert.ok(odd(text) <= max || text === "");
        const last = text.charCodeAt(text.length - 1);
        assert.ok(
          !(last >= 0xd800 && last <= 0xdbff && /[\udc00-\udfff]/.test(body[text.length] ?? "")),
        );
      }),
      runs(200),
    );
  });

  it("cuts a line before a surrogate pair it cannot keep whole", () => {
    const units = (text: string): number => text.length;
    const capped = capBody("ab\u{1F600}cd", 3, units);
    assert.equal(capped.text, "ab");
    assert.deepEqual(capped.cut?.rest, { line: 0, byte: 2 });
  });

  it("refuses a budget that is not a whole number of at least 1 and a counter's bad answer", () => {
    assert.throws(() => capBody("x", 0), {
      name: "RangeError",
      message: "max_body_tokens must be a whole number of at least 1, got 0",
    });
    assert.throws(() => capBody("x", 1.5), {
      name: "RangeError",
      message: "max_body_tokens must be a whole number of at least 1, got 1.5",
    });
    assert.throws(() => capBody("x", 1, () => Number.NaN), {
      name: "RangeError",
      message: "count_tokens must return a whole number of at least 0, got NaN",
    });
  });
});

describe("activateSkill with max_body_tokens", () => {
  it("shows the body whole when it fits and says nothing of a cut", () => {
    const small = createBundle({
      frontmatter: { name: "pdf", description: "Fill PDF forms" },
      instructions: "Fill the form.\n",
    });
    const activation = activateSkill(small, { max_body_tokens: 100 });
    assert.equal(activation.instructions, "Fill the form.\n");
    assert.equal(activation.instructions_cut, undefined);
  });

  it("the shown body and the read it points to give back the whole body, for any body and budget", () => {
    let n = 0;
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "grapheme", maxLength: 30 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 3 }),
        (parts, max, cap) => {
          const body = parts.map((p) => p.replace(/[\r\n]/g, " ")).join("\n") + "\n";
          const dir = join(tmp, `s${n++}`, "pdf");
          put(dir, "SKILL.md", `---\nname: pdf\ndescription: |\n  Fill\n  PDF forms\n---\n${body}`);
          const skill = loadSkillFolder(dir);
          const activation = activateSkill(skill, { max_body_tokens: max });
          const cut = activation.instructions_cut;
          if (cut === undefined) {
            assert.equal(activation.instructions, body);
            return;
          }
          assert.equal(cut.continue?.resource, "SKILL.md");
          // Read the rest a page of `cap` lines at a time, as a model would, from the offset given.
          let rest = "";
          let offset: number | string | null = cut.continue!.offset;
          while (offset !== null) {
            const page = readResource(skill, "SKILL.md", { offset, limit: cap });
            rest += page.content;
            offset = page.next_offset;
          }
          assert.equal(activation.instructions + rest, body);
        },
      ),
      runs(60),
    );
  });

  it("the skill tool cuts a long body and its text names the read that continues it", () => {
    const dir = join(tmp, "tool", "notes");
    const body = Array.from({ length: 50 }, (_, i) => `Step ${i}: write the note down.`).join("\n");
    put(dir, "SKILL.md", `---\nname: notes\ndescription: Take notes\n---\n${body}\n`);
    const skill = loadSkillFolder(dir);
    const result = handleSkillTool({ skill: "notes" }, { skills: [skill], max_body_tokens: 40 });
    assert.equal(result.is_error, false);
    assert.ok(result.content.includes("Step 3: write the note down."));
    assert.ok(!result.content.includes("Step 30:"));
    const cut = activateSkill(skill, { max_body_tokens: 40 }).instructions_cut!;
    assert.equal(cut.continue?.offset, 4 + cut.rest.line);
    assert.ok(
      result.content.includes(
        `The instructions above stop at ${cut.shown_tokens} of ${cut.tokens} tokens (budget 40, ` +
          `estimated as characters / 4); read the rest with the skill tool: skill "notes", ` +
          `resource "SKILL.md", offset ${cut.continue?.offset} (then each next_offset).`,
      ),
    );
    // The read the text names works through the same tool.
    const more = handleSkillTool(
      { skill: "notes", resource: "SKILL.md", offset: cut.continue!.offset },
      { skills: [skill] },
    );
    assert.equal(more.is_error, false);
    assert.ok(more.content.includes("Step 30: write the note down."));
  });

  it("a bundle without its SKILL.md's body line says the rest is not shown", () => {
    const made = createBundle({
      frontmatter: { name: "pdf", description: "Fill PDF forms" },
      instructions: "aaaa\nbbbb\ncccc\n",
    });
    const activation = activateSkill(made, { max_body_tokens: 2 });
    assert.equal(activation.instructions, "aaaa\n");
    assert.equal(activation.instructions_cut?.continue, undefined);
    assert.ok(
      renderActivation(activation).includes(
        "The instructions above stop at 2 of 4 tokens (budget 2, estimated as characters / 4); " +
          "the rest (from line 2 of the body) is not shown.",
      ),
    );
  });
});
