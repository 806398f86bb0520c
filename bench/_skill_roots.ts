/**
 * The tree the discovery benches spread skills over: three roots (project,
 * user, shared) and skill `i` at depth 2 (`root/skills/x`), 3
 * (`root/skills/group/x`) or 4 (`root/skills/group/sub/x`), by `i`.
 *
 * @module
 */
import { join } from "node:path";

/** The three roots under `temp`, as discovery takes them. */
export function skillRoots(temp: string): { scope: string; path: string }[] {
  return ["project", "user", "shared"].map((scope) => ({ scope, path: join(temp, scope) }));
}

/** The folder of skill `i` (named `skill-<i>`) among `roots`. */
export function skillFolder(roots: readonly { path: string }[], i: number): string {
  const root = roots[i % 3]!.path;
  const name = `skill-${i}`;
  switch (i % 3) {
    case 0:
      return join(root, "skills", name);
    case 1:
      return join(root, "skills", `group-${i % 40}`, name);
    default:
      return join(root, "skills", `group-${i % 40}`, `sub-${i % 7}`, name);
  }
}
