/**
 * fast-check arbitraries for downstream property suites: skill catalogs
 * (DAGs with shared includes, chains, self-includes, cycles reachable and
 * unreachable from the root, unknown includes, names that collide across
 * kinds, names like `__proto__`), resource paths (hostile ones included),
 * in-memory bundles and safety flags.
 *
 * Folder `lib/testing/` — the testing kit behind `lib/testing.ts`: arbitraries, references, laws.
 *
 * @module
 */
import fc from "fast-check";

import type { SafetyFlags } from "../core/resources/gate.ts";
import type { InlineTool, McpServer, Skill, SkillInclude } from "../core/resolver/skill.ts";

/**
 * A fast-check arbitrary (`fc.Arbitrary` of the `fast-check` peer dependency).
 *
 * @internal
 */
type Arbitrary<T> = fc.Arbitrary<T>;

/** Skill names; the resolver treats names as map keys, so odd ones are welcome. */
const PROTOTYPE_SKILL_NAMES = ["__proto__", "toString", "hasOwnProperty", "local/constructor"];
const PLAIN_SKILL_NAMES = [
  "local/root",
  "local/a",
  "local/b",
  "net/c",
  "net/d",
  "x/e",
  "x/f",
  "x/g",
  "x/h",
  "x/i",
  "x/j",
  "x/k",
  "x/l",
  "x/m",
  "x/n",
  "x/o",
];
/** Tool names that collide with each other and with generated keys of other kinds. */
const COLLIDING_TOOL_NAMES = [
  "mcp:github/create_issue",
  "local/a/_anon_0",
  "agent_skill:skills/pdf",
];
const PROTOTYPE_TOOL_NAMES = ["__proto__", "constructor", "toString"];
const PLAIN_TOOL_NAMES = ["read_file", "write_file", "grep"];

/** A generated catalog: the root skill, every skill (root first) and the include edges. */
export interface GeneratedCatalog {
  /** The skill to resolve (also `skills[0]`). */
  readonly root: Skill;
  /** Every skill of the catalog, names distinct. */
  readonly skills: readonly Skill[];
  /** Include edges by skill name, in declaration order, for independent checks. */
  readonly edges: ReadonlyMap<string, readonly string[]>;
}

/** The knobs of {@linkcode catalogArbitrary}. */
export interface CatalogOptions {
  /** Allow includes of the skill itself and of earlier skills: cycles, reachable or not (default true). */
  readonly cycles?: boolean;
  /** Allow includes of names no skill has (default true). */
  readonly unknown?: boolean;
  /** Allow a skill to be included by several skills: diamonds (default true). */
  readonly diamonds?: boolean;
  /** The largest number of skills, 1 to 20 (default 9). */
  readonly maxSkills?: number;
  /** The largest number of includes per skill (default 3). */
  readonly maxIncludes?: number;
  /** Each of the first `minDepth` skills includes the next one, so the include depth is at least that (default 0). */
  readonly minDepth?: number;
  /** Tool names that collide with generated keys of other kinds (default true). */
  readonly collisions?: boolean;
  /** Names such as `__proto__`, `constructor` and `toString` for skills, tools and servers (default true). */
  readonly prototypeNames?: boolean;
}

/**
 * Skills and catalogs for resolver properties. The first skill is the root;
 * includes point to later skills (and, with `cycles`, to earlier ones and to
 * the skill itself), so shared includes make diamonds and back edges make
 * cycles that may or may not be reachable from the root.
 *
 * @param options The knobs (see {@linkcode CatalogOptions}).
 * @returns An arbitrary of catalogs.
 * @throws {RangeError} When `maxSkills` is outside 1–20 or `minDepth` is not below it.
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { catalogArbitrary } from "../testing.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const [sample] = fc.sample(catalogArbitrary({ cycles: false, minDepth: 2 }), { numRuns: 1, seed: 1 });
 * assert.equal(sample!.root, sample!.skills[0]);
 * assert.ok(sample!.skills.length >= 3);
 * ```
 */
export function catalogArbitrary(options: CatalogOptions = {}): Arbitrary<GeneratedCatalog> {
  const {
    cycles = true,
    unknown = true,
    diamonds = true,
    maxSkills = 9,
    maxIncludes = 3,
    minDepth = 0,
    collisions = true,
    prototypeNames = true,
  } = options;
  const decoys = prototypeNames ? PROTOTYPE_SKILL_NAMES : [];
  const poolSize = PLAIN_SKILL_NAMES.length + decoys.length;
  if (!Number.isInteger(maxSkills) || maxSkills < 1 || maxSkills > poolSize) {
    throw new RangeError(`maxSkills must be an integer from 1 to ${poolSize}, got ${maxSkills}`);
  }
  if (!Number.isInteger(minDepth) || minDepth < 0 || minDepth >= maxSkills) {
    throw new RangeError(`minDepth must be an integer from 0 to maxSkills - 1, got ${minDepth}`);
  }
  const toolNames = [
    ...PLAIN_TOOL_NAMES,
    ...(collisions ? COLLIDING_TOOL_NAMES : []),
    ...(prototypeNames ? PROTOTYPE_TOOL_NAMES : []),
  ];
  const unknownNames = ["missing/one", ...(prototypeNames ? ["toString", "constructor"] : [])];
  const servers = ["github", "fs", ...(prototypeNames ? ["__proto__"] : [])];
  const mcpTools = ["create_issue", "read", ...(prototypeNames ? ["toString"] : [])];
  const agentSkills = ["skills/pdf", "skills/x", ...(prototypeNames ? ["__proto__"] : [])];
  const body = bodyArbitrary(toolNames, servers, mcpTools, agentSkills);
  // Every slot up to maxSkills is generated and the first n kept, with no chain: shrinking n keeps
  // the rest, so a failure that needs one skill shrinks to one. Includes name a skill by an offset
  // (to a later skill, or with cycles to an earlier one or the skill itself) or an unknown name by
  // its index; each skill but the root draws a decoy name or a plain one, and shrinking turns
  // decoys into plain names unless the failure needs them.
  type Target =
    | { readonly later: number }
    | { readonly earlier: number }
    | { readonly unknown: number };
  const targets: Arbitrary<Target>[] = [fc.nat(maxSkills).map((later): Target => ({ later }))];
  if (cycles) targets.push(fc.nat(maxSkills).map((earlier): Target => ({ earlier })));
  if (unknown) {
    targets.push(fc.nat(unknownNames.length - 1).map((k): Target => ({ unknown: k })));
  }
  const slot = fc.tuple(
    fc.boolean(),
    fc.array(fc.tuple(fc.oneof(...targets), fc.boolean()), { maxLength: maxIncludes }),
    body,
  );
  // Three catalogs in four may hold decoys; shrinking tries the catalog without them first (each
  // decoy replaced by a plain stand-in, everything else the same), so a failure that does not need
  // them is reported without them.
  const decoysOn = prototypeNames ? fc.nat(3).map((k) => k > 0) : fc.constant(false);
  return fc.tuple(
    decoysOn,
    fc.integer({ min: minDepth + 1, max: maxSkills }),
    fc.tuple(...Array.from({ length: maxSkills }, () => slot)),
  ).map(([on, n, all]) => {
    const slots = all.slice(0, n);
    const names = nameSkills(slots.map(([decoy], i) => i > 0 && decoy), decoys);
    const nameOf = (t: Target, i: number): string | null => {
      if ("later" in t) return i + 1 < n ? names[i + 1 + t.later % (n - 1 - i)]! : null;
      if ("earlier" in t) return names[t.earlier % (i + 1)]!;
      const name = unknownNames[t.unknown]!;
      return names.includes(name) ? unknownNames[0]! : name;
    };
    const included = new Set<string>();
    const skills = slots.map(([, targets, b], i): Skill => {
      const spine: SkillInclude[] = i < minDepth ? [names[i + 1]!] : [];
      const all = [...spine];
      for (const [t, short] of targets) {
        const name = nameOf(t, i);
        if (name !== null) all.push(short ? name : { name });
      }
      // Without diamonds, each known skill is included once: by its spine parent, else first come.
      const inc = diamonds ? all : all.filter((x, position) => {
        const k = names.indexOf(includeOf(x));
        if (k < 0) return true;
        if (k >= 1 && k <= minDepth) return k - 1 === i && position === 0;
        if (included.has(names[k]!)) return false;
        included.add(names[k]!);
        return true;
      });
      const skill = { name: names[i]!, ...(inc.length > 0 ? { includes: inc } : {}), ...b };
      return on ? skill : withoutDecoys(skill);
    });
    const edges = new Map(skills.map((s) => [s.name, (s.includes ?? []).map(includeOf)]));
    return { root: skills[0]!, skills, edges };
  });
}

/** A plain stand-in for each decoy name, distinct from every other generated name. */
const STAND_INS = new Map([
  ["__proto__", "proto"],
  ["toString", "to-string"],
  ["hasOwnProperty", "has-own-property"],
  ["constructor", "construct"],
  ["local/constructor", "local/construct"],
]);

/** The skill with every decoy name (of the skill, an include, a tool, a server, …) replaced by its stand-in. */
function withoutDecoys(skill: Skill): Skill {
  const plain = (name: string): string => STAND_INS.get(name) ?? name;
  const out: { -readonly [K in keyof Skill]: Skill[K] } = { ...skill, name: plain(skill.name) };
  if (skill.includes !== undefined) {
    out.includes = skill.includes.map((inc) =>
      typeof inc === "string" ? plain(inc) : { ...inc, name: plain(inc.name) }
    );
  }
  if (skill.tool_refs !== undefined) out.tool_refs = skill.tool_refs.map(plain);
  if (skill.inline_tools !== undefined) {
    out.inline_tools = skill.inline_tools.map((tool) =>
      tool.side_effects === undefined
        ? tool
        : { ...tool, side_effects: tool.side_effects.map(plain) }
    );
  }
  if (skill.mcp_servers !== undefined) {
    out.mcp_servers = skill.mcp_servers.map((server) => ({
      ...server,
      server: plain(server.server),
      ...(server.tools === undefined ? {} : { tools: server.tools.map(plain) }),
    }));
  }
  if (skill.agent_skills !== undefined) out.agent_skills = skill.agent_skills.map(plain);
  if (skill.overrides !== undefined) {
    out.overrides = Object.fromEntries(
      Object.entries(skill.overrides).map(([name, value]) => [plain(name), value]),
    );
  }
  return out;
}

/**
 * The names of `flags.length` skills, distinct: the root is `local/root`; each other skill whose
 * flag is set takes the next decoy name while any is left, every other the next plain name.
 */
function nameSkills(flags: readonly boolean[], decoys: readonly string[]): string[] {
  let plain = 0, decoy = 0;
  return flags.map((wantsDecoy) => {
    const useDecoy = decoy < decoys.length &&
      (wantsDecoy || plain >= PLAIN_SKILL_NAMES.length);
    return useDecoy ? decoys[decoy++]! : PLAIN_SKILL_NAMES[plain++]!;
  });
}

/**
 * A chain of `length` skills, `chain/s0` including `chain/s1` and so on, each
 * declaring the tool refs `shared` and `t{i}`: deep enough to overflow any
 * recursive resolver.
 *
 * @param length The number of skills (at least 1).
 * @returns The root and a lookup map.
 * @throws {RangeError} When `length` is not a positive integer.
 * @example
 * ```ts
 * import { includeChain } from "../testing.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const { root, lookup } = includeChain(3);
 * assert.deepEqual(root.includes, ["chain/s1"]);
 * assert.equal(lookup.size, 3);
 * ```
 */
export function includeChain(length: number): { root: Skill; lookup: ReadonlyMap<string, Skill> } {
  if (!Number.isSafeInteger(length) || length < 1) {
    throw new RangeError(`length must be a positive integer, got ${length}`);
  }
  const lookup = new Map<string, Skill>();
  for (let i = 0; i < length; i++) {
    lookup.set(`chain/s${i}`, {
      name: `chain/s${i}`,
      ...(i + 1 < length ? { includes: [`chain/s${i + 1}`] } : {}),
      tool_refs: ["shared", `t${i}`],
    });
  }
  return { root: lookup.get("chain/s0")!, lookup };
}

function includeOf(include: SkillInclude): string {
  return typeof include === "string" ? include : include.name;
}

interface Body {
  tool_refs?: string[];
  inline_tools?: InlineTool[];
  mcp_servers?: McpServer[];
  agent_skills?: string[];
  overrides?: Record<string, Record<string, unknown>>;
}

function bodyArbitrary(
  toolNames: readonly string[],
  servers: readonly string[],
  mcpTools: readonly string[],
  agentSkills: readonly string[],
): Arbitrary<Body> {
  const inlineTool: fc.Arbitrary<InlineTool> = fc.record({
    description: fc.string({ maxLength: 5 }),
    read_only: fc.boolean(),
    writes: fc.boolean(),
    checkpointable: fc.boolean(),
    side_effects: fc.subarray(["network", "filesystem", "process", "__proto__"]),
  }, { requiredKeys: [] });
  const mcpServer: fc.Arbitrary<McpServer> = fc.record({
    server: fc.constantFrom(...servers),
    tools: fc.array(fc.constantFrom(...mcpTools), { maxLength: 3 }),
  }, { requiredKeys: ["server"] });
  // Own properties only, as JSON.parse and YAML make them (also for "__proto__").
  const overrides = fc.array(
    fc.tuple(fc.constantFrom(...toolNames, "unused"), fc.record({ timeout_s: fc.nat(9) })),
    { maxLength: 3 },
  ).map((pairs) => Object.fromEntries(pairs));
  return fc.record({
    tool_refs: fc.array(fc.constantFrom(...toolNames), { maxLength: 4 }),
    inline_tools: fc.array(inlineTool, { maxLength: 2 }),
    mcp_servers: fc.array(mcpServer, { maxLength: 2 }),
    agent_skills: fc.array(fc.constantFrom(...agentSkills), { maxLength: 2 }),
    overrides,
  }, { requiredKeys: [] });
}

const HOSTILE_SEGMENTS = [
  "a",
  "b.md",
  ".",
  "..",
  "",
  "/",
  "\\",
  "C:",
  "\u0000",
  "\n",
  "\u007f",
  "\u009b",
  "references",
  "assets",
  "scripts",
  "References",
  "~",
  "%2e%2e",
  "a..b",
  "é",
  " ",
];

/**
 * Resource paths: with `hostile` (the default), strings built from pieces
 * that break naive checks — `..`, `.`, empty segments, leading `/`,
 * backslashes, drive letters, NUL and other control characters, look-alikes
 * such as `%2e%2e`, `a..b` and `References` — in every position; without it,
 * valid normalised paths of every class.
 *
 * @param options `hostile: false` for valid paths only.
 * @returns An arbitrary of paths.
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { resourcePathArbitrary } from "../testing.ts";
 * import { normalizeResourcePath } from "../../mod.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * for (const path of fc.sample(resourcePathArbitrary({ hostile: false }), 20)) {
 *   assert.equal(normalizeResourcePath(path), path);
 * }
 * ```
 */
export function resourcePathArbitrary(
  options: { readonly hostile?: boolean } = {},
): Arbitrary<string> {
  if (options.hostile === false) {
    const name = fc.constantFrom("a.md", "b.txt", "logo.png", "a..b", "é.bin", "x");
    const top = fc.constantFrom("references", "assets", "scripts", "canvas-fonts", "References");
    return fc.oneof(
      name,
      fc.tuple(top, fc.array(name, { minLength: 1, maxLength: 3 })).map(([t, rest]) =>
        [t, ...rest].join("/")
      ),
    );
  }
  return fc.tuple(
    fc.array(fc.constantFrom(...HOSTILE_SEGMENTS), { maxLength: 8 }),
    fc.constantFrom("/", ""),
  ).map(([parts, separator]) => parts.join(separator));
}

/**
 * The two safety switches, each `true`, `false` or absent (which means true).
 *
 * @returns An arbitrary of flags.
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { safetyFlagsArbitrary } from "../testing.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * assert.equal(fc.sample(safetyFlagsArbitrary(), 10).length, 10);
 * ```
 */
export function safetyFlagsArbitrary(): Arbitrary<SafetyFlags> {
  return fc.record({ global_safety: fc.boolean(), skill_safety: fc.boolean() }, {
    requiredKeys: [],
  });
}

/** What {@linkcode bundleInputArbitrary} generates: the input of `createBundle`. */
export interface GeneratedBundle {
  /** Valid Agent Skills frontmatter. */
  readonly frontmatter: { readonly name: string; readonly description: string };
  /** The SKILL.md body. */
  readonly instructions: string;
  /** Files by normalised path: text or bytes. */
  readonly files: ReadonlyMap<string, string | Uint8Array>;
}

/**
 * In-memory skill bundles (the input of `createBundle`): files of every
 * class, text (multi-byte, CRLF, no final newline) or binary.
 *
 * @returns An arbitrary of bundle inputs.
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { bundleInputArbitrary } from "../testing.ts";
 * import { createBundle } from "../../mod.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * for (const input of fc.sample(bundleInputArbitrary(), 5)) {
 *   assert.equal(createBundle(input).files.size, input.files.size);
 * }
 * ```
 */
export function bundleInputArbitrary(): Arbitrary<GeneratedBundle> {
  const content = fc.oneof(
    fc.array(fc.constantFrom("line", "é€😀", "\r\n", "\n", "", " "), { maxLength: 6 }).map((p) =>
      p.join("")
    ),
    fc.uint8Array({ maxLength: 64 }),
  );
  return fc.record({
    name: fc.constantFrom("pdf", "csv-tools", "技能"),
    description: fc.constantFrom("Fill PDF forms", "Ünïcödé ✓", "<b>&amp;</b>"),
    instructions: fc.string({ maxLength: 40 }),
    files: fc.uniqueArray(fc.tuple(resourcePathArbitrary({ hostile: false }), content), {
      maxLength: 6,
      selector: ([path]) => path,
    }),
  }).map(({ name, description, instructions, files }) => ({
    frontmatter: { name, description },
    instructions,
    files: new Map(files),
  }));
}
