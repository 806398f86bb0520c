/**
 * Activation (SPEC §4): a skill's instructions plus a manifest of its bundled
 * files grouped by class, with non-standard folders listed only while the
 * safety gate is open. Listing reads no file.
 *
 * @module
 */
import { escapeControls } from "./_text.ts";
import type { SkillBundle } from "./bundle.ts";
import { renderEnvelope } from "./envelope.ts";
import { isGateOpen, mayAccess, type SafetyFlags } from "./gate.ts";
import { mediaTypeOf } from "./media_type.ts";
import { effectiveClass, type ResourceClass } from "./resource_path.ts";

/** One listed file. */
export interface ManifestEntry {
  readonly path: string;
  /** Bytes. */
  readonly size: number;
  /** Guessed from the extension. */
  readonly media_type: string;
}

/** The listed files by class, each sorted by path; `nonstandard` only while the gate is open. */
export interface ResourceManifest {
  readonly root: readonly ManifestEntry[];
  readonly references: readonly ManifestEntry[];
  readonly assets: readonly ManifestEntry[];
  readonly scripts: readonly ManifestEntry[];
  readonly nonstandard?: readonly ManifestEntry[];
}

/** What activating a skill returns. */
export interface Activation {
  readonly skill: string;
  readonly instructions: string;
  readonly resources: ResourceManifest;
}

/** The instruction file itself is not listed as a resource. */
const INSTRUCTION_FILES: ReadonlySet<string> = new Set(["SKILL.md", "skill.md"]);

/**
 * Activate a skill: its instructions and the manifest of what it bundles.
 *
 * @param bundle The skill.
 * @param flags The two safety switches (both default true).
 * @returns A frozen activation. Every listed path is readable under the same flags.
 * @example
 * ```ts
 * import { activateSkill, createBundle } from "../mod.ts";
 * import { assert } from "./_assert.ts";
 *
 * const bundle = createBundle({
 *   frontmatter: { name: "pdf", description: "Fill PDF forms" },
 *   instructions: "Read references/forms.md first.",
 *   files: { "references/forms.md": "# Forms", "canvas-fonts/a.ttf": new Uint8Array(4) },
 * });
 * const closed = activateSkill(bundle);
 * assert.deepEqual(closed.resources.references, [
 *   { path: "references/forms.md", size: 7, media_type: "text/markdown" },
 * ]);
 * assert.equal(closed.resources.nonstandard, undefined);
 * const open = activateSkill(bundle, { global_safety: false, skill_safety: false });
 * assert.equal(open.resources.nonstandard?.[0]?.path, "canvas-fonts/a.ttf");
 * ```
 */
export function activateSkill(bundle: SkillBundle, flags: SafetyFlags = {}): Activation {
  const open = isGateOpen(flags);
  const groups: Record<ResourceClass, ManifestEntry[]> = {
    root: [],
    references: [],
    assets: [],
    scripts: [],
    nonstandard: [],
  };
  for (const file of bundle.files.values()) {
    if (file.outside_root === true || INSTRUCTION_FILES.has(file.path)) continue;
    const resourceClass = effectiveClass(file.path, file.real_path);
    if (!mayAccess(resourceClass, flags)) continue;
    groups[resourceClass].push(
      Object.freeze({ path: file.path, size: file.size, media_type: mediaTypeOf(file.path) }),
    );
  }
  const sorted = (list: ManifestEntry[]): readonly ManifestEntry[] =>
    Object.freeze(list.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)));
  const resources: ResourceManifest = {
    root: sorted(groups.root),
    references: sorted(groups.references),
    assets: sorted(groups.assets),
    scripts: sorted(groups.scripts),
    ...(open ? { nonstandard: sorted(groups.nonstandard) } : {}),
  };
  return Object.freeze({
    skill: bundle.name,
    instructions: bundle.instructions,
    resources: Object.freeze(resources),
  });
}

const LABELS: Readonly<Record<ResourceClass, string>> = {
  root: "[file]",
  references: "[reference]",
  assets: "[asset]",
  scripts: "[script]",
  nonstandard: "[non-standard]",
};

const HEADINGS: Readonly<Record<ResourceClass, string>> = {
  root: "Top-level files",
  references: "references/ (documentation to read when needed)",
  assets: "assets/ (templates, images, data; text or base64)",
  scripts: "scripts/ (source you can read; nothing is executed)",
  nonstandard: "Non-standard folders (open because both safety switches are off)",
};

/**
 * Render an activation as text for a model: the instructions, then every
 * listed file with a visible class label (`[reference]`, `[asset]`,
 * `[script]`, `[file]`, `[non-standard]`). While the gate is closed it says
 * that non-standard folders are gated, without naming any.
 *
 * The text is a `[SKILL_ACTIVATED]` envelope (format in `envelope.ts`): the
 * instructions are its content, counted in `content_bytes`, and a per-call
 * nonce stands in both markers, so instructions holding a fake manifest or a
 * fake closing marker cannot pass for the real ones. The manifest follows the
 * instructions as the envelope's trailer.
 *
 * @param activation From {@linkcode activateSkill}.
 * @param nonce The nonce (default: a new random one per call).
 * @returns The text.
 * @throws {RangeError} For a malformed nonce.
 * @example
 * ```ts
 * import { activateSkill, createBundle, renderActivation } from "../mod.ts";
 * import { assert } from "./_assert.ts";
 *
 * const bundle = createBundle({
 *   frontmatter: { name: "pdf", description: "Fill PDF forms" },
 *   instructions: "Fill the form.",
 *   files: { "assets/form.pdf": new Uint8Array(3), "secret/key.txt": "k" },
 * });
 * const text = renderActivation(activateSkill(bundle));
 * assert.ok(text.includes("[asset] assets/form.pdf (3 bytes, application/pdf)"));
 * assert.ok(!text.includes("secret"));
 * ```
 */
export function renderActivation(activation: Activation, nonce?: string): string {
  const { skill, instructions, resources } = activation;
  const lines = [
    "---",
    `Bundled resources (read one with the skill tool: skill ${
      JSON.stringify(escapeControls(skill))
    }, resource "<path>"; text comes back decoded, other files as base64, in pages):`,
  ];
  let listed = 0;
  for (const resourceClass of ["root", "references", "assets", "scripts", "nonstandard"] as const) {
    const entries = resources[resourceClass];
    if (entries === undefined || entries.length === 0) continue;
    lines.push(`${HEADINGS[resourceClass]}:`);
    for (const e of entries) {
      lines.push(
        `  ${LABELS[resourceClass]} ${escapeControls(e.path)} (${e.size} bytes, ${e.media_type})`,
      );
      listed++;
    }
  }
  if (listed === 0) lines.push("  (none)");
  if (resources.nonstandard === undefined) {
    lines.push(
      "Non-standard folders are gated by the safety settings and are not listed " +
        "(global safety and skill safety must both be false).",
    );
  }
  return renderEnvelope(
    {
      marker: "SKILL_ACTIVATED",
      header: [["skill", skill]],
      content: instructions.replace(/^(\r?\n)+|(\r?\n)+$/g, ""),
      trailer: `${lines.join("\n")}\n`,
    },
    nonce,
  );
}
