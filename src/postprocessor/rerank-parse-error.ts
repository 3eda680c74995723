import { checkErrorFields } from "../errors/check-error-fields.js";
import { hasErrorMarker, markError, RagsynthError } from "../errors/ragsynth-error.js";

const marker = "ragsynth.error.RerankParseError";

/**
 * {@link LLMRerank} could not read the model's choice-select answer. Carries the raw `text` and the
 * lines that named a document without a relevance score.
 */
export class RerankParseError extends RagsynthError {
  readonly text: string;
  /** Which batch of `choiceBatchSize` nodes the answer was for (0-based). */
  readonly batchIndex: number;
  readonly malformedLines: string[];

  constructor(fields: { text: string; batchIndex: number; malformedLines: string[] }) {
    const { text, batchIndex, malformedLines } = checkErrorFields(fields, "RerankParseError", {
      text: "string",
      batchIndex: "number",
      malformedLines: "string[]",
    });
    const preview = text.length > 200 ? `${text.slice(0, 197)}...` : text;
    const what =
      malformedLines.length > 0
        ? `line ${JSON.stringify(malformedLines[0])} names a document but no relevance score`
        : "no line names a document and a relevance score";
    super({
      code: "rerank_parse",
      message:
        `LLMRerank could not read the model's answer for batch ${batchIndex}: ${what}. ` +
        `Expected lines like "Doc: 9, Relevance: 7" (an empty answer means no document is relevant). ` +
        `Answer was: ${JSON.stringify(preview)}. Use a stronger model or a clearer choiceSelectPrompt, ` +
        `or pass onParseError: "keep_order" to keep such a batch in retrieval order.`,
    });
    this.name = "RerankParseError";
    markError(this, marker);
    this.text = text;
    this.batchIndex = batchIndex;
    this.malformedLines = malformedLines;
  }

  /** True when `error` is a {@link RerankParseError} (also across duplicated copies of the package). */
  static override isInstance(error: unknown): error is RerankParseError {
    return hasErrorMarker(error, marker);
  }
}
