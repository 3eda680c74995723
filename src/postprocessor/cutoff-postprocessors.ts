import type { Embedder } from "../embedding/types.js";
import { SentenceEmbeddingOptimizer } from "./sentence-embedding-optimizer.js";
import { SimilarityPostprocessor } from "./similarity-postprocessor.js";
import type { NodePostprocessor } from "./types.js";

/** The cut-offs a query may ask for: a node similarity floor and the sentence optimizer's cut-offs. */
export interface CutoffOptions {
  similarityCutoff?: number | undefined;
  optimizer?: { percentileCutoff?: number; thresholdCutoff?: number } | undefined;
}

/** The similarity cut-off, then the optimizer, in that order (cheap filter first). */
export function buildPostprocessors(options: CutoffOptions, embedModel: Embedder): NodePostprocessor[] {
  const postprocessors: NodePostprocessor[] = [];
  if (options.similarityCutoff !== undefined) {
    postprocessors.push(new SimilarityPostprocessor({ similarityCutoff: options.similarityCutoff }));
  }
  if (options.optimizer) {
    // A node with no passing sentence keeps its best one rather than failing the query; the step listing shows it.
    postprocessors.push(
      new SentenceEmbeddingOptimizer({
        embedModel,
        ...options.optimizer,
        onEmpty: "keep_best",
      }),
    );
  }
  return postprocessors;
}
