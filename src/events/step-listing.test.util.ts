import type { RagsynthEvent } from "./events.js";

/** The optimizer's end event when two of three chunks had no sentence above its cutoff and kept their best one. */
export const OPTIMIZER_FALLBACK_EVENT: RagsynthEvent = {
  type: "postprocess-end",
  name: "SentenceEmbeddingOptimizer",
  nodesBefore: 3,
  nodesAfter: 3,
  tokensBefore: 90,
  tokensAfter: 30,
  durationMs: 1,
  detail: {
    nodes: [{ id: "a", fallback: "keep_best" }, { id: "b" }, { id: "c", fallback: "keep_best" }],
  },
};
