import type { PromptHelper } from "../budget/prompt-helper.js";
import type { EvalReport } from "../eval/eval-result.js";
import { type EvaluateOptions, evaluate } from "../eval/evaluate.js";
import { summarizeEval } from "../eval/summarize-eval.js";
import type { LLM } from "../llm/types.js";
import type { ResponseMode } from "../synthesizer/types.js";
import { runEvalOnRedis } from "./eval-redis.js";
import type { EvalRunConfig } from "./eval-run-config.js";
import { type IndexQuery, retrievalEngine } from "./index-query.js";

/** Options of {@link runEvalQuestions}: {@link evaluate}'s, with the retrieval as an {@link IndexQuery}. */
export interface RunEvalQuestionsOptions
  extends Omit<EvaluateOptions, "retriever" | "modes" | "k" | "promptHelper" | "judge" | "onQuestion"> {
  query: IndexQuery;
  modes: readonly ResponseMode[];
  k: number;
  promptHelper: PromptHelper;
  /** The model that judges each answer (LlamaIndex's faithfulness, relevancy and correctness). */
  judge?: LLM | undefined;
  /** Each question a BullMQ job for `ragsynth worker`s (the same scoring); without it, answered in this process. */
  redis?:
    | {
        url: string;
        queueName: string | undefined;
        questionsPath: string;
        /** The settings the jobs carry, asked for just before the run (the index must be on disk first). */
        config: () => Promise<EvalRunConfig>;
        io: Parameters<typeof runEvalOnRedis>[0]["io"];
      }
    | undefined;
  /** Called as each question is finished, with how many are. */
  onProgress?: (done: number) => void;
  signal: AbortSignal;
}

/** `ragsynth eval`'s run: every question answered in every mode and scored, in this process or on the workers. */
export async function runEvalQuestions({
  query,
  judge,
  redis,
  onProgress,
  ...options
}: RunEvalQuestionsOptions): Promise<EvalReport> {
  const retriever = retrievalEngine(query, { tokenizer: options.promptHelper.tokenizer });
  if (!redis) {
    return evaluate({
      ...options,
      retriever,
      ...(judge ? { judge: { llm: judge } } : {}),
      onQuestion: (_, done) => onProgress?.(done),
    });
  }
  const { url, ...rest } = redis;
  const { questions, modes, k, llm, prices, signal } = options;
  const results = await runEvalOnRedis({
    ...rest,
    redisUrl: url,
    questions,
    config: await redis.config(),
    signal,
    onProgress: (done) => onProgress?.(done),
  });
  return summarizeEval({ questions: results, modes, k, model: llm.metadata.model, prices });
}
