export type {
  AsQueryEngineOptions,
  QueryEngineSettings,
  RetrieverQueryEngineOptions,
  SynthesizerBuildOptions,
} from "./engine-options.js";
export { RetrieverQueryEngine } from "./retriever-query-engine.js";
export type { QueryOptions, Retriever } from "./types.js";
