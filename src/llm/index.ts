export { ExtractiveLLM, type ExtractiveLLMOptions } from "./extractive-llm.js";
export {
  type AiSdkCallArguments,
  type AiSdkFunctions,
  type AiSdkUsage,
  type FromAiSdkOptions,
  fromAiSdk,
} from "./from-ai-sdk.js";
export {
  lookupModelLimits,
  MODEL_CONTEXT_WINDOWS,
  type ModelLimits,
  type ModelLimitsTable,
} from "./model-context-windows.js";
export { OPENAI_BASE_URL, type OpenAIConnectionOptions } from "./openai-connection.js";
export { OpenAILike } from "./openai-like.js";
export { OLLAMA_DEFAULT_NUM_CTX, type OpenAILikeOptions } from "./openai-like-options.js";
export { type ModelSpec, parseModelSpec } from "./parse-model-spec.js";
export {
  type RetryEvent,
  type RetryInternals,
  type RetryOptions,
  retryWithBackoff,
} from "./retry.js";
export * from "./types.js";
