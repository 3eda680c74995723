import { PromptHelper } from "../budget/prompt-helper.js";
import { checkMethod, optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { checkModel } from "../llm/check-model.js";
import type { LLM } from "../llm/types.js";
import type { Retriever } from "../retrieval/retriever.js";
import { RESPONSE_MODES, type ResponseMode } from "../synthesizer/types.js";
import { mapConcurrent } from "../util/map-concurrent.js";
import { sha256Hex } from "../util/sha256.js";
import type { EvalQuestion } from "./eval-questions.js";
import type { EvalReport, QuestionResult } from "./eval-result.js";
import { createQuestionEvaluator } from "./evaluate-question.js";
import type { JudgeName } from "./judge-answer.js";
import type { TokenPrices } from "./prices.js";
import { resumableRun } from "./resumable-run.js";
import { summarizeEval } from "./summarize-eval.js";

/** The modes {@link evaluate} compares when none are named: the four that answer from the retrieved text. */
export const DEFAULT_EVAL_MODES: readonly ResponseMode[] = [
  "compact",
  "refine",
  "tree_summarize",
  "simple_summarize",
];

/** Options of {@link evaluate}. */
export interface EvaluateOptions {
  /** The questions, e.g. from {@link parseEvalQuestions}. */
  questions: readonly EvalQuestion[];
  /** Retrieves each question's chunks once; every mode answers from the same chunks. A query engine works too. */
  retriever: Retriever;
  /** The model every mode calls. Wrap it with `withCallCache` so a rerun pays only for what is new. */
  llm: LLM;
  /** The response modes to compare. @default DEFAULT_EVAL_MODES (compact, refine, tree_summarize, simple_summarize) */
  modes?: readonly ResponseMode[];
  /** The cutoff of the retrieval metrics (hit@k, nDCG@k, …). @default 4 */
  k?: number;
  /** The synthesizers' budget; its tokenizer also measures answer length. @default PromptHelper.fromLLMMetadata(llm.metadata) */
  promptHelper?: PromptHelper;
  /** USD per 1M tokens; without them the table shows tokens only. */
  prices?: TokenPrices | undefined;
  /**
   * Judge each answer with LlamaIndex's evaluators (faithfulness, relevancy, correctness) on this model. Its
   * calls and tokens are reported per judge, apart from the mode's own cost.
   */
  judge?: EvalJudge | undefined;
  /**
   * A results JSONL that makes the run resumable, on the batch runner's embedded backend: each question's
   * result is appended as it finishes, and a rerun with the same file skips the questions it holds (no
   * retrieval, no call). Results are kept per model, mode set, k and judge: change one and every question is
   * answered again (wrap the models with `withCallCache` so only the new calls are paid).
   */
  resultsFile?: string | undefined;
  /**
   * Every mode answers with LlamaIndex's citation prompts from numbered pieces, and each answer's citations are
   * checked and counted: the share from a relevant file (precision), the unsupported share, invalid markers, uncited
   * sentences. The offline extractive answer's quotes are cited with the piece they were copied from. @default false
   */
  citations?: boolean;
  /** Questions in flight at once (the modes of one question run one after another). @default 4 */
  concurrency?: number;
  /** Called as each question finishes (progress). */
  onQuestion?: (result: QuestionResult, done: number) => void;
  signal?: AbortSignal;
  /** Test seams. */
  _internal?: { now?: () => number };
}

/** The judging model of {@link evaluate}. */
export interface EvalJudge {
  llm: LLM;
  /** The judge's budget. @default PromptHelper.fromLLMMetadata(llm.metadata) */
  promptHelper?: PromptHelper;
  /** @default all three */
  judges?: readonly JudgeName[];
}

/**
 * Measures retrieval and each response mode on labelled questions: retrieves each question once, answers it in
 * every mode from the same chunks, and scores retrieval (hit@k, MRR, nDCG@k, precision/recall@k by file or
 * chunk id), answers (phrase held, token F1, answer length) and cost (calls, tokens, dollars, wall time).
 * A mode that fails on a question is recorded as failed there; an abort stops the whole run.
 * @example const report = await evaluate({ questions, retriever: index.asRetriever({ similarityTopK: 4 }), llm });
 */
export async function evaluate(options: EvaluateOptions): Promise<EvalReport> {
  const given = optionsOf("options", options, "{ questions, retriever, llm, modes?, k?, … }");
  checkModel("llm", given.llm);
  if (!Array.isArray(given.questions)) {
    throw new InvalidArgumentError({
      parameter: "questions",
      value: given.questions,
      expected: "be an array of { id, query, relevant?, answer? }",
      hint: "parseEvalQuestions(text) reads them from JSON Lines.",
    });
  }
  checkMethod(
    "retriever",
    given.retriever,
    "retrieve",
    "be a Retriever (an object with retrieve({ query, signal }))",
    "index.asRetriever() gives one.",
  );
  const {
    questions,
    retriever,
    llm,
    modes = DEFAULT_EVAL_MODES,
    k = 4,
    promptHelper = PromptHelper.fromLLMMetadata(given.llm.metadata),
    prices,
    judge,
    resultsFile,
    citations = false,
    concurrency = 4,
    onQuestion,
    signal = new AbortController().signal,
    _internal,
  } = given;
  checkModes(modes);
  if (!Number.isInteger(k) || k < 1) {
    throw new InvalidArgumentError({ parameter: "k", value: k, expected: "be a positive integer" });
  }
  const judgeBudget = judge && (judge.promptHelper ?? PromptHelper.fromLLMMetadata(judge.llm.metadata));
  const evaluateQuestion = createQuestionEvaluator({
    llm,
    modes,
    k,
    promptHelper,
    prices,
    judge:
      judge && judgeBudget ? { llm: judge.llm, promptHelper: judgeBudget, judges: judge.judges } : undefined,
    citations,
    ...(_internal?.now ? { now: _internal.now } : {}),
  });
  let done = 0;
  const evaluateOne = async (question: EvalQuestion, taskSignal: AbortSignal): Promise<QuestionResult> => {
    const result = await evaluateQuestion(question, retriever, taskSignal);
    done += 1;
    onQuestion?.(result, done);
    return result;
  };
  const results = resultsFile
    ? await resumableRun({
        questions,
        resultsFile,
        // Results are kept per run setting: another model, mode set, k or judge answers every question again
        // (paying only for what the call cache has not seen).
        runKey: sha256Hex(
          JSON.stringify([
            llm.metadata.model,
            modes,
            k,
            judge?.llm.metadata.model ?? null,
            judge?.judges ?? null,
            // Appended only when on, so results kept before this option existed still match.
            ...(citations ? ["citations"] : []),
          ]),
        ).slice(0, 12),
        concurrency,
        signal,
        evaluateOne,
      })
    : await mapConcurrent(questions, concurrency, signal, (question, _, taskSignal) =>
        evaluateOne(question, taskSignal),
      );
  return summarizeEval({ questions: results, modes, k, model: llm.metadata.model, prices });
}

function checkModes(modes: readonly ResponseMode[]): void {
  if (!Array.isArray(modes) || modes.length === 0) {
    throw new InvalidArgumentError({
      parameter: "modes",
      value: modes,
      expected: "be a non-empty array of response modes",
    });
  }
  for (const mode of modes) {
    if (!(RESPONSE_MODES as readonly string[]).includes(mode)) {
      throw new InvalidArgumentError({
        parameter: "modes",
        value: mode,
        expected: `hold only response modes (${RESPONSE_MODES.join(", ")})`,
      });
    }
  }
}
