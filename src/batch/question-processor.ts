import type { CitationReport } from "../citations/check-citations.js";
import { type CitationsJSON, citationsToJSON } from "../citations/citations-to-json.js";
import { checkFunction, optionsOf } from "../errors/check-options.js";
import type { QueryOptions } from "../retrieval/retriever.js";
import type { SynthesisResponse } from "../synthesizer/types.js";
import type { BatchItem, BatchProcessor, BatchProcessorContext, JsonValue } from "./types.js";

/** One source of an answer, as batch results record it. */
export type BatchSource = {
  rank: number;
  nodeId: string;
  score: number | null;
  /** The `file_path` (or `file_name`) metadata of the node, when it has one. */
  file: string | null;
};

/** The value of an answered question. */
export type QuestionAnswer = {
  answer: string;
  sources: BatchSource[];
  /** With a citing engine (`batch --citations`): every citation, invalid marker, unsupported and uncited. */
  citations?: CitationsJSON & JsonValue;
};

/**
 * What answers one question: a `RetrieverQueryEngine`, or a `CitationQueryEngine` (whose response carries
 * `citations`, which the results then record).
 */
export interface QuestionEngine {
  query(options: QueryOptions): Promise<SynthesisResponse & { citations?: CitationReport }>;
}

/** Options of {@link createQuestionProcessor}. */
export interface QuestionProcessorOptions {
  /**
   * The engine for one item: built from the run's `config` and the item's own overrides (mode, prompts,
   * model); with `context.callQueue`, its model should be a `createQueueLLM` on that queue. Called per item,
   * so cache engines you can share.
   */
  engineFor: (item: BatchItem, context: BatchProcessorContext) => QuestionEngine | Promise<QuestionEngine>;
}

/**
 * The `question` work kind: runs `item.query` through the item's query engine and records the answer, its
 * sources and the usage. Every worker builds its engines from the same persisted index, so any worker can
 * answer any item.
 */
export function createQuestionProcessor(options: QuestionProcessorOptions): BatchProcessor<QuestionAnswer> {
  const { engineFor } = optionsOf("options", options, "{ engineFor }");
  checkFunction("engineFor", engineFor, "be a function from a question's config to its query engine");
  return async (item, context) => {
    const { signal } = context;
    const engine = await engineFor(item, context);
    const response = await engine.query({ query: String(item.query), signal });
    const sources = response.sourceNodes.map((source, index) => {
      const file = source.node.metadata.file_path ?? source.node.metadata.file_name;
      return {
        rank: index + 1,
        nodeId: source.node.id,
        score: source.score ?? null,
        file: typeof file === "string" ? file : null,
      };
    });
    const value: QuestionAnswer = { answer: response.response, sources };
    // A source's location comes from reader metadata, which is JSON (it was read from or written to disk).
    if (response.citations)
      value.citations = citationsToJSON(response.citations) as CitationsJSON & JsonValue;
    return { value, usage: response.usage };
  };
}
