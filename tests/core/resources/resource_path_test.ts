import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs } from "../../_fc.ts";
import { isPlainName } from "../../../lib/core/resources/resource_path.ts";
import { resourcePathArbitrary } from "../../../lib/testing.ts";
import {
  classifyResource,
  effectiveClass,
  InvalidResourcePathError,
  normalizeResourcePath,
} from "../../../mod.ts";

function rejected(input: string, reason: string): void {
  assert.throws(() => normalizeResourcePath(input), (e: unknown) => {
    assert.ok(e instanceof InvalidResourcePathError);
    assert.equal(e.code, "INVALID_RESOURCE_PATH");
    assert.equal(e.path, input);
    assert.equal(e.message, `Invalid resource path ${JSON.stringify(input)}: ${reason}`);
    return true;
  });
}

/** Path-ish strings built from hostile pieces, in every position (the testing kit's). */
const hostile = resourcePathArbitrary();

describe("normalizeResourcePath", () => {
  it("drops . and empty segments", () => {
    assert.equal(normalizeResourcePath("./references//forms.md"), "references/forms.md");
    assert.equal(normalizeResourcePath("assets/./img/"), "assets/img");
    assert.equal(normalizeResourcePath("a..b/..c"), "a..b/..c");
  });

  it("rejects each forbidden form, quoting the input", () => {
    rejected("", "it is empty");
    rejected("./", "it names no file");
    rejected("/etc/passwd", "it is absolute");
    rejected("//server/share/x", "it is absolute");
    rejected("\\\\server\\share", "it contains a backslash");
    rejected("references\\x.md", "it contains a backslash");
    rejected("C:/x", "it is a drive path");
    rejected("c:x", "it is a drive path");
    rejected("./C:", "it is a drive path");
    rejected("references/../../etc/passwd", 'it contains ".." and could leave the skill folder');
    rejected("..", 'it contains ".." and could leave the skill folder');
    rejected("a\u0000b", "it contains NUL or another control character");
    rejected("a\nb", "it contains NUL or another control character");
    rejected("a\u009bb", "it contains NUL or another control character");
  });

  it("throws TypeError for a non-string", () => {
    assert.throws(() => normalizeResourcePath(3 as unknown as string), {
      name: "TypeError",
      message: "A resource path must be a string, got number",
    });
  });

  it("is idempotent and never yields .., a leading / or a backslash", () => {
    fc.assert(
      fc.property(fc.oneof(hostile, fc.string()), (input) => {
        let normal: string;
        try {
          normal = normalizeResourcePath(input);
        } catch (e) {
          assert.ok(e instanceof InvalidResourcePathError);
          return;
        }
        assert.equal(normalizeResourcePath(normal), normal);
        assert.ok(!normal.split("/").includes(".."));
        assert.ok(!normal.startsWith("/"));
        assert.ok(!normal.includes("\\"));
        assert.ok(!normal.split("/").includes(""));
        // deno-lint-ignore no-control-regex
        assert.ok(!/[\u0000-\u001f\u007f-\u009f]/.test(normal));
        assert.equal(classifyResource(normalizeResourcePath(normal)), classifyResource(normal));
      }),
      runs(500),
    );
  });
});

describe("classifyResource", () => {
  it("classifies by the exact top-level folder", () => {
    assert.equal(classifyResource("README.md"), "root");
    assert.equal(classifyResource("references/a/b.md"), "references");
    assert.equal(classifyResource("assets/x.png"), "assets");
    assert.equal(classifyResource("scripts/run.sh"), "scripts");
    assert.equal(classifyResource("References/x.md"), "nonstandard");
    assert.equal(classifyResource("assetsx/x.png"), "nonstandard");
    assert.equal(classifyResource("canvas-fonts/a.ttf"), "nonstandard");
  });

  it("takes the stricter class of a link's two paths", () => {
    assert.equal(effectiveClass("references/x", "secret/y"), "nonstandard");
    assert.equal(effectiveClass("references/x", "assets/y"), "references");
    assert.equal(effectiveClass("secret/x", "assets/y"), "nonstandard");
    assert.equal(effectiveClass("assets/x", undefined), "assets");
    assert.equal(effectiveClass("LICENSE", "other/LICENSE"), "nonstandard");
  });
});

describe("isPlainName", () => {
  it("says yes only when appending the name needs no normalisation and is valid", () => {
    const name = fc.oneof(
      fc.constantFrom("", ".", "..", "a", "C:", "c:x", "a\\b", "x\u0000", "é", "..a", "a.."),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.constantFrom("", "references", "a/b"), name, (folder, n) => {
        const raw = folder === "" ? n : `${folder}/${n}`;
        let normal: string | null;
        try {
          normal = normalizeResourcePath(raw);
        } catch {
          normal = null;
        }
        if (isPlainName(n, folder === "")) assert.equal(normal, raw);
        else if (!n.includes("/") && n !== "" && n !== ".") assert.equal(normal, null, raw);
      }),
      runs(500),
    );
  });
});
