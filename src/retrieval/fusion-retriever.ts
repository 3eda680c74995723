import { checkInteger } from "../errors/check-integer.js";
import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { NodeWithScore } from "../schema/text-node.js";
import { RRF_K, reciprocalRankFusion } from "./reciprocal-rank-fusion.js";
import { checkRetrieveOptions, type Retriever } from "./retriever.js";

/** Options of {@link createFusionRetriever}. */
export interface FusionRetrieverOptions {
  /** The retrievers whose rankings are fused (for example a lexical and a dense one). */
  retrievers: readonly Retriever[];
  /** How many fused nodes to return. @default 2 (LlamaIndex's default) */
  similarityTopK?: number | undefined;
  /** The RRF constant. @default 60 (LlamaIndex's, from the original paper) */
  k?: number | undefined;
}

/**
 * A {@link Retriever} that asks every retriever (concurrently) and fuses their rankings with
 * {@link reciprocalRankFusion}, like LlamaIndex's `QueryFusionRetriever` in `"reciprocal_rerank"` mode
 * with `num_queries: 1`. Deliberate difference: no extra queries are generated (that needs a model).
 * @example
 * const hybrid = createFusionRetriever({ retrievers: [lexical, dense], similarityTopK: 4 });
 */
export function createFusionRetriever(options: FusionRetrieverOptions): Retriever {
  const {
    retrievers,
    similarityTopK = 2,
    k = RRF_K,
  } = optionsOf("options", options, "{ retrievers, similarityTopK?, k? }");
  if (!Array.isArray(retrievers) || retrievers.length === 0) {
    throw new InvalidArgumentError({
      parameter: "retrievers",
      value: retrievers,
      expected: "be a non-empty array of retrievers",
    });
  }
  checkInteger("similarityTopK", similarityTopK, 1);
  if (!(typeof k === "number" && Number.isFinite(k) && k >= 0)) {
    throw new InvalidArgumentError({ parameter: "k", value: k, expected: "be a finite number ≥ 0" });
  }
  return {
    async retrieve(options): Promise<NodeWithScore[]> {
      checkRetrieveOptions(options);
      options.signal?.throwIfAborted();
      const rankings = await Promise.all(retrievers.map((retriever) => retriever.retrieve(options)));
      options.signal?.throwIfAborted();
      return reciprocalRankFusion(rankings, { k }).slice(0, similarityTopK);
    },
  };
}
