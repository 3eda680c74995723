import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { BasePromptTemplate } from "./prompt-template.js";

/** Throws unless `value` is one of the prompt template classes. */
export function checkPrompt(parameter: string, value: unknown): asserts value is BasePromptTemplate {
  const kind = typeof value === "object" && value !== null ? (value as { kind?: unknown }).kind : undefined;
  if (kind !== "completion" && kind !== "chat" && kind !== "selector") {
    throw new InvalidArgumentError({
      parameter,
      value,
      expected: "be a PromptTemplate, ChatPromptTemplate or SelectorPromptTemplate",
      ...(typeof value === "string"
        ? { hint: "Wrap the text: new PromptTemplate({ template })." }
        : typeof value === "function"
          ? {
              hint: 'A template is not a function here: write it as text, new PromptTemplate({ template: "… {context_str} … {query_str} …" }).',
            }
          : {}),
    });
  }
}
