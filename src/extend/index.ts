/**
 * `ragsynth/extend`: the building blocks for people who extend ragsynth rather than use it — authors of a
 * custom synthesizer (a mode of their own), a provider (another model server), a retriever or a splitter.
 * Everything a user builds with is in the root `ragsynth`; what is here is public and semver-stable too,
 * but deliberately kept out of the root so the root stays the product. Only what the README and docs/ name is here
 * (the table in the README's "Extending ragsynth"); the rest of each room stays internal.
 *
 * - custom synthesizers: `createSynthesizer` and its context types, `DEFAULT_ACCUMULATE_SEPARATOR`, `MIN_SUMMARY_TOKENS`,
 *   `nodesToBlocks`;
 * - the budget: `getBiggestPrompt`, `renderPrompt`, `countPromptTokens`, `joinChunks`, `contextVariableOf`,
 *   `preparePrompt`, `predict`/`streamPredict`/`predictObject`, `resolveTokenizer`;
 * - the default prompts' texts as plain strings (`DEFAULT_TEXT_QA_PROMPT_TMPL`, `DEFAULT_REFINE_PROMPT_TMPL`,
 *   `DEFAULT_TREE_SUMMARIZE_TMPL`, `CHAT_REFINE_PROMPT_TMPL`, `TEXT_QA_SYSTEM_PROMPT`; the templates are in the root);
 * - providers: `retryWithBackoff`, `createAbortError`, `lookupModelLimits`, `messagesToPrompt`,
 *   `DEFAULT_CONTEXT_WINDOW`, `DEFAULT_NUM_OUTPUT`, `parseModelSpec`;
 * - retrievers and splitters: `getTopKEmbeddings`, `getTopKEmbeddingsMmr`, `similarity`,
 *   `getAggregateQueryEmbedding`, `lexicalTokens`, `splitSentences`, `splitBySeparator`, `truncateText`;
 * - readers: `builtInReader` (a built-in reader to map another file ending onto).
 *
 * Call caches and queues (`callCacheKey`, `DEFAULT_QUEUE`) are in `ragsynth/batch`.
 * @packageDocumentation
 */

export { lexicalTokens } from "../analysis/lexical-tokens.js";
export type { ContentChunk, ContentPacker } from "../budget/content-packer.js";
export { type GetBiggestPromptOptions, getBiggestPrompt } from "../budget/get-biggest-prompt.js";
export { contextVariableOf } from "../budget/repack.js";
export { joinChunks, type PromptFrame } from "../budget/text-packer.js";
export {
  type GetAggregateQueryEmbeddingOptions,
  getAggregateQueryEmbedding,
} from "../embedding/aggregate.js";
export { similarity } from "../embedding/similarity.js";
export { type MessagesToPromptOptions, messagesToPrompt } from "../llm/messages-to-prompt.js";
export { lookupModelLimits, type ModelLimits, type ModelLimitsTable } from "../llm/model-context-windows.js";
export { DEFAULT_CONTEXT_WINDOW, DEFAULT_NUM_OUTPUT } from "../llm/types.js";
export type { SynthesizerCallOptions, SynthesizerCallResult } from "../model-call/call-model.js";
export { type ModelSpec, parseModelSpec } from "../openai/parse-model-spec.js";
export {
  CHAT_REFINE_PROMPT_TMPL,
  DEFAULT_REFINE_PROMPT_TMPL,
  DEFAULT_TEXT_QA_PROMPT_TMPL,
  DEFAULT_TREE_SUMMARIZE_TMPL,
  TEXT_QA_SYSTEM_PROMPT,
} from "../prompt/default-prompts.js";
export {
  type PredictOptions,
  type PredictResult,
  predict,
  predictObject,
  preparePrompt,
  streamPredict,
} from "../prompt/predict.js";
export {
  countPromptTokens,
  type PromptContent,
  type PromptTokenCount,
  type RenderedPrompt,
  type RenderPromptOptions,
  type RenderTarget,
  renderPrompt,
} from "../prompt/render-prompt.js";
export { builtInReader } from "../reader/formats/registry.js";
export {
  type EmbeddingId,
  type GetTopKEmbeddingsOptions,
  getTopKEmbeddings,
  type TopKEmbeddingsResult,
} from "../retrieval/get-top-k-embeddings.js";
export {
  type GetTopKEmbeddingsMmrOptions,
  getTopKEmbeddingsMmr,
} from "../retrieval/get-top-k-mmr-embeddings.js";
export { nodesToBlocks } from "../schema/nodes-to-blocks.js";
export { type SplitSentencesOptions, splitSentences } from "../splitter/sentences.js";
export { type SplitFunction, splitBySeparator } from "../splitter/split-functions.js";
export { truncateText } from "../splitter/token-text-splitter.js";
export { DEFAULT_ACCUMULATE_SEPARATOR } from "../synthesizer/accumulate.js";
export {
  type CreateSynthesizerOptions,
  createSynthesizer,
  type SynthesizerRunResult,
  type SynthesizerSettings,
} from "../synthesizer/create-synthesizer.js";
export { MIN_SUMMARY_TOKENS } from "../synthesizer/summarize-levels.js";
export type { SynthesizerContext } from "../synthesizer/synthesizer-context.js";
export { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
export { createAbortError } from "../util/abort.js";
export type { ConcurrencyLimiter, LimiterLease, RetryNotice } from "../util/concurrency-limiter.js";
export { type RetryEvent, type RetryInternals, type RetryOptions, retryWithBackoff } from "../util/retry.js";
