export { HashingEmbedder, type HashingEmbedderOptions } from "./hashing-embedder.js";
export type { Embedder, EmbedOptions, SimilarityMode } from "./types.js";
