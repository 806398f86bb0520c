/**
 * No silent empties: a root that does not exist or holds no skill is an
 * error for `lock`, `verify` and `serve` unless `--allow-empty` says an
 * empty root is meant; a typo in a root never writes an empty lockfile or
 * verifies nothing.
 *
 * Folder `lib/cli/` — the command line behind `lib/cli.ts`: the command table, flags, output, config.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { resolve, sep } from "node:path";
import { escapeControls as esc } from "../core/_text.ts";
import type { SkillRoot } from "../fs/discovery/discover.ts";
import type { Discovery } from "../fs/discovery/discovery.ts";
import type { CliIO } from "./_io.ts";

/**
 * Whether every root given holds a skill (or, for the conventional roots,
 * whether any does); each one that does not is named on stderr.
 *
 * @param roots The roots discovery ran on.
 * @param discovery What it found.
 * @param given Whether the roots were given (else they are the conventional ones).
 * @param allowEmpty `--allow-empty`: an empty or missing root is fine.
 * @param io Where to write.
 * @returns Whether to go on.
 */
export function rootsHoldSkills(
  roots: readonly SkillRoot[],
  discovery: Discovery,
  given: boolean,
  allowEmpty: boolean,
  io: Pick<CliIO, "stderr">,
): boolean {
  if (allowEmpty) return true;
  const found = [...discovery.skills, ...discovery.shadowed, ...discovery.skipped].map((s) =>
    resolve(s.path)
  );
  if (!given) {
    if (found.length > 0) return true;
    io.stderr(
      "skillset: error: no skill found under the conventional roots (give --root scope=path, or --allow-empty)\n",
    );
    return false;
  }
  // A root discovery already reports as an error (unreadable, say) is the command's to report.
  const refused = discovery.diagnostics.filter((d) => d.severity === "error").map((d) =>
    resolve(d.path)
  );
  let ok = true;
  for (const root of roots) {
    const path = resolve(root.path);
    if (refused.includes(path)) continue;
    // A folder argument is its own scope: named once.
    const name = root.scope === root.path ? root.path : `${root.scope}=${root.path}`;
    if (!exists(path)) {
      io.stderr(`skillset: error: root "${esc(name)}" does not exist (or give --allow-empty)\n`);
      ok = false;
    } else if (
      !found.some((f) => f === path || f.startsWith(path.endsWith(sep) ? path : path + sep))
    ) {
      io.stderr(`skillset: error: root "${esc(name)}" holds no skill (or give --allow-empty)\n`);
      ok = false;
    }
  }
  return ok;
}

/**
 * Whether a path exists, for the roots check: a path the runtime may not even
 * look at (Deno without read access) counts as there — discovery says why it
 * cannot be read.
 *
 * @param path A path.
 * @returns Whether it exists, or may.
 */
export function exists(path: string): boolean {
  try {
    return existsSync(path);
  } catch {
    return true;
  }
}
