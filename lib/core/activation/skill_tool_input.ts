/**
 * What a model sends to the `skill` tool, and the check of it against the
 * rules of the definition's JSON Schema (which the handler runs first).
 *
 * Folder `lib/core/activation/` — activation and the model's tools: bodies, the skill tool, skill_search.
 *
 * @module
 */
import { quoteShort } from "../_text.ts";
import { DEFAULT_MAX_PAGE_BYTES, MIN_PAGE_BYTES } from "../resources/read.ts";

/** What the model sends. */
export interface SkillToolInput {
  /** The skill to activate or read from. */
  readonly skill: string;
  /** A path inside the skill; absent to activate. */
  readonly resource?: string;
  /** A line or byte of the file; `"L+B"` inside a long line; without `resource`, the first manifest entry of each class. */
  readonly offset?: number | string;
  /** Lines or bytes in the page. */
  readonly limit?: number;
}

const FIELDS = ["skill", "resource", "offset", "limit"] as const;

/**
 * Check a model's input against the same rules as the definition's schema.
 *
 * @param input Any value.
 * @param maxPageBytes The page cap, which bounds `limit`; default 262144.
 * @returns The typed input.
 * @throws {TypeError} Naming the first field that breaks a rule.
 * @example
 * ```ts
 * import { parseSkillToolInput } from "./skill_tool_input.ts";
 * import { assert } from "../_assert.ts";
 *
 * const input = parseSkillToolInput({ skill: "pdf", resource: "a.md", offset: "3+10" });
 * assert.deepEqual(input, { skill: "pdf", resource: "a.md", offset: "3+10" });
 * assert.throws(() => parseSkillToolInput({ skill: "pdf", limit: 5 }), {
 *   name: "TypeError",
 *   message: 'Invalid input: "limit" needs "resource" (it sizes a page of a file; omit it to activate the skill)',
 * });
 * ```
 */
export function parseSkillToolInput(
  input: unknown,
  maxPageBytes: number = DEFAULT_MAX_PAGE_BYTES,
): SkillToolInput {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new TypeError('Invalid input: expected an object with a "skill" field');
  }
  const fields = input as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!(FIELDS as readonly string[]).includes(key)) {
      throw new TypeError(
        `Invalid input: unknown field ${quoteShort(key)} (known: ${FIELDS.join(", ")})`,
      );
    }
  }
  if (!Object.hasOwn(fields, "skill")) throw new TypeError('Invalid input: "skill" is required');
  const { skill, resource, offset, limit } = fields;
  if (typeof skill !== "string") throw new TypeError('Invalid input: "skill" must be a string');
  const out: { skill: string; resource?: string; offset?: number | string; limit?: number } = {
    skill,
  };
  if (Object.hasOwn(fields, "resource")) {
    if (typeof resource !== "string" || resource === "") {
      throw new TypeError('Invalid input: "resource" must be a non-empty string');
    }
    out.resource = resource;
  }
  if (Object.hasOwn(fields, "offset")) {
    out.offset = typeof offset === "string" && LINE_BYTE.test(offset)
      ? offset
      : integer(offset, "offset", 0, 'or a "line+byte" next_offset');
  }
  if (Object.hasOwn(fields, "limit")) {
    out.limit = integer(limit, "limit", 1);
    if (out.limit > maxPageBytes) {
      throw new TypeError(`Invalid input: "limit" must be at most ${maxPageBytes}`);
    }
    // An offset without a resource pages the manifest; a limit without one means nothing.
    if (out.resource === undefined) {
      throw new TypeError(
        'Invalid input: "limit" needs "resource" (it sizes a page of a file; omit it to activate the skill)',
      );
    }
  }
  return out;
}

function integer(value: unknown, name: string, min: number, or = ""): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    throw new TypeError(
      `Invalid input: "${name}" must be a whole number of at least ${min}${
        or === "" ? "" : ` ${or}`
      }`,
    );
  }
  return value;
}

/**
 * The `"line+byte"` offset form (as in `readResource`): at most 15 digits each.
 *
 * @internal
 */
export const LINE_BYTE_PATTERN = "^(0|[1-9][0-9]{0,14})\\+(0|[1-9][0-9]{0,14})$";
const LINE_BYTE = new RegExp(LINE_BYTE_PATTERN);

/**
 * The page cap a caller set (`maxPageBytes`, `max_page_bytes`), checked, or the default.
 *
 * @internal
 * @param value The cap given, if any.
 * @returns The cap: the value, or 262144 when none was given.
 * @throws {RangeError} When the value is not a whole number of at least 4.
 * @example
 * ```ts
 * import { pageCap } from "./skill_tool_input.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(pageCap(undefined), 262144);
 * assert.equal(pageCap(4), 4);
 * assert.throws(() => pageCap(3), { name: "RangeError" });
 * ```
 */
export function pageCap(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_PAGE_BYTES;
  if (!Number.isSafeInteger(value) || value < MIN_PAGE_BYTES) {
    throw new RangeError(
      `max_page_bytes must be a whole number of at least ${MIN_PAGE_BYTES}, got ${String(value)}`,
    );
  }
  return value;
}
