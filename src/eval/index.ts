export { answerTokens, holdsPhrase, normalizeForPhrase, tokenF1 } from "./answer-metrics.js";
export { type BestMode, bestQualityPerCost, type ModeValue } from "./best-mode.js";
export { type EvalQuestion, parseEvalQuestions } from "./eval-questions.js";
export type {
  EvalReport,
  EvalSource,
  EvalUsage,
  JudgeSummary,
  JudgeVerdict,
  ModeAnswer,
  ModeSummary,
  QuestionResult,
  RetrievalSummary,
} from "./eval-result.js";
export { DEFAULT_EVAL_MODES, type EvaluateOptions, evaluate } from "./evaluate.js";
export { dollars, KNOWN_PRICES, resolvePrices, type TokenPrices } from "./prices.js";
export {
  matchesRelevant,
  type RetrievalScores,
  type RetrievedItem,
  retrievalScores,
} from "./retrieval-metrics.js";
