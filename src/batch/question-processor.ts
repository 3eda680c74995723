import type { RetrieverQueryEngine } from "../query-engine/retriever-query-engine.js";
import type { BatchItem, BatchProcessor, BatchProcessorContext } from "./types.js";

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
};

/** Options of {@link createQuestionProcessor}. */
export interface QuestionProcessorOptions {
  /**
   * The engine for one item: built from the run's `config` and the item's own overrides (mode, prompts,
   * model); with `context.callQueue`, its model should be a `createQueueLLM` on that queue. Called per item,
   * so cache engines you can share.
   */
  engineFor: (
    item: BatchItem,
    context: BatchProcessorContext,
  ) => RetrieverQueryEngine | Promise<RetrieverQueryEngine>;
}

/**
 * The `question` work kind: runs `item.query` through the item's query engine and records the answer, its
 * sources and the usage. Every worker builds its engines from the same persisted index, so any worker can
 * answer any item.
 */
export function createQuestionProcessor({
  engineFor,
}: QuestionProcessorOptions): BatchProcessor<QuestionAnswer> {
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
    return { value: { answer: response.response, sources }, usage: response.usage };
  };
}
