export * from "./default-prompts.js";
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
} from "./predict.js";
export {
  type BasePromptTemplate,
  type ChatMessageTemplate,
  ChatPromptTemplate,
  type PromptMixin,
  PromptTemplate,
  type PromptType,
  SelectorPromptTemplate,
  type TemplateVariables,
} from "./prompt-template.js";
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
} from "./render-prompt.js";
