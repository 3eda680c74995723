import type { TermPostings } from "./index-store.js";

/** What {@link bm25TopKeys} ranks with: the corpus statistics and Okapi BM25's parameters. */
export interface Bm25Ranking {
  documents: number;
  averageLength: number;
  topK: number;
  k1: number;
  b: number;
}

/** The best keys with their scores, and how many postings were scored to find them. */
export interface Bm25TopKeys {
  keys: number[];
  scores: Map<number, number>;
  /** Postings whose BM25 term score was computed: fewer than all when the common terms were skipped. */
  scored: number;
}

/** A term in more than this share of the chunks is "common": scored only for chunks a rarer term found. */
const COMMON_SHARE = 0.1;

/**
 * The `topK` chunk keys with the highest BM25 score over these terms' postings (`lists`, in query order), best first,
 * ties by key: the same keys and the very same scores (the same addends summed in the same order) as scoring every
 * posting of every list.
 *
 * At 10^6 chunks a common query word ("request" in a folder of API docs) has 3 × 10^5 postings, ten times the
 * rest of the query together, and scoring each of them was most of a query. A common term's score in one chunk is
 * below `idf × (k1 + 1)` whatever its frequency and the chunk's length, and its IDF is small. So the rarer terms'
 * postings are scored first, and the common terms only in the chunks those found (an exact score for each of them);
 * a chunk only common terms reach scores at most the sum of their bounds, and when that is below the k-th best score
 * so far, no such chunk can enter the top k and they are never scored (this is MaxScore's test: Turtle & Flood 1995).
 * Otherwise the common terms' other postings are scored too, and the result is the full scoring's.
 */
export function bm25TopKeys(lists: readonly TermPostings[], ranking: Bm25Ranking): Bm25TopKeys {
  const { documents, averageLength, topK, k1, b } = ranking;
  const idfOf = (frequency: number) => Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
  const common = lists.map((list) => list.keys.length > documents * COMMON_SHARE);
  if (common.every(Boolean)) common.fill(false);
  // The chunks the rarer terms found, ascending, each once, with their scores in an array beside them. An array
  // indexed by chunk key (as before) spans every key of the index: at 2.6M keys its first write to each of its
  // 5,000 pages cost a query ~15 ms of page faults, whatever the query.
  const found = unionOf(lists.filter((_, index) => !common[index]).map((list) => list.keys));
  const scores = new Float64Array(found.length);
  let scored = 0;
  // Every list in query order, so each chunk's addends are summed in the order the full scoring sums them.
  for (const list of lists) scored += addScores(list, idfOf(list.keys.length), found, scores);
  let best = topKeys(found, scores, topK);
  const bound = lists.reduce(
    (sum, list, index) => (common[index] ? sum + idfOf(list.keys.length) * (k1 + 1) : sum),
    0,
  );
  const kth = best.length === topK ? (best[topK - 1] as Scored).score : 0;
  // The bound is compared with a margin for rounding in the addends; a chunk scoring exactly the k-th score could
  // still enter on its key, hence strictly below.
  if (bound > 0 && !(bound * (1 + 1e-9) < kth)) {
    const commonKeys = unionOf(lists.filter((_, index) => common[index]).map((list) => list.keys));
    const only = differenceOf(commonKeys, found);
    const onlyScores = new Float64Array(only.length);
    for (const [index, list] of lists.entries()) {
      if (common[index]) scored += addScores(list, idfOf(list.keys.length), only, onlyScores);
    }
    best = topKeys(only, onlyScores, topK, best);
  }
  return {
    keys: best.map((hit) => hit.key),
    scores: new Map(best.map((hit) => [hit.key, hit.score])),
    scored,
  };

  /**
   * Adds the term's score to each of its chunks that `targets` (ascending keys) holds, into `into` beside it: the
   * list and the targets walked together. Returns how many postings it scored.
   */
  function addScores(list: TermPostings, idf: number, targets: Float64Array, into: Float64Array): number {
    const { keys, frequencies, lengths } = list;
    let count = 0;
    let target = 0;
    for (let at = 0; at < keys.length && target < targets.length; at++) {
      const key = keys[at] as number;
      while (target < targets.length && (targets[target] as number) < key) target++;
      if (targets[target] !== key) continue;
      const tf = frequencies[at] as number;
      const norm = k1 * (1 - b + (b * (lengths[at] as number)) / averageLength);
      into[target] = (into[target] as number) + (idf * tf * (k1 + 1)) / (tf + norm);
      count++;
    }
    return count;
  }
}

interface Scored {
  key: number;
  score: number;
}

/** The keys of all `lists` (each ascending, each key once), ascending, each once. */
function unionOf(lists: readonly ArrayLike<number>[]): Float64Array {
  let merged = new Float64Array(0);
  for (const list of lists) {
    const out = new Float64Array(merged.length + list.length);
    let size = 0;
    let left = 0;
    let right = 0;
    while (left < merged.length || right < list.length) {
      const a = left < merged.length ? (merged[left] as number) : Number.POSITIVE_INFINITY;
      const b = right < list.length ? (list[right] as number) : Number.POSITIVE_INFINITY;
      if (a <= b) left++;
      if (b <= a) right++;
      out[size++] = Math.min(a, b);
    }
    merged = out.subarray(0, size);
  }
  return merged;
}

/** The keys of `keys` (ascending) that `without` (ascending) does not hold. */
function differenceOf(keys: Float64Array, without: Float64Array): Float64Array {
  const out = new Float64Array(keys.length);
  let size = 0;
  let other = 0;
  for (const key of keys) {
    while (other < without.length && (without[other] as number) < key) other++;
    if (without[other] !== key) out[size++] = key;
  }
  return out.subarray(0, size);
}

/**
 * Of the chunks `keys` with `scores` beside them (and `also`, chunks already ranked), the `k` with the highest
 * positive score, best first, ties by key.
 */
function topKeys(
  keys: Float64Array,
  scores: Float64Array,
  k: number,
  also: readonly Scored[] = [],
): Scored[] {
  const better = (left: Scored, right: Scored) =>
    left.score > right.score || (left.score === right.score && left.key < right.key);
  const best: Scored[] = [];
  const offer = (hit: Scored) => {
    if (!(hit.score > 0)) return;
    if (best.length === k && !better(hit, best[k - 1] as Scored)) return;
    let index = best.length;
    while (index > 0 && better(hit, best[index - 1] as Scored)) index--;
    best.splice(index, 0, hit);
    if (best.length > k) best.pop();
  };
  for (const hit of also) offer(hit);
  for (let index = 0; index < keys.length; index++) {
    const score = scores[index] as number;
    // Most chunks are below the k-th: compared before an object is made for them.
    if (
      best.length === k &&
      !(score > (best[k - 1] as Scored).score || score === (best[k - 1] as Scored).score)
    )
      continue;
    offer({ key: keys[index] as number, score });
  }
  return best;
}
