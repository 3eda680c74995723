export {
  type ChatBudgetOptions,
  ChatPromptHelper,
  type ChatPromptHelperOptions,
} from "./chat-prompt-helper.js";
export { type BudgetOptions, PromptHelper, type PromptHelperOptions } from "./prompt-helper.js";
