/**
 * What the skill-folder loader passed over. Its own module, free of `node:`
 * imports, so the declarations of every entry point that names it stay
 * readable without Node's types.
 *
 * Folder `lib/fs/load/` — loading one skill folder: verified listings, SKILL.md and YAML, catalog files.
 *
 * @module
 */
/** An entry of a skill folder that the loader passed over, and why. */
export interface LoadWarning {
  /** The entry's path inside the folder. */
  readonly path: string;
  /** What the loader passed over, and why. */
  readonly message: string;
}
