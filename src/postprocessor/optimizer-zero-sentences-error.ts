import { checkErrorFields } from "../errors/check-error-fields.js";
import { hasErrorMarker, markError, RagsynthError } from "../errors/ragsynth-error.js";

const marker = "ragsynth.error.OptimizerZeroSentencesError";

/**
 * No sentence of a node passed {@link SentenceEmbeddingOptimizer}'s cutoffs. The message starts as
 * LlamaIndex's does ("Optimizer returned zero sentences.") and says how to fix it.
 */
export class OptimizerZeroSentencesError extends RagsynthError {
  readonly nodeId: string;
  /** Sentences the node's text had. */
  readonly sentenceCount: number;
  /** The best similarity any of its text sentences reached. */
  readonly bestSimilarity: number;
  readonly thresholdCutoff: number | undefined;

  constructor(fields: {
    nodeId: string;
    sentenceCount: number;
    bestSimilarity: number;
    thresholdCutoff: number | undefined;
  }) {
    const { nodeId, sentenceCount, bestSimilarity, thresholdCutoff } = checkErrorFields(
      fields,
      "OptimizerZeroSentencesError",
      { nodeId: "string", sentenceCount: "number", bestSimilarity: "number" },
    );
    const cutoff = thresholdCutoff === undefined ? "" : ` above thresholdCutoff ${thresholdCutoff}`;
    super({
      code: "optimizer_zero_sentences",
      message:
        `Optimizer returned zero sentences. None of the ${sentenceCount} sentences of node ${JSON.stringify(nodeId)} ` +
        `scored${cutoff} (best similarity ${round(bestSimilarity)}). Lower thresholdCutoff, or pass ` +
        `onEmpty: "keep_best" to keep the node's best sentence, or onEmpty: "drop_node" to drop the node.`,
    });
    this.name = "OptimizerZeroSentencesError";
    markError(this, marker);
    this.nodeId = nodeId;
    this.sentenceCount = sentenceCount;
    this.bestSimilarity = bestSimilarity;
    this.thresholdCutoff = thresholdCutoff;
  }

  /** True when `error` is an {@link OptimizerZeroSentencesError} (also across duplicated copies of the package). */
  static override isInstance(error: unknown): error is OptimizerZeroSentencesError {
    return hasErrorMarker(error, marker);
  }
}

function round(value: number): string {
  return Number.isFinite(value) ? String(Math.round(value * 1000) / 1000) : String(value);
}
