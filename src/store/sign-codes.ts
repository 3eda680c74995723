// Sign codes: one bit per dimension of a vector (set when the value is positive), the filter an index's dense
// search runs over before it scores the few candidates left exactly. Pure functions over typed arrays; the SQLite
// pages that hold them are sqlite-vector-codes.ts.

/** Keys per page of codes: a page is one row of the codes table. */
export const CODE_PAGE_KEYS = 4096;

/** 32-bit words per code of a vector of `dimensions` (codes are padded to whole words, so a scan reads words). */
export function codeWords(dimensions: number): number {
  return Math.ceil(dimensions / 32);
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
 * and the `keep` best of those. With at most `keep` present keys, every one of them.
 */
export function signCodeCandidates(
  pages: readonly CodePage[],
  query: ArrayLike<number>,
  words: number,
  { wide, keep }: CandidateCounts,
): number[] {
  let present = 0;
  for (const page of pages) for (const byte of page.present) present += popcount32(byte);
  if (present <= keep) return presentKeys(pages);
  const queryCode = new Uint32Array(words);
  writeSignCode(query, queryCode, 0, words);
  // Hamming distances of every slot (absent ones past any real distance), then the `wide` nearest by histogram.
  const absent = words * 32 + 1;
  const distances = new Uint16Array(pages.length * CODE_PAGE_KEYS);
  const counts = new Uint32Array(absent + 1);
  for (const [index, page] of pages.entries())
    hammingDistances(page, queryCode, words, absent, distances, index * CODE_PAGE_KEYS, counts);
  const nearest = cutoff(counts, absent, wide);
  const limit = nearest.limit;
  let atLimit = nearest.atLimit;
  // The asymmetric estimate of the near ones: Σ_d query[d] · (bit d ? +1 : −1), a table of 256 sums per byte.
  const bytes = words * 4;
  const table = byteTables(query, bytes);
  const near: number[] = [];
  const estimates = new Float64Array(wide);
  pages.forEach((page, index) => {
    const codeBytes = new Uint8Array(page.codes.buffer, page.codes.byteOffset, page.codes.byteLength);
    for (let slot = 0, at = index * CODE_PAGE_KEYS; slot < CODE_PAGE_KEYS; slot++, at++) {
      const distance = distances[at] as number;
      if (distance > limit || distance === absent || (distance === limit && atLimit-- <= 0)) continue;
      let sum = 0;
      for (let byte = 0, offset = slot * bytes; byte < bytes; byte++, offset++)
        sum += table[(byte << 8) | (codeBytes[offset] as number)] as number;
      estimates[near.length] = sum;
      near.push(page.firstKey + slot);
    }
  });
  if (near.length <= keep) return near;
  const threshold = estimates.slice(0, near.length).sort()[near.length - keep] as number;
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

/**
 * Writes the page's Hamming distances to `query` into `distances` from `at` (`absent` for a key without a vector),
 * and counts them in `counts`.
 */
function hammingDistances(
  page: CodePage,
  query: Uint32Array,
  words: number,
  absent: number,
  distances: Uint16Array,
  at: number,
  counts: Uint32Array,
): void {
  const codes = page.codes;
  for (let slot = 0, offset = 0; slot < CODE_PAGE_KEYS; slot++, offset += words) {
    let distance = 0;
    for (let word = 0; word < words; word++) {
      let bits = (codes[offset + word] as number) ^ (query[word] as number);
      bits -= (bits >>> 1) & 0x55555555;
      bits = (bits & 0x33333333) + ((bits >>> 2) & 0x33333333);
      distance += Math.imul((bits + (bits >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
    }
    distances[at + slot] = distance;
    counts[distance] = (counts[distance] as number) + 1;
  }
  const present = page.present;
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
    for (let value = 0; value < 256; value++) {
      let sum = 0;
      for (let bit = 0; bit < 8; bit++) {
        const d = byte * 8 + bit;
        if (d >= query.length) break;
        sum += (value >>> bit) & 1 ? (query[d] as number) : -(query[d] as number);
      }
      table[(byte << 8) | value] = sum;
    }
  }
  return table;
}

function popcount32(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
}
