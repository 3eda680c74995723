export type {
  ChatMessage,
  JsonSchemaFormat,
  LLM,
  LLMCallOptions,
  LLMMetadata,
  LLMResult,
  LLMUsage,
  MessageRole,
} from "./types.js";
