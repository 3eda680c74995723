import { lexicalTokens } from "../analysis/lexical-tokens.js";
import { checkInteger } from "../errors/check-integer.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { type LexicalHit, RETRIEVAL_BM25 } from "../retrieval/lexical-index.js";
import type { TextNode } from "../schema/text-node.js";
import type { IndexStore } from "./index-store.js";

/** BM25 over a store, as `LexicalIndex` scores it; hits carry node ids, whose nodes `getNode` then gives. */
export interface StoreLexicalSearch {
  search(query: string, options?: { topK?: number }): Promise<LexicalHit[]>;
  idf(term: string): Promise<number>;
  /** A node a search returned (or any stored node, read by its id). */
  getNode(id: string): TextNode | undefined | Promise<TextNode | undefined>;
}

/**
 * Okapi BM25 computed from the store's rows: the query terms' postings, the corpus statistics, then the nodes of
 * the `topK` best chunks, nothing else. The same formula, IDF and tie order (insertion order) as `LexicalIndex.search`,
 * and the same parameters as a `VectorStoreIndex`'s in-memory index (`RETRIEVAL_BM25`: k1 1.2, b 0.6), so both
 * rank the same chunks the same way. A store that ranks in its engine (`lexicalTopK`, PostgreSQL) computes the
 * scores there, from the same rows and parameters.
 */
export function createStoreLexicalSearch(
  store: IndexStore,
  { k1 = RETRIEVAL_BM25.k1, b = RETRIEVAL_BM25.b }: { k1?: number; b?: number } = {},
): StoreLexicalSearch {
  const found = new Map<string, TextNode>();
  const idfOf = (frequency: number, documents: number) =>
    Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
  return {
    search(query, options = {}) {
      return store.read(() => searchSnapshot(query, options));
    },
    idf(term) {
      return store.read(async () => {
        const frequency = (await store.documentFrequencies([term])).get(term);
        return frequency === undefined ? 0 : idfOf(frequency, (await store.statistics()).documents);
      });
    },
    getNode(id) {
      const known = found.get(id);
      if (known) return known;
      return store.chunkByNodeId(id).then((chunk) => {
        if (chunk) found.set(id, chunk.node);
        return chunk?.node;
      });
    },
  };

  async function searchSnapshot(query: string, { topK = 10 }: { topK?: number }): Promise<LexicalHit[]> {
    if (typeof query !== "string") {
      throw new InvalidArgumentError({ parameter: "query", value: query, expected: "be a string" });
    }
    checkInteger("topK", topK, 1);
    const terms = [...new Set(lexicalTokens(query))];
    if (store.lexicalTopK) {
      const ranked = await store.lexicalTopK(terms, { topK, k1, b });
      return hitsOf(
        ranked.map((hit) => hit.key),
        new Map(ranked.map((hit) => [hit.key, hit.score])),
      );
    }
    const { documents, totalLength } = await store.statistics();
    if (documents === 0) return [];
    const averageLength = totalLength / documents || 1;
    const lists = [];
    let maxKey = -1;
    for (const term of terms) {
      const postings = await store.postings(term);
      if (!postings || postings.keys.length === 0) continue;
      lists.push(postings);
      // A term's keys ascend: its last is its largest.
      maxKey = Math.max(maxKey, postings.keys[postings.keys.length - 1] as number);
    }
    // Scores summed in an array indexed by chunk key, not a Map: at 10^6 chunks a common query term has 10^5
    // postings, and a Map's get/set per posting was most of the search. Every addend is positive (the IDF is
    // log(1 + …) and tf ≥ 1), so a zero marks a chunk not yet touched; the sums are made in the same order as before.
    const scores = new Float64Array(maxKey + 1);
    const touched: number[] = [];
    for (const { keys, frequencies, lengths } of lists) {
      const idf = idfOf(keys.length, documents);
      for (let index = 0; index < keys.length; index++) {
        const key = keys[index] as number;
        const tf = frequencies[index] as number;
        const norm = k1 * (1 - b + (b * (lengths[index] as number)) / averageLength);
        if (scores[key] === 0) touched.push(key);
        scores[key] = (scores[key] as number) + (idf * tf * (k1 + 1)) / (tf + norm);
      }
    }
    const best = topKeys(touched, scores, topK);
    return hitsOf(best, new Map(best.map((key) => [key, scores[key] as number])));
  }

  async function hitsOf(best: number[], scores: ReadonlyMap<number, number>): Promise<LexicalHit[]> {
    const hits: LexicalHit[] = [];
    for (const chunk of await store.chunks(best)) {
      found.set(chunk.node.id, chunk.node);
      hits.push({ id: chunk.node.id, score: scores.get(chunk.key) as number });
    }
    return hits;
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
