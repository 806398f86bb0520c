/**
 * The swap property of the attack tests (issue 9): for any generated folder
 * (regular files, links in and out, named pipes, folders) and any sequence of
 * swaps between loading and reading, under the four safety states, a read
 * returns the bytes of a contained regular file whose effective class the
 * gate allows, or a typed error of this module. Run in a child process by
 * `tests/_child.ts` (the folders hold named pipes: a regression must fail by
 * timeout, not hang the suite).
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { spawnSync } from "node:child_process";
import { join, sep } from "node:path";
import {
  effectiveClass,
  ExecutionError,
  InvalidResourcePathError,
  mayAccess,
  readResource,
  ResourceNotFoundError,
  type ResourceRead,
  ResourceReadError,
  type SafetyFlags,
} from "../mod.ts";
import { loadSkillFolder } from "../lib/load.ts";
import { fc, runs } from "./_fc.ts";

const STATES: readonly SafetyFlags[] = [
  {},
  { global_safety: false },
  { skill_safety: false },
  { global_safety: false, skill_safety: false },
];

function isTyped(e: unknown): boolean {
  return e instanceof ExecutionError || e instanceof ResourceReadError ||
    e instanceof ResourceNotFoundError || e instanceof InvalidResourcePathError;
}

const PATHS = [
  "a.txt",
  "references/r.md",
  "references/sub/s.md",
  "assets/x.bin",
  "scripts/run.sh",
  "secret/k.txt",
  "References/c.md",
] as const;
type Kind =
  | { readonly kind: "file" | "linkOut" | "fifo" | "dir" | "missing" }
  | { readonly kind: "linkIn"; readonly to: number };
const kind: fc.Arbitrary<Kind> = fc.oneof(
  fc.constantFrom(
    ...(["file", "linkOut", "fifo", "dir", "missing"] as const).map((k) => ({ kind: k })),
  ),
  fc.nat(PATHS.length - 1).map((to) => ({ kind: "linkIn" as const, to })),
);

function make(temp: string, root: string, path: string, what: Kind, version: number): void {
  const full = join(root, path);
  rmSync(full, { recursive: true, force: true });
  mkdirSync(join(full, ".."), { recursive: true });
  switch (what.kind) {
    case "file":
      writeFileSync(full, `${path} v${version}\n`);
      break;
    case "linkOut":
      symlinkSync(join(temp, "outside", "secret.txt"), full);
      break;
    case "fifo":
      spawnSync("mkfifo", [full]);
      break;
    case "dir":
      mkdirSync(full);
      break;
    case "linkIn": {
      const up = "../".repeat(path.split("/").length - 1);
      symlinkSync(`${up}${PATHS[what.to]}`, full);
      break;
    }
  }
}

/** What a read of `path` may return now: the bytes of a contained regular file and its real path, or null. */
function reference(root: string, path: string): { content: string; real: string } | null {
  let real: string;
  try {
    real = realpathSync(join(root, path));
  } catch {
    return null;
  }
  if (!real.startsWith(root + sep) || !statSync(real).isFile()) return null;
  return { content: readFileSync(real, "utf8"), real: real.slice(root.length + 1) };
}

/**
 * Check the property in folders made under `temp` (which holds
 * `outside/secret.txt`, whose content must never be returned).
 *
 * @param temp A temporary folder.
 */
export function checkSwapProperty(temp: string): void {
  let runsDone = 0;
  fc.assert(
    fc.property(
      fc.array(kind, { minLength: PATHS.length, maxLength: PATHS.length }),
      fc.array(fc.tuple(fc.nat(PATHS.length - 1), kind), { maxLength: 8 }),
      (initial, swaps) => {
        const base = join(temp, `prop-${runsDone++}`);
        const root = join(base, "prop");
        mkdirSync(root, { recursive: true });
        writeFileSync(join(root, "SKILL.md"), "---\nname: prop\ndescription: d\n---\n");
        initial.forEach((what, i) => make(temp, root, PATHS[i]!, what, 0));
        const skill = loadSkillFolder(root);
        swaps.forEach(([i, what], v) => make(temp, root, PATHS[i]!, what, v + 1));
        const realRoot = realpathSync(root);
        for (const path of PATHS) {
          const expected = reference(realRoot, path);
          for (const flags of STATES) {
            let page: ResourceRead;
            try {
              page = readResource(skill, path, flags);
            } catch (e) {
              assert.ok(isTyped(e), `${path}: ${String(e)}`);
              continue;
            }
            assert.ok(!page.content.includes("OUTSIDE"), `${path} read outside bytes`);
            assert.notEqual(expected, null, `${path} was read but is not a contained file`);
            assert.equal(page.content, expected!.content);
            const resourceClass = effectiveClass(path, expected!.real);
            assert.equal(page.class, resourceClass);
            assert.ok(mayAccess(resourceClass, flags), `${path} read through a closed gate`);
          }
        }
        rmSync(base, { recursive: true, force: true });
      },
    ),
    runs(60),
  );
}
