/**
 * Reading one skill folder the scan met: its SKILL.md (through a link only
 * when the link stays in its own folder, outside the gated folders, or is an
 * alias of another folder's SKILL.md in the same root), parsed leniently,
 * with the `GATED_REFERENCE` diagnostics of its body — or, when it cannot be
 * used, the reason it is skipped.
 *
 * Folder `lib/fs/discovery/` — discovery over roots and what it found: walk, diagnostics, validation.
 *
 * @module
 */
import { basename, dirname, join, sep } from "node:path";
import { AgentSkillError } from "../../core/errors.ts";
import type { SafetyFlags } from "../../core/resources/gate.ts";
import { effectiveClass, type ResourceClassMap } from "../../core/resources/resource_path.ts";
import { gatedReferences } from "./_references.ts";
import { errorCode, type Folder, inside, isPermissionError, type ScanRoot } from "./_walk.ts";
import type {
  DiscoveredSkill,
  DiscoveryEntry,
  DiscoveryFileSystem,
  SkillPlace,
} from "./discovery.ts";
import {
  diagnostic,
  diagnosticFromError,
  type SkillDiagnostic,
  type SkillDiagnosticCode,
} from "./skill_diagnostic.ts";
import { MAX_SKILL_MD_BYTES, SKILL_MD_NAMES } from "../load/skill_folder.ts";
import { parseSkillMd, skillMdBody } from "../load/skill_md.ts";
import { MAX_BODY } from "../../core/search/_fields.ts";
import { readRegularFile, readRegularText } from "../_safe_open.ts";

/** One decoder for every SKILL.md (it keeps no state between whole decodes). */
const UTF8 = new TextDecoder();

/** A skill folder met by the scan. */
export interface Found {
  /** Where it was found. */
  readonly place: SkillPlace;
  /** The rank of its root, in precedence order. */
  readonly rank: number;
  /** Its depth below the root. */
  readonly depth: number;
  /** The loaded skill, or `null` when skipped. */
  readonly skill: DiscoveredSkill | null;
  /** Its rule breaks, or why it was skipped. */
  readonly diagnostics: readonly SkillDiagnostic[];
}

/**
 * Read the skill of a folder the scan met.
 *
 * @param root The root it was found under.
 * @param rank The root's rank.
 * @param folder The folder.
 * @param entry Its SKILL.md (or skill.md) entry.
 * @param entries The folder's entries (its top level, for the references).
 * @param within The real path an alias must stay inside.
 * @param fs The file system.
 * @param classes Extra folders mapped to a standard class.
 * @param safety The switches the `GATED_REFERENCE` diagnostics assume.
 * @returns The skill found, or the folder skipped with why.
 */
export function readSkill(
  root: ScanRoot,
  rank: number,
  folder: Folder,
  entry: DiscoveryEntry,
  entries: readonly DiscoveryEntry[],
  within: string,
  fs: DiscoveryFileSystem,
  classes: ResourceClassMap,
  safety: SafetyFlags,
): Found {
  const skillMd = join(folder.path, entry.name);
  let place: SkillPlace = Object.freeze({
    scope: root.scope,
    path: folder.path,
    real_path: folder.real,
    skill_md: skillMd,
    nested: folder.skill !== null,
    parent: folder.skill,
    alias: false,
  });
  const skip = (code: SkillDiagnosticCode, d: SkillDiagnostic | string): Found => ({
    place,
    rank,
    depth: folder.depth,
    skill: null,
    diagnostics: Object.freeze([typeof d === "string" ? diagnostic("error", code, skillMd, d) : d]),
  });
  let real = `${folder.real}${folder.real.endsWith(sep) ? "" : sep}${entry.name}`;
  let topLevel: readonly DiscoveryEntry[] = entries;
  if (entry.isSymbolicLink()) {
    try {
      real = fs.realpath(real);
    } catch (e) {
      return skip(
        "SKILL_MD_UNREADABLE",
        `Skipped: ${entry.name} is a broken link (${errorCode(e)})`,
      );
    }
    if (inside(folder.real, real)) {
      // The loader's rule: instructions from a folder the gate guards are refused, whatever the switches.
      const relative = real.slice(folder.real.length + (folder.real.endsWith(sep) ? 0 : 1));
      const normal = sep === "/" ? relative : relative.split(sep).join("/");
      if (effectiveClass(entry.name, normal, classes) === "nonstandard") {
        return skip(
          "SKILL_MD_UNREADABLE",
          `Skipped: ${entry.name} is a link into the non-standard folder ${
            JSON.stringify(normal.split("/")[0])
          }, which the safety gate guards`,
        );
      }
    } else if (
      inside(within, real) && SKILL_MD_NAMES.includes(basename(real))
    ) {
      // Another folder's SKILL.md in the same root: that folder's skill, reached again.
      const target = dirname(real);
      place = Object.freeze({ ...place, real_path: target, alias: true });
      let targetEntries: readonly DiscoveryEntry[];
      try {
        targetEntries = fs.readdir(target);
      } catch (e) {
        return skip(
          "SKILL_MD_UNREADABLE",
          `Skipped: ${entry.name} links to a folder that could not be listed (${errorCode(e)})`,
        );
      }
      topLevel = targetEntries;
    } else {
      return skip(
        "SKILL_MD_UNREADABLE",
        `Skipped: ${entry.name} is a link that leads outside the skill folder, and not to the ` +
          "SKILL.md of another folder of the same root",
      );
    }
  }
  let bytes: Uint8Array;
  try {
    bytes = fs.readFile(real, MAX_SKILL_MD_BYTES);
  } catch (e) {
    if (isPermissionError(e)) {
      return skip(
        "PERMISSION_DENIED",
        `Skipped: permission denied reading ${entry.name}`,
      );
    }
    return skip(
      "SKILL_MD_UNREADABLE",
      `Skipped: ${entry.name} could not be read (${errorCode(e)})`,
    );
  }
  if (bytes.length > MAX_SKILL_MD_BYTES) {
    return skip(
      "SKILL_MD_UNREADABLE",
      `Skipped: ${entry.name} is larger than the limit of ${MAX_SKILL_MD_BYTES} bytes`,
    );
  }
  try {
    const md = parseSkillMd(UTF8.decode(bytes), {
      file: skillMd,
      folder: basename(place.alias ? place.real_path : folder.path),
      lenient: true,
    });
    const fm = md.frontmatter;
    const gated = gatedReferences(
      md.body,
      md.bodyLine,
      skillMd,
      topLevel.map((e) => e.name),
      new Set(topLevel.filter((e) => e.isDirectory()).map((e) => e.name)),
      safety,
      classes,
    );
    const all = gated.length === 0 ? md.diagnostics : Object.freeze([...md.diagnostics, ...gated]);
    return {
      place,
      rank,
      depth: folder.depth,
      skill: Object.freeze(
        withBody({
          name: fm.name,
          description: fm.description,
          ...place,
          frontmatter: fm,
          ...md.version === undefined ? {} : { version: md.version },
          diagnostics: all,
        }, bodyReader(fs, real)),
      ),
      diagnostics: all,
    };
  } catch (e) {
    if (!(e instanceof AgentSkillError)) throw e;
    return skip("SKILL_SKIPPED", diagnosticFromError("error", "SKILL_SKIPPED", e, skillMd));
  }
}

/** The reader of each skill's body, by skill: what {@linkcode readBody} calls. */
const BODY_READERS = new WeakMap<object, () => string>();

/**
 * The one `body` getter of every discovered skill: its reader, found by the
 * skill. One getter for all keeps the skills alike to the runtime (objects
 * with the same properties and the same accessor share a shape), so code
 * that reads many skills stays fast; a getter per skill would give each its
 * own shape.
 */
function readBody(this: object): string {
  const read = BODY_READERS.get(this);
  return read === undefined ? "" : read();
}

/**
 * Give a skill its lazy `body`: not enumerable (JSON and spreads leave it
 * out), read through `read` each time it is asked.
 *
 * @param skill The skill, not yet frozen.
 * @param read The reader, or a skill whose `body` to carry over.
 * @returns The same object.
 */
export function withBody<T extends object>(skill: T, read: (() => string) | object): T {
  let reader: (() => string) | undefined;
  if (typeof read === "function") {
    reader = read as () => string;
  } else {
    reader = BODY_READERS.get(read);
    if (reader === undefined) {
      // Another object's own getter: carried over as it is.
      const get = Object.getOwnPropertyDescriptor(read, "body")?.get;
      if (get !== undefined) Object.defineProperty(skill, "body", { get, enumerable: false });
      return skill;
    }
  }
  BODY_READERS.set(skill, reader);
  Object.defineProperty(skill, "body", { get: readBody, enumerable: false });
  return skill;
}

/**
 * The reader of a SKILL.md's body for search: the file read again as
 * discovery read it (a regular file, not through a final link, at most
 * `MAX_SKILL_MD_BYTES`), split from its frontmatter, its first 32 KiB; empty
 * when it can no longer be read or split. Nothing is kept between calls.
 */
function bodyReader(fs: DiscoveryFileSystem, real: string): () => string {
  // The default file system's reads go through one buffer, decoded once (no copy per body).
  const fast = fs.readFile === readRegularFile;
  return () => {
    try {
      let text: string | null;
      if (fast) {
        text = readRegularText(real, MAX_SKILL_MD_BYTES);
      } else {
        const bytes = fs.readFile(real, MAX_SKILL_MD_BYTES);
        text = bytes.length > MAX_SKILL_MD_BYTES ? null : UTF8.decode(bytes);
      }
      if (text === null) return "";
      const body = skillMdBody(text) ?? "";
      return body.length > MAX_BODY ? body.slice(0, MAX_BODY) : body;
    } catch {
      return "";
    }
  };
}
