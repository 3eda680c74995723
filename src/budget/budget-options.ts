import type { JsonSchemaFormat } from "../llm/types.js";
import type { TemplateVariables } from "../prompt/prompt-template.js";
import type { RenderTarget } from "../prompt/render-prompt.js";

/** Tokens LlamaIndex keeps free in each chunk for formatting slack. */
export const DEFAULT_PADDING = 5;

/** What the budget of one call depends on, besides the template. */
export interface BudgetOptions {
  /** Chunks that share the context. @default 1 */
  numChunks?: number | undefined;
  /** Tokens kept free in each chunk. @default 5 (`DEFAULT_PADDING`) */
  padding?: number | undefined;
  /** The model: picks the chat or completion form and how chat messages are wrapped. Without one: completion. */
  llm?: RenderTarget | undefined;
  /** A system prompt sent with the call; counted. */
  systemPrompt?: string | undefined;
  /** A JSON Schema sent with the call (natively or as instructions); counted. */
  responseFormat?: JsonSchemaFormat | undefined;
  /** Values already known (`query_str`, `existing_answer`): counted as filled. The rest count as empty. */
  variables?: TemplateVariables | undefined;
}
