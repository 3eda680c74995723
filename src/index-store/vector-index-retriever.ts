import { getTopKEmbeddings } from "../embedding/get-top-k-embeddings.js";
import type { Embedder } from "../embedding/types.js";
import { checkInteger } from "../errors/check-integer.js";
import type { Retriever } from "../query-engine/retriever.js";
import type { NodeWithScore } from "../schema/text-node.js";
import type { IndexEntry } from "./embed-nodes.js";

/** Options of `VectorStoreIndex.asRetriever`. */
export interface VectorIndexRetrieverOptions {
  /** How many nodes to return. @default 2 (LlamaIndex's default) */
  similarityTopK?: number;
}

/**
 * A retriever over in-memory entries: embeds the query once, scores every entry by cosine
 * similarity, and keeps the best `similarityTopK` with a bounded heap. Ties keep LlamaIndex's order.
 */
export function createVectorIndexRetriever(
  entries: readonly IndexEntry[],
  embedder: Embedder,
  { similarityTopK = 2 }: VectorIndexRetrieverOptions = {},
): Retriever {
  checkInteger("similarityTopK", similarityTopK, 1);
  const embeddings = entries.map((entry) => entry.embedding);
  return {
    async retrieve({ query, signal }): Promise<NodeWithScore[]> {
      signal?.throwIfAborted();
      if (entries.length === 0) return [];
      const queryEmbedding = await embedder.getQueryEmbedding(query, signal ? { signal } : {});
      signal?.throwIfAborted();
      const { similarities, ids } = getTopKEmbeddings({ queryEmbedding, embeddings, similarityTopK });
      return ids.map((id, rank) => ({
        node: (entries[id] as IndexEntry).node,
        score: similarities[rank] as number,
      }));
    },
  };
}
