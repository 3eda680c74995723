import type { Embedder, EmbedOptions } from "./types.js";

/**
 * The query embeddings of one query, by embedder instance, so a retriever and a postprocessor that share a
 * model embed the query once (LlamaIndex keeps it on the `QueryBundle`). The query engine makes one per query
 * and passes it as `queryEmbeddings` to the retriever and every postprocessor.
 * @example const vector = await (options.queryEmbeddings ?? new QueryEmbeddings()).get(embedder, query, { signal });
 */
export class QueryEmbeddings {
  readonly #byEmbedder = new WeakMap<object, Map<string, Promise<number[]>>>();

  /** The embedder's query embedding of `query`: computed on the first request, then shared. A failure is not kept. */
  get(
    embedder: Pick<Embedder, "getQueryEmbedding">,
    query: string,
    options: EmbedOptions = {},
  ): Promise<number[]> {
    let byQuery = this.#byEmbedder.get(embedder);
    if (!byQuery) {
      byQuery = new Map();
      this.#byEmbedder.set(embedder, byQuery);
    }
    const known = byQuery.get(query);
    if (known) return known;
    const computed = embedder.getQueryEmbedding(query, options);
    byQuery.set(query, computed);
    computed.catch(() => byQuery.delete(query));
    return computed;
  }
}
