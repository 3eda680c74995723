import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { LLM } from "./types.js";

/** Whether `value` implements {@link LLM}: metadata with a context window and the chat flag, and the four calls. */
export function isModel(value: unknown): value is LLM {
  const model = value as Partial<Record<keyof LLM, unknown>> | null;
  const metadata = model?.metadata as Partial<LLM["metadata"]> | undefined;
  return (
    typeof metadata?.contextWindow === "number" &&
    typeof metadata.isChatModel === "boolean" &&
    ["complete", "streamComplete", "chat", "streamChat"].every(
      (method) => typeof model?.[method as keyof LLM] === "function",
    )
  );
}

/**
 * Throws an {@link InvalidArgumentError} unless `value` implements {@link LLM}: for plain JavaScript callers, whose
 * options object or missing model would otherwise fail at `llm.metadata` with a TypeError.
 */
export function checkModel(parameter: string, value: unknown): asserts value is LLM {
  if (!isModel(value)) {
    throw new InvalidArgumentError({
      parameter,
      value,
      expected:
        "implement LLM: metadata { model, contextWindow, isChatModel } and complete, streamComplete, chat, streamChat",
      hint: 'Pass a model such as new OpenAILike({ model: "gpt-4o-mini" }), not its options object.',
    });
  }
}
