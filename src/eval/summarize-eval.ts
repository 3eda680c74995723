import { bestQualityPerCost } from "./best-mode.js";
import type {
  AnswerCitations,
  CitationSummary,
  EvalReport,
  EvalUsage,
  JudgeSummary,
  ModeAnswer,
  ModeSummary,
  QuestionResult,
  RetrievalSummary,
} from "./eval-result.js";
import { dollars, type TokenPrices } from "./prices.js";

const mean = (values: readonly number[]) =>
  values.length === 0 ? undefined : values.reduce((sum, value) => sum + value, 0) / values.length;

/** Adds usages. */
export function addUsage(total: EvalUsage, more: EvalUsage): EvalUsage {
  return {
    calls: total.calls + more.calls,
    promptTokens: total.promptTokens + more.promptTokens,
    completionTokens: total.completionTokens + more.completionTokens,
  };
}

const NO_USAGE: EvalUsage = { calls: 0, promptTokens: 0, completionTokens: 0 };

/** Means of the retrieval scores over the questions that carry `relevant`; undefined when none does. */
export function summarizeRetrieval(
  questions: readonly QuestionResult[],
  k: number,
): RetrievalSummary | undefined {
  const scored = questions.flatMap((question) => (question.retrieval ? [question.retrieval] : []));
  if (scored.length === 0) return undefined;
  const of = (pick: (scores: (typeof scored)[number]) => number) => mean(scored.map(pick)) ?? 0;
  return {
    questions: scored.length,
    k,
    hitRate: of((scores) => scores.hit),
    mrr: of((scores) => scores.reciprocalRank),
    ndcg: of((scores) => scores.ndcg),
    precision: of((scores) => scores.precision),
    recall: of((scores) => scores.recall),
  };
}

/** One mode's totals over every question. */
export function summarizeMode(
  mode: string,
  questions: readonly QuestionResult[],
  prices: TokenPrices | undefined,
): ModeSummary {
  const answers = questions.flatMap((question) => question.answers.filter((answer) => answer.mode === mode));
  const phrases = answers.flatMap((answer) => (answer.holdsPhrase === undefined ? [] : [answer.holdsPhrase]));
  const f1s = answers.flatMap((answer) => (answer.f1 === undefined ? [] : [answer.f1]));
  const usage = answers.reduce((total, answer) => addUsage(total, answer.usage), NO_USAGE);
  const judges: Record<string, JudgeSummary> = {};
  for (const answer of answers) {
    for (const [name, verdict] of Object.entries(answer.judges ?? {})) {
      const summary = judges[name] ?? { judged: 0, passRate: 0, failures: 0, usage: NO_USAGE };
      const passed = summary.passRate * summary.judged + (verdict.passing === true ? 1 : 0);
      summary.judged += 1;
      summary.passRate = passed / summary.judged;
      if (verdict.passing === null) summary.failures += 1;
      summary.usage = addUsage(summary.usage, verdict.usage);
      judges[name] = summary;
    }
  }
  const phraseShare = mean(phrases.map((held) => (held ? 1 : 0)));
  const meanF1 = mean(f1s);
  const correctness = judges.correctness?.passRate;
  const [quality, qualityMetric] =
    phraseShare !== undefined
      ? [phraseShare, "phrase" as const]
      : meanF1 !== undefined
        ? [meanF1, "f1" as const]
        : correctness !== undefined
          ? [correctness, "correctness" as const]
          : [undefined, undefined];
  return {
    mode,
    questions: answers.length,
    phraseQuestions: phrases.length,
    phraseShare,
    referenceQuestions: f1s.length,
    meanF1,
    meanAnswerTokens: mean(answers.map((answer) => answer.answerTokens)) ?? 0,
    errors: answers.filter((answer) => answer.error).length,
    usage,
    dollars: dollars(usage, prices),
    wallMs: answers.reduce((sum, answer) => sum + answer.ms, 0),
    ...(Object.keys(judges).length > 0 ? { judges } : {}),
    ...summarizeCitations(answers),
    quality,
    qualityMetric,
  };
}

/** The citations of a mode's answers, pooled; nothing when no answer was checked for citations. */
function summarizeCitations(answers: readonly ModeAnswer[]): { citations?: CitationSummary } {
  const checked = answers.flatMap((answer) => (answer.citations ? [answer.citations] : []));
  if (checked.length === 0) return {};
  const sum = (pick: (citations: AnswerCitations) => number) =>
    checked.reduce((total, citations) => total + pick(citations), 0);
  const labelled = checked.filter((citations) => citations.fromRelevant !== undefined);
  const labelledCitations = labelled.reduce((total, citations) => total + citations.citations, 0);
  const citations = sum((entry) => entry.citations);
  return {
    citations: {
      answers: checked.length,
      citing: checked.filter((entry) => entry.citations > 0).length,
      citations,
      precision:
        labelledCitations === 0
          ? undefined
          : labelled.reduce((total, entry) => total + (entry.fromRelevant ?? 0), 0) / labelledCitations,
      unsupportedShare: citations === 0 ? undefined : sum((entry) => entry.unsupported) / citations,
      invalid: sum((entry) => entry.invalid),
      uncited: sum((entry) => entry.uncited),
    },
  };
}

/**
 * Modes whose "answer" is not written by the model: `context_only` returns the retrieved text itself (it holds
 * every phrase retrieval found, at any length) and `no_text` returns nothing. They are measured but never marked
 * best: free containment of the raw chunks is not an answer.
 */
const NEVER_BEST = new Set(["context_only", "no_text"]);

/** The whole report from per-question results: retrieval means, per-mode totals and the best mark. */
export function summarizeEval({
  questions,
  modes,
  k,
  model,
  prices,
}: {
  questions: QuestionResult[];
  modes: readonly string[];
  k: number;
  model: string;
  prices: TokenPrices | undefined;
}): EvalReport {
  const summaries = modes.map((mode) => summarizeMode(mode, questions, prices));
  const best = bestQualityPerCost(
    summaries
      .filter((summary) => !NEVER_BEST.has(summary.mode))
      .map((summary) => ({
        mode: summary.mode,
        quality: summary.quality,
        dollars: summary.dollars,
        tokens: summary.usage.promptTokens + summary.usage.completionTokens,
      })),
  );
  return { k, model, prices, retrieval: summarizeRetrieval(questions, k), modes: summaries, best, questions };
}
