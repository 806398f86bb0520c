/**
 * Activation (SPEC §4): a skill's instructions plus a manifest of its bundled
 * files grouped by class, with non-standard folders listed only while the
 * safety gate is open. Listing reads no file.
 *
 * Folder `lib/core/activation/` — activation and the model's tools: bodies, the skill tool, skill_search.
 *
 * @module
 */
import { escapeControls } from "../_text.ts";
import type { SkillBundle } from "../resources/bundle.ts";
import { renderEnvelope } from "../resources/envelope.ts";
import { isGateOpen, mayAccess, type SafetyFlags } from "../resources/gate.ts";
import { mediaTypeOf } from "../resources/media_type.ts";
import { effectiveClass, type ResourceClass } from "../resources/resource_path.ts";
import { formatEntry, parseAllowedTools } from "../policy/allowed_tools.ts";
import { TOOL_POLICY_MODES, type ToolPolicyMode } from "../policy/tool_policy.ts";
import { interpreterByExtension, type ScriptInterpreter } from "../resources/script_kind.ts";
import { assertBundle, assertObject } from "../_shape.ts";
import type { SkillDependencies } from "../catalog/skill_dependencies.ts";
import { type BodyCut, capBody, type TokenCounter } from "./body_budget.ts";

/** One listed file. */
export interface ManifestEntry {
  /** The normalised path. */
  readonly path: string;
  /** Bytes. */
  readonly size: number;
  /** Guessed from the extension. */
  readonly media_type: string;
}

/** The listed files by class, each sorted by path; `nonstandard` only while the gate is open. */
export interface ResourceManifest {
  /** Files at the top level (SKILL.md excluded). */
  readonly root: readonly ManifestEntry[];
  /** Files under `references/`. */
  readonly references: readonly ManifestEntry[];
  /** Files under `assets/`. */
  readonly assets: readonly ManifestEntry[];
  /** Files under `scripts/` (read as source, never run). */
  readonly scripts: readonly ManifestEntry[];
  /** Files in other top-level folders, only while the gate is open. */
  readonly nonstandard?: readonly ManifestEntry[];
}

/** How many listed files of each class the manifest leaves out after its page. */
export interface ManifestOmissions {
  /** Top-level files left out. */
  readonly root: number;
  /** Files under `references/` left out. */
  readonly references: number;
  /** Files under `assets/` left out. */
  readonly assets: number;
  /** Files under `scripts/` left out. */
  readonly scripts: number;
  /** Files in other top-level folders left out, only while the gate is open. */
  readonly nonstandard?: number;
}

/** What activating a skill returns. */
export interface Activation {
  /** The skill's name. */
  readonly skill: string;
  /** The SKILL.md body, or, with `max_body_tokens`, its longest prefix within the budget. */
  readonly instructions: string;
  /** With `max_body_tokens`, when the body was over it: where it was cut and how to read the rest. */
  readonly instructions_cut?: InstructionsCut;
  /** At most `max_entries` per class, from entry `offset` of each class. */
  readonly resources: ResourceManifest;
  /** Files of each class after this page of the manifest (0 when all are shown). */
  readonly not_shown?: ManifestOmissions;
  /** The `offset` that lists the next entries of every class, or `null` when none is left. */
  readonly next_offset?: number | null;
  /** The skill's `allowed-tools` under the host's tool policy, when a `tool_policy` was given. */
  readonly tools?: ActivationTools;
  /**
   * When the host runs scripts (`run_scripts`): the listed files under `scripts/` whose
   * extension names an interpreter, with it (a script with a `#!` line and no such extension
   * may run too; its first line decides).
   */
  readonly runnable_scripts?: readonly RunnableScript[];
  /**
   * When the host gave a catalog (`dependencies`): the skills this one depends on, in closure
   * order (activate them first, in this order); empty when it depends on none.
   */
  readonly dependencies?: readonly string[];
}

/** Where a body over the budget was cut, and the paged read that continues it. */
export interface InstructionsCut extends BodyCut {
  /**
   * The read of the skill tool that continues the body (`resource` and `offset`, a line or
   * `"L+B"` of SKILL.md), when the bundle holds its SKILL.md and knows the line its body starts
   * on (`bodyLine`, as a loaded skill does); absent otherwise.
   */
  readonly continue?: { readonly resource: string; readonly offset: number | string };
}

/** A script the host can run, and the interpreter its extension names. */
export interface RunnableScript {
  /** The script's path. */
  readonly path: string;
  /** `python3`, `bash`, `sh`, or `runtime` (the host's JavaScript runtime). */
  readonly interpreter: ScriptInterpreter;
}

/** What an activation tells the model about tools (frozen). */
export interface ActivationTools {
  /** The host's policy mode. */
  readonly mode: ToolPolicyMode;
  /** The skill's `allowed-tools` entries as written (empty when it declares none or they do not count). */
  readonly allowed: readonly string[];
  /** Whether they count: the skill is trusted and the value parses. */
  readonly counted: boolean;
  /** Why they do not count, when the skill declares some. */
  readonly note?: string;
}

/**
 * Entries listed per class when no cap is given.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_MANIFEST_ENTRIES } from "./activate.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(DEFAULT_MAX_MANIFEST_ENTRIES, 500);
 * ```
 */
export const DEFAULT_MAX_MANIFEST_ENTRIES = 500;

/** Options of {@linkcode activateSkill}. */
export interface ActivateOptions extends SafetyFlags {
  /** The most entries listed per class; at least 1, default 500. */
  readonly max_entries?: number;
  /** The first entry listed in each class (sorted by path), from 0, to page the rest. Default 0. */
  readonly offset?: number;
  /** The host's tool policy mode: the activation then lists the skill's allowed tools (`tools`). */
  readonly tool_policy?: ToolPolicyMode;
  /**
   * Whether this skill's `allowed-tools` count (as the policy's `trusted` decides it);
   * default: true for a local skill, false for one with an MCP `origin`.
   */
  readonly trusted?: boolean;
  /** Whether the host runs this skill's scripts (the `run_skill_script` tool): the activation then lists them. */
  readonly run_scripts?: boolean;
  /**
   * The catalog's dependency resolver (`skillDependencies`): the activation then lists the
   * skill's dependency closure, and a skill whose closure lacks a skill or holds a cycle does
   * not activate.
   */
  readonly dependencies?: SkillDependencies;
  /**
   * The most tokens of the SKILL.md body shown (a whole number of at least 1): a longer body is
   * cut to its longest prefix that fits, at a line end when one does, and the activation says
   * where the rest is (`instructions_cut`). Default: no cap.
   */
  readonly max_body_tokens?: number;
  /**
   * How tokens are counted for `max_body_tokens` (a whole number of at least 0 per text);
   * default: characters ÷ 4, rounded up (`estimateTokens`). The CLI passes o200k_base.
   */
  readonly count_tokens?: TokenCounter;
}

/** The instruction file itself is not listed as a resource. */
const INSTRUCTION_FILES: ReadonlySet<string> = new Set(["SKILL.md", "skill.md"]);

/**
 * Activate a skill: its instructions and the manifest of what it bundles,
 * at most `max_entries` (default 500) per class; `not_shown` counts the rest
 * of each class and `next_offset` lists them.
 *
 * @param bundle The skill.
 * @param options The two safety switches (both default true) and the page of the manifest.
 * @returns A frozen activation. Every listed path is readable under the same flags.
 * @throws {RangeError} When `max_entries` or `offset` is not a whole number in range.
 * @throws {SkillDependencyError} With `dependencies`: `MISSING_DEPENDENCY` or
 *   `DEPENDENCY_CYCLE` when the skill's dependency closure does not resolve.
 * @example
 * ```ts
 * import { activateSkill, createBundle } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
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
 * const capped = activateSkill(bundle, { max_entries: 1, offset: 1 });
 * assert.deepEqual([capped.resources.references, capped.next_offset], [[], null]);
 * ```
 */
export function activateSkill(bundle: SkillBundle, options: ActivateOptions = {}): Activation {
  assertBundle(bundle, "activateSkill(bundle)");
  assertObject(options, "activateSkill(bundle, options)", "an options object");
  const flags = options;
  const max = wholeNumber(options.max_entries, "max_entries", 1) ?? DEFAULT_MAX_MANIFEST_ENTRIES;
  const offset = wholeNumber(options.offset, "offset", 0) ?? 0;
  const dependencies = options.dependencies?.require(bundle);
  const body = options.max_body_tokens === undefined
    ? undefined
    : capBody(bundle.instructions, options.max_body_tokens, options.count_tokens);
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
    const resourceClass = effectiveClass(file.path, file.real_path, bundle.resource_classes);
    if (!mayAccess(resourceClass, flags)) continue;
    groups[resourceClass].push(
      Object.freeze({ path: file.path, size: file.size, media_type: mediaTypeOf(file.path) }),
    );
  }
  const sorted = (list: ManifestEntry[]): readonly ManifestEntry[] =>
    Object.freeze(
      list.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).slice(
        offset,
        offset + max,
      ),
    );
  const after = (list: ManifestEntry[]): number => Math.max(0, list.length - offset - max);
  const resources: ResourceManifest = {
    root: sorted(groups.root),
    references: sorted(groups.references),
    assets: sorted(groups.assets),
    scripts: sorted(groups.scripts),
    ...(open ? { nonstandard: sorted(groups.nonstandard) } : {}),
  };
  const not_shown: ManifestOmissions = {
    root: after(groups.root),
    references: after(groups.references),
    assets: after(groups.assets),
    scripts: after(groups.scripts),
    ...(open ? { nonstandard: after(groups.nonstandard) } : {}),
  };
  const more = Object.values(not_shown).some((n) => n > 0);
  const tools = options.tool_policy === undefined ? undefined : activationTools(bundle, options);
  const runnable = options.run_scripts === true
    ? Object.freeze(resources.scripts.flatMap((e) => {
      const interpreter = interpreterByExtension(e.path);
      return interpreter === undefined ? [] : [Object.freeze({ path: e.path, interpreter })];
    }))
    : undefined;
  return Object.freeze({
    skill: bundle.name,
    instructions: body?.text ?? bundle.instructions,
    ...(body?.cut === undefined ? {} : { instructions_cut: instructionsCut(bundle, body.cut) }),
    resources: Object.freeze(resources),
    not_shown: Object.freeze(not_shown),
    next_offset: more ? offset + max : null,
    ...(tools === undefined ? {} : { tools }),
    ...(runnable === undefined ? {} : { runnable_scripts: runnable }),
    ...(dependencies === undefined ? {} : { dependencies }),
  });
}

/** The cut, with the read of SKILL.md that continues it when the bundle can say where. */
function instructionsCut(bundle: SkillBundle, cut: BodyCut): InstructionsCut {
  const bodyLine = (bundle as { readonly bodyLine?: unknown }).bodyLine;
  const file = ["SKILL.md", "skill.md"].find((p) =>
    bundle.files.get(p)?.outside_root !== true &&
    bundle.files.has(p)
  );
  if (file === undefined || !Number.isSafeInteger(bodyLine) || (bodyLine as number) < 1) {
    return Object.freeze({ ...cut });
  }
  const line = (bodyLine as number) - 1 + cut.rest.line;
  const offset = cut.rest.byte === 0 ? line : `${line}+${cut.rest.byte}`;
  return Object.freeze({ ...cut, continue: Object.freeze({ resource: file, offset }) });
}

function activationTools(bundle: SkillBundle, options: ActivateOptions): ActivationTools {
  const mode = options.tool_policy!;
  if (!(TOOL_POLICY_MODES as readonly unknown[]).includes(mode)) {
    throw new RangeError(
      `tool_policy must be one of ${TOOL_POLICY_MODES.join(", ")}, got ${JSON.stringify(mode)}`,
    );
  }
  const value = bundle.frontmatter["allowed-tools"];
  const none = Object.freeze([]);
  if (value === undefined) return Object.freeze({ mode, allowed: none, counted: false });
  const trusted = options.trusted ??
    (bundle as { readonly origin?: unknown }).origin === undefined;
  if (!trusted) {
    return Object.freeze({
      mode,
      allowed: none,
      counted: false,
      note: "not trusted: a skill served over MCP grants tools only once the user approves it",
    });
  }
  try {
    const allowed = Object.freeze(parseAllowedTools(value).map(formatEntry));
    return Object.freeze({ mode, allowed, counted: true });
  } catch (e) {
    return Object.freeze({ mode, allowed: none, counted: false, note: (e as Error).message });
  }
}

/** The lines an activation adds about tools, for the model. */
function toolLines(tools: ActivationTools): string[] {
  const { mode, allowed, counted, note } = tools;
  const listed = allowed.map((a) => escapeControls(a)).join(" ");
  const head = `Tool policy: ${mode}.`;
  if (!counted) {
    return [
      note === undefined
        ? `${head} This skill declares no allowed-tools.`
        : `${head} This skill's allowed-tools do not count (${escapeControls(note)}).`,
      ...(mode === "restrict"
        ? [
          "Tools outside the active skills' allowed and resolved tools are refused; the skill tool always works.",
        ]
        : []),
    ];
  }
  switch (mode) {
    case "advisory":
      return [`${head} This skill expects to use: ${listed}. The host's usual permissions apply.`];
    case "preapprove":
      return [
        `${head} These run without asking while this skill is active: ${listed}. Other tools need confirmation.`,
      ];
    case "restrict":
      return [
        `${head} These run without asking while this skill is active: ${listed}.`,
        "Tools outside the active skills' allowed and resolved tools are refused; the skill tool always works.",
      ];
  }
}

function wholeNumber(value: number | undefined, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${name} must be a whole number of at least ${min}, got ${String(value)}`);
  }
  return value;
}

/** The line that says the instructions were cut, and where the rest is. */
function cutLine(skill: string, cut: InstructionsCut): string {
  const head = `The instructions above stop at ${cut.shown_tokens} of ${cut.tokens} tokens ` +
    `(budget ${cut.max_tokens}, ${
      cut.counted_by === "estimate" ? "estimated as characters / 4" : "counted by the host"
    })`;
  if (cut.continue === undefined) {
    return `${head}; the rest (from line ${cut.rest.line + 1} of the body) is not shown.`;
  }
  return `${head}; read the rest with the skill tool: skill ${
    JSON.stringify(escapeControls(skill))
  }, resource ${JSON.stringify(cut.continue.resource)}, offset ${
    JSON.stringify(cut.continue.offset)
  } (then each next_offset).`;
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
 * `[script]`, `[file]`, `[non-standard]`). A class with more files than the
 * manifest shows ends with a line saying how many more there are and the
 * offset that lists them. While the gate is closed it says that non-standard
 * folders are gated, without naming any.
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
 * import { activateSkill, createBundle, renderActivation } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
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
  const { skill, instructions, resources, not_shown, next_offset, tools, runnable_scripts } =
    activation;
  const { dependencies, instructions_cut: cut } = activation;
  const lines = [
    "---",
    ...(cut === undefined ? [] : [cutLine(skill, cut)]),
    `Bundled resources (read one with the skill tool: skill ${
      JSON.stringify(escapeControls(skill))
    }, resource "<path>"; text comes back decoded, other files as base64, in pages):`,
  ];
  let listed = 0;
  for (const resourceClass of ["root", "references", "assets", "scripts", "nonstandard"] as const) {
    const entries = resources[resourceClass];
    const more = not_shown?.[resourceClass] ?? 0;
    if (entries === undefined || (entries.length === 0 && more === 0)) continue;
    lines.push(`${HEADINGS[resourceClass]}:`);
    for (const e of entries) {
      lines.push(
        `  ${LABELS[resourceClass]} ${escapeControls(e.path)} (${e.size} bytes, ${e.media_type})`,
      );
      listed++;
    }
    if (more > 0) {
      lines.push(
        `  ... ${more} more ${more === 1 ? "file" : "files"} not shown ` +
          `(activate again with offset ${next_offset} to list the next ones)`,
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
  if (tools !== undefined) lines.push(...toolLines(tools));
  if (runnable_scripts !== undefined && runnable_scripts.length > 0) {
    lines.push(
      `Runnable scripts (run one in a sandbox with the run_skill_script tool: skill ${
        JSON.stringify(escapeControls(skill))
      }, path "<path>", args [...]):`,
      ...runnable_scripts.map((r) =>
        `  [run] ${escapeControls(r.path)} (${
          r.interpreter === "runtime" ? "JavaScript" : r.interpreter
        })`
      ),
    );
  }
  if (dependencies !== undefined && dependencies.length > 0) {
    lines.push(
      "Depends on these skills (activate each first, in this order, with the skill tool): " +
        dependencies.map((d) => JSON.stringify(escapeControls(d))).join(", "),
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
