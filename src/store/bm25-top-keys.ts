import { bm25Idf } from "../retrieval/lexical-index.js";
import { type RareSurvivors, type SurvivorTest, wasmRareSurvivors } from "./bm25-rare-sums.js";
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
  const { documents, topK, k1 } = ranking;
  const idfOf = (frequency: number) => bm25Idf(frequency, documents);
  const common = lists.map((list) => list.keys.length > documents * COMMON_SHARE);
  if (common.every(Boolean)) common.fill(false);
  // The chunks the rarer terms found, ascending, each once, with their scores in an array beside them. An array
  // indexed by chunk key (as before) spans every key of the index: at 2.6M keys its first write to each of its
  // 5,000 pages cost a query ~15 ms of page faults, whatever the query.
  const found = unionOf(lists.filter((_, index) => !common[index]).map((list) => list.keys));
  const scores = new Float64Array(found.length);
  let scored = 0;
  // Every list in query order, so each chunk's addends are summed in the order the full scoring sums them.
  for (const list of lists) scored += addTermScores(list, idfOf(list.keys.length), found, scores, ranking);
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
      if (common[index]) scored += addTermScores(list, idfOf(list.keys.length), only, onlyScores, ranking);
    }
    best = topKeys(only, onlyScores, topK, best);
  }
  return {
    keys: best.map((hit) => hit.key),
    scores: new Map(best.map((hit) => [hit.key, hit.score])),
    scored,
  };
}

/**
 * A query term as {@link bm25TopKeysOfTerms} reads it: its document frequency, known before any of its postings are
 * read, and its postings, all of them or only those of some chunks.
 */
export interface Bm25Term {
  /** How many chunks hold the term: the number of postings {@link Bm25Term.all} gives. */
  frequency: number;
  /** Every posting of the term, keys ascending. */
  all(): TermPostings | Promise<TermPostings>;
  /**
   * Optional: the term's postings in the chunks `keys` (ascending) names, keys ascending; chunks without the term
   * are left out. Without it, the term's postings are read whole.
   */
  at?(keys: Float64Array): TermPostings | Promise<TermPostings>;
}

/**
 * A common term whose postings are read only in these chunks, when at most this share of its postings would be
 * asked for: past it, reading them all costs less than finding each one's block.
 */
const AT_MOST_SHARE = 1 / 64;

/**
 * {@link bm25TopKeys} over terms read as it needs them: the same keys and the very same scores, without reading a
 * common term's postings when it can.
 *
 * The common terms' postings are most of a query's reading at 10^6 chunks ("request", in a quarter of the chunks of
 * a folder of API docs: 3 × 10^5 postings, a megabyte of blocks to read and decode), yet a common term adds at most
 * its bound (`idf × (k1 + 1)`) to any chunk. So the rarer terms are scored first: the k-th best of their sums is a
 * floor under the k-th best final score (adding terms only raises scores). A chunk whose sum plus the common terms'
 * bounds is below that floor cannot enter the top k, and neither can a chunk only common terms reach when their
 * bounds alone are below it (MaxScore: Turtle & Flood 1995). The chunks left (a few hundred for a top 50) are scored
 * again from every term's postings in query order, the common terms' read only in those chunks (`at`). When the
 * bounds do not allow it, the terms are read whole and ranked by {@link bm25TopKeys}.
 */
export async function bm25TopKeysOfTerms(
  terms: readonly Bm25Term[],
  ranking: Bm25Ranking,
  /** Test seam: the rarer terms summed in JavaScript, as where WebAssembly does not run. */
  { javascript = false }: { javascript?: boolean } = {},
): Promise<Bm25TopKeys> {
  const { documents, topK, k1 } = ranking;
  const idfOf = (frequency: number) => bm25Idf(frequency, documents);
  const common = terms.map((term) => term.at !== undefined && term.frequency > documents * COMMON_SHARE);
  const readWhole = async () => bm25TopKeys(await Promise.all(terms.map((term) => term.all())), ranking);
  if (!common.some(Boolean) || common.every(Boolean)) return readWhole();
  const rare = new Map<number, TermPostings>();
  for (const [index, term] of terms.entries()) if (!common[index]) rare.set(index, await term.all());
  const rareLists = [...rare.values()];
  let scored = rareLists.reduce((sum, list) => sum + list.keys.length, 0);
  const bound = terms.reduce(
    (sum, term, index) => (common[index] ? sum + idfOf(term.frequency) * (k1 + 1) : sum),
    0,
  );
  // A margin for rounding: the final sums add the same addends in another order.
  const test = { topK, bound, factor: 1 + 1e-9 };
  const { floor, survivors } =
    (javascript
      ? undefined
      : wasmRareSurvivors(
          rareLists,
          rareLists.map((list) => idfOf(list.keys.length)),
          ranking,
          test,
        )) ?? jsRareSurvivors(rareLists, idfOf, ranking, test);
  if (!(floor > 0) || !(bound * test.factor < floor)) {
    const lists = await Promise.all(terms.map((term, index) => rare.get(index) ?? term.all()));
    return bm25TopKeys(lists, ranking);
  }
  const lists: TermPostings[] = [];
  for (const [index, term] of terms.entries()) {
    const known = rare.get(index);
    if (known) lists.push(known);
    else if (survivors.length <= term.frequency * AT_MOST_SHARE && term.at)
      lists.push(await term.at(survivors));
    else lists.push(await term.all());
  }
  // Scored again from every term in query order: each chunk's addends summed as the full scoring sums them.
  const scores = new Float64Array(survivors.length);
  for (const [index, list] of lists.entries()) {
    const frequency = (terms[index] as Bm25Term).frequency;
    scored += addTermScores(
      list,
      idfOf(common[index] ? frequency : list.keys.length),
      survivors,
      scores,
      ranking,
    );
  }
  const best = topKeys(survivors, scores, topK);
  return {
    keys: best.map((hit) => hit.key),
    scores: new Map(best.map((hit) => [hit.key, hit.score])),
    scored,
  };
}

/**
 * {@link wasmRareSurvivors} in JavaScript: the union of the rarer terms' lists with each list's scores added into it
 * in turn, the k-th best sum, and the chunks that pass the test.
 */
function jsRareSurvivors(
  lists: readonly TermPostings[],
  idfOf: (frequency: number) => number,
  ranking: Bm25Ranking,
  { topK, bound, factor }: SurvivorTest,
): RareSurvivors {
  const found = unionOf(lists.map((list) => list.keys));
  const sums = new Float64Array(found.length);
  for (const list of lists) addTermScores(list, idfOf(list.keys.length), found, sums, ranking);
  const floor = kthLargest(sums, topK);
  if (!(floor > 0) || !(bound * factor < floor)) return { floor, survivors: new Float64Array(0) };
  const kept = new Float64Array(found.length);
  let count = 0;
  for (let index = 0; index < found.length; index++)
    if (!(((sums[index] as number) + bound) * factor < floor)) kept[count++] = found[index] as number;
  return { floor, survivors: kept.subarray(0, count) };
}

/**
 * Adds the term's score to each of its chunks that `targets` (ascending keys) holds, into `into` beside it.
 * Returns how many postings it scored. Few targets in a long list (the chunks left to score again after MaxScore's
 * test, ~250 against a rare term's 27,000 postings) are each found by bisection, not by walking the list.
 */
function addTermScores(
  list: TermPostings,
  idf: number,
  targets: Float64Array,
  into: Float64Array,
  { k1, b, averageLength }: Bm25Ranking,
): number {
  const { keys, frequencies, lengths } = list;
  const bisect = targets.length * 32 < keys.length;
  let count = 0;
  let at = 0;
  for (let target = 0; target < targets.length; target++) {
    const key = targets[target] as number;
    if (bisect) {
      let high = keys.length;
      while (at < high) {
        const middle = (at + high) >>> 1;
        if ((keys[middle] as number) < key) at = middle + 1;
        else high = middle;
      }
    } else while (at < keys.length && (keys[at] as number) < key) at++;
    if (at === keys.length) break;
    if (keys[at] !== key) continue;
    const tf = frequencies[at] as number;
    const norm = k1 * (1 - b + (b * (lengths[at] as number)) / averageLength);
    into[target] = (into[target] as number) + (idf * tf * (k1 + 1)) / (tf + norm);
    count++;
  }
  return count;
}

/** The `k`-th largest of `values`, or 0 when fewer than `k` of them are positive. */
function kthLargest(values: Float64Array, k: number): number {
  // A min-heap of the k largest so far: most values are below its root and cost one comparison.
  const heap = new Float64Array(k);
  let size = 0;
  for (let index = 0; index < values.length; index++) {
    const value = values[index] as number;
    if (!(value > 0)) continue;
    if (size < k) {
      let at = size++;
      while (at > 0 && (heap[(at - 1) >> 1] as number) > value) {
        heap[at] = heap[(at - 1) >> 1] as number;
        at = (at - 1) >> 1;
      }
      heap[at] = value;
      continue;
    }
    if (value <= (heap[0] as number)) continue;
    // Replace the root and sift it down.
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= k) break;
      const right = left + 1;
      const child = right < k && (heap[right] as number) < (heap[left] as number) ? right : left;
      if ((heap[child] as number) >= value) break;
      heap[at] = heap[child] as number;
      at = child;
    }
    heap[at] = value;
  }
  return size === k ? (heap[0] as number) : 0;
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
