export type { EmbedProgress } from "./embed-nodes.js";
export { EmbeddingCache } from "./embedding-cache.js";
export { isOtherIndexVersion } from "./index-file-lines.js";
export type { AsRetrieverOptions } from "./index-retriever.js";
export { IndexSaveError } from "./index-save-error.js";
export type { IndexSource } from "./persistence.js";
export type { VectorIndexRetrieverOptions } from "./vector-index-retriever.js";
export {
  type BuildIndexOptions,
  type FromDocumentsCachedOptions,
  type FromDocumentsOptions,
  type IndexBuildStats,
  type NodeParser,
  VectorStoreIndex,
} from "./vector-store-index.js";
