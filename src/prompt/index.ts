export * from "./default-prompts.js";
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
