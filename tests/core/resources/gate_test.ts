import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs } from "../../_fc.ts";
import {
  activateSkill,
  classifyResource,
  createBundle,
  decideAccess,
  ExecutionError,
  InvalidResourcePathError,
  isGateOpen,
  normalizeResourcePath,
  readResource,
  type ResourceClass,
  ResourceNotFoundError,
  type SafetyFlags,
} from "../../../mod.ts";
import {
  gateProperties,
  type GateRequest,
  type GateVerdict,
  safetyFlagsArbitrary,
} from "../../../lib/testing.ts";

const PATHS: Record<ResourceClass, string> = {
  root: "LICENSE.txt",
  references: "references/forms.md",
  assets: "assets/logo.png",
  scripts: "scripts/fill.py",
  nonstandard: "canvas-fonts/a.ttf",
};

const bundle = createBundle({
  frontmatter: { name: "pdf", description: "Fill PDF forms" },
  instructions: "Use the forms.",
  files: Object.fromEntries(Object.values(PATHS).map((p) => [p, `content of ${p}\n`])),
});

type Cell = "allowed" | string;
const refused = (op: string, g: boolean, s: boolean) =>
  `Refused to ${op} non-standard resource "canvas-fonts/a.ttf": global safety is ${g}, skill safety is ${s} (both must be false)`;

/** The access matrix: class × (global, skill) × operation → expected outcome, written out in full. */
const MATRIX: [ResourceClass, boolean, boolean, Cell, Cell][] = [
  // class,        global, skill, read,                         list
  ["root", true, true, "allowed", "allowed"],
  ["root", true, false, "allowed", "allowed"],
  ["root", false, true, "allowed", "allowed"],
  ["root", false, false, "allowed", "allowed"],
  ["references", true, true, "allowed", "allowed"],
  ["references", true, false, "allowed", "allowed"],
  ["references", false, true, "allowed", "allowed"],
  ["references", false, false, "allowed", "allowed"],
  ["assets", true, true, "allowed", "allowed"],
  ["assets", true, false, "allowed", "allowed"],
  ["assets", false, true, "allowed", "allowed"],
  ["assets", false, false, "allowed", "allowed"],
  ["scripts", true, true, "allowed", "allowed"],
  ["scripts", true, false, "allowed", "allowed"],
  ["scripts", false, true, "allowed", "allowed"],
  ["scripts", false, false, "allowed", "allowed"],
  ["nonstandard", true, true, refused("read", true, true), refused("list", true, true)],
  ["nonstandard", true, false, refused("read", true, false), refused("list", true, false)],
  ["nonstandard", false, true, refused("read", false, true), refused("list", false, true)],
  ["nonstandard", false, false, "allowed", "allowed"],
];

describe("the safety gate", () => {
  it("decides every cell of the access matrix (5 classes x 4 states x read/list)", () => {
    assert.equal(MATRIX.length, 20);
    for (const [resourceClass, g, s, read, list] of MATRIX) {
      const flags = { global_safety: g, skill_safety: s };
      const path = PATHS[resourceClass];
      const where = `${resourceClass} global=${g} skill=${s}`;
      // read, through readResource
      if (read === "allowed") {
        assert.equal(readResource(bundle, path, flags).content, `content of ${path}\n`, where);
      } else {
        assert.throws(() => readResource(bundle, path, flags), (e: unknown) => {
          assert.ok(e instanceof ExecutionError, where);
          assert.equal(e.code, "ACCESS_REFUSED");
          assert.equal(e.message, read, where);
          assert.deepEqual([e.path, e.operation, e.global_safety, e.skill_safety], [
            path,
            "read",
            g,
            s,
          ]);
          return true;
        });
      }
      // list, through activation and the gate itself
      const listed = Object.values(activateSkill(bundle, flags).resources).flat().map((e) =>
        e.path
      );
      assert.equal(listed.includes(path), list === "allowed", where);
      const decision = decideAccess(path, resourceClass, flags, "list");
      assert.equal(decision?.message ?? "allowed", list, where);
    }
  });

  it("defaults both switches to true", () => {
    assert.throws(() => readResource(bundle, PATHS.nonstandard), {
      message: refused("read", true, true),
    });
    assert.throws(() => readResource(bundle, PATHS.nonstandard, { global_safety: false }), {
      message: refused("read", false, true),
    });
  });

  const flags = safetyFlagsArbitrary();
  const resourceClass = fc.constantFrom<ResourceClass>(
    "root",
    "references",
    "assets",
    "scripts",
    "nonstandard",
  );

  it("is open iff both switches are false", () => {
    fc.assert(
      fc.property(flags, (f) => {
        assert.equal(isGateOpen(f), f.global_safety === false && f.skill_safety === false);
      }),
      runs(100),
    );
  });

  it("lowering a switch never removes an allowed path or a manifest entry", () => {
    fc.assert(
      fc.property(
        flags,
        fc.constantFrom("global_safety", "skill_safety") as fc.Arbitrary<keyof SafetyFlags>,
        resourceClass,
        fc.constantFrom("read" as const, "list" as const),
        (f, which, c, op) => {
          const lowered = { ...f, [which]: false };
          if (decideAccess(PATHS[c], c, f, op) === null) {
            assert.equal(decideAccess(PATHS[c], c, lowered, op), null);
          }
          const before = Object.values(activateSkill(bundle, f).resources).flat();
          const after = Object.values(activateSkill(bundle, lowered).resources).flat();
          for (const entry of before) assert.ok(after.some((e) => e.path === entry.path));
        },
      ),
      runs(200),
    );
  });

  it("a closed gate never lists or reads a non-standard path; a listed path is always readable", () => {
    fc.assert(
      fc.property(flags, (f) => {
        const activation = activateSkill(bundle, f);
        if (!isGateOpen(f)) {
          assert.equal(activation.resources.nonstandard, undefined);
          assert.throws(() => readResource(bundle, PATHS.nonstandard, f), ExecutionError);
        }
        for (const entry of Object.values(activation.resources).flat()) {
          assert.doesNotThrow(() => readResource(bundle, entry.path, f));
        }
      }),
      runs(100),
    );
  });

  it("is a pure function of its arguments", () => {
    fc.assert(
      fc.property(
        fc.string(),
        resourceClass,
        flags,
        fc.constantFrom("read" as const, "list" as const),
        (p, c, f, op) => {
          assert.deepEqual(
            decideAccess(p, c, f, op)?.message,
            decideAccess(p, c, { ...f }, op)?.message,
          );
        },
      ),
      runs(100),
    );
  });
});

/**
 * This project's gate as the kit sees it: reads go through `readResource`,
 * listings through `activateSkill`, on an in-memory bundle holding `files`.
 */
function projectGate({ path, flags, operation, files, classes }: GateRequest): GateVerdict {
  const bundle = createBundle({
    frontmatter: { name: "pdf", description: "Fill PDF forms" },
    instructions: "",
    files: new Map([...files].map((f) => [f, `content of ${f}\n`])),
    resource_classes: classes,
  });
  try {
    const normal = normalizeResourcePath(path);
    if (operation === "read") {
      readResource(bundle, path, flags);
      return { verdict: "allowed", path: normal };
    }
    const listed = Object.values(activateSkill(bundle, flags).resources).flat();
    if (listed.some((e) => e.path === normal)) return { verdict: "allowed", path: normal };
    const refusal = decideAccess(
      normal,
      classifyResource(normal, bundle.resource_classes),
      flags,
      "list",
    );
    return { verdict: refusal === null ? "missing" : "refused" };
  } catch (e) {
    if (e instanceof InvalidResourcePathError) return { verdict: "invalid" };
    if (e instanceof ExecutionError) return { verdict: "refused" };
    if (e instanceof ResourceNotFoundError) return { verdict: "missing" };
    throw e;
  }
}

describe("the gate guarded by the testing kit", () => {
  for (const [name, property] of Object.entries(gateProperties(projectGate))) {
    it(`readResource and activateSkill: the gate ${name}`, () => {
      fc.assert(property, runs(200));
    });
  }
});
