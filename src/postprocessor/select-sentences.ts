import type { SimilarityMode } from "../embedding/types.js";
import { getTopKEmbeddings } from "../retrieval/get-top-k-embeddings.js";

/** The sentences that pass the optimizer's cutoffs, best first. */
export function passingSentences({
  queryEmbedding,
  embeddings,
  percentileCutoff,
  thresholdCutoff,
  mode,
}: {
  queryEmbedding: readonly number[];
  embeddings: readonly (readonly number[])[];
  percentileCutoff: number | undefined;
  thresholdCutoff: number | undefined;
  mode: SimilarityMode;
}): number[] {
  // LlamaIndex: k = int(n × percentile), and a k of 0 means no limit; the threshold is strict (>).
  const similarityTopK =
    percentileCutoff === undefined ? undefined : Math.floor(embeddings.length * percentileCutoff);
  return getTopKEmbeddings({
    queryEmbedding,
    embeddings,
    similarityTopK,
    similarityCutoff: thresholdCutoff,
    mode,
  }).ids;
}

/**
 * Every sentence within `before`/`after` of a center, clipped at the ends, in document order and each
 * once. LlamaIndex joins the windows in score order instead, repeating sentences where windows overlap.
 */
export function expandWindows(
  centers: readonly number[],
  count: number,
  before: number,
  after: number,
): number[] {
  const kept = new Set<number>();
  for (const center of centers) {
    const last = Math.min(center + after, count - 1);
    for (let index = Math.max(center - before, 0); index <= last; index++) kept.add(index);
  }
  return [...kept].sort((a, b) => a - b);
}
