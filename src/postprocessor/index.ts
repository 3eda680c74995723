export { DEFAULT_CHOICE_SELECT_PROMPT, DEFAULT_CHOICE_SELECT_PROMPT_TMPL } from "./choice-select-prompt.js";
export { LLMRerank, type LLMRerankOptions } from "./llm-rerank.js";
export { OptimizerZeroSentencesError } from "./optimizer-zero-sentences-error.js";
export { referencedImagesPostprocessor } from "./referenced-images-postprocessor.js";
export { RerankParseError } from "./rerank-parse-error.js";
export {
  type OptimizerOnEmpty,
  SentenceEmbeddingOptimizer,
  type SentenceEmbeddingOptimizerOptions,
} from "./sentence-embedding-optimizer.js";
export { SimilarityPostprocessor, type SimilarityPostprocessorOptions } from "./similarity-postprocessor.js";
export type { NodePostprocessor, PostprocessOptions } from "./types.js";
