import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs } from "../../_fc.ts";
import {
  createBundle,
  decodeBase64,
  encodeBase64,
  type ReadOptions,
  readResource,
  renderResourceRead,
  ResourceNotFoundError,
  type ResourceRead,
  type SkillBundle,
} from "../../../mod.ts";
import { encodeBase64Table } from "../../../lib/core/resources/base64.ts";

function bundleWith(files: Record<string, Uint8Array | string>): SkillBundle {
  return createBundle({ frontmatter: { name: "pdf", description: "d" }, instructions: "", files });
}

/** Follow next_offset from 0 to the end; returns every page. */
function allPages(bundle: SkillBundle, path: string, options: ReadOptions = {}): ResourceRead[] {
  const pages = [readResource(bundle, path, options)];
  for (let next = pages[0]!.next_offset; next !== null; next = pages.at(-1)!.next_offset) {
    assert.ok(pages.length < 100_000, "pagination does not end");
    pages.push(readResource(bundle, path, { ...options, offset: next }));
  }
  return pages;
}

function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const textUnit = fc.constantFrom(
  "a",
  "b",
  " ",
  "\n",
  "\r\n",
  "\r",
  "é",
  "中",
  "😀",
  "\uFEFF",
  "\t",
  "\u2028",
);
const text = fc.oneof(
  fc.string({ unit: textUnit, maxLength: 200 }),
  fc.tuple(fc.string({ unit: textUnit, maxLength: 20 }), fc.nat(70_000)).map(([s, n]) =>
    s + "x".repeat(n) + s
  ),
);
const limit = fc.option(fc.integer({ min: 1, max: 7 }), { nil: undefined });

describe("readResource: text", () => {
  it("reassembles any text exactly from its pages", () => {
    fc.assert(
      fc.property(text, limit, (content, lim) => {
        const bundle = bundleWith({ "references/a.md": content });
        const pages = allPages(bundle, "references/a.md", lim === undefined ? {} : { limit: lim });
        for (const page of pages) assert.equal(page.encoding, "utf-8");
        assert.equal(pages.map((p) => p.content).join(""), content);
        const lines = content === ""
          ? 0
          : content.split("\n").length - (content.endsWith("\n") ? 1 : 0);
        assert.match(pages[0]!.range, new RegExp(` of ${lines}$`));
        assert.equal(pages[0]!.size, new TextEncoder().encode(content).length);
      }),
      runs(300),
    );
  });

  it("pages by lines: ranges, next_offset and defaults", () => {
    const content = Array.from({ length: 4500 }, (_, i) => `line ${i}`).join("\n");
    const bundle = bundleWith({ "references/big.md": content });
    const first = readResource(bundle, "references/big.md");
    assert.equal(first.range, "lines 1-2000 of 4500");
    assert.equal(first.next_offset, 2000);
    const middle = readResource(bundle, "references/big.md", { offset: 3071, limit: 3 });
    assert.equal(middle.content, "line 3071\nline 3072\nline 3073\n");
    assert.equal(middle.range, "lines 3072-3074 of 4500");
    const last = readResource(bundle, "references/big.md", { offset: 4499 });
    assert.equal(last.content, "line 4499");
    assert.equal(last.next_offset, null);
  });

  it("finds any line of a long file (line checkpoints)", () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `${i}:${"é".repeat(i % 7)}\r\n`);
    const bundle = bundleWith({ "assets/log.txt": lines.join("") });
    fc.assert(
      fc.property(fc.nat(5100), fc.integer({ min: 1, max: 3000 }), (offset, lim) => {
        const page = readResource(bundle, "assets/log.txt", { offset, limit: lim });
        assert.equal(page.content, lines.slice(offset, offset + lim).join(""));
      }),
      runs(200),
    );
  });

  it("returns an empty last page past the end, never an error", () => {
    fc.assert(
      fc.property(text, fc.nat(1_000_000), (content, extra) => {
        const bundle = bundleWith({ "a.txt": content });
        const total = readResource(bundle, "a.txt").range.split(" of ")[1];
        const page = readResource(bundle, "a.txt", { offset: Number(total) + extra });
        assert.equal(page.content, "");
        assert.equal(page.next_offset, null);
        assert.equal(page.range, `lines none of ${total}`);
      }),
      runs(100),
    );
  });
});

describe("readResource: binary", () => {
  const binary = fc.tuple(fc.constantFrom(0x00, 0xff, 0xc3), fc.uint8Array({ maxLength: 3000 }))
    .map(([head, rest]) => Uint8Array.of(head, ...rest, ...(head === 0xc3 ? [0xff] : [])));
  const anyBytes = fc.uint8Array({ maxLength: 500 });

  it("reassembles any binary file exactly from its base64 pages", () => {
    fc.assert(
      fc.property(
        binary,
        fc.option(fc.integer({ min: 1, max: 200 }), { nil: undefined }),
        (bytes, lim) => {
          const bundle = bundleWith({ "assets/blob.bin": bytes });
          const pages = allPages(
            bundle,
            "assets/blob.bin",
            lim === undefined ? {} : { limit: lim },
          );
          for (const page of pages) assert.equal(page.encoding, "base64");
          assert.deepEqual(concatBytes(pages.map((p) => decodeBase64(p.content))), bytes);
          // limits are multiples of 3, so the base64 texts concatenate too
          assert.deepEqual(decodeBase64(pages.map((p) => p.content).join("")), bytes);
        },
      ),
      runs(300),
    );
  });

  it("classifies strict UTF-8 without NUL as text and anything else as base64", () => {
    fc.assert(
      fc.property(anyBytes, (bytes) => {
        let isText = !bytes.includes(0);
        try {
          new TextDecoder("utf-8", { fatal: true }).decode(bytes);
        } catch {
          isText = false;
        }
        const pages = allPages(bundleWith({ "assets/x": bytes }), "assets/x", { limit: 4 });
        assert.equal(pages[0]!.encoding, isText ? "utf-8" : "base64");
        const back = isText
          ? new TextEncoder().encode(pages.map((p) => p.content).join(""))
          : concatBytes(pages.map((p) => decodeBase64(p.content)));
        assert.deepEqual(back, bytes);
      }),
      runs(300),
    );
  });

  it("pages by bytes with inclusive ranges and a limit rounded down to a multiple of 3", () => {
    const bytes = Uint8Array.from({ length: 100 }, (_, i) => (i === 0 ? 0 : i));
    const bundle = bundleWith({ "assets/b.bin": bytes });
    const page = readResource(bundle, "assets/b.bin", { offset: 10, limit: 20 });
    assert.equal(page.range, "bytes 10-27 of 100");
    assert.equal(page.next_offset, 28);
    assert.deepEqual(decodeBase64(page.content), bytes.subarray(10, 28));
    assert.equal(readResource(bundle, "assets/b.bin", { limit: 1 }).range, "bytes 0-2 of 100");
    assert.equal(readResource(bundle, "assets/b.bin").range, "bytes 0-99 of 100");
    const past = readResource(bundle, "assets/b.bin", { offset: 100 });
    assert.deepEqual([past.range, past.next_offset, past.content], ["bytes none of 100", null, ""]);
  });
});

const NONCE = "0123456789abcdef0123456789abcdef";

describe("readResource: requests", () => {
  const bundle = bundleWith({ "references/a.md": "hello\n", "SKILL.md": "---\n" });

  it("renders the [SKILL_RESOURCE_READ] envelope", () => {
    assert.equal(
      renderResourceRead(readResource(bundle, "./references//a.md"), NONCE),
      [
        `[SKILL_RESOURCE_READ nonce=${NONCE}]`,
        "skill: pdf",
        "path: references/a.md",
        "class: references",
        "encoding: utf-8",
        "size: 6",
        "range: lines 1-1 of 1",
        "next_offset: none",
        "content_bytes: 6",
        "---",
        "hello\n",
        `[/SKILL_RESOURCE_READ nonce=${NONCE}]`,
      ].join("\n"),
    );
  });

  it("names a missing file after the gate has let the path through", () => {
    assert.throws(() => readResource(bundle, "references/nope.md"), (e: unknown) => {
      assert.ok(e instanceof ResourceNotFoundError);
      assert.equal(e.message, 'No resource "references/nope.md" in skill "pdf"');
      return true;
    });
    assert.throws(() => readResource(bundle, "secret/nope.md"), {
      name: "ExecutionError",
      message:
        'Refused to read non-standard resource "secret/nope.md": global safety is true, skill safety is true (both must be false)',
    });
  });

  it("rejects offsets and limits that are not whole numbers in range", () => {
    for (
      const [options, message] of [
        [{ offset: -1 }, "offset must be a whole number of at least 0, got -1"],
        [{ offset: 1.5 }, "offset must be a whole number of at least 0, got 1.5"],
        [{ limit: 0 }, "limit must be a whole number of at least 1, got 0"],
        [{ limit: Number.NaN }, "limit must be a whole number of at least 1, got NaN"],
      ] as const
    ) {
      assert.throws(() => readResource(bundle, "references/a.md", options), {
        name: "RangeError",
        message,
      });
    }
  });
});

describe("base64", () => {
  it("the table encoder and the runtime's encoder agree with btoa", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const expected = btoa(String.fromCharCode(...bytes));
        assert.equal(encodeBase64Table(bytes), expected);
        assert.equal(encodeBase64(bytes), expected);
        assert.deepEqual(decodeBase64(expected), bytes);
      }),
      runs(300),
    );
  });

  it("encodes inputs larger than one slice", () => {
    const bytes = Uint8Array.from({ length: 3 * 1024 * 1024 + 7 }, (_, i) => (i * 31) & 255);
    const text = encodeBase64Table(bytes);
    assert.equal(text, encodeBase64(bytes));
    assert.deepEqual(decodeBase64(text), bytes);
  });

  it("rejects text that is not base64", () => {
    assert.throws(() => decodeBase64("a"), { name: "SyntaxError", message: "Invalid base64 text" });
    assert.throws(() => decodeBase64("ab$d"), SyntaxError);
  });
});

describe("readResource: the page cap", () => {
  const unit = fc.constantFrom("a", "\n", "é", "中", "😀", "\r\n", "\u2028");
  /** Files of random shape: short lines, single lines far over the cap, binary. */
  const shaped = fc.oneof(
    fc.string({ unit, maxLength: 300 }).map((s) => new TextEncoder().encode(s)),
    fc.tuple(fc.string({ unit, maxLength: 10 }), fc.nat(3000), fc.string({ unit, maxLength: 10 }))
      .map(([a, n, b]) => new TextEncoder().encode(a + "é".repeat(n) + b)),
    fc.uint8Array({ maxLength: 2000 }).map((b) => Uint8Array.of(0, ...b)),
  );
  const anyLimit = fc.option(
    fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constantFrom(1e9, Number.MAX_SAFE_INTEGER)),
    { nil: undefined },
  );

  it("every page holds at most max_page_bytes and following next_offset from 0 rebuilds the file", () => {
    fc.assert(
      fc.property(shaped, anyLimit, fc.integer({ min: 4, max: 64 }), (bytes, lim, cap) => {
        const bundle = bundleWith({ "assets/f": bytes });
        const options: ReadOptions = {
          max_page_bytes: cap,
          ...(lim === undefined ? {} : { limit: lim }),
        };
        const pages = allPages(bundle, "assets/f", options);
        const parts = pages.map((p) =>
          p.encoding === "base64" ? decodeBase64(p.content) : new TextEncoder().encode(p.content)
        );
        for (const part of parts) assert.ok(part.length <= cap, `${part.length} > ${cap}`);
        assert.deepEqual(concatBytes(parts), bytes);
        for (const page of pages) assert.equal(page.size, bytes.length);
      }),
      runs(300),
    );
  });

  it("a line+byte offset reads the rest of that line, or is a RangeError", () => {
    fc.assert(
      fc.property(shaped, fc.nat(20), fc.nat(400), (bytes, line, byte) => {
        const bundle = bundleWith({ "assets/f": bytes });
        try {
          const page = readResource(bundle, "assets/f", { offset: `${line}+${byte}` });
          assert.equal(page.encoding, "utf-8");
          const text = new TextDecoder().decode(bytes);
          const lines = text.split(/(?<=\n)/);
          const rest = new TextEncoder().encode(lines[line] ?? "").subarray(byte);
          // From byte 0 a page holds whole lines; from inside a line, the rest of that line.
          if (line >= lines.length) assert.equal(page.content, "");
          else if (byte === 0) assert.equal(page.content, lines.slice(line).join(""));
          else assert.equal(page.content, new TextDecoder().decode(rest));
        } catch (e) {
          assert.ok(e instanceof RangeError, String(e));
        }
      }),
      runs(300),
    );
  });

  it("rejects page caps below 4 and offsets that are not a number or line+byte", () => {
    const bundle = bundleWith({ "a.txt": "héllo\nworld\n", "b.bin": new Uint8Array(9) });
    for (
      const [path, options, message] of [
        [
          "a.txt",
          { max_page_bytes: 3 },
          "max_page_bytes must be a whole number from 4 to 67108864, got 3",
        ],
        [
          "a.txt",
          { offset: "1+" },
          'offset must be a whole number or "line+byte" (e.g. "12+262144"), got "1+"',
        ],
        ["a.txt", { offset: "0+2" }, 'offset "0+2" is not at a character boundary'],
        ["a.txt", { offset: "0+7" }, 'offset "0+7" is past the end of line 1 (7 bytes)'],
        [
          "b.bin",
          { offset: "0+1" },
          'offset "0+1" addresses a line, but "b.bin" is binary: pass a byte offset',
        ],
      ] as const
    ) {
      assert.throws(() => readResource(bundle, path, options), { name: "RangeError", message });
    }
    assert.equal(readResource(bundle, "a.txt", { offset: "0+3" }).content, "llo\n");
  });
});
