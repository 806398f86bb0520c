/**
 * A corpus of hostile resource paths with the outcome SPEC §4 expects for
 * each: refused with a reason, or valid with its normal form and class. The
 * expectations are written out here (not computed by the code under test).
 *
 * @module
 */
import type { ResourceClass } from "../mod.ts";

/** One path and what must become of it. */
export type HostileCase =
  | { readonly path: string; readonly invalid: string }
  | { readonly path: string; readonly normal: string; readonly class: ResourceClass };

const DOTDOT = 'it contains ".." and could leave the skill folder';
const CONTROL = "it contains NUL or another control character";
const INVISIBLE = "it contains a bidirectional control or a line separator";
const SLASH_LIKE = "it contains a character that looks like a slash or a backslash";
const BACKSLASH = "it contains a backslash";
const ABSOLUTE = "it is absolute";
const DRIVE = "it is a drive path";

const cases: HostileCase[] = [];
const invalid = (path: string, reason: string): void => void cases.push({ path, invalid: reason });
const valid = (path: string, normal: string, resourceClass: ResourceClass): void =>
  void cases.push({ path, normal, class: resourceClass });

// `..` in every position of a few paths, bare and with noise around it.
for (const segments of [["references", "a.md"], ["assets", "img", "x.png"], ["a.txt"]]) {
  for (let at = 0; at <= segments.length; at++) {
    const parts = [...segments.slice(0, at), "..", ...segments.slice(at)];
    invalid(parts.join("/"), DOTDOT);
    invalid(`./${parts.join("//")}`, DOTDOT);
    invalid(`${parts.join("/./")}/`, DOTDOT);
  }
}
for (
  const path of [
    "..",
    "../",
    "./..",
    "../..",
    "a/../..",
    "references/../../etc/passwd",
    "references/../SKILL.md",
    "../../../../../../etc/shadow",
    "references/..",
    "references/../",
    "//..",
  ]
) {
  invalid(path, path === "//.." ? ABSOLUTE : DOTDOT);
}

// Absolute, drive and UNC forms.
for (const path of ["/etc/passwd", "/", "//server/share/x", "///x", "/references/a.md"]) {
  invalid(path, ABSOLUTE);
}
for (const path of ["C:", "C:/x", "c:x", "Z:/Windows/win.ini", "./C:/x", ".//d:/x", "C:.."]) {
  invalid(path, DRIVE);
}
for (
  const path of [
    "C:\\x",
    "\\\\server\\share\\x",
    "\\\\?\\C:\\x",
    "references\\a.md",
    "..\\x",
    "a\\..\\b",
    "\\",
    "assets\\..\\..\\x",
  ]
) {
  invalid(path, BACKSLASH);
}
valid("a/C:/x", "a/C:/x", "nonstandard");
valid("references/C:", "references/C:", "references");

// Every C0 and C1 control character and DEL, at the start of a name and inside one.
for (let code = 0; code < 0xa0; code++) {
  if (code >= 0x20 && code < 0x7f) continue;
  const c = String.fromCharCode(code);
  invalid(`references/${c}a.md`, CONTROL);
  invalid(`assets/a${c}.png`, CONTROL);
}

// Bidirectional controls and line/paragraph separators, inside a name and as a folder.
for (
  const code of [
    0x061c,
    0x200e,
    0x200f,
    0x202a,
    0x202b,
    0x202c,
    0x202d,
    0x202e,
    0x2066,
    0x2067,
    0x2068,
    0x2069,
    0x2028,
    0x2029,
  ]
) {
  const c = String.fromCharCode(code);
  invalid(`references/evil${c}dm.txt`, INVISIBLE);
  invalid(`${c}references/a.md`, INVISIBLE);
}

// Characters drawn like a slash or a backslash.
for (
  const code of [
    0x2044,
    0x2215,
    0x2216,
    0x2571,
    0x2572,
    0x29f5,
    0x29f8,
    0x29f9,
    0xfe68,
    0xff0f,
    0xff3c,
  ]
) {
  const c = String.fromCharCode(code);
  invalid(`references${c}a.md`, SLASH_LIKE);
  invalid(`assets/x${c}..${c}y`, SLASH_LIKE);
}

// Empty or naming nothing.
invalid("", "it is empty");
for (const path of [".", "./", "./.", "././/."]) invalid(path, "it names no file");

// Encodings and look-alikes that are ordinary names.
valid("%2e%2e/x", "%2e%2e/x", "nonstandard");
valid("%2e%2e%2fetc%2fpasswd", "%2e%2e%2fetc%2fpasswd", "root");
valid("..%2f..%2fetc", "..%2f..%2fetc", "root");
valid("references%2fa.md", "references%2fa.md", "root");
valid("%5c..%5cx", "%5c..%5cx", "root");
valid("\uff0e\uff0e/x", "\uff0e\uff0e/x", "nonstandard");
valid("\u2024\u2024/x", "\u2024\u2024/x", "nonstandard");
valid("\u2025/x", "\u2025/x", "nonstandard");
valid(".../x", ".../x", "nonstandard");
valid("a..b/c", "a..b/c", "nonstandard");
valid("references/...", "references/...", "references");
valid("references/..a", "references/..a", "references");
valid("references/a..", "references/a..", "references");
valid("~/x", "~/x", "nonstandard");
valid("~root/.ssh/id_rsa", "~root/.ssh/id_rsa", "nonstandard");
valid(".git/config", ".git/config", "nonstandard");
valid(".env", ".env", "root");
valid("references/.hidden", "references/.hidden", "references");
valid("references/a.md.", "references/a.md.", "references");
valid("references/a.md ", "references/a.md ", "references");
valid("CON", "CON", "root");
valid("references/NUL", "references/NUL", "references");
valid("aux.txt", "aux.txt", "root");
valid("references/\u200bzero-width.md", "references/\u200bzero-width.md", "references");
valid("references/caf\u00e9.md", "references/caf\u00e9.md", "references");
valid("references/cafe\u0301.md", "references/cafe\u0301.md", "references");
valid("references/\ufffd.md", "references/\ufffd.md", "references");
valid("assets/\ud83d\ude00.png", "assets/\ud83d\ude00.png", "assets");
valid("SKILL.md", "SKILL.md", "root");
valid("skill.md", "skill.md", "root");

// Case variants and near misses of the standard folders: all non-standard.
for (
  const folder of [
    "References",
    "REFERENCES",
    "reFerences",
    "reference",
    "refs",
    "Assets",
    "ASSETS",
    "asset",
    "Scripts",
    "SCRIPTS",
    "script",
    "references ",
    " references",
    "references.",
    "references\u200b",
    "\uff52\uff45\uff46\uff45\uff52\uff45\uff4e\uff43\uff45\uff53",
    "r\u0435ferences", // Cyrillic е
    "scripts~",
  ]
) {
  valid(`${folder}/a.md`, `${folder}/a.md`, "nonstandard");
}

// Noise that normalises to a standard path.
for (
  const path of [
    "./references/a.md",
    "references//a.md",
    "references/./a.md",
    "references/a.md/",
    ".//references///a.md/.",
    "././references/./a.md//",
  ]
) {
  valid(path, "references/a.md", "references");
}
valid("scripts/./sub//run.sh", "scripts/sub/run.sh", "scripts");
valid("assets/a/b/c/d/e/f.png", "assets/a/b/c/d/e/f.png", "assets");

// Very long paths.
valid("a".repeat(200), "a".repeat(200), "root");
valid("n".repeat(300), "n".repeat(300), "root"); // longer than a file name may be
valid(`references/${"d/".repeat(300)}x.md`, `references/${"d/".repeat(300)}x.md`, "references");
valid(`${"./".repeat(500)}assets/x`, "assets/x", "assets");
invalid(`${"a/".repeat(500)}../x`, DOTDOT);

/** The corpus. */
export const HOSTILE_PATHS: readonly HostileCase[] = Object.freeze(cases);
