/**
 * `ragsynth/extend`: the building blocks for people who extend ragsynth rather than use it — authors of a
 * custom synthesizer (a mode of their own), a provider (another model server), a retriever or a splitter.
 * Everything a user builds with is in the root `ragsynth`; what is here is public and semver-stable too,
 * but deliberately kept out of the root so the root stays the product.
 *
 * - custom synthesizers: `createSynthesizer` and its context types, `DEFAULT_ACCUMULATE_SEPARATOR`, `MIN_SUMMARY_TOKENS`,
 *   `nodesToBlocks`;
 * - the budget: `getBiggestPrompt`, `renderPrompt`, `countPromptTokens`, `joinChunks`, `contextVariableOf`,
 *   `predict`/`streamPredict`/`predictObject`, `resolveTokenizer`, image token counts;
 * - providers: `retryWithBackoff`, `createAbortError`, `lookupModelLimits`, `messagesToPrompt`,
 *   `DEFAULT_CONTEXT_WINDOW`, `DEFAULT_NUM_OUTPUT`, `parseModelSpec`;
 * - retrievers and splitters: `getTopKEmbeddings`, `getTopKEmbeddingsMmr`, `similarity`, `lexicalTokens`,
 *   `splitSentences`, …;
 * - call caches and queues: `callCacheKey` (for a store of your own), `DEFAULT_QUEUE`.
 * @packageDocumentation
 */

export { callCacheKey } from "../batch/call-cache.js";
export { DEFAULT_QUEUE } from "../batch/job-data.js";
export type { ContentChunk, ContentPacker } from "../budget/content-packer.js";
export { type GetBiggestPromptOptions, getBiggestPrompt } from "../budget/get-biggest-prompt.js";
export { countImageTokens, type ImageTokenCount, openAIHighDetailTokens } from "../budget/image-tokens.js";
export { DEFAULT_CHUNK_OVERLAP_RATIO, DEFAULT_PADDING, reserveOutput } from "../budget/prompt-helper.js";
export { contextVariableOf } from "../budget/repack.js";
export { joinChunks, type PromptFrame } from "../budget/text-packer.js";
export {
  type GetAggregateQueryEmbeddingOptions,
  getAggregateQueryEmbedding,
  meanAggregate,
} from "../embedding/aggregate.js";
export {
  type EmbeddingId,
  type GetTopKEmbeddingsOptions,
  getTopKEmbeddings,
  type TopKEmbeddingsResult,
} from "../embedding/get-top-k-embeddings.js";
export {
  type GetTopKEmbeddingsMmrOptions,
  getTopKEmbeddingsMmr,
} from "../embedding/get-top-k-mmr-embeddings.js";
export { QueryEmbeddings } from "../embedding/query-embeddings.js";
export { SIMILARITY_MODES, similarity } from "../embedding/similarity.js";
export { contentHash } from "../index-store/embedding-cache.js";
export { INDEX_FILE_NAME } from "../index-store/store-index.js";
export { lexicalTokens } from "../lexical/lexical-tokens.js";
export { type MessagesToPromptOptions, messagesToPrompt } from "../llm/messages-to-prompt.js";
export { lookupModelLimits, type ModelLimits, type ModelLimitsTable } from "../llm/model-context-windows.js";
export { DEFAULT_CONTEXT_WINDOW, DEFAULT_NUM_OUTPUT } from "../llm/types.js";
export type { SynthesizerCallOptions, SynthesizerCallResult } from "../model-call/call-model.js";
export { OPENAI_BASE_URL } from "../openai/openai-connection.js";
export { OLLAMA_DEFAULT_NUM_CTX } from "../openai/openai-like-options.js";
export { type ModelSpec, parseModelSpec } from "../openai/parse-model-spec.js";
export {
  extractJson,
  type PredictOptions,
  type PredictResult,
  parseObject,
  predict,
  predictObject,
  preparePrompt,
  streamPredict,
  toResponseFormat,
} from "../prompt/predict.js";
export {
  CHAT_TOKENS_PER_MESSAGE,
  CHAT_TOKENS_REPLY_PRIMING,
  countPromptTokens,
  type PromptContent,
  type PromptTokenCount,
  type RenderedPrompt,
  type RenderPromptOptions,
  type RenderTarget,
  renderedPromptText,
  renderPrompt,
} from "../prompt/render-prompt.js";
export { builtInFormats, builtInReader } from "../reader/formats/registry.js";
export { nodesToBlocks } from "../schema/nodes-to-blocks.js";
export { type SplitSentencesOptions, splitSentences } from "../splitter/sentences.js";
export {
  type SplitFunction,
  splitByCharacter,
  splitBySeparator,
  splitTextKeepSeparator,
} from "../splitter/split-functions.js";
export { DEFAULT_METADATA_FORMAT_LEN, truncateText } from "../splitter/token-text-splitter.js";
export { DEFAULT_ACCUMULATE_SEPARATOR } from "../synthesizer/accumulate.js";
export {
  type CreateSynthesizerOptions,
  createSynthesizer,
  type SynthesizerRunResult,
  type SynthesizerSettings,
} from "../synthesizer/create-synthesizer.js";
export { MIN_SUMMARY_TOKENS } from "../synthesizer/summarize-levels.js";
export type { SynthesizerContext } from "../synthesizer/synthesizer-context.js";
export { isTokenizerName, resolveTokenizer, tokenizerNameForModel } from "../tokenizer/resolve-tokenizer.js";
export { countUpTo, DEFAULT_TOKENIZER_NAME } from "../tokenizer/tokenizer.js";
export { createAbortError } from "../util/abort.js";
export {
  AdaptiveConcurrencyLimiter,
  type AdaptiveConcurrencyOptions,
  type ConcurrencyLimiter,
  isCongestion,
  type LimiterLease,
  limiterForModel,
  type RetryNotice,
} from "../util/concurrency-limiter.js";
export { type RetryEvent, type RetryInternals, type RetryOptions, retryWithBackoff } from "../util/retry.js";
