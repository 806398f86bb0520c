/**
 * A JSON parser that keeps where each value starts, so a hand-edited
 * lockfile or approval file is refused with the line and column of what is
 * wrong (the runtimes' `JSON.parse` messages differ and some give no
 * position). No recursion: nesting is kept on an explicit stack, at most
 * {@linkcode MAX_JSON_DEPTH} deep (deeper text is refused at the first
 * bracket past it, in time linear in what was read); a key given twice in
 * one object is an error, not a silent overwrite.
 *
 * Folder `lib/core/trust/` — trust as data: digests, manifests, lockfiles, approvals, pins, SSH signatures.
 *
 * @module
 */
import { SkillsetError } from "../errors.ts";

/** A parsed JSON value and the offset where it starts. */
export type JsonNode =
  | { readonly kind: "object"; readonly offset: number; readonly entries: Map<string, JsonMember> }
  | { readonly kind: "array"; readonly offset: number; readonly items: JsonNode[] }
  | { readonly kind: "string"; readonly offset: number; readonly value: string }
  | { readonly kind: "number"; readonly offset: number; readonly value: number }
  | { readonly kind: "boolean"; readonly offset: number; readonly value: boolean }
  | { readonly kind: "null"; readonly offset: number };

/** One member of an object: where its key starts, and its value. */
export interface JsonMember {
  readonly keyOffset: number;
  readonly node: JsonNode;
}

/** A syntax error at an offset. */
export class JsonSyntaxError extends SkillsetError {
  override readonly name = "JsonSyntaxError";
  readonly code = "JSON_SYNTAX" as const;
  /** Where, in UTF-16 code units from the start. */
  readonly offset: number;
  /**
   * @param offset Where.
   * @param message What is wrong.
   */
  constructor(offset: number, message: string) {
    super(message);
    this.offset = offset;
  }
}

/** The deepest nesting of objects and arrays read: a lockfile needs 4. */
export const MAX_JSON_DEPTH = 64;

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
/** What may follow a backslash inside a string. */
const ESCAPE = /^(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/;

type Frame =
  | {
    kind: "object";
    node: Extract<JsonNode, { kind: "object" }>;
    key: string | null;
    keyOffset: number;
  }
  | { kind: "array"; node: Extract<JsonNode, { kind: "array" }> };

/**
 * Parse JSON text (one value, white space around it allowed).
 *
 * @param text The text.
 * @returns The root node.
 * @throws {JsonSyntaxError} With the offset of the first thing that is wrong.
 */
export function parseJsonNodes(text: string): JsonNode {
  let i = 0;
  const n = text.length;
  const stack: Frame[] = [];
  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  };
  const describe = (): string => i >= n ? "the text ends" : `unexpected ${JSON.stringify(text[i])}`;
  // A loop, not a regular expression: a backtracking match of a long string overflows the stack.
  const readString = (): string => {
    let j = i + 1;
    for (;;) {
      if (j >= n) throw new JsonSyntaxError(i, "A string that is never closed");
      const c = text.charCodeAt(j);
      if (c === 0x22) break;
      if (c < 0x20) throw new JsonSyntaxError(j, "A control character inside a string");
      if (c === 0x5c) {
        if (!ESCAPE.test(text.slice(j + 1, j + 6))) {
          throw new JsonSyntaxError(j, "An invalid escape inside a string");
        }
        j += text.charCodeAt(j + 1) === 0x75 ? 6 : 2;
      } else j++;
    }
    const raw = text.slice(i, j + 1);
    i = j + 1;
    return JSON.parse(raw) as string;
  };
  let root: JsonNode | undefined;
  // Expecting a value (true) or what follows one (false).
  for (;;) {
    ws();
    const start = i;
    let node: JsonNode;
    const top = stack[stack.length - 1];
    if (top?.kind === "object" && top.key === null) {
      // A key, or the end of an empty object.
      if (text[i] === "}" && top.node.entries.size === 0) {
        i++;
        stack.pop();
        node = top.node;
      } else {
        if (text[i] !== '"') {
          throw new JsonSyntaxError(i, `Expected a key in quotes: ${describe()}`);
        }
        top.keyOffset = i;
        const key = readString();
        if (top.node.entries.has(key)) {
          throw new JsonSyntaxError(top.keyOffset, `The key ${JSON.stringify(key)} is given twice`);
        }
        ws();
        if (text[i] !== ":") {
          throw new JsonSyntaxError(i, `Expected ":" after the key: ${describe()}`);
        }
        i++;
        top.key = key;
        continue;
      }
    } else if (top?.kind === "array" && text[i] === "]" && top.node.items.length === 0) {
      i++;
      stack.pop();
      node = top.node;
    } else {
      const c = text[i];
      if ((c === "{" || c === "[") && stack.length >= MAX_JSON_DEPTH) {
        throw new JsonSyntaxError(i, `Nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
      if (c === "{") {
        i++;
        const object = {
          kind: "object" as const,
          offset: start,
          entries: new Map<string, JsonMember>(),
        };
        stack.push({ kind: "object", node: object, key: null, keyOffset: -1 });
        continue;
      }
      if (c === "[") {
        i++;
        stack.push({ kind: "array", node: { kind: "array", offset: start, items: [] } });
        continue;
      }
      if (c === '"') node = { kind: "string", offset: start, value: readString() };
      else if (text.startsWith("true", i)) {
        i += 4;
        node = { kind: "boolean", offset: start, value: true };
      } else if (text.startsWith("false", i)) {
        i += 5;
        node = { kind: "boolean", offset: start, value: false };
      } else if (text.startsWith("null", i)) {
        i += 4;
        node = { kind: "null", offset: start };
      } else {
        NUMBER.lastIndex = i;
        const m = NUMBER.exec(text);
        if (m === null) throw new JsonSyntaxError(i, `Expected a value: ${describe()}`);
        i += m[0].length;
        node = { kind: "number", offset: start, value: Number(m[0]) };
      }
    }
    // A value is complete: attach it, then close every container that ends here.
    for (;;) {
      const frame = stack[stack.length - 1];
      if (frame === undefined) {
        root = node;
        ws();
        if (i < n) throw new JsonSyntaxError(i, `Expected the end of the text: ${describe()}`);
        return root;
      }
      if (frame.kind === "array") frame.node.items.push(node);
      else {
        frame.node.entries.set(frame.key!, { keyOffset: frame.keyOffset, node });
        frame.key = null;
      }
      ws();
      const close = frame.kind === "array" ? "]" : "}";
      if (text[i] === ",") {
        i++;
        if (frame.kind === "object") {
          ws();
          if (text[i] !== '"') {
            throw new JsonSyntaxError(i, `Expected a key in quotes: ${describe()}`);
          }
        }
        break;
      }
      if (text[i] === close) {
        i++;
        stack.pop();
        node = frame.node;
        continue;
      }
      throw new JsonSyntaxError(i, `Expected "," or "${close}": ${describe()}`);
    }
  }
}

/**
 * The 1-based line and column of an offset.
 *
 * @param text The text.
 * @param offset An offset into it.
 * @returns Line and column (columns count UTF-16 code units).
 */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf("\n"); at !== -1 && at < offset; at = text.indexOf("\n", at + 1)) {
    line++;
    lineStart = at + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
