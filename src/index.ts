/**
 * `ragsynth`: what a user builds with — models, the synthesizer and its budget, prompts, nodes, splitters, the
 * index and retrievers, reading documents, query engines (with citations), postprocessors, evaluation and the
 * errors to catch. Each value is listed here on purpose (no `export *`; types come with their rooms through
 * `export type *`), so a helper added to a room stays internal until it is meant for users. The other doors:
 * `ragsynth/extend` (building blocks for custom synthesizers, providers, retrievers and splitters, and the default
 * prompts' plain texts), `ragsynth/batch` (runners, queues and call caches on Redis/BullMQ), `ragsynth/langchain`,
 * `ragsynth/testing`.
 * @packageDocumentation
 */

export type * from "./ai-sdk/index.js";
export { fromAiSdk } from "./ai-sdk/index.js";
export type * from "./budget/index.js";
export { ChatPromptHelper, PromptHelper } from "./budget/index.js";
export type * from "./citations/index.js";
export {
  CITATION_QA_TEMPLATE,
  CITATION_REFINE_TEMPLATE,
  CitationQueryEngine,
  CitationTextCleaner,
  citeVerbatimQuotes,
  cleanCitationText,
  formatSource,
  parseCitationMarkers,
} from "./citations/index.js";
export type { Embedder, EmbedOptions, SimilarityMode } from "./embedding/index.js";
export { HashingEmbedder, type HashingEmbedderOptions } from "./embedding/index.js";
export type * from "./errors/index.js";
export {
  ContextOverflowError,
  InvalidArgumentError,
  LLMError,
  MissingTemplateVariableError,
  NoObjectGeneratedError,
  RagsynthError,
} from "./errors/index.js";
export type * from "./eval/index.js";
export { evaluate, generateQuestions, llmCitationJudge, parseEvalQuestions } from "./eval/index.js";
export type * from "./events/index.js";
export { ExtractiveLLM, type ExtractiveLLMOptions } from "./extractive/index.js";
export type * from "./index-store/index.js";
export { EmbeddingCache, IndexSaveError, VectorStoreIndex } from "./index-store/index.js";
export type * from "./llm/index.js";
export type * from "./openai/index.js";
export { OpenAILike, OpenAILikeEmbedding } from "./openai/index.js";
export type * from "./postprocessor/index.js";
export {
  DEFAULT_CHOICE_SELECT_PROMPT,
  LLMRerank,
  OptimizerZeroSentencesError,
  RerankParseError,
  referencedImagesPostprocessor,
  SentenceEmbeddingOptimizer,
  SimilarityPostprocessor,
} from "./postprocessor/index.js";
export {
  CHAT_CONTENT_QA_PROMPT,
  CHAT_CONTENT_REFINE_PROMPT,
  CHAT_CONTENT_TREE_SUMMARIZE_PROMPT,
  CHAT_REFINE_PROMPT,
  CHAT_TEXT_QA_PROMPT,
  CHAT_TREE_SUMMARIZE_PROMPT,
  DEFAULT_REFINE_PROMPT,
  DEFAULT_REFINE_PROMPT_SEL,
  DEFAULT_SIMPLE_INPUT_PROMPT,
  DEFAULT_TEXT_QA_PROMPT,
  DEFAULT_TEXT_QA_PROMPT_SEL,
  DEFAULT_TREE_SUMMARIZE_PROMPT,
  DEFAULT_TREE_SUMMARIZE_PROMPT_SEL,
  STRUCTURED_REFINE_RESPONSE_SCHEMA,
} from "./prompt/default-prompts.js";
export {
  type BasePromptTemplate,
  type ChatMessageTemplate,
  ChatPromptTemplate,
  type PromptMixin,
  PromptTemplate,
  type PromptType,
  SelectorPromptTemplate,
  type TemplateVariables,
} from "./prompt/index.js";
export type * from "./query-engine/index.js";
export { RetrieverQueryEngine } from "./query-engine/index.js";
export type * from "./reader/index.js";
export { ReaderSkipError, readDocuments, withReferencedImages } from "./reader/index.js";
export type * from "./retrieval/index.js";
export {
  collapseCopies,
  createFusionRetriever,
  createLexicalRetriever,
  LexicalIndex,
} from "./retrieval/index.js";
export type * from "./schema/index.js";
export { formatNodeLocation, getNodeLocation, ImageNode, MetadataMode, TextNode } from "./schema/index.js";
export type * from "./splitter/index.js";
export { BlockSplitter, SentenceSplitter, TokenTextSplitter } from "./splitter/index.js";
export type * from "./synthesizer/index.js";
export { getResponseSynthesizer, RESPONSE_MODES } from "./synthesizer/index.js";
export type * from "./tokenizer/index.js";
