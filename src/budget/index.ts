export type { BudgetOptions } from "./budget-options.js";
export {
  type ChatBudgetOptions,
  ChatPromptHelper,
  type ChatPromptHelperOptions,
} from "./chat-prompt-helper.js";
export { PromptHelper, type PromptHelperOptions } from "./prompt-helper.js";
