/**
 * The optional vector side of the skill index: a host's embedding function,
 * the skills' unit vectors, and reciprocal rank fusion of a lexical and a
 * vector ranking. Anything the embedder does wrong (throws, returns a
 * promise, vectors of the wrong count, length or with non-finite numbers)
 * makes the vectors absent, and search stays lexical.
 *
 * Folder `lib/core/search/` — search over large libraries: the BM25F index and its text analysis.
 *
 * @module
 */

/**
 * A host's embedding function: one vector per text, all of one length,
 * synchronous (a host whose model answers asynchronously computes the vectors
 * first and returns them from a cache).
 */
export type EmbedFunction = (texts: readonly string[]) => readonly ArrayLike<number>[];

/** The constant of reciprocal rank fusion: a result at rank r (from 1) adds 1 / (K + r). */
export const RRF_K = 60;

/**
 * Unit vectors for texts, or undefined when the embedder fails in any way.
 *
 * @param embed The host's function.
 * @param texts The texts.
 * @param dimensions The length every vector must have, when known.
 * @returns One Float32Array per text, each of length 1 (or 0 for a zero vector).
 */
export function embedTexts(
  embed: EmbedFunction,
  texts: readonly string[],
  dimensions?: number,
): Float32Array[] | undefined {
  let vectors: unknown;
  try {
    vectors = embed(texts);
  } catch {
    return undefined;
  }
  if (!Array.isArray(vectors) || vectors.length !== texts.length) return undefined;
  const out: Float32Array[] = [];
  let size = dimensions;
  for (const v of vectors as unknown[]) {
    if (typeof v !== "object" || v === null) return undefined;
    const length = (v as ArrayLike<number>).length;
    if (!Number.isSafeInteger(length) || length < 1 || length > 1 << 16) return undefined;
    if (size === undefined) size = length;
    if (length !== size) return undefined;
    const unit = new Float32Array(length);
    let norm = 0;
    for (let i = 0; i < length; i++) {
      const x = (v as ArrayLike<number>)[i];
      if (typeof x !== "number" || !Number.isFinite(x)) return undefined;
      unit[i] = x;
      norm += x * x;
    }
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let i = 0; i < length; i++) unit[i] = unit[i]! * inv;
    }
    out.push(unit);
  }
  return out;
}

/**
 * The skills nearest a query vector, best first, with their cosine similarity.
 *
 * @param query The query's unit vector.
 * @param vectors The skills' unit vectors.
 * @param limit The most results.
 * @returns Skill numbers and similarities.
 */
export function nearest(
  query: Float32Array,
  vectors: readonly Float32Array[],
  limit: number,
): { skill: number; similarity: number }[] {
  const all = vectors.map((v, skill) => {
    let dot = 0;
    for (let i = 0; i < v.length; i++) dot += v[i]! * query[i]!;
    return { skill, similarity: dot };
  });
  all.sort((a, b) => b.similarity - a.similarity || a.skill - b.skill);
  return all.slice(0, limit).filter((r) => r.similarity > 0);
}

/**
 * Reciprocal rank fusion: each skill's sum of 1 / (K + rank) over the rankings it is in.
 *
 * @param rankings Skill numbers, best first, one list per ranker.
 * @returns The fused scores by skill.
 */
export function fuse(rankings: readonly (readonly number[])[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const ranking of rankings) {
    ranking.forEach((skill, r) => out.set(skill, (out.get(skill) ?? 0) + 1 / (RRF_K + r + 1)));
  }
  return out;
}
