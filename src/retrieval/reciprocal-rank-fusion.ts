import type { NodeWithScore } from "../schema/text-node.js";

/** LlamaIndex's constant (from Cormack et al., 2009): large enough that one list's top rank cannot dominate. */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion, as LlamaIndex's `QueryFusionRetriever` (mode `"reciprocal_rerank"`) does it: each
 * list is ranked by its own scores, a node earns `1 / (k + rank)` (rank from 0) from every list that holds
 * it, and the fused list is sorted by the sum, best first, with that sum as the score. Only ranks count, so
 * lists whose scores live on different scales (BM25 and cosine) mix fairly. Nodes are the same node when
 * their ids are equal (LlamaIndex compares their text); ties keep first-seen order.
 */
export function reciprocalRankFusion(
  rankings: readonly (readonly NodeWithScore[])[],
  { k = RRF_K }: { k?: number } = {},
): NodeWithScore[] {
  const fused = new Map<string, NodeWithScore>();
  for (const ranking of rankings) {
    const sorted = [...ranking].sort((left, right) => (right.score ?? 0) - (left.score ?? 0));
    sorted.forEach(({ node }, rank) => {
      const previous = fused.get(node.id);
      fused.set(node.id, { node: previous?.node ?? node, score: (previous?.score ?? 0) + 1 / (k + rank) });
    });
  }
  return [...fused.values()].sort((left, right) => (right.score as number) - (left.score as number));
}
