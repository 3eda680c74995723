import type { Embedder } from "../embedding/types.js";
import { checkInteger } from "../errors/check-integer.js";
import { selectTopK } from "../retrieval/get-top-k-embeddings.js";
import { checkRetrieveOptions, type Retriever } from "../retrieval/retriever.js";
import { cosineScores } from "../retrieval/vector-index-retriever.js";
import { MetadataMode, type NodeWithScore } from "../schema/text-node.js";
import type { IndexStore } from "../store/index-store.js";

/** Rows embedded at a time when the store keeps no vectors (an embedder cheap to run again). */
const EMBED_BATCH = 256;

/**
 * Dense search over a store: the nodes of the `similarityTopK` chunks whose vectors are most cosine-similar to the
 * query. A store that searches its vectors itself (`denseTopK`: SQLite through its vectors' sign codes, PostgreSQL
 * with pgvector) answers the top k; otherwise every stored vector is read in batches and scored exactly (a scan of
 * the vectors, not of the chunks' text). A store without vectors (the offline HashingEmbedder) embeds every chunk's
 * text on each search: dense search there reads the whole index.
 */
export function createStoreDenseRetriever(
  store: IndexStore,
  embedModel: Embedder,
  { similarityTopK = 2 }: { similarityTopK?: number } = {},
): Retriever {
  checkInteger("similarityTopK", similarityTopK, 1);
  return {
    async retrieve(options): Promise<NodeWithScore[]> {
      checkRetrieveOptions(options);
      const { query, signal, queryEmbeddings } = options;
      signal?.throwIfAborted();
      const embedOptions = signal ? { signal } : {};
      const queryEmbedding = await (queryEmbeddings
        ? queryEmbeddings.get(embedModel, query, embedOptions)
        : embedModel.getQueryEmbedding(query, embedOptions));
      const keys: number[] = [];
      const scores: number[] = [];
      const score = (batchKeys: readonly number[], vectors: readonly Float32Array[]) => {
        const dimensions = queryEmbedding.length;
        const data = new Float32Array(vectors.length * dimensions);
        const norms = new Float64Array(vectors.length);
        vectors.forEach((vector, row) => {
          data.set(vector.subarray(0, dimensions), row * dimensions);
          let sum = 0;
          for (const value of vector) sum += value * value;
          norms[row] = Math.sqrt(sum);
        });
        const batchScores = cosineScores({ dimensions, data, norms }, queryEmbedding);
        batchKeys.forEach((key, row) => {
          if ((vectors[row] as Float32Array).length !== dimensions) return;
          keys.push(key);
          scores.push(batchScores[row] as number);
        });
      };
      if ((await store.meta())?.storeVectors) {
        // One snapshot for the scan and the chunks it picks, so a concurrent write cannot tear the result.
        return store.read(async () => {
          if (store.denseTopK) {
            const ranked = await store.denseTopK(Float32Array.from(queryEmbedding), similarityTopK);
            if (ranked) {
              const chunks = new Map(
                (await store.chunks(ranked.map((hit) => hit.key))).map((c) => [c.key, c]),
              );
              return ranked.flatMap(({ key, score }) => {
                const chunk = chunks.get(key);
                return chunk ? [{ node: chunk.node, score }] : [];
              });
            }
          }
          for await (const batch of store.allVectors()) score(batch.keys, batch.vectors);
          return best();
        });
      }
      for await (const chunks of store.allChunks(EMBED_BATCH)) {
        signal?.throwIfAborted();
        const texts = chunks.map((chunk) => chunk.node.getContent(MetadataMode.EMBED));
        const vectors = await embedModel.getTextEmbeddings(texts, embedOptions);
        score(
          chunks.map((chunk) => chunk.key),
          vectors.map((vector) => Float32Array.from(vector)),
        );
      }
      return best();
      async function best(): Promise<NodeWithScore[]> {
        if (keys.length === 0) return [];
        const { similarities, ids } = selectTopK(scores, similarityTopK);
        const picked = await store.chunks(ids.map((id) => keys[id] as number));
        const chunks = new Map(picked.map((c) => [c.key, c]));
        return ids.flatMap((id, rank) => {
          const chunk = chunks.get(keys[id] as number);
          return chunk ? [{ node: chunk.node, score: similarities[rank] as number }] : [];
        });
      }
    },
  };
}
