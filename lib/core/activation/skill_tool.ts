/**
 * The skill tool's handler (SPEC §7): the one tool a model calls to activate
 * a skill or read one of its bundled files. It turns every request into text
 * and never throws for anything a model can send. The tool's definition is in
 * `skill_tool_definition.ts`, the check of its input in `skill_tool_input.ts`,
 * `skill_search` in `skill_search_tool.ts` and the conversions to the MCP,
 * OpenAI and Anthropic APIs in `tool_format.ts`.
 *
 * Folder `lib/core/activation/` — activation and the model's tools: bodies, the skill tool, skill_search.
 *
 * @module
 */
import { nearestNames } from "../_nearest.ts";
import { quoteShort } from "../_text.ts";
import { failure, success } from "./_tool_result.ts";
import { activateSkill, renderActivation } from "./activate.ts";
import type { TokenCounter } from "./body_budget.ts";
import type { SkillBundle } from "../resources/bundle.ts";
import { formatLocation, type SourceLocation, withoutLocation } from "../errors.ts";
import type { SafetyFlags } from "../resources/gate.ts";
import {
  isTrustedSkill,
  type PolicySkill,
  type ToolPolicyMode,
  type ToolTrust,
} from "../policy/tool_policy.ts";
import { readResource, renderResourceRead } from "../resources/read.ts";
import { pageCap, parseSkillToolInput } from "./skill_tool_input.ts";
import { type ModedSkill, skillMode, type SkillModes } from "../catalog/skill_modes.ts";
import {
  type ActivatedSkills,
  mayBeDependency,
  skillAccess,
  wasActivated,
} from "../catalog/skill_access.ts";
import type { ProfiledSkill, ResolvedSkillProfile } from "../catalog/skill_profiles.ts";
import type { SkillToolResult } from "./tool_format.ts";
import { assertObject } from "../_shape.ts";
import type { SkillActivation } from "../catalog/skill_usage.ts";
import { contextDependencies, type SkillDependencies } from "../catalog/skill_dependencies.ts";

/**
 * Anything that loads bundles by name, such as a discovery result
 * (`discoverSkills` in `./load`), which loads each skill on first use.
 */
export interface SkillBundleSource {
  /** The bundle of that name, or `undefined` for an unknown name. */
  bundle(name: string): SkillBundle | undefined;
}

/** Where the handler finds skills and their safety settings. */
export interface SkillToolContext {
  /**
   * The skills: a list, a map by name, or a loader returning `undefined` for an unknown name.
   * A loader is only asked for names made of `/`-separated segments that start with a letter or
   * digit (never `..`, an absolute path or a control character), and its answer is used only when
   * the bundle's `name` is the name asked for. A {@linkcode SkillBundleSource} (a discovery
   * result) looks names up itself, and its answer is held to the same rule.
   */
  readonly skills:
    | Iterable<SkillBundle>
    | ReadonlyMap<string, SkillBundle>
    | ((name: string) => SkillBundle | undefined)
    | SkillBundleSource;
  /** The runtime's global safety; default true. */
  readonly global_safety?: boolean;
  /** Each skill's safety by name (default true): a map, a record or a function. */
  readonly skill_safety?:
    | ReadonlyMap<string, boolean>
    | Readonly<Record<string, boolean>>
    | ((name: string) => boolean | undefined);
  /** The most bytes of content in one page (at least 4); default 262144. Pass the same value to {@linkcode skillToolDefinition}. */
  readonly max_page_bytes?: number;
  /** The most manifest entries per class in an activation; default 500. */
  readonly max_manifest_entries?: number;
  /** The host's tool policy mode: an activation then lists the skill's allowed tools and the mode. */
  readonly tool_policy?: ToolPolicyMode;
  /**
   * The most tokens of a SKILL.md body an activation shows (`activateSkill`'s
   * `max_body_tokens`): a longer body is cut and the activation points to the paged read of
   * the rest. Default: no cap.
   */
  readonly max_body_tokens?: number;
  /** How tokens are counted for `max_body_tokens`; default characters ÷ 4, rounded up. */
  readonly count_tokens?: TokenCounter;
  /** Whose `allowed-tools` count, as the policy's `trusted`; default `true` (local skills only). */
  readonly trusted?: ToolTrust;
  /** Whether the host runs skills' scripts (`run_skill_script`): activations then list them. */
  readonly run_scripts?: boolean;
  /**
   * The host's mode per skill, as given to `skillToolDefinition`: a `disabled`
   * skill is unknown, a `manual` one is activated only on a call with `user: true`.
   */
  readonly modes?: SkillModes;
  /**
   * The skills the user or the host activated in this conversation (a set of names, or a
   * function): the files of a `manual` skill are read, and a `manual` skill satisfies another's
   * dependency, only once it is among them (`skillAccess`). The host keeps it, e.g. adding the
   * name in `on_activate` when the trigger is `user`. Default: none.
   */
  readonly activated?: ActivatedSkills;
  /**
   * The profile the tool was defined under (`resolveSkillProfile`): a skill it leaves out is
   * unknown to the model, though the user may still activate it by name.
   */
  readonly profile?: ResolvedSkillProfile;
  /** Whether `skill_search` is offered beside the tool: the answer to an unknown name points to it. */
  readonly search?: boolean;
  /**
   * Called once for each activation the handler returns (not for reads or errors) with the
   * skill's name, its origin (its MCP origin, else `"local"`) and the trigger (`user` for a
   * call with `user: true`, else `model`): the place for a usage log (`usageLogSink` in `./load`). What it throws is ignored: the activation is
   * returned all the same.
   */
  readonly on_activate?: (activation: SkillActivation) => void;
  /**
   * The catalog's dependency resolver (`skillDependencies`, with `crossOrigin` as the host
   * decides): an activation lists the skill's dependency closure, and a skill whose closure
   * does not resolve is refused. Absent: built from `skills` when they can be listed (a list, a
   * map, a discovery) and the skill declares `requires-skills` or `requires-any-skills`; a
   * loader function or a one-shot iterator cannot be listed, so with one only a given resolver
   * checks.
   */
  readonly dependencies?: SkillDependencies;
}

/** Who made one call of the skill tool. */
export interface SkillToolCall {
  /**
   * The user (or the host) named the skill, not the model: a `manual` skill
   * (or one with `disable-model-invocation: true`) is activated too.
   */
  readonly user?: boolean;
}

/**
 * Handle one call of the `skill` tool: activate a skill, or read one page of a
 * bundled file through the safety gate. Anything wrong with the request —
 * invalid input, an unknown skill or file, a refusal — comes back as text with
 * `is_error: true`; the handler never throws.
 *
 * A `disabled` skill is unknown; a `manual` one is activated only on a call
 * with `user: true`, though the files of one the user activated can be read.
 * An unknown name is answered with the nearest names the model may use.
 *
 * @param input What the model sent (any JSON value).
 * @param context The skills, their modes and the safety settings.
 * @param call Who made the call: `user: true` when the user or the host named the skill.
 * @returns The activation, the `[SKILL_RESOURCE_READ]` envelope, or an error text.
 * @throws Never.
 * @example
 * ```ts
 * import { createBundle, handleSkillTool } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
 *
 * const pdf = createBundle({
 *   frontmatter: { name: "pdf", description: "Fill PDF forms" },
 *   instructions: "Fill the form.",
 *   files: { "assets/form.txt": "Name: ____\n", "secret/key.txt": "k" },
 * });
 * const context = { skills: [pdf] };
 * assert.equal(handleSkillTool({ skill: "pdf" }, context).is_error, false);
 * const refused = handleSkillTool({ skill: "pdf", resource: "secret/key.txt" }, context);
 * assert.deepEqual(refused, {
 *   content: 'Refused to read non-standard resource "secret/key.txt": global safety is true, skill safety is true (both must be false)',
 *   is_error: true,
 * });
 * ```
 */
export function handleSkillTool(
  input: unknown,
  context: SkillToolContext,
  call: SkillToolCall = {},
): SkillToolResult {
  assertObject(
    context,
    "handleSkillTool(input, context)",
    'a context object with "skills" (a list, a Map by name, a loader function or a discovery)',
    "skills",
  );
  try {
    const cap = pageCap(context.max_page_bytes);
    const request = parseSkillToolInput(input, cap);
    const bundle = findSkill(context, request.skill);
    const user = call.user === true;
    // One rule for every surface (skill_access.ts): the mode and whether the user activated it.
    const state = bundle === undefined ? undefined : {
      mode: skillMode(bundle, context.modes),
      activated: user || wasActivated(context.activated, bundle.name),
    };
    if (bundle === undefined || state === undefined || !skillAccess("user-activation", state)) {
      return failure(unknownSkill(context, request.skill, user));
    }
    if (!user && context.profile?.decide(bundle as ProfiledSkill, state.mode) === "out") {
      return failure(unknownSkill(context, request.skill, user));
    }
    if (
      request.resource === undefined &&
      !skillAccess(user ? "user-activation" : "model-activation", state)
    ) {
      return failure(
        `Skill ${quoteShort(request.skill)} is activated only when the user names it`,
      );
    }
    if (request.resource !== undefined && !skillAccess("files", state)) {
      return failure(
        `The files of skill ${
          quoteShort(request.skill)
        } are read only once the user has activated it`,
      );
    }
    const flags: SafetyFlags = {
      global_safety: context.global_safety !== false,
      skill_safety: skillSafety(context, request.skill),
    };
    if (request.resource === undefined) {
      if (typeof request.offset === "string") {
        return failure(
          `Offset ${
            JSON.stringify(request.offset)
          } addresses a line of a file; to page the manifest, pass a whole number`,
        );
      }
      const dependencies = context.dependencies ??
        contextDependencies(
          context.skills,
          bundle,
          (s) => dependencyAccess(context, s as ModedSkill, bundle),
        );
      const refused = dependencies === undefined
        ? undefined
        : unusableDependency(context, dependencies, bundle);
      if (refused !== undefined) return failure(refused);
      const activation = success(renderActivation(activateSkill(bundle, {
        ...flags,
        ...(dependencies === undefined ? {} : { dependencies }),
        ...(request.offset === undefined ? {} : { offset: request.offset }),
        ...(context.max_manifest_entries === undefined
          ? {}
          : { max_entries: context.max_manifest_entries }),
        ...(context.run_scripts === true ? { run_scripts: true } : {}),
        ...(context.max_body_tokens === undefined
          ? {}
          : { max_body_tokens: context.max_body_tokens }),
        ...(context.count_tokens === undefined ? {} : { count_tokens: context.count_tokens }),
        ...(context.tool_policy === undefined ? {} : {
          tool_policy: context.tool_policy,
          trusted: isTrustedSkill(bundle as PolicySkill, context.trusted ?? true),
        }),
      })));
      reportActivation(context, bundle, call);
      return activation;
    }
    const page = readResource(bundle, request.resource, {
      ...flags,
      max_page_bytes: cap,
      ...(request.offset === undefined ? {} : { offset: request.offset }),
      ...(request.limit === undefined ? {} : { limit: request.limit }),
    });
    return success(renderResourceRead(page));
  } catch (e) {
    return failure(
      shortenQuotes(e instanceof Error ? modelMessage(e) : `Unexpected error: ${String(e)}`),
    );
  }
}

/**
 * Error texts quote at most {@linkcode MAX_QUOTED} characters of any value:
 * each JSON-quoted value in the message that is longer is cut (one pass, no
 * regular expression, so a 10 MB value costs nothing more than reading it).
 */
function shortenQuotes(message: string): string {
  let out = "";
  let from = 0;
  for (let open = message.indexOf('"'); open >= 0; open = message.indexOf('"', from)) {
    let close = open + 1;
    while (close < message.length && message[close] !== '"') {
      close += message[close] === "\\" ? 2 : 1;
    }
    if (close >= message.length) break;
    const quoted = message.slice(open, close + 1);
    let value: unknown = null;
    try {
      value = quoted.length > MAX_QUOTED + 2 ? JSON.parse(quoted) : null;
    } catch {
      value = null;
    }
    out += message.slice(from, open) + (typeof value === "string" ? quoteShort(value) : quoted);
    from = close + 1;
  }
  return out + message.slice(from);
}

const MAX_QUOTED = 200;

/**
 * `Unknown skill "x"`, with the nearest names the caller may use (none from a
 * loader function, which cannot list its names) and, when offered, a pointer
 * to `skill_search`.
 */
function unknownSkill(context: SkillToolContext, name: string, user: boolean): string {
  const usable = function* (): Generator<string> {
    const surface = user ? "user-activation" : "skill-tool";
    for (const s of knownSkills(context.skills)) {
      const mode = skillMode(s, context.modes);
      if (!user && context.profile?.decide(s as ProfiledSkill, mode) === "out") continue;
      if (skillAccess(surface, { mode })) yield s.name;
    }
  };
  const near = nearestNames(name, usable());
  return `Unknown skill ${quoteShort(name)}${
    near.length === 0 ? "" : ` (nearest: ${near.map((n) => quoteShort(n)).join(", ")})`
  }${context.search === true ? "; call skill_search with words from the task to find one" : ""}`;
}

/** Whether a skill may satisfy a dependency of `of` (the skill being activated always counts). */
function dependencyAccess(
  context: SkillToolContext,
  skill: ModedSkill,
  of: SkillBundle,
): boolean {
  return mayBeDependency(skill, of.name, context.modes, context.activated);
}

/**
 * With a resolver the host gave, which may list any skill: the refusal when the
 * closure holds a skill the rule keeps from being a dependency, else `undefined`.
 * A disabled or unactivated manual skill is not named: the answer says only that
 * a skill it needs is not available.
 */
function unusableDependency(
  context: SkillToolContext,
  dependencies: SkillDependencies,
  bundle: SkillBundle,
): string | undefined {
  const closure = dependencies.closure(bundle);
  if (!closure.ok) return undefined; // activation reports the gap or the cycle
  for (const name of closure.order) {
    if (name === bundle.name) continue;
    const found = dependencies.skill(name) as ModedSkill | undefined;
    if (found === undefined || !dependencyAccess(context, found, bundle)) {
      return `Skill ${
        quoteShort(bundle.name)
      } cannot be activated: a skill it requires is not available`;
    }
  }
  return undefined;
}

type Known = { readonly name: string; readonly frontmatter?: SkillBundle["frontmatter"] };

/** The skills a context can list: a list's, a map's, a discovery's; none of a loader's. */
function knownSkills(skills: SkillToolContext["skills"]): Iterable<Known> {
  if (typeof skills === "function") return [];
  if (isBundleSource(skills)) {
    const listed = (skills as { skills?: unknown }).skills;
    return Array.isArray(listed) ? (listed as Known[]) : [];
  }
  if (isMap<SkillBundle>(skills)) return skills.values();
  return skills as Iterable<SkillBundle>;
}

/**
 * An error's message without host paths: a location keeps only its file's
 * name, a raw file-system error (from a caller's loader) only its code.
 */
function modelMessage(e: Error): string {
  const { location, syscall, code } = e as {
    location?: SourceLocation;
    syscall?: unknown;
    code?: unknown;
  };
  if (typeof syscall === "string") {
    return `Cannot load the skill: the file system refused (${String(code)})`;
  }
  if (location === undefined || typeof location?.file !== "string") return e.message;
  const file = location.file.slice(
    Math.max(location.file.lastIndexOf("/"), location.file.lastIndexOf("\\")) + 1,
  );
  return `${withoutLocation(e.message, location)} (${formatLocation({ ...location, file })})`;
}

/**
 * Names handed to a caller's loader: segments separated by `/` (MCP-served skills are
 * `origin:path`), each starting with a letter or digit and holding only letters, digits, `.`,
 * `_`, `:` and `-`. So no `..`, no absolute path, no backslash, no space, no control or bidi
 * character reaches a loader.
 */
const LOADER_SAFE_NAME = /^[\p{L}\p{N}][\p{L}\p{N}._:-]*(?:\/[\p{L}\p{N}][\p{L}\p{N}._:-]*)*$/u;

/**
 * The bundle the handler would use for a skill name, found the way
 * {@linkcode handleSkillTool} finds it (for wrappers that check a skill
 * first, such as a lock).
 *
 * @param context The handler's context.
 * @param name The skill name the model sent.
 * @returns The bundle, or `undefined` for an unknown name.
 * @throws Whatever a loader or a discovery's `bundle` throws.
 * @example
 * ```ts
 * import { findSkillBundle } from "./skill_tool.ts";
 * import { createBundle } from "../resources/bundle.ts";
 * import { assert } from "../_assert.ts";
 *
 * const pdf = createBundle({ frontmatter: { name: "pdf", description: "PDF" }, instructions: "" });
 * assert.equal(findSkillBundle({ skills: [pdf] }, "pdf"), pdf);
 * assert.equal(findSkillBundle({ skills: () => pdf }, "../pdf"), undefined);
 * ```
 */
export function findSkillBundle(context: SkillToolContext, name: string): SkillBundle | undefined {
  return findSkill(context, name);
}

function findSkill(context: SkillToolContext, name: string): SkillBundle | undefined {
  const { skills } = context;
  if (typeof skills === "function") {
    // The name is the model's: a loader never sees one that could walk a path, and
    // its answer counts only when it is the skill that was asked for.
    if (!LOADER_SAFE_NAME.test(name)) return undefined;
    const bundle = skills(name) ?? undefined;
    return bundle?.name === name ? bundle : undefined;
  }
  if (isBundleSource(skills)) {
    // A discovery result looks names up in its own map; the same rule holds for its answer.
    const bundle = skills.bundle(name) ?? undefined;
    return bundle?.name === name ? bundle : undefined;
  }
  if (isMap(skills)) return skills.get(name);
  for (const bundle of skills) if (bundle.name === name) return bundle;
  return undefined;
}

/** Tell `on_activate` of an activation; a hook that throws never fails the activation. */
function reportActivation(
  context: SkillToolContext,
  bundle: SkillBundle,
  call: SkillToolCall,
): void {
  if (typeof context.on_activate !== "function") return;
  const origin = (bundle as { origin?: unknown }).origin;
  try {
    context.on_activate({
      name: bundle.name,
      origin: typeof origin === "string" && origin !== "" ? origin : "local",
      trigger: call.user === true ? "user" : "model",
    });
  } catch {
    // The log is the host's; the model still gets the skill.
  }
}

function skillSafety(context: SkillToolContext, name: string): boolean {
  const table = context.skill_safety;
  let value: boolean | undefined;
  if (table === undefined) value = undefined;
  else if (typeof table === "function") value = table(name);
  else if (isMap(table)) value = table.get(name);
  else value = Object.hasOwn(table, name) ? table[name] : undefined;
  return value !== false;
}

function isBundleSource(value: unknown): value is SkillBundleSource {
  return typeof value === "object" && value !== null &&
    typeof (value as SkillBundleSource).bundle === "function";
}

function isMap<V>(value: unknown): value is ReadonlyMap<string, V> {
  return typeof value === "object" && value !== null &&
    typeof (value as ReadonlyMap<string, V>).get === "function" &&
    typeof (value as ReadonlyMap<string, V>).has === "function";
}
