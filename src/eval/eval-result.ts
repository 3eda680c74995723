import type { BestMode } from "./best-mode.js";
import type { TokenPrices } from "./prices.js";
import type { RetrievalScores } from "./retrieval-metrics.js";

/** Calls and tokens a mode (or judge) spent. */
export interface EvalUsage {
  /** Model calls made (replayed from a call cache or paid). */
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/** One retrieved chunk as the results show it. */
export interface EvalSource {
  id: string;
  filePath: string | undefined;
  score: number | undefined;
  /** The chunk's text, cut to its first 500 characters. */
  text: string;
}

/** One mode's answer to one question, with its scores and cost. */
export interface ModeAnswer {
  mode: string;
  /** The answer text; `""` when the mode failed. */
  answer: string;
  /** Why the mode failed, when it did (a context overflow, a model error). */
  error?: { code: string | undefined; message: string };
  /** Whether the answer holds `answer_hint` (case and whitespace ignored); absent without a hint. */
  holdsPhrase?: boolean;
  /** Token F1 against `reference`; absent without a reference. */
  f1?: number;
  /** The answer's length in tokens of the budget's tokenizer: shown beside every containment figure. */
  answerTokens: number;
  usage: EvalUsage;
  /** USD, when prices are known. */
  dollars?: number;
  /** Wall time of the synthesis. */
  ms: number;
  /** Judge verdicts, with `--judge`. */
  judges?: Record<string, JudgeVerdict>;
  /** The answer's citations, with `citations` (`--citations`). */
  citations?: AnswerCitations;
  /** Short reasons this answer falls short, for the drill-down (empty when nothing failed). */
  failures: string[];
}

/** What an answer's `[N]` markers were found to be, counted (see `checkCitations`). */
export interface AnswerCitations {
  /** Valid citations (a marker naming two pieces is two). */
  citations: number;
  /** Valid citations whose piece comes from a relevant file or chunk; absent when the question names none. */
  fromRelevant?: number;
  /** Valid citations their piece does not support. */
  unsupported: number;
  /** Markers naming no piece (removed from the text). */
  invalid: number;
  /** Sentences citing nothing. */
  uncited: number;
}

/** One judge's verdict on one answer. */
export interface JudgeVerdict {
  /** true/false from a parsed reply; null when the reply could not be parsed (counted as a failure). */
  passing: boolean | null;
  /** The score the judge gave (correctness: 1–5; faithfulness and relevancy: 1 or 0), null when unparsed. */
  score: number | null;
  /** The judge's reasoning or its raw reply. */
  feedback: string;
  /** Set when the reply could not be parsed or the call failed. */
  error?: string;
  usage: EvalUsage;
}

/** Everything measured for one question. */
export interface QuestionResult {
  id: string;
  query: string;
  /** The chunks retrieved once and given to every mode. */
  sources: EvalSource[];
  /** Retrieval scores at k; absent when the question has no `relevant`. */
  retrieval?: RetrievalScores;
  /** One answer per mode, in the order of `modes`. */
  answers: ModeAnswer[];
}

/** Means of the retrieval scores over the questions that have `relevant`. */
export interface RetrievalSummary {
  /** Questions scored. */
  questions: number;
  k: number;
  hitRate: number;
  mrr: number;
  ndcg: number;
  precision: number;
  recall: number;
}

/** A judge's totals over one mode's answers. */
export interface JudgeSummary {
  /** Answers judged. */
  judged: number;
  /** Share of judged answers that passed. */
  passRate: number;
  /** Replies that could not be parsed or calls that failed: counted in `judged`, never as passes. */
  failures: number;
  usage: EvalUsage;
}

/** One mode's totals. */
export interface ModeSummary {
  mode: string;
  questions: number;
  /** Questions with an `answer_hint`, and the share whose answer holds it. */
  phraseQuestions: number;
  phraseShare: number | undefined;
  /** Questions with a `reference`, and the mean token F1. */
  referenceQuestions: number;
  meanF1: number | undefined;
  /** Mean answer length in tokens. */
  meanAnswerTokens: number;
  /** Answers that failed with an error. */
  errors: number;
  usage: EvalUsage;
  dollars: number | undefined;
  /** Sum of the synthesis wall times. */
  wallMs: number;
  judges?: Record<string, JudgeSummary>;
  /** The citations of this mode's answers, with `citations`. */
  citations?: CitationSummary;
  /** The figure the best mark ranks by: the phrase share, else the mean F1, else the correctness pass rate. */
  quality: number | undefined;
  /** Which figure `quality` is. */
  qualityMetric: "phrase" | "f1" | "correctness" | undefined;
}

/** A mode's citations over its answers. */
export interface CitationSummary {
  /** Answers checked, and how many cite at least once. */
  answers: number;
  citing: number;
  /** Valid citations in all. */
  citations: number;
  /** Of the valid citations of questions that name their files, the share whose piece comes from one (issue 29's precision). */
  precision: number | undefined;
  /** Of the valid citations, the share their piece does not support. */
  unsupportedShare: number | undefined;
  /** Markers naming no piece, and sentences citing nothing, summed. */
  invalid: number;
  uncited: number;
}

/** What {@link evaluate} returns. */
export interface EvalReport {
  /** The metric cutoff k. */
  k: number;
  model: string;
  /** The prices dollars were computed at, when known. */
  prices: TokenPrices | undefined;
  retrieval: RetrievalSummary | undefined;
  modes: ModeSummary[];
  /** The mode with the best quality per dollar (per token when unpriced); see {@link bestQualityPerCost}. */
  best: BestMode | undefined;
  questions: QuestionResult[];
}
