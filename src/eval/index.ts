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
export { DEFAULT_EVAL_MODES, type EvalJudge, type EvaluateOptions, evaluate } from "./evaluate.js";
export {
  firstQuestion,
  type GeneratedQuestions,
  type GenerateQuestionsOptions,
  generateQuestions,
  QUESTION_GENERATION_PROMPT,
} from "./generate-questions.js";
export { JUDGE_NAMES, type JudgeAnswerOptions, type JudgeName, judgeAnswer } from "./judge-answer.js";
export {
  CORRECTNESS_EVAL_PROMPT,
  FAITHFULNESS_EVAL_PROMPT,
  FAITHFULNESS_REFINE_PROMPT,
  RELEVANCY_EVAL_PROMPT,
  RELEVANCY_REFINE_PROMPT,
} from "./judge-prompts.js";
export { type LLMCitationJudgeOptions, llmCitationJudge } from "./llm-citation-judge.js";
export { type ParsedReply, parseScore, parseYesNo } from "./parse-judge-reply.js";
export { dollars, KNOWN_PRICES, resolvePrices, type TokenPrices } from "./prices.js";
export { renderEvalPage } from "./render-eval-page.js";
export {
  matchesRelevant,
  type RetrievalScores,
  type RetrievedItem,
  retrievalScores,
} from "./retrieval-metrics.js";
