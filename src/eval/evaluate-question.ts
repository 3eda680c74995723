import type { PromptHelper } from "../budget/prompt-helper.js";
import type { LLM } from "../llm/types.js";
import type { Retriever } from "../retrieval/retriever.js";
import { SAME_TEXT_KEY } from "../schema/node-source.js";
import type { NodeWithScore } from "../schema/text-node.js";
import { getResponseSynthesizer } from "../synthesizer/get-response-synthesizer.js";
import type { ResponseMode } from "../synthesizer/types.js";
import { holdsPhrase, tokenF1 } from "./answer-metrics.js";
import { CITATION_TEMPLATES, citationPieces, scoreCitations } from "./cited-answer.js";
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
  /**
   * Answer with LlamaIndex's citation prompts from numbered `Source N:` pieces of the retrieved chunks, and check
   * each answer's citations (`checkCitations`; the offline extractive answer's quotes cited by `citeVerbatimQuotes`).
   */
  citations?: boolean | undefined;
  now?: () => number;
}

/** Modes whose answer is not written from the pieces, so it has no citations to check. */
const UNCITED_MODES = new Set<string>(["generation", "no_text", "context_only"]);

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
  citations = false,
  now = () => performance.now(),
}: QuestionEvaluatorOptions): (
  question: EvalQuestion,
  retriever: Retriever,
  signal: AbortSignal,
) => Promise<QuestionResult> {
  const synthesizers = modes.map((mode) => ({
    mode,
    synthesizer: getResponseSynthesizer({
      llm,
      responseMode: mode,
      promptHelper,
      ...(citations ? CITATION_TEMPLATES : {}),
    }),
  }));
  return async (question, retriever, signal) => {
    const nodes = await retriever.retrieve({ query: question.query, signal });
    // With citations every mode answers from the same numbered pieces.
    const pieces = citations ? citationPieces(nodes, llm) : undefined;
    const answers: ModeAnswer[] = [];
    for (const { mode, synthesizer } of synthesizers) {
      const started = now();
      let answer: ModeAnswer;
      try {
        const response = await synthesizer.synthesize({
          query: question.query,
          nodes: pieces?.nodes ?? nodes,
          signal,
        });
        const usage = {
          calls: response.usage.llmCalls,
          promptTokens: response.usage.promptTokens,
          completionTokens: response.usage.completionTokens,
        };
        const cited =
          pieces && !UNCITED_MODES.has(mode)
            ? await scoreCitations({
                answer: response.response,
                sources: pieces.sources,
                llm,
                relevant: question.relevant,
                signal,
              })
            : undefined;
        answer = scoreAnswer(
          question,
          mode,
          cited?.text ?? response.response,
          usage,
          now() - started,
          promptHelper,
          prices,
        );
        if (cited) {
          answer.citations = cited.citations;
          const { unsupported, invalid } = cited.citations;
          if (cited.citations.citations === 0) answer.failures.push("cites nothing");
          if (unsupported > 0) answer.failures.push(`${unsupported} unsupported citation(s)`);
          if (invalid > 0) answer.failures.push(`${invalid} citation(s) naming no source`);
        }
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
              retrieved: nodes.map(({ node }) => ({
                id: node.id,
                filePath: filePathOf(node.metadata),
                copies: copiesOf(node.metadata),
              })),
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

/** The files a chunk stands for besides its own ({@link SAME_TEXT_KEY}), when `collapseCopies` listed any. */
function copiesOf(metadata: Record<string, unknown>): string[] | undefined {
  const copies = metadata[SAME_TEXT_KEY];
  return Array.isArray(copies)
    ? copies.filter((copy): copy is string => typeof copy === "string")
    : undefined;
}

function toSource({ node, score }: NodeWithScore): EvalSource {
  return { id: node.id, filePath: filePathOf(node.metadata), score, text: node.text.slice(0, 500) };
}
