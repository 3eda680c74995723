import { checkMethod, optionsOf } from "../errors/check-options.js";
import { checkStrings } from "../errors/check-string.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { Embedder } from "./types.js";

/**
 * The element-wise mean of several embeddings (LlamaIndex's default `agg_fn`).
 * @throws InvalidArgumentError when there are no embeddings ("No embeddings to aggregate") or their
 * lengths differ.
 * @example
 * meanAggregate([[1, 2], [3, 6]]); // [2, 4]
 */
export function meanAggregate(embeddings: readonly (readonly number[])[]): number[] {
  const first = embeddings[0];
  if (first === undefined) {
    throw new InvalidArgumentError({
      parameter: "embeddings",
      value: embeddings,
      expected: "contain at least one embedding",
      hint: "No embeddings to aggregate: pass at least one query.",
    });
  }
  const sum = new Array<number>(first.length).fill(0);
  embeddings.forEach((embedding, index) => {
    if (embedding.length !== first.length) {
      throw new InvalidArgumentError({
        parameter: `embeddings[${index}]`,
        value: embedding,
        expected: `have the length of the first embedding (${first.length}), but it has ${embedding.length}`,
      });
    }
    for (let i = 0; i < sum.length; i++) sum[i] = (sum[i] as number) + (embedding[i] as number);
  });
  return sum.map((value) => value / embeddings.length);
}

/** Options of {@link getAggregateQueryEmbedding}. */
export interface GetAggregateQueryEmbeddingOptions {
  /** Embeds each query with `getQueryEmbedding`. */
  embedModel: Pick<Embedder, "getQueryEmbedding">;
  /** The query strings (LlamaIndex's `QueryBundle.embedding_strs`). */
  queries: readonly string[];
  /** Combines the query embeddings. @default meanAggregate */
  aggregate?: ((embeddings: number[][]) => number[]) | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Embeds several queries one by one and combines them (LlamaIndex's `get_agg_embedding_from_queries`).
 * @throws InvalidArgumentError when `queries` is empty ("No embeddings to aggregate").
 */
export async function getAggregateQueryEmbedding(
  options: GetAggregateQueryEmbeddingOptions,
): Promise<number[]> {
  const {
    embedModel,
    queries,
    aggregate = meanAggregate,
    signal,
  } = optionsOf("options", options, "{ embedModel, queries: string[], aggregate?, signal? }");
  checkMethod(
    "embedModel",
    embedModel,
    "getQueryEmbedding",
    "be an embedding model (an object with getQueryEmbedding)",
    "new HashingEmbedder() is one.",
  );
  checkStrings("queries", queries);
  const embeddings: number[][] = [];
  for (const query of queries) {
    signal?.throwIfAborted();
    embeddings.push(await embedModel.getQueryEmbedding(query, signal ? { signal } : {}));
  }
  if (embeddings.length === 0) return meanAggregate(embeddings);
  return aggregate(embeddings);
}
