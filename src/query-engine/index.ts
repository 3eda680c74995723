export type {
  AsQueryEngineOptions,
  QueryEngineSettings,
  RetrieverQueryEngineOptions,
  SynthesizerBuildOptions,
} from "./engine-options.js";
export type { QueryOptions, Retriever } from "./retriever.js";
export { RetrieverQueryEngine } from "./retriever-query-engine.js";
