export {
  type ChatBudgetOptions,
  ChatPromptHelper,
  type ChatPromptHelperOptions,
} from "./chat-prompt-helper.js";
export type { ContentChunk, ContentPacker } from "./content-packer.js";
export { type GetBiggestPromptOptions, getBiggestPrompt } from "./get-biggest-prompt.js";
export { countImageTokens, type ImageTokenCount, openAIHighDetailTokens } from "./image-tokens.js";
export {
  type BudgetOptions,
  DEFAULT_CHUNK_OVERLAP_RATIO,
  DEFAULT_PADDING,
  PromptHelper,
  type PromptHelperOptions,
} from "./prompt-helper.js";
export { contextVariableOf } from "./repack.js";
export {
  createTextPacker,
  type PackOptions,
  type PromptFrame,
  type TextPacker,
  type TextPackerOptions,
} from "./text-packer.js";
