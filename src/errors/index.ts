export { ContextOverflowError, type PromptTokenParts } from "./context-overflow-error.js";
export { InvalidArgumentError } from "./invalid-argument-error.js";
export { LLMError } from "./llm-error.js";
export { MissingTemplateVariableError } from "./missing-template-variable-error.js";
export { NoObjectGeneratedError } from "./no-object-generated-error.js";
export { type LLMErrorCode, RagsynthError, type RagsynthErrorCode } from "./ragsynth-error.js";
