/**
 * A skill's files as one run of a script sees them: read once into memory
 * through the verified opens (each checked not to change while read), the
 * skill's manifest computed from those very bytes, and the files the gate
 * shows written into a fresh folder that the sandbox binds read-only. What
 * was hashed is what is written: nothing is opened twice.
 *
 * Folder `lib/fs/scripts/` — running a skill's scripts: the sandbox, capped spawns, snapshots.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { openResource, type ResourceFile, type SkillBundle } from "../../core/resources/bundle.ts";
import { ResourceReadError } from "../../core/errors.ts";
import { mayAccess, type SafetyFlags } from "../../core/resources/gate.ts";
import { effectiveClass } from "../../core/resources/resource_path.ts";
import { compareCodeUnits, type FileDigest, sha256Digest } from "../../core/trust/digest.ts";
import { manifestFromEntries, type SkillManifest } from "../../core/trust/manifest.ts";
import type { ScriptRunError } from "./script_run_error.ts";

/** One file read for the run: its bytes, and whether the gate lets the script see it. */
export interface Snapshot {
  readonly bytes: Uint8Array;
  readonly visible: boolean;
}

/**
 * Read the skill's files once: the ones the gate shows (to copy into the
 * sandbox), and, when `all`, every other file too (to hash the skill whole).
 */
export function readSkill(
  skill: SkillBundle,
  flags: SafetyFlags,
  all: boolean,
  maxBytes: number,
  refuse: (code: "SKILL_TOO_LARGE", message: string) => ScriptRunError,
): Map<string, Snapshot> {
  const out = new Map<string, Snapshot>();
  let total = 0;
  for (const path of [...skill.files.keys()].sort(compareCodeUnits)) {
    const file = skill.files.get(path)!;
    if (file.outside_root === true) continue;
    const shown = mayAccess(effectiveClass(path, file.real_path, skill.resource_classes), flags);
    if (!shown && !all) continue;
    const tooLarge = () =>
      refuse(
        "SKILL_TOO_LARGE",
        `Skill ${
          JSON.stringify(skill.name)
        } has over ${maxBytes} bytes of files to copy into the sandbox`,
      );
    if (total + file.size > maxBytes) throw tooLarge();
    // The budget holds for the bytes as opened, not as listed (a served listing can understate them).
    const { bytes, realPath } = readWhole(file, maxBytes - total, tooLarge);
    total += bytes.length;
    const visible = mayAccess(effectiveClass(path, realPath, skill.resource_classes), flags);
    out.set(path, Object.freeze({ bytes, visible }));
  }
  return out;
}

/** Every byte of a file through one handle, checked not to change while read, up to a budget. */
function readWhole(
  file: ResourceFile,
  budget: number,
  tooLarge: () => ScriptRunError,
): { bytes: Uint8Array; realPath: string | undefined } {
  const handle = openResource(file);
  try {
    const size = handle.size;
    const changed = () =>
      new ResourceReadError("RESOURCE_CHANGED", file.path, "it changed while it was being read");
    if (size > budget) throw tooLarge();
    const bytes = new Uint8Array(size);
    for (let filled = 0; filled < size;) {
      const page = handle.read(filled, size - filled);
      if (page.length === 0) throw changed();
      bytes.set(page, filled);
      filled += page.length;
    }
    if (handle.read(size, 1).length !== 0) throw changed();
    if (typeof handle.versionNow === "function" && handle.versionNow() !== handle.version) {
      throw changed();
    }
    return { bytes, realPath: handle.real_path ?? file.real_path };
  } finally {
    handle.close();
  }
}

/** The skill's manifest from the bytes read (every file that is not a link out of it). */
export async function manifestOf(
  skill: SkillBundle,
  files: Map<string, Snapshot>,
): Promise<SkillManifest> {
  const entries: FileDigest[] = [];
  for (const [path, { bytes }] of files) {
    entries.push({ path, size: bytes.length, digest: await sha256Digest(bytes) });
  }
  return manifestFromEntries(skill.name, skill.frontmatter, entries);
}

/**
 * Write the files the gate shows into a fresh folder (the sandbox's `/skill`).
 *
 * @throws {ResourceReadError} `NOT_A_REGULAR_FILE` when a path is listed both
 *   as a file and as a folder of others (a bundle served over MCP can list that).
 */
export function writeSnapshot(dir: string, files: Map<string, Snapshot>): void {
  for (const [path, { visible }] of files) {
    if (!visible) continue;
    for (let slash = path.indexOf("/"); slash > 0; slash = path.indexOf("/", slash + 1)) {
      const folder = path.slice(0, slash);
      if (files.get(folder)?.visible === true) {
        throw new ResourceReadError(
          "NOT_A_REGULAR_FILE",
          folder,
          `it is listed both as a file and as the folder of ${JSON.stringify(path)}`,
        );
      }
    }
  }
  mkdirSync(dir, { mode: 0o755 });
  for (const [path, { bytes, visible }] of files) {
    if (!visible) continue;
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
    writeFileSync(target, bytes, { flag: "wx", mode: 0o644 });
  }
}
