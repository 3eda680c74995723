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
}
