import { lexicalTokens } from "../analysis/lexical-tokens.js";
import { checkInteger } from "../errors/check-integer.js";
import { checkString } from "../errors/check-string.js";
import { bm25Idf, type LexicalHit, RETRIEVAL_BM25 } from "../retrieval/lexical-index.js";
import type { TextNode } from "../schema/text-node.js";
import { type Bm25Term, bm25TopKeysOfTerms } from "./bm25-top-keys.js";
import type { IndexStore } from "./index-store.js";

/** BM25 over a store, as `LexicalIndex` scores it; hits carry node ids, whose nodes `getNode` then gives. */
export interface StoreLexicalSearch {
  search(query: string, options?: { topK?: number }): Promise<LexicalHit[]>;
  idf(term: string): Promise<number>;
  /** A node a search returned (or any stored node, read by its id). */
  getNode(id: string): TextNode | undefined | Promise<TextNode | undefined>;
}

/**
 * Okapi BM25 computed from the store's rows: the query terms' document frequencies and postings (a common term's
 * only in the chunks that can still rank, when the store reads postings at keys: `bm25TopKeysOfTerms`), the corpus
 * statistics, then the nodes of the `topK` best chunks, nothing else. The same formula, IDF and tie order
 * (insertion order) as `LexicalIndex.search`, and the same parameters as a `VectorStoreIndex`'s in-memory index
 * (`RETRIEVAL_BM25`: k1 1.2, b 0.6), so both rank the same chunks the same way. A store that ranks in its engine
 * (`lexicalTopK`, PostgreSQL) computes the scores there, from the same rows and parameters.
 */
export function createStoreLexicalSearch(
  store: IndexStore,
  { k1 = RETRIEVAL_BM25.k1, b = RETRIEVAL_BM25.b }: { k1?: number; b?: number } = {},
): StoreLexicalSearch {
  const found = new Map<string, TextNode>();
  return {
    search(query, options = {}) {
      return store.read(() => searchSnapshot(query, options));
    },
    idf(term) {
      return store.read(async () => {
        const frequency = (await store.documentFrequencies([term])).get(term);
        return frequency === undefined ? 0 : bm25Idf(frequency, (await store.statistics()).documents);
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
    checkString("query", query);
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
    // Each term's document frequency first: a common term's postings are read only where the ranking needs them.
    const frequencies = await store.documentFrequencies(terms);
    const postingsAt = store.postingsAt?.bind(store);
    const bm25Terms: Bm25Term[] = [];
    for (const term of terms) {
      const frequency = frequencies.get(term);
      if (!frequency) continue;
      bm25Terms.push({
        frequency,
        all: async () => (await store.postings(term)) ?? { keys: [], frequencies: [], lengths: [] },
        ...(postingsAt ? { at: (keys: Float64Array) => postingsAt(term, keys) } : {}),
      });
    }
    const best = await bm25TopKeysOfTerms(bm25Terms, { documents, averageLength, topK, k1, b });
    return hitsOf(best.keys, best.scores);
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
