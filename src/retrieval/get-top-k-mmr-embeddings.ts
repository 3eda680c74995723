import { similarity } from "../embedding/similarity.js";
import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import {
  checkTopKInput,
  type EmbeddingId,
  type GetTopKEmbeddingsOptions,
  type TopKEmbeddingsResult,
} from "./get-top-k-embeddings.js";

/**
 * Options of {@link getTopKEmbeddingsMmr}: those of {@link getTopKEmbeddings} (the query, the candidates,
 * `similarityTopK`, ids that must be distinct here, `mode`) without the cutoff, plus the MMR weight.
 */
export interface GetTopKEmbeddingsMmrOptions<Id extends EmbeddingId = number>
  extends Omit<GetTopKEmbeddingsOptions<Id>, "similarityCutoff"> {
  /**
   * Weight of relevance against diversity, in [0, 1]: `1` is plain relevance, `0` pure diversity.
   * LlamaIndex turns `0` into `0.5` (`mmr_threshold or 0.5`); we honour `0`.
   * @default 0.5
   */
  mmrThreshold?: number | undefined;
}

/**
 * Maximal marginal relevance, as LlamaIndex's `get_top_k_mmr_embeddings` computes it: the first pick
 * scores `λ·sim(query, e)`; each later pick scores `λ·sim(query, e) − (1−λ)·sim(e, previous pick)`,
 * where the penalty looks only at the most recent pick. Scores are these MMR scores, in pick order.
 * Strict `>` keeps the earliest candidate on ties. O(k·n) similarity computations.
 *
 * @throws InvalidArgumentError for mismatched lengths, duplicate ids, a bad `similarityTopK`, or an
 * `mmrThreshold` outside [0, 1].
 */
export function getTopKEmbeddingsMmr<Id extends EmbeddingId = number>(
  options: GetTopKEmbeddingsMmrOptions<Id>,
): TopKEmbeddingsResult<Id> {
  const {
    queryEmbedding,
    embeddings,
    similarityTopK,
    embeddingIds,
    mmrThreshold = 0.5,
    mode = "cosine",
  } = optionsOf("options", options, "{ queryEmbedding, embeddings, similarityTopK?, … }");
  const ids = checkTopKInput(queryEmbedding, embeddings, embeddingIds, similarityTopK);
  if (!(mmrThreshold >= 0 && mmrThreshold <= 1)) {
    throw new InvalidArgumentError({
      parameter: "mmrThreshold",
      value: mmrThreshold,
      expected: "be a number between 0 and 1",
    });
  }
  if (new Set(ids).size !== ids.length) {
    throw new InvalidArgumentError({
      parameter: "embeddingIds",
      value: embeddingIds,
      expected: "contain distinct ids",
    });
  }
  const relevance = embeddings.map((embedding) => similarity(queryEmbedding, embedding, mode));
  const remaining = new Set(embeddings.keys());
  const count = Math.min(similarityTopK || embeddings.length, embeddings.length);
  const similarities: number[] = [];
  const selected: Id[] = [];
  let previous: number | undefined;
  while (selected.length < count) {
    let best = -1;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (const index of remaining) {
      let score = mmrThreshold * (relevance[index] as number);
      if (previous !== undefined) {
        const overlap = similarity(embeddings[index] as number[], embeddings[previous] as number[], mode);
        score -= (1 - mmrThreshold) * overlap;
      }
      if (score > bestScore) {
        best = index;
        bestScore = score;
      }
    }
    // When every score is NaN or −∞, take the earliest candidate so the loop always progresses.
    if (best === -1) {
      best = remaining.values().next().value as number;
      bestScore = Number.NEGATIVE_INFINITY;
    }
    remaining.delete(best);
    similarities.push(bestScore);
    selected.push(ids[best] as Id);
    previous = best;
  }
  return { similarities, ids: selected };
}
