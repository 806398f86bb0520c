import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs } from "../../_fc.ts";
import {
  activateSkill,
  createBundle,
  isGateOpen,
  readResource,
  renderActivation,
} from "../../../mod.ts";

const bundle = createBundle({
  frontmatter: { name: "pdf", description: "Fill PDF forms" },
  instructions: "# PDF\nUse references/forms.md.\n\n",
  files: {
    "SKILL.md": "---\nname: pdf\n---\n",
    "LICENSE.txt": "MIT",
    "references/forms.md": "# Forms",
    "assets/logo.png": new Uint8Array(5),
    "scripts/fill.py": "print()",
    "canvas-fonts/a.ttf": new Uint8Array(2),
  },
});

const NONCE = "0123456789abcdef0123456789abcdef";

describe("renderActivation", () => {
  it("labels every class and announces the closed gate without naming what is behind it", () => {
    assert.equal(
      renderActivation(activateSkill(bundle), NONCE),
      [
        `[SKILL_ACTIVATED nonce=${NONCE}]`,
        "skill: pdf",
        "content_bytes: 30",
        "---",
        "# PDF\nUse references/forms.md.",
        "---",
        'Bundled resources (read one with the skill tool: skill "pdf", resource "<path>"; text comes back decoded, other files as base64, in pages):',
        "Top-level files:",
        "  [file] LICENSE.txt (3 bytes, text/plain)",
        "references/ (documentation to read when needed):",
        "  [reference] references/forms.md (7 bytes, text/markdown)",
        "assets/ (templates, images, data; text or base64):",
        "  [asset] assets/logo.png (5 bytes, image/png)",
        "scripts/ (source you can read; nothing is executed):",
        "  [script] scripts/fill.py (7 bytes, text/x-python)",
        "Non-standard folders are gated by the safety settings and are not listed (global safety and skill safety must both be false).",
        `[/SKILL_ACTIVATED nonce=${NONCE}]`,
      ].join("\n"),
    );
  });

  it("lists non-standard files when the gate is open", () => {
    const text = renderActivation(
      activateSkill(bundle, { global_safety: false, skill_safety: false }),
    );
    assert.ok(text.includes("  [non-standard] canvas-fonts/a.ttf (2 bytes, font/ttf)"));
    assert.ok(!text.includes("are gated"));
  });

  it("says so when a skill bundles nothing", () => {
    const empty = createBundle({ frontmatter: { name: "x", description: "d" }, instructions: "" });
    assert.ok(renderActivation(activateSkill(empty)).includes("\n  (none)\n"));
  });
});

describe("activateSkill", () => {
  const pathArb = fc.tuple(
    fc.constantFrom(
      "",
      "references/",
      "assets/",
      "scripts/",
      "other/",
      "References/",
      "assets/deep/",
    ),
    fc.string({ unit: fc.constantFrom("a", "b", "Z", ".", "-", "é"), minLength: 1, maxLength: 4 }),
  ).map(([dir, name]) => dir + name).filter((p) =>
    !p.split("/").includes("..") && !p.split("/").includes(".") && !p.endsWith(".")
  );

  it("sorts each group by path, leaves SKILL.md out, and lists only readable paths", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(pathArb, { maxLength: 15 }),
        fc.boolean(),
        fc.boolean(),
        (paths, g, s) => {
          const files = Object.fromEntries([...paths, "SKILL.md"].map((p) => [p, p]));
          const b = createBundle({
            frontmatter: { name: "x", description: "d" },
            instructions: "",
            files,
          });
          const flags = { global_safety: g, skill_safety: s };
          const { resources } = activateSkill(b, flags);
          assert.equal("nonstandard" in resources, isGateOpen(flags));
          const listed = Object.values(resources).flat().map((e) => e.path);
          assert.ok(!listed.includes("SKILL.md"));
          for (const group of Object.values(resources)) {
            const ps = group.map((e: { path: string }) => e.path);
            assert.deepEqual(ps, [...ps].sort());
          }
          for (const p of listed) assert.doesNotThrow(() => readResource(b, p, flags));
          const expected = paths.filter((p) =>
            isGateOpen(flags) || !/^(?!references\/|assets\/|scripts\/)[^/]+\//.test(p)
          );
          assert.deepEqual([...listed].sort(), [...expected].sort());
        },
      ),
      runs(200),
    );
  });
});
