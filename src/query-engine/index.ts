export type {
  AsQueryEngineOptions,
  QueryEngineSettings,
  RetrieverQueryEngineOptions,
  SynthesizerBuildOptions,
} from "./engine-options.js";
export { type QueryOptions, RETRIEVAL_MODES, type RetrievalMode, type Retriever } from "./retriever.js";
export { RetrieverQueryEngine } from "./retriever-query-engine.js";
