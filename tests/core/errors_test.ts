import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import * as core from "../../mod.ts";
import * as load from "../../lib/load.ts";
import * as mcp from "../../lib/mcp.ts";
import * as testing from "../../lib/testing.ts";
import * as cli from "../../lib/cli.ts";
import { SkillsetError } from "../../mod.ts";

const ROOT = resolve(import.meta.dirname ?? ".", "../..");
const ENTRIES: Readonly<Record<string, Record<string, unknown>>> = {
  "skillset": core,
  "skillset/load": load,
  "skillset/mcp": mcp,
  "skillset/testing": testing,
  "skillset/cli": cli,
};

/** A class whose instances are errors. */
type ErrorClass = abstract new (...args: never[]) => Error;

/** Every exported class that extends `Error`, by entry point. */
function errorClasses(): [entry: string, name: string, value: ErrorClass][] {
  const found: [string, string, ErrorClass][] = [];
  for (const [entry, exports] of Object.entries(ENTRIES)) {
    for (const [name, value] of Object.entries(exports)) {
      if (typeof value === "function" && value.prototype instanceof Error) {
        found.push([entry, name, value as ErrorClass]);
      }
    }
  }
  return found;
}

/** The rows of docs/errors.md's table: code, class and entry. */
function documented(): { code: string; cls: string; entry: string }[] {
  const text = readFileSync(join(ROOT, "docs/errors.md"), "utf8");
  return [...text.matchAll(/^\|\s*`([A-Z_]+)`\s*\|\s*`(\w+)`\s*\|\s*`([\w/]+)`\s*\|/gm)].map((
    m,
  ) => ({
    code: m[1]!,
    cls: m[2]!,
    entry: m[3]!,
  }));
}

/** Every `.ts` file under `lib/`. */
function libSources(): string[] {
  const files: string[] = [];
  const stack = [join(ROOT, "lib")];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) stack.push(path);
      else if (name.endsWith(".ts")) files.push(readFileSync(path, "utf8"));
    }
  }
  return files;
}

/**
 * The codes the sources give errors: in the body of every class that extends
 * `SkillsetError`, a `readonly code = "…" as const`, or a `readonly code: T`
 * with the literals of the type union `T`.
 */
function sourceCodes(): Set<string> {
  const sources = [readFileSync(join(ROOT, "mod.ts"), "utf8"), ...libSources()];
  const unions = new Map<string, string[]>();
  for (const source of sources) {
    for (const m of source.matchAll(/export type (\w+) =([^;]*);/g)) {
      unions.set(m[1]!, [...m[2]!.matchAll(/"([A-Z_]+)"/g)].map((l) => l[1]!));
    }
  }
  const codes = new Set<string>();
  for (const source of sources) {
    for (const m of source.matchAll(/class \w+ extends \w*Error \{\n([\s\S]*?)\n\}/g)) {
      const body = m[1]!;
      for (const c of body.matchAll(/readonly code = "([A-Z_]+)" as const/g)) codes.add(c[1]!);
      for (const c of body.matchAll(/readonly code: (\w+);/g)) {
        for (const literal of unions.get(c[1]!) ?? []) codes.add(literal);
      }
    }
  }
  return codes;
}

const INTERNAL = new Set(["YAML_RULE", "JSON_SYNTAX", "USAGE"]);

describe("one error family", () => {
  it("every error class an entry point exports extends SkillsetError", () => {
    const classes = errorClasses();
    assert.ok(classes.length >= 14, `found only ${classes.length} error classes`);
    const outside = classes.filter(([, , value]) =>
      (value as unknown) !== SkillsetError && !(value.prototype instanceof SkillsetError)
    );
    assert.deepEqual(outside.map(([entry, name]) => `${entry}: ${name}`), []);
  });

  it("every exported error class has its codes documented under its own entry", () => {
    const rows = documented();
    for (const [entry, name, value] of errorClasses()) {
      if ((value as unknown) === SkillsetError) continue;
      const own = rows.filter((r) => r.cls === name);
      assert.ok(own.length > 0, `docs/errors.md lists no code of ${name}`);
      if (entry === "skillset" || own.every((r) => r.entry !== "skillset")) {
        assert.ok(
          own.some((r) => r.entry === entry || r.entry === "skillset"),
          `${name} in ${entry}`,
        );
      }
    }
  });

  it("docs/errors.md lists exactly the codes the sources define", () => {
    const inDocs = new Set(documented().map((r) => r.code));
    const inSources = new Set([...sourceCodes()].filter((c) => !INTERNAL.has(c)));
    assert.deepEqual([...inDocs].filter((c) => !inSources.has(c)).sort(), []);
    assert.deepEqual([...inSources].filter((c) => !inDocs.has(c)).sort(), []);
  });

  it("a caller can test instanceof and code on an error thrown across entry points", () => {
    const thrown = (() => {
      try {
        load.loadSkillFolder(join(ROOT, "no-such-skill-folder"));
      } catch (e) {
        return e;
      }
    })();
    assert.ok(thrown instanceof SkillsetError);
    assert.equal(thrown.code, "NO_SUCH_FOLDER");
    assert.equal(thrown.message, 'No such folder "no-such-skill-folder"');
  });
});
