import type { Retriever } from "../index-store/retriever.js";

/** Options of one query. */
export interface QueryOptions {
  /** The question. Must not be empty. */
  query: string;
  /** Stops retrieval, every postprocessor (embedding and model calls) and synthesis alike. */
  signal?: AbortSignal;
}

/** The retriever contract, defined with the index: `retrieve({ query, signal })` → `NodeWithScore[]`. */
export type { Retriever };
