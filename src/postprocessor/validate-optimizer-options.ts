import { checkInteger } from "../errors/check-integer.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";

const ON_EMPTY = ["error", "keep_best", "drop_node"];

/** Checks the optimizer's options once, at construction. */
export function validateOptimizerOptions(options: {
  embedModel: unknown;
  percentileCutoff: unknown;
  thresholdCutoff: unknown;
  contextBefore: unknown;
  contextAfter: unknown;
  splitter: unknown;
  onEmpty: unknown;
  batchSize: unknown;
}): void {
  const { embedModel, percentileCutoff, thresholdCutoff, splitter, onEmpty, batchSize } = options;
  const model = embedModel as { getTextEmbeddings?: unknown; getQueryEmbedding?: unknown } | undefined;
  if (typeof model?.getTextEmbeddings !== "function" || typeof model.getQueryEmbedding !== "function") {
    throw new InvalidArgumentError({
      parameter: "embedModel",
      value: embedModel,
      expected: "be an Embedder (getTextEmbeddings and getQueryEmbedding)",
      hint: "Pass an embedding model such as your index's (index.embedModel), or leave it out for the offline HashingEmbedder.",
    });
  }
  if (
    percentileCutoff !== undefined &&
    (typeof percentileCutoff !== "number" || !(percentileCutoff >= 0 && percentileCutoff <= 1))
  ) {
    throw new InvalidArgumentError({
      parameter: "percentileCutoff",
      value: percentileCutoff,
      expected: "be a number from 0 to 1",
      hint: "0.5 keeps the better half of each node's sentences.",
    });
  }
  if (
    thresholdCutoff !== undefined &&
    (typeof thresholdCutoff !== "number" || !Number.isFinite(thresholdCutoff))
  ) {
    throw new InvalidArgumentError({
      parameter: "thresholdCutoff",
      value: thresholdCutoff,
      expected: "be a finite number",
    });
  }
  for (const name of ["contextBefore", "contextAfter"] as const) {
    const value = options[name];
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
      throw new InvalidArgumentError({ parameter: name, value, expected: "be a non-negative integer" });
    }
  }
  if (typeof splitter !== "function") {
    throw new InvalidArgumentError({
      parameter: "splitter",
      value: splitter,
      expected: "be a function (text) => string[]",
    });
  }
  if (!ON_EMPTY.includes(onEmpty as string)) {
    throw new InvalidArgumentError({
      parameter: "onEmpty",
      value: onEmpty,
      expected: `be one of ${ON_EMPTY.map((value) => `"${value}"`).join(", ")}`,
    });
  }
  checkInteger("batchSize", batchSize, 1);
}
