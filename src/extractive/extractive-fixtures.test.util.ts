// Shared test fixtures (not shipped: the package excludes `*.test.*`).

import type { JsonSchemaFormat, LLMCallOptions } from "../llm/types.js";
import { STRUCTURED_REFINE_RESPONSE_SCHEMA } from "../prompt/default-prompts.js";

export const FRANCE = "Paris is the capital of France.";
export const CONTEXT = [
  "The Eiffel Tower was finished in 1889.",
  FRANCE,
  "Bananas are rich in potassium.",
  "Mount Everest is the highest mountain on Earth.",
].join(" ");
export const QUERY = "What is the capital of France?";

/** The options a text_qa call carries: its values and prompt type. */
export const qa = (query_str: string, context_str: string, extra: LLMCallOptions = {}): LLMCallOptions => ({
  templateVariables: { query_str, context_str },
  promptType: "text_qa",
  ...extra,
});

export const structured = STRUCTURED_REFINE_RESPONSE_SCHEMA as unknown as JsonSchemaFormat;
