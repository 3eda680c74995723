/** Token usage and call totals: a leaf that the model contract, the events and the synthesizers all stand on. */

/** Token usage of one call, as the server reported it. */
export interface LLMUsage {
  promptTokens?: number;
  completionTokens?: number;
  /** Attempts that failed and were retried before this call succeeded. */
  retries?: number;
  /** Why the model stopped (`stop`, `length`, …), when the server said; traced as `gen_ai.response.finish_reasons`. */
  finishReason?: string;
  /** The server's id of the completion (`chatcmpl-…`), when it sent one; traced as `gen_ai.response.id`. */
  responseId?: string;
  /** The model that answered, as the server named it (`gpt-4o-mini-2024-07-18`); traced as `gen_ai.response.model`. */
  responseModel?: string;
  /**
   * Reported counts that are not plausible token counts (negative, fractional, over 10^9 for one call), as
   * `prompt_tokens: -3`. They were left out of `promptTokens`/`completionTokens`, so the tokenizer's count is used.
   */
  ignoredUsage?: string[];
}

/** Token and call totals, as carried by responses and end events. */
export interface SynthesisUsage {
  /** Model calls made, including calls stopped early (structured answer filtering) and failed ones. */
  llmCalls: number;
  /** Prompt tokens: as the server reported them when it did, otherwise as counted by the budget's tokenizer. */
  promptTokens: number;
  /** Completion tokens: as reported, otherwise counted from the answer text. */
  completionTokens: number;
  /** Attempts retried by the provider (rate limits, 5xx, dropped connections). */
  retries: number;
}
