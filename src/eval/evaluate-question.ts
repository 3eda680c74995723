import type { PromptHelper } from "../budget/prompt-helper.js";
import type { LLM } from "../llm/types.js";
import type { Retriever } from "../query-engine/retriever.js";
import type { NodeWithScore } from "../schema/text-node.js";
import { getResponseSynthesizer } from "../synthesizer/get-response-synthesizer.js";
import type { ResponseMode } from "../synthesizer/types.js";
import { holdsPhrase, tokenF1 } from "./answer-metrics.js";
import type { EvalQuestion } from "./eval-questions.js";
import type { EvalSource, JudgeVerdict, ModeAnswer, QuestionResult } from "./eval-result.js";
import { type JudgeName, judgeAnswer } from "./judge-answer.js";
import { dollars, type TokenPrices } from "./prices.js";
import { retrievalScores } from "./retrieval-metrics.js";

/** What scores one question: the same in `evaluate` and in a worker that takes eval jobs from a queue. */
export interface QuestionEvaluatorOptions {
  llm: LLM;
  modes: readonly ResponseMode[];
  k: number;
  promptHelper: PromptHelper;
  prices?: TokenPrices | undefined;
  judge?: { llm: LLM; promptHelper: PromptHelper; judges?: readonly JudgeName[] | undefined } | undefined;
  now?: () => number;
}

/**
 * Returns the function that evaluates one question: retrieves its chunks once, answers it in every mode from
 * them (one after another), judges each answer when a judge is given, and scores retrieval and answers. A mode
 * that fails is recorded as failed; a failed retrieval or an abort throws.
 */
export function createQuestionEvaluator({
  llm,
  modes,
  k,
  promptHelper,
  prices,
  judge,
  now = () => performance.now(),
}: QuestionEvaluatorOptions): (
  question: EvalQuestion,
  retriever: Retriever,
  signal: AbortSignal,
) => Promise<QuestionResult> {
  const synthesizers = modes.map((mode) => ({
    mode,
    synthesizer: getResponseSynthesizer({ llm, responseMode: mode, promptHelper }),
  }));
  return async (question, retriever, signal) => {
    const nodes = await retriever.retrieve({ query: question.query, signal });
    const answers: ModeAnswer[] = [];
    for (const { mode, synthesizer } of synthesizers) {
      const started = now();
      let answer: ModeAnswer;
      try {
        const response = await synthesizer.synthesize({ query: question.query, nodes, signal });
        const usage = {
          calls: response.usage.llmCalls,
          promptTokens: response.usage.promptTokens,
          completionTokens: response.usage.completionTokens,
        };
        answer = scoreAnswer(question, mode, response.response, usage, now() - started, promptHelper, prices);
      } catch (error) {
        if (signal.aborted) throw error;
        const usage = { calls: 0, promptTokens: 0, completionTokens: 0, ...spentBy(error) };
        answer = scoreAnswer(question, mode, "", usage, now() - started, promptHelper, prices);
        const code = (error as { code?: unknown }).code;
        answer.error = {
          code: typeof code === "string" ? code : undefined,
          message: error instanceof Error ? error.message : String(error),
        };
        answer.failures.unshift(`${mode} failed: ${answer.error.message}`);
      }
      if (judge) {
        answer.judges = await judgeAnswer({
          judge: judge.llm,
          promptHelper: judge.promptHelper,
          query: question.query,
          answer: answer.answer,
          contexts: nodes.map(({ node }) => node.text),
          reference: question.reference,
          ...(judge.judges ? { judges: judge.judges } : {}),
          signal,
        });
        for (const [name, verdict] of Object.entries(answer.judges)) {
          const why = judgeFailure(verdict);
          if (why) answer.failures.push(`${name}: ${why}`);
        }
      }
      answers.push(answer);
    }
    const result: QuestionResult = {
      id: question.id,
      query: question.query,
      sources: nodes.map(toSource),
      ...(question.relevant
        ? {
            retrieval: retrievalScores({
              retrieved: nodes.map(({ node }) => ({ id: node.id, filePath: filePathOf(node.metadata) })),
              relevant: question.relevant,
              k,
            }),
          }
        : {}),
      answers,
    };
    if (result.retrieval?.hit === 0) {
      for (const answer of answers) answer.failures.push(`no relevant file in the top ${k}`);
    }
    return result;
  };
}

function scoreAnswer(
  question: EvalQuestion,
  mode: string,
  text: string,
  usage: ModeAnswer["usage"],
  ms: number,
  promptHelper: PromptHelper,
  prices: TokenPrices | undefined,
): ModeAnswer {
  const answer: ModeAnswer = {
    mode,
    answer: text,
    answerTokens: text === "" ? 0 : promptHelper.tokenizer.count(text),
    usage,
    ms,
    failures: [],
  };
  const cost = dollars(usage, prices);
  if (cost !== undefined) answer.dollars = cost;
  if (question.answer_hint !== undefined) {
    answer.holdsPhrase = holdsPhrase({ answer: text, phrase: question.answer_hint });
    if (!answer.holdsPhrase) answer.failures.push(`answer lacks "${question.answer_hint}"`);
  }
  if (question.reference !== undefined) answer.f1 = tokenF1({ answer: text, reference: question.reference });
  return answer;
}

/** Why a verdict is not a pass, in a few words; undefined for a pass. */
function judgeFailure(verdict: JudgeVerdict): string | undefined {
  if (verdict.passing === true) return undefined;
  if (verdict.passing === null) return verdict.error ?? "no verdict";
  return verdict.score !== null && verdict.score > 1 ? `scored ${verdict.score} (passing is 4)` : "judged NO";
}

/** What a failed synthesis spent, from the usage ragsynth errors carry. */
function spentBy(error: unknown): Partial<ModeAnswer["usage"]> {
  const usage = (error as { usage?: { llmCalls?: number; promptTokens?: number; completionTokens?: number } })
    .usage;
  if (!usage) return {};
  return {
    calls: usage.llmCalls ?? 0,
    promptTokens: usage.promptTokens ?? 0,
    completionTokens: usage.completionTokens ?? 0,
  };
}

function filePathOf(metadata: Record<string, unknown>): string | undefined {
  const path = metadata.file_path;
  return typeof path === "string" ? path : undefined;
}

function toSource({ node, score }: NodeWithScore): EvalSource {
  return { id: node.id, filePath: filePathOf(node.metadata), score, text: node.text.slice(0, 500) };
}
