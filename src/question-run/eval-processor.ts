import type { BatchProcessor, JsonValue } from "../batch/index.js";
import { PromptHelper } from "../budget/index.js";
import { parseEvalQuestions } from "../eval/eval-questions.js";
import type { QuestionResult } from "../eval/eval-result.js";
import { createQuestionEvaluator } from "../eval/evaluate-question.js";
import type { RetrieverQueryEngine } from "../query-engine/retriever-query-engine.js";
import type { BorrowedModels } from "./batch-processors.js";
import { allowedEmbed, allowedLLM, checkQuestionItem, indexUnderRoots } from "./batch-trust.js";
import { checkEvalRunConfig } from "./eval-run-config.js";
import { indexQuery, retrievalEngine } from "./index-query.js";

/** What the eval processor borrows from the question processors: their cached models and indexes. */
export type EvalProcessorOptions = BorrowedModels;

/** The work kinds `ragsynth eval --redis` adds to a worker's (and a batch's) processors. */
export const EVAL_PROCESSORS = (borrowed: BorrowedModels): Record<string, BatchProcessor> => ({
  "eval-question": createEvalQuestionProcessor(borrowed) as BatchProcessor,
});

/**
 * The `eval-question` work kind of `ragsynth eval --redis`: one labelled question, retrieved once and answered
 * in every mode of the run, scored as `evaluate` scores it (the same function), so a worker's result is the
 * embedded run's. The job is untrusted: its settings and question are checked, its models must be allowed by
 * the worker's operator (`--llm`, `--allow-llm`; the judge too) and its index must lie under `--index-root`.
 */
export function createEvalQuestionProcessor({
  trust,
  modelFor,
  indexFor,
}: EvalProcessorOptions): BatchProcessor<QuestionResult & JsonValue> {
  const evaluators = new Map<string, Promise<Evaluator>>();
  return async (item, { config, signal }) => {
    const settings = checkEvalRunConfig(config);
    checkQuestionItem(item);
    // The question's labels by the questions file's own rules (one line).
    const [question] = parseEvalQuestions(JSON.stringify(item));
    const key = JSON.stringify(settings);
    let pending = evaluators.get(key);
    if (!pending) {
      pending = buildEvaluator(settings, { trust, modelFor, indexFor });
      evaluators.set(key, pending);
      pending.catch(() => evaluators.delete(key));
    }
    const { evaluate, retriever } = await pending;
    const result = await evaluate(question as NonNullable<typeof question>, retriever, signal);
    const usage = result.answers.reduce(
      (total, answer) => ({
        llmCalls: total.llmCalls + answer.usage.calls,
        promptTokens: total.promptTokens + answer.usage.promptTokens,
        completionTokens: total.completionTokens + answer.usage.completionTokens,
        retries: 0,
      }),
      { llmCalls: 0, promptTokens: 0, completionTokens: 0, retries: 0 },
    );
    return { value: result as QuestionResult & JsonValue, usage };
  };
}

type Evaluator = {
  evaluate: ReturnType<typeof createQuestionEvaluator>;
  retriever: RetrieverQueryEngine;
};

async function buildEvaluator(
  settings: ReturnType<typeof checkEvalRunConfig>,
  { trust, modelFor, indexFor }: EvalProcessorOptions,
): Promise<Evaluator> {
  const llm = modelFor(allowedLLM(settings.llm, trust, "config"), settings.contextWindow);
  // No judge is null here, never the operator's model.
  const judgeLLM =
    settings.judge === null ? undefined : modelFor(allowedLLM(settings.judge, trust, "config.judge"), null);
  const index = await indexFor(
    trust.store ?? (await indexUnderRoots(settings.index, trust)),
    allowedEmbed(settings.embed, trust),
  );
  const promptHelper = PromptHelper.fromLLMMetadata(llm.metadata, {
    numOutput: settings.numOutput ?? undefined,
  });
  const retriever = retrievalEngine(indexQuery(index, settings), { tokenizer: promptHelper.tokenizer });
  const evaluate = createQuestionEvaluator({
    llm,
    modes: settings.modes,
    k: settings.topK,
    promptHelper,
    prices: settings.prices ?? undefined,
    citations: settings.citations,
    judge: judgeLLM
      ? { llm: judgeLLM, promptHelper: PromptHelper.fromLLMMetadata(judgeLLM.metadata) }
      : undefined,
  });
  return { evaluate, retriever };
}
