export type {
  AsQueryEngineOptions,
  QueryEngineSettings,
  RetrieverQueryEngineOptions,
  SynthesizerBuildOptions,
} from "./engine-options.js";
export { RetrieverQueryEngine } from "./retriever-query-engine.js";
