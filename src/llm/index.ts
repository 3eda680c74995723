export type { ModelMetadataOptions } from "./resolve-model-metadata.js";
export type {
  ChatMessage,
  JsonSchemaFormat,
  LLM,
  LLMCallOptions,
  LLMMetadata,
  LLMResult,
  LLMUsage,
  MessageRole,
  RetryHookResult,
} from "./types.js";
