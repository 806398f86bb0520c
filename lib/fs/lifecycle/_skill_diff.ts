/**
 * What an update would change in a skill folder, file by file: each file
 * added, removed or changed with its sizes before and after, and for a small
 * text file (UTF-8, no NUL, at most {@linkcode DIFF_FILE_BYTES}) a unified
 * diff with three lines of context; all diffs together at most
 * {@linkcode DIFF_TOTAL_CHARS} characters (a diff past that is left out, and
 * says so). Files are opened without following links.
 *
 * Folder `lib/fs/lifecycle/` — the lifecycle: add, outdated, update, remove from git and folder sources.
 *
 * @module
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import type { FileDigest } from "../../core/trust/digest.ts";
import { diffFiles } from "../../core/trust/trust_file.ts";
import { O_NOFOLLOW, READ_FLAGS } from "../_safe_open.ts";

/** The largest file given a text diff. */
export const DIFF_FILE_BYTES = 64 * 1024;
/** The most characters of text diffs in one skill's change. */
export const DIFF_TOTAL_CHARS = 256 * 1024;
/** The most line pairs compared for one file (lines before × lines after). */
const DIFF_CELLS = 4_000_000;

/** One file an update changes. */
export interface FileDiff {
  /** Its path in the skill. */
  readonly path: string;
  readonly change: "added" | "removed" | "changed";
  /** Its size now (absent when added). */
  readonly size_before?: number;
  /** Its size after (absent when removed). */
  readonly size_after?: number;
  /** A unified diff, for a small text file. */
  readonly diff?: string;
  /** Why there is no diff, when it is a text file left out. */
  readonly note?: string;
}

const STRICT = new TextDecoder("utf-8", { fatal: true });

/** A small text file's text, or undefined (missing, a link, too large, binary). */
function textOf(dir: string | undefined, path: string): string | undefined {
  if (dir === undefined) return "";
  let fd: number;
  try {
    fd = openSync(join(dir, path), READ_FLAGS | O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > DIFF_FILE_BYTES) return undefined;
    const bytes = new Uint8Array(stat.size);
    let done = 0;
    while (done < bytes.length) {
      const n = readSync(fd, bytes, done, bytes.length - done, null);
      if (n === 0) break;
      done += n;
    }
    if (bytes.includes(0)) return undefined;
    return STRICT.decode(bytes.subarray(0, done));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function linesOf(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * A unified diff of two texts (three lines of context), or undefined when
 * they have too many lines to compare.
 *
 * @param path The file, for the `---`/`+++` lines.
 * @param before The old text ("" when added).
 * @param after The new text ("" when removed).
 * @returns The diff.
 */
export function unifiedDiff(path: string, before: string, after: string): string | undefined {
  const a = linesOf(before);
  const b = linesOf(after);
  const n = a.length, m = b.length;
  if ((n + 1) * (m + 1) > DIFF_CELLS) return undefined;
  // Longest common subsequence lengths of the suffixes, then one walk.
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j]
        ? lcs[(i + 1) * width + j + 1]! + 1
        : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }
  const ops: { op: " " | "-" | "+"; line: string; ai: number; bi: number }[] = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ op: " ", line: a[i]!, ai: i++, bi: j++ });
    } else if (i < n && (j === m || lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!)) {
      ops.push({ op: "-", line: a[i]!, ai: i++, bi: j });
    } else {
      ops.push({ op: "+", line: b[j]!, ai: i, bi: j++ });
    }
  }
  const out = [`--- a/${path}`, `+++ b/${path}`];
  let k = 0;
  while (k < ops.length) {
    if (ops[k]!.op === " ") {
      k++;
      continue;
    }
    // A hunk: from 3 lines before this change to 3 lines after the last change close to it.
    const start = Math.max(0, k - 3);
    let end = k;
    let last = k;
    while (end < ops.length && end - last <= 6) {
      if (ops[end]!.op !== " ") last = end;
      end++;
    }
    end = Math.min(ops.length, last + 4);
    const hunk = ops.slice(start, end);
    const aCount = hunk.filter((o) => o.op !== "+").length;
    const bCount = hunk.filter((o) => o.op !== "-").length;
    const aStart = aCount === 0 ? hunk[0]!.ai : hunk[0]!.ai + 1;
    const bStart = bCount === 0 ? hunk[0]!.bi : hunk[0]!.bi + 1;
    out.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@`);
    for (const o of hunk) out.push(`${o.op}${o.line}`);
    k = end;
  }
  return `${out.join("\n")}\n`;
}

/**
 * The files that differ between a skill folder now and its update.
 *
 * @param before The folder now (undefined when it is missing) and its files.
 * @param after The staged update and its files.
 * @returns Each file that differs, in code-unit order of path.
 */
export function skillDiff(
  before: { readonly dir: string | undefined; readonly files: readonly FileDigest[] },
  after: { readonly dir: string; readonly files: readonly FileDigest[] },
): readonly FileDiff[] {
  const sizeBefore = new Map(before.files.map((f) => [f.path, f.size]));
  const sizeAfter = new Map(after.files.map((f) => [f.path, f.size]));
  let budget = DIFF_TOTAL_CHARS;
  return Object.freeze(
    diffFiles(before.files, after.files).map((c) => {
      const old = c.change === "added" ? "" : textOf(before.dir, c.path);
      const now = c.change === "removed" ? "" : textOf(after.dir, c.path);
      let diff: string | undefined;
      let note: string | undefined;
      if (old !== undefined && now !== undefined) {
        diff = unifiedDiff(c.path, old, now);
        if (diff === undefined) note = "too many lines to compare";
        else if (diff.length > budget) {
          diff = undefined;
          note = `left out: the diffs are over ${DIFF_TOTAL_CHARS} characters`;
        } else budget -= diff.length;
      }
      const size0 = sizeBefore.get(c.path);
      const size1 = sizeAfter.get(c.path);
      return Object.freeze({
        path: c.path,
        change: c.change,
        ...size0 === undefined ? {} : { size_before: size0 },
        ...size1 === undefined ? {} : { size_after: size1 },
        ...diff === undefined ? {} : { diff },
        ...note === undefined ? {} : { note },
      });
    }),
  );
}
