/** How two vectors are compared. `euclidean` returns the negative distance, so larger is closer. */
export type SimilarityMode = "cosine" | "dot_product" | "euclidean";

export interface EmbedOptions {
  signal?: AbortSignal;
}

/** The embedding contract. A structural type: any object with these members is an embedder. */
export interface Embedder {
  /** A stable id (`hashing-tfidf-v2:1024`, `openai:text-embedding-3-small`), used as a cache key. */
  readonly id: string;
  /** Embeds many texts; implementations batch and bound concurrency. Order is preserved. */
  getTextEmbeddings(texts: string[], options?: EmbedOptions): Promise<number[][]>;
  /** Embeds a query (some models embed queries differently from documents). */
  getQueryEmbedding(query: string, options?: EmbedOptions): Promise<number[]>;
  /** Compares two embeddings. @default cosine */
  similarity?(a: number[], b: number[], mode?: SimilarityMode): number;
  /**
   * `true` for an embedder whose vectors are its words hashed, not their meaning, and cost less to compute again
   * than to store (the offline `HashingEmbedder`). An index then ranks by BM25 alone by default (`retrievalMode:
   * "lexical"`, the exact form of what such vectors approximate; a real model is fused with BM25, `"hybrid"`) and
   * keeps no vectors on disk. Leave it out for a model of meaning.
   * @default false
   */
  readonly lexical?: boolean;
  /**
   * For an embedder that weights queries by the searched documents' statistics and has none yet (`HashingEmbedder`
   * with `applyIdf: "query"` and no corpus): the same embedder with `corpus` as those documents, called on the first
   * query embedding. An index lends its own documents this way (`VectorStoreIndex.queryEmbedModel`). The returned
   * embedder keeps this one's `id` and document vectors; one with nothing to weight returns itself. Leave it out
   * when queries are embedded alone.
   */
  withQueryCorpus?(corpus: () => readonly string[]): Embedder;
}
