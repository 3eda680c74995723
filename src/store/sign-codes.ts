// Sign codes: one bit per dimension of a vector (set when the value is positive), the filter an index's dense
// search runs over before it scores the few candidates left exactly. Pure functions over typed arrays; the SQLite
// pages that hold them are sqlite-vector-codes.ts; the Hamming pass runs in WebAssembly (sign-code-scan.ts).

import { codeScan } from "./sign-code-scan.js";

/** Keys per page of codes: a page is one row of the codes table. */
export const CODE_PAGE_KEYS = 4096;

/** 32-bit words per code of a vector of `dimensions` (codes are padded to whole words, so a scan reads words). */
export function codeWords(dimensions: number): number {
  return Math.ceil(dimensions / 32);
}

/**
 * Whether a sign code can stand for `vector`'s direction: at least half of its components are non-zero. A sparse
 * vector (a hashing or TF-IDF embedder's: mostly zeros) has a code of mostly clear bits whatever its content, so
 * Hamming distances between such codes say little (measured on the offline hashing embedder's 384-slot vectors:
 * recall@10 0.04–0.14 for 200–4,000 candidates). A dense search for such a query scores every vector instead.
 */
export function signCodesFit(vector: ArrayLike<number>): boolean {
  let zeros = 0;
  for (let d = 0; d < vector.length; d++) if (vector[d] === 0) zeros++;
  return vector.length > 0 && zeros * 2 <= vector.length;
}

/** Writes the sign code of `vector` (bit `d` set when `vector[d] > 0`) into `target` at word `offset`. */
export function writeSignCode(
  vector: ArrayLike<number>,
  target: Uint32Array,
  offset: number,
  words: number,
): void {
  target.fill(0, offset, offset + words);
  for (let d = 0; d < vector.length; d++) {
    if ((vector[d] as number) > 0)
      target[offset + (d >>> 5)] = (target[offset + (d >>> 5)] as number) | (1 << (d & 31));
  }
}

/**
 * One page of codes: the codes of keys `firstKey` … `firstKey + CODE_PAGE_KEYS − 1` (a key without a vector has
 * all bits clear and its `present` bit clear).
 */
export interface CodePage {
  firstKey: number;
  /** One bit per key of the page: whether it has a vector. */
  present: Uint8Array;
  /** `CODE_PAGE_KEYS × words` words. */
  codes: Uint32Array;
}

/** How many candidates each stage of {@link signCodeCandidates} keeps. */
export interface CandidateCounts {
  /** Kept by Hamming distance to the query's own code (the cheap pass over every code). */
  wide: number;
  /** Kept of those by the query's dot product with the codes' ±1 vectors (the candidates to score exactly). */
  keep: number;
}

/**
 * The keys (ascending) whose vectors are likeliest to be nearest `query` by cosine: every present code by
 * Hamming distance to the query's sign code (popcount over words), the `wide` nearest of those rescored by the
 * query's dot product with the code read as ±1 per dimension (an asymmetric estimate: a table per byte of code),
 * and the `keep` best of those. With at most `keep` present keys, every one of them. The Hamming pass runs in
 * WebAssembly where it can (sign-code-scan.ts); `javascript` runs it in JavaScript (the tests compare the two).
 */
export function signCodeCandidates(
  pages: readonly CodePage[],
  query: ArrayLike<number>,
  words: number,
  { wide, keep, javascript = false }: CandidateCounts & { javascript?: boolean },
): number[] {
  const queryCode = new Uint32Array(words);
  writeSignCode(query, queryCode, 0, words);
  // Hamming distances of every slot (absent ones past any real distance), then the `wide` nearest by histogram.
  const absent = words * 32 + 1;
  const scan = codeScan(queryCode, { words, keys: CODE_PAGE_KEYS, pages: pages.length, javascript });
  for (const [index, page] of pages.entries()) scan.page(page.codes, index);
  const counts = new Uint32Array(absent + 1);
  counts.set(scan.counts());
  for (const [index, page] of pages.entries())
    markAbsent(page.present, absent, scan.distances, index * CODE_PAGE_KEYS, counts);
  if (scan.distances.length - (counts[absent] as number) <= keep) return presentKeys(pages);
  const { limit, atLimit } = cutoff(counts, absent, wide);
  const nearAt = scan.nearest(limit, limit === absent ? 0 : atLimit);
  const near = Array.from(nearAt, (at) => {
    const page = pages[Math.floor(at / CODE_PAGE_KEYS)] as CodePage;
    return page.firstKey + (at % CODE_PAGE_KEYS);
  });
  if (near.length <= keep) return near;
  // The asymmetric estimate of the near ones: Σ_d query[d] · (bit d ? +1 : −1), a table of 256 sums per byte.
  const table = byteTables(query, words * 4);
  const estimates = nearEstimates(pages, nearAt, words, table);
  const threshold = estimates.slice().sort()[near.length - keep] as number;
  let aboveThreshold = 0;
  for (let index = 0; index < near.length; index++)
    if ((estimates[index] as number) > threshold) aboveThreshold++;
  let atThreshold = keep - aboveThreshold;
  return near.filter((_, index) => {
    const estimate = estimates[index] as number;
    return estimate > threshold || (estimate === threshold && atThreshold-- > 0);
  });
}

/** The present keys of the pages, ascending. */
function presentKeys(pages: readonly CodePage[]): number[] {
  const keys: number[] = [];
  for (const page of pages) {
    for (let slot = 0; slot < CODE_PAGE_KEYS; slot++) {
      if (((page.present[slot >>> 3] as number) & (1 << (slot & 7))) !== 0) keys.push(page.firstKey + slot);
    }
  }
  return keys;
}

/** The estimates of the codes at `nearAt` (slots over all pages): the sums of `table` over each code's bytes. */
function nearEstimates(
  pages: readonly CodePage[],
  nearAt: Int32Array,
  words: number,
  table: Float64Array,
): Float64Array {
  const count = nearAt.length;
  const bytes = words * 4;
  const codeBytes = pages.map(
    (page) => new Uint8Array(page.codes.buffer, page.codes.byteOffset, page.codes.byteLength),
  );
  const estimates = new Float64Array(count);
  for (let index = 0; index < count; index++) {
    const at = nearAt[index] as number;
    const page = Math.floor(at / CODE_PAGE_KEYS);
    const codes = codeBytes[page] as Uint8Array;
    let sum = 0;
    for (let byte = 0, offset = (at - page * CODE_PAGE_KEYS) * bytes; byte < bytes; byte++, offset++)
      sum += table[(byte << 8) | (codes[offset] as number)] as number;
    estimates[index] = sum;
  }
  return estimates;
}

/** Moves the page's keys without a vector to distance `absent` (past any real one), in `distances` and `counts`. */
function markAbsent(
  present: Uint8Array,
  absent: number,
  distances: Uint16Array,
  at: number,
  counts: Uint32Array,
): void {
  for (let byte = 0; byte < present.length; byte++) {
    const bits = present[byte] as number;
    if (bits === 0xff) continue;
    for (let bit = 0; bit < 8; bit++) {
      if ((bits & (1 << bit)) !== 0) continue;
      const slot = at + byte * 8 + bit;
      counts[distances[slot] as number] = (counts[distances[slot] as number] as number) - 1;
      counts[absent] = (counts[absent] as number) + 1;
      distances[slot] = absent;
    }
  }
}

/** The distance below which fewer than `wanted` slots lie (`limit`), and how many at it to take (`atLimit`). */
function cutoff(counts: Uint32Array, absent: number, wanted: number): { limit: number; atLimit: number } {
  let limit = 0;
  let nearer = 0;
  while (limit < absent && nearer + (counts[limit] as number) < wanted) nearer += counts[limit++] as number;
  return { limit, atLimit: wanted - nearer };
}

/** Per byte of code, the 256 sums of ±query over its 8 dimensions (dimensions past the vector count 0). */
function byteTables(query: ArrayLike<number>, bytes: number): Float64Array {
  const table = new Float64Array(bytes * 256);
  for (let byte = 0; byte < bytes; byte++) {
    const base = byte << 8;
    // All bits clear: −query over the byte's dimensions; each set bit then turns its −query[d] into +query[d]
    // (a value's sum is the sum of the value without its lowest set bit, plus twice that bit's query[d]).
    let none = 0;
    for (let bit = 0; bit < 8 && byte * 8 + bit < query.length; bit++)
      none -= query[byte * 8 + bit] as number;
    table[base] = none;
    for (let value = 1; value < 256; value++) {
      const bit = 31 - Math.clz32(value & -value);
      const d = byte * 8 + bit;
      table[base | value] =
        (table[base | (value & (value - 1))] as number) + (d < query.length ? 2 * (query[d] as number) : 0);
    }
  }
  return table;
}
