import type { NodeWithScore } from "../schema/text-node.js";

/** Options of one retrieval. */
export interface RetrieveOptions {
  /** The text to find nodes for. */
  query: string;
  signal?: AbortSignal;
}

/**
 * The retriever contract: the nodes that best match a query, best first, with scores when there
 * are any. A structural type, so any store (a vector database, BM25, a fixed list) can implement it.
 * @example
 * const retriever: Retriever = { retrieve: async ({ query }) => myStore.search(query) };
 */
export interface Retriever {
  retrieve(options: RetrieveOptions): Promise<NodeWithScore[]>;
}
