export {
  type GetAggregateQueryEmbeddingOptions,
  getAggregateQueryEmbedding,
  meanAggregate,
} from "./aggregate.js";
export {
  type EmbeddingId,
  type GetTopKEmbeddingsOptions,
  getTopKEmbeddings,
  type TopKEmbeddingsResult,
} from "./get-top-k-embeddings.js";
export { type GetTopKEmbeddingsMmrOptions, getTopKEmbeddingsMmr } from "./get-top-k-mmr-embeddings.js";
export { HashingEmbedder, type HashingEmbedderOptions } from "./hashing-embedder.js";
export { QueryEmbeddings } from "./query-embeddings.js";
export { SIMILARITY_MODES, similarity } from "./similarity.js";
export * from "./types.js";
