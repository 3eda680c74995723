import type { Embedder } from "../embedding/types.js";
import { checkInteger } from "../errors/check-integer.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { MetadataMode, type NodeWithScore, type TextNode } from "../schema/text-node.js";
import { selectTopK } from "./get-top-k-embeddings.js";
import { checkRetrieveOptions, type Retriever } from "./retriever.js";

/** Options of `VectorStoreIndex.asRetriever`. */
export interface VectorIndexRetrieverOptions {
  /** How many nodes to return. @default 2 (LlamaIndex's default) */
  similarityTopK?: number;
}

/** One node of a dense search and its vector; a search embeds and sets a missing vector. */
export interface DenseEntry {
  node: TextNode;
  embedding?: Float32Array;
}

/** Rows at a time when entries without vectors are embedded on the first search. */
const EMBED_BATCH = 256;

/** The entries' vectors as one float32 matrix with each row's norm, built once per entries array. */
interface DenseMatrix {
  dimensions: number;
  data: Float32Array;
  norms: Float64Array;
}

const matrices = new WeakMap<readonly DenseEntry[], Promise<DenseMatrix>>();

/**
 * A retriever over in-memory entries: embeds the query once, scores every entry by cosine similarity in
 * one pass over a contiguous float32 matrix, and keeps the best `similarityTopK` with a bounded heap. Ties
 * keep LlamaIndex's order. Entries stored without vectors are embedded on the first search.
 */
export function createVectorIndexRetriever(
  entries: readonly DenseEntry[],
  embedModel: Embedder,
  { similarityTopK = 2 }: VectorIndexRetrieverOptions = {},
): Retriever {
  checkInteger("similarityTopK", similarityTopK, 1);
  return {
    async retrieve(options): Promise<NodeWithScore[]> {
      checkRetrieveOptions(options);
      const { query, signal, queryEmbeddings } = options;
      signal?.throwIfAborted();
      if (entries.length === 0) return [];
      const embedOptions = signal ? { signal } : {};
      const queryEmbedding = await (queryEmbeddings
        ? queryEmbeddings.get(embedModel, query, embedOptions)
        : embedModel.getQueryEmbedding(query, embedOptions));
      signal?.throwIfAborted();
      let pending = matrices.get(entries);
      if (!pending) {
        pending = denseMatrix(entries, embedModel, signal);
        matrices.set(entries, pending);
        pending.catch(() => matrices.delete(entries));
      }
      const scores = cosineScores(await pending, queryEmbedding);
      const { similarities, ids } = selectTopK(scores, similarityTopK);
      return ids.map((id, rank) => ({
        node: (entries[id] as DenseEntry).node,
        score: similarities[rank] as number,
      }));
    },
  };
}

/** Cosine of the query with every row; 0 for a zero row or query (as `similarity` does). */
export function cosineScores(
  { dimensions, data, norms }: DenseMatrix,
  query: readonly number[],
): Float64Array {
  if (query.length !== dimensions) {
    throw new InvalidArgumentError({
      parameter: "queryEmbedding",
      value: `${query.length} dimensions`,
      expected: `have the index's ${dimensions} dimensions`,
      hint: "Query with the embedding model the index was built with.",
    });
  }
  const q = Float32Array.from(query);
  let queryNorm = 0;
  for (let d = 0; d < dimensions; d++) queryNorm += (q[d] as number) * (q[d] as number);
  queryNorm = Math.sqrt(queryNorm);
  const scores = new Float64Array(norms.length);
  for (let row = 0, offset = 0; row < norms.length; row++, offset += dimensions) {
    let dot = 0;
    for (let d = 0; d < dimensions; d++) dot += (data[offset + d] as number) * (q[d] as number);
    const norm = (norms[row] as number) * queryNorm;
    scores[row] = norm === 0 ? 0 : dot / norm;
  }
  return scores;
}

async function denseMatrix(
  entries: readonly DenseEntry[],
  embedModel: Embedder,
  signal: AbortSignal | undefined,
): Promise<DenseMatrix> {
  const missing = entries.filter((entry) => entry.embedding === undefined);
  for (let start = 0; start < missing.length; start += EMBED_BATCH) {
    signal?.throwIfAborted();
    const batch = missing.slice(start, start + EMBED_BATCH);
    const texts = batch.map((entry) => entry.node.getContent(MetadataMode.EMBED));
    const vectors = await embedModel.getTextEmbeddings(texts, signal ? { signal } : {});
    batch.forEach((entry, index) => {
      entry.embedding = Float32Array.from(vectors[index] as number[]);
    });
  }
  const dimensions = (entries[0] as DenseEntry).embedding?.length ?? 0;
  const data = contiguous(entries, dimensions);
  const norms = new Float64Array(entries.length);
  for (let row = 0, offset = 0; row < entries.length; row++, offset += dimensions) {
    let sum = 0;
    for (let d = 0; d < dimensions; d++) sum += (data[offset + d] as number) ** 2;
    norms[row] = Math.sqrt(sum);
  }
  return { dimensions, data, norms };
}

/** The rows as one Float32Array: the buffer they already share when they are its consecutive rows. */
function contiguous(entries: readonly DenseEntry[], dimensions: number): Float32Array {
  const first = (entries[0] as DenseEntry).embedding as Float32Array;
  const shared = entries.every(
    (entry, row) =>
      entry.embedding?.buffer === first.buffer &&
      entry.embedding.byteOffset === first.byteOffset + row * dimensions * 4 &&
      entry.embedding.length === dimensions,
  );
  if (shared) return new Float32Array(first.buffer, first.byteOffset, entries.length * dimensions);
  const data = new Float32Array(entries.length * dimensions);
  entries.forEach((entry, row) => {
    if (entry.embedding?.length !== dimensions) {
      throw new InvalidArgumentError({
        parameter: "embedModel",
        value: `${entry.embedding?.length} dimensions at entry ${row}`,
        expected: `return embeddings of one length (${dimensions})`,
      });
    }
    data.set(entry.embedding, row * dimensions);
  });
  return data;
}
