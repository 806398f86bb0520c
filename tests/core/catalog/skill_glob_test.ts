/**
 * Globs over paths and names (`lib/core/catalog/skill_glob.ts`), against a
 * reference matcher: a plain backtracking recursion over the same rules,
 * small enough to read at a glance (it is exponential, so it only sees small
 * inputs).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs } from "../../_fc.ts";
import { compileNameGlob, compilePathGlob, globProblem } from "../../../mod.ts";

/** Whether `text` matches `pattern` whole: `*` and `?` within a segment, `**` as whole segments. */
function reference(pattern: string, text: string): boolean {
  const go = (p: number, t: number): boolean => {
    if (p === pattern.length) return t === text.length;
    const c = pattern[p]!;
    if (c === "\\") return text[t] === pattern[p + 1] && go(p + 2, t + 1);
    if (c === "?") return t < text.length && text[t] !== "/" && go(p + 1, t + 1);
    if (c === "*") {
      let q = p;
      while (pattern[q] === "*") q++;
      const whole = q - p >= 2 && (p === 0 || pattern[p - 1] === "/") &&
        (q === pattern.length || pattern[q] === "/");
      if (whole && q === pattern.length) return true; // trailing `**`: anything
      if (whole) {
        // `**/`: zero or more whole folders.
        if (go(q + 1, t)) return true;
        for (let u = t; u < text.length; u++) if (text[u] === "/" && go(q + 1, u + 1)) return true;
        return false;
      }
      for (let u = t; u <= text.length; u++) {
        if (go(q, u)) return true;
        if (text[u] === "/") break;
      }
      return false;
    }
    return text[t] === c && go(p + 1, t + 1);
  };
  return go(0, 0);
}

/** gitignore's reading, on top of the reference: no inner `/` floats; a folder matches what is in it. */
function referencePath(pattern: string, path: string): boolean {
  let body = pattern;
  const folderOnly = body.endsWith("/") && !body.endsWith("\\/");
  if (folderOnly) body = body.slice(0, -1);
  let inner = false;
  for (let i = 0; i < body.length; i++) {
    if (body[i] === "\\") i++;
    else if (body[i] === "/") inner = true;
  }
  if (body.startsWith("/")) body = body.slice(1);
  if (!inner) body = `**/${body}`;
  const parts = path.split("/");
  for (let n = 1; n <= parts.length; n++) {
    const prefix = parts.slice(0, n).join("/");
    if (folderOnly && n === parts.length) break;
    if (reference(body, prefix)) return true;
  }
  return false;
}

const patternArb = fc.array(fc.constantFrom("a", "b", "/", "*", "?", "**", "**/", "/**", "\\*"), {
  maxLength: 7,
}).map((parts) => parts.join("")).filter((p) => globProblem(p) === undefined);
const textArb = fc.array(fc.constantFrom("a", "b", "/", "*", "ab"), { maxLength: 8 })
  .map((parts) => parts.join(""));

describe("compileNameGlob", () => {
  it("agrees with the reference matcher", () => {
    fc.assert(
      fc.property(patternArb, textArb, (pattern, text) => {
        assert.equal(compileNameGlob(pattern).matches(text), reference(pattern, text));
      }),
      runs(2000),
    );
  });

  it("agrees with the reference on names without a slash, for runs and single stars", () => {
    // The shape profiles write (`code-*`, `*-experimental`, `ops-*-9*`), which is matched without
    // the automaton: dense over two letters so runs overlap, repeat and crowd the ends.
    const runsArb = fc.array(fc.constantFrom("a", "b", "ab", "ba", "*"), { maxLength: 7 })
      .map((parts) => parts.join("").replace(/\*+/g, "*"))
      .filter((p) => globProblem(p) === undefined);
    const nameArb = fc.array(fc.constantFrom("a", "b", "ab"), { maxLength: 6 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(runsArb, nameArb, (pattern, name) => {
        assert.equal(compileNameGlob(pattern).matches(name), reference(pattern, name));
      }),
      runs(2000),
    );
  });

  it("matches names and origins", () => {
    assert.equal(compileNameGlob("code-*").matches("code-review"), true);
    assert.equal(compileNameGlob("*-experimental").matches("git-experimental"), true);
    assert.equal(compileNameGlob("*").matches("mcp:docs/a"), false);
    assert.equal(compileNameGlob("mcp:docs/**").matches("mcp:docs/acme/ledger"), true);
    assert.equal(compileNameGlob("pdf").matches("pdfs"), false);
  });

  it("refuses an empty pattern, a lone trailing backslash and one too long", () => {
    assert.throws(() => compileNameGlob(""), {
      name: "RangeError",
      message: 'Glob "": a glob must not be empty',
    });
    assert.throws(() => compileNameGlob("a\\"), {
      name: "RangeError",
      message: 'Glob "a\\\\": a glob must not end with a lone backslash',
    });
    assert.equal(globProblem("*".repeat(1025)), "a glob must be at most 1024 characters");
  });
});

describe("compilePathGlob", () => {
  it("agrees with the reference read the gitignore way", () => {
    fc.assert(
      fc.property(patternArb, textArb.filter((t) => t !== ""), (pattern, path) => {
        assert.equal(compilePathGlob(pattern).matches(path), referencePath(pattern, path));
      }),
      runs(2000),
    );
  });

  it("reads patterns as gitignore does", () => {
    const m = (p: string, path: string) => compilePathGlob(p).matches(path);
    assert.equal(m("**/*.tsx", "src/App.tsx"), true);
    assert.equal(m("**/*.tsx", "App.tsx"), true);
    assert.equal(m("*.tsx", "src/ui/App.tsx"), true);
    assert.equal(m("/*.tsx", "src/App.tsx"), false);
    assert.equal(m("src/*.tsx", "src/ui/App.tsx"), false);
    assert.equal(m("src/**/*.tsx", "src/App.tsx"), true);
    assert.equal(m("docs/", "docs"), false);
    assert.equal(m("docs/", "docs/a.md"), true);
    assert.equal(m("src", "src/App.tsx"), true);
    assert.equal(m("src", "srcs/App.tsx"), false);
  });

  it("reads a long path once: a pathological pattern answers without backtracking", () => {
    // A backtracking matcher takes exponential time here; the automaton reads each character once.
    const glob = compilePathGlob("*a*a*a*a*a*a*a*a*a*a*b");
    assert.equal(glob.matches("a".repeat(20_000)), false);
    assert.equal(glob.matches(`${"a".repeat(20_000)}b`), true);
  });
});
