export { type AnswerSentence, answerSentences } from "./answer-sentences.js";
export {
  type CheckCitationsOptions,
  type Citation,
  type CitationReport,
  checkCitations,
  type UncitedSentence,
} from "./check-citations.js";
export type {
  CitationJudge,
  CitationJudgeUsage,
  CitationVerdict,
  JudgedPair,
} from "./citation-judge.js";
export { type CitationMarker, parseCitationMarkers } from "./citation-markers.js";
export { type CitationNodes, createCitationNodes } from "./citation-nodes.js";
export {
  CITATION_QA_TEMPLATE,
  CITATION_REFINE_TEMPLATE,
  DEFAULT_CITATION_CHUNK_OVERLAP,
  DEFAULT_CITATION_CHUNK_SIZE,
} from "./citation-prompts.js";
export {
  CitationQueryEngine,
  type CitationQueryEngineOptions,
  type CitationResponse,
  type StreamingCitationResponse,
} from "./citation-query-engine.js";
export { type CitationLocation, type CitationSource, formatSource } from "./citation-source.js";
export {
  type CitationSupport,
  DEFAULT_COSINE_THRESHOLD,
  DEFAULT_SUPPORT_THRESHOLD,
} from "./citation-support.js";
export { CitationTextCleaner, cleanCitationText, type InvalidCitation } from "./citation-text-cleaner.js";
export { type CitationsJSON, citationsToJSON } from "./citations-to-json.js";
export { citeVerbatimQuoteMarkers, citeVerbatimQuotes } from "./cite-verbatim-quotes.js";
