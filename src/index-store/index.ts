export type {
  BuildIndexOptions,
  FromDocumentsCachedOptions,
  FromDocumentsOptions,
  IndexBuildStats,
  NodeParser,
} from "./build-index-options.js";
export type { EmbedProgress } from "./embed-nodes.js";
export { EmbeddingCache } from "./embedding-cache.js";
export type { AsRetrieverOptions } from "./index-retriever.js";
export { IndexSaveError } from "./index-save-error.js";
export type { IndexSource } from "./index-source.js";
export { isOtherIndexVersion } from "./store-index.js";
export { VectorStoreIndex } from "./vector-store-index.js";
