/**
 * `*` wildcards, compiled once: a glob is split at its stars, and a text
 * matches when the first piece is its prefix, the last its suffix and the
 * others appear in order between them (leftmost first, which is exact when
 * `*` is the only special character). Linear in the text, no backtracking,
 * no regular expression built from user data.
 *
 * Folder `lib/core/policy/` — the tool policy: allowed-tools patterns, the shell grammar, decisions.
 *
 * @module
 */

/** A compiled glob. */
export interface Glob {
  /** Whether `text` matches. */
  readonly matches: (text: string) => boolean;
  /** The literal text before the first `*` (the whole glob when it has none). */
  readonly head: string;
  /** Whether the glob has a `*`. */
  readonly wild: boolean;
}

/**
 * Compile a glob whose only special character is `*` (any run of characters, empty included).
 *
 * @param glob The glob.
 * @returns Its matcher.
 */
export function compileGlob(glob: string): Glob {
  const parts = glob.split("*");
  if (parts.length === 1) return { matches: (text) => text === glob, head: glob, wild: false };
  const head = parts[0]!;
  const tail = parts[parts.length - 1]!;
  const middle = parts.slice(1, -1).filter((p) => p !== "");
  const least = head.length + tail.length;
  if (middle.length === 0) {
    return {
      matches: (text) => text.length >= least && text.startsWith(head) && text.endsWith(tail),
      head,
      wild: true,
    };
  }
  return {
    matches: (text) => {
      if (text.length < least || !text.startsWith(head) || !text.endsWith(tail)) return false;
      let at = head.length;
      const end = text.length - tail.length;
      for (const part of middle) {
        const found = text.indexOf(part, at);
        if (found < 0 || found + part.length > end) return false;
        at = found + part.length;
      }
      return true;
    },
    head,
    wild: true,
  };
}
