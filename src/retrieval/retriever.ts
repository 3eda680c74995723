import type { QueryEmbeddings } from "../embedding/query-embeddings.js";
import { checkQueryOptions } from "../errors/check-query.js";
import type { NodeWithScore } from "../schema/text-node.js";

/** Options of one query or retrieval: the same shape for `Retriever.retrieve` and the engine's `query`/`stream`. */
export interface QueryOptions {
  /** The question. Must not be empty. */
  query: string;
  /** Stops retrieval, every postprocessor (embedding and model calls) and synthesis alike. */
  signal?: AbortSignal;
  /**
   * The query's embeddings so far, shared by the retriever and the postprocessors of one query so a shared model
   * embeds the query once. The engine passes a fresh one per query; retrievers should use it when given.
   */
  queryEmbeddings?: QueryEmbeddings;
}

/**
 * The retriever contract: the nodes that best match a query, best first, with scores when there
 * are any. A structural type, so any store (a vector database, BM25, a fixed list) can implement it.
 * @example
 * const retriever: Retriever = { retrieve: async ({ query }) => myStore.search(query) };
 */
export interface Retriever {
  retrieve(options: QueryOptions): Promise<NodeWithScore[]>;
}

/** How a retriever's argument is passed, for the message of a call without it (`retrieve("question")`). */
export const RETRIEVE_HINT = 'Pass the question as retrieve({ query: "…" }).';

/**
 * Throws an InvalidArgumentError unless `options` is a retriever's argument (an object whose `query` is a string):
 * the first line of each of the package's retrievers, for plain JavaScript callers.
 */
export function checkRetrieveOptions(options: unknown): asserts options is QueryOptions {
  checkQueryOptions(options, RETRIEVE_HINT);
}

/**
 * How an index ranks nodes: `"lexical"` (BM25 over exact terms), `"dense"` (embedding similarity), or
 * `"hybrid"` (both, fused by reciprocal rank).
 */
export type RetrievalMode = "lexical" | "dense" | "hybrid";

/** Every {@link RetrievalMode}, in the order help lists them. */
export const RETRIEVAL_MODES: readonly RetrievalMode[] = ["lexical", "dense", "hybrid"];
