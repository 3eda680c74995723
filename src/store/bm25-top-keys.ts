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
  let maxKey = -1;
  for (const { keys } of lists) {
    // A term's keys ascend: its last is its largest.
    if (keys.length > 0) maxKey = Math.max(maxKey, keys[keys.length - 1] as number);
  }
  const common = lists.map((list) => list.keys.length > documents * COMMON_SHARE);
  if (common.every(Boolean)) common.fill(false);
  // Scores summed in an array indexed by chunk key, not a Map (a Map's get/set per posting was most of a query at
  // 10^6 chunks). Every addend is positive (the IDF is log(1 + …) and tf ≥ 1), so a zero marks a chunk not yet
  // touched.
  const scores = new Float64Array(maxKey + 1);
  const found = new Uint8Array(maxKey + 1);
  const touched: number[] = [];
  for (const [index, { keys }] of lists.entries()) {
    if (common[index]) continue;
    for (let at = 0; at < keys.length; at++) {
      const key = keys[at] as number;
      if (found[key] === 0) {
        found[key] = 1;
        touched.push(key);
      }
    }
  }
  let scored = 0;
  // Every list in query order, so each chunk's addends are summed in the order the full scoring sums them.
  for (const [index, list] of lists.entries()) {
    scored += addScores(list, idfOf(list.keys.length), common[index] ? found : undefined);
  }
  let best = topKeys(touched, scores, topK);
  const bound = lists.reduce(
    (sum, list, index) => (common[index] ? sum + idfOf(list.keys.length) * (k1 + 1) : sum),
    0,
  );
  const kth = best.length === topK ? (scores[best[topK - 1] as number] as number) : 0;
  // The bound is compared with a margin for rounding in the addends; a chunk scoring exactly the k-th score could
  // still enter on its key, hence strictly below.
  if (bound > 0 && !(bound * (1 + 1e-9) < kth)) {
    const only: number[] = [];
    for (const [index, list] of lists.entries()) {
      if (!common[index]) continue;
      const { keys } = list;
      for (let at = 0; at < keys.length; at++) {
        const key = keys[at] as number;
        if (found[key] === 0) {
          found[key] = 2;
          only.push(key);
        }
      }
      scored += addScores(list, idfOf(keys.length), found, 2);
    }
    best = topKeys([...best, ...only], scores, topK);
  }
  return { keys: best, scores: new Map(best.map((key) => [key, scores[key] as number])), scored };

  /** Adds the term's score to each of its chunks (only those `only` marks `mark`, when given); how many it scored. */
  function addScores(list: TermPostings, idf: number, only?: Uint8Array, mark = 1): number {
    const { keys, frequencies, lengths } = list;
    let count = 0;
    for (let at = 0; at < keys.length; at++) {
      const key = keys[at] as number;
      if (only && only[key] !== mark) continue;
      const tf = frequencies[at] as number;
      const norm = k1 * (1 - b + (b * (lengths[at] as number)) / averageLength);
      scores[key] = (scores[key] as number) + (idf * tf * (k1 + 1)) / (tf + norm);
      count++;
    }
    return count;
  }
}

/** Of the `keys` scored in `scores` (by key), the `k` with the highest positive score, best first, ties by key. */
function topKeys(keys: readonly number[], scores: Float64Array, k: number): number[] {
  const better = (left: number, right: number) => {
    const a = scores[left] as number;
    const b = scores[right] as number;
    return a > b || (a === b && left < right);
  };
  const best: number[] = [];
  for (const key of keys) {
    const score = scores[key] as number;
    if (!(score > 0)) continue;
    if (best.length === k && !better(key, best[k - 1] as number)) continue;
    let index = best.length;
    while (index > 0 && better(key, best[index - 1] as number)) index--;
    best.splice(index, 0, key);
    if (best.length > k) best.pop();
  }
  return best;
}
