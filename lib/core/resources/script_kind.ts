/**
 * Which interpreter runs a skill's script: the `#!` line when the file has
 * one, else its extension, from one documented table. Pure: the runner
 * (`lib/fs/scripts/run_script.ts`) reads the bytes, activation names the interpreter
 * from the extension alone (it reads no file).
 *
 * Folder `lib/core/resources/` — a skill's bundled files: paths and classes, the gate, bundles, reads.
 *
 * @module
 */

/**
 * The interpreters a script may name, and what each means: `python3`,
 * `bash` and `sh` are found in the sandbox's system folders; `runtime` is the
 * JavaScript runtime running skillset (Node, Deno or Bun), which also runs
 * TypeScript where it can (Deno, Bun, Node 22.6 or later).
 */
export type ScriptInterpreter = "python3" | "bash" | "sh" | "runtime";

/**
 * The extension table: `.py` → `python3`, `.sh` → `bash`, `.js`, `.mjs`,
 * `.cjs` and `.ts`, `.mts` → the current runtime.
 *
 * @example
 * ```ts
 * import { SCRIPT_EXTENSIONS } from "./script_kind.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(SCRIPT_EXTENSIONS.get(".py"), "python3");
 * ```
 */
export const SCRIPT_EXTENSIONS: ReadonlyMap<string, ScriptInterpreter> = new Map([
  [".py", "python3"],
  [".sh", "bash"],
  [".js", "runtime"],
  [".mjs", "runtime"],
  [".cjs", "runtime"],
  [".ts", "runtime"],
  [".mts", "runtime"],
]);

/** What a `#!` line may name (its last path segment, or `env`'s argument), and the interpreter it means. */
const SHEBANG_NAMES: ReadonlyMap<string, ScriptInterpreter> = new Map([
  ["python3", "python3"],
  ["python", "python3"],
  ["bash", "bash"],
  ["sh", "sh"],
  ["dash", "sh"],
  ["node", "runtime"],
  ["deno", "runtime"],
  ["bun", "runtime"],
]);

/**
 * The interpreter a path's extension names.
 *
 * @param path A script's path.
 * @returns The interpreter, or `undefined` when the extension is not in {@linkcode SCRIPT_EXTENSIONS}.
 */
export function interpreterByExtension(path: string): ScriptInterpreter | undefined {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? undefined : SCRIPT_EXTENSIONS.get(name.slice(dot).toLowerCase());
}

/**
 * The interpreter of a script: its `#!` line when it starts with one (the
 * program's last path segment, or the first word after `env` and its
 * options), else its extension.
 *
 * @param path The script's path (for the extension).
 * @param head The script's first bytes (at least its first line).
 * @returns The interpreter and where it came from; `undefined` when the
 *   `#!` line names a program outside the table or neither names one.
 * @example
 * ```ts
 * import { scriptInterpreter } from "./script_kind.ts";
 * import { assert } from "../_assert.ts";
 *
 * const bytes = (s: string) => new TextEncoder().encode(s);
 * assert.deepEqual(scriptInterpreter("scripts/a", bytes("#!/usr/bin/env -S python3 -u\n")), {
 *   interpreter: "python3",
 *   from: "shebang",
 * });
 * assert.deepEqual(scriptInterpreter("scripts/a.sh", bytes("echo hi\n")), { interpreter: "bash", from: "extension" });
 * assert.equal(scriptInterpreter("scripts/a.rb", bytes("#!/usr/bin/ruby\n")), undefined);
 * ```
 */
export function scriptInterpreter(
  path: string,
  head: Uint8Array,
): { readonly interpreter: ScriptInterpreter; readonly from: "shebang" | "extension" } | undefined {
  if (head[0] === 0x23 && head[1] === 0x21) {
    let end = head.indexOf(0x0a);
    if (end < 0) end = Math.min(head.length, 256);
    const line = new TextDecoder().decode(head.subarray(2, end)).replace(/\r$/, "").trim();
    const words = line.split(/[ \t]+/);
    let program = words[0] ?? "";
    program = program.slice(program.lastIndexOf("/") + 1);
    if (program === "env") program = words.slice(1).find((w) => !w.startsWith("-")) ?? "";
    const interpreter = SHEBANG_NAMES.get(program) ??
      (/^python3\.\d+$/.test(program) ? "python3" : undefined);
    return interpreter === undefined ? undefined : Object.freeze({ interpreter, from: "shebang" });
  }
  const interpreter = interpreterByExtension(path);
  return interpreter === undefined ? undefined : Object.freeze({ interpreter, from: "extension" });
}
