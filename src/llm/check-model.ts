import { checkObject } from "../errors/check-options.js";
import { checkString } from "../errors/check-string.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { ChatMessage, LLM, LLMMetadata } from "./types.js";

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

/** Throws unless `prompt` is a string: the first check of every model's `complete` and `streamComplete`. */
export function checkPromptText(prompt: unknown): asserts prompt is string {
  checkString("prompt", prompt);
}

/**
 * Throws unless `messages` is a non-empty array of `{ role, content }` (role "system", "user" or "assistant", content
 * a string): the first check of every model's `chat` and `streamChat`, naming the message (`messages[1].role`).
 */
export function checkChatMessages(messages: unknown): asserts messages is ChatMessage[] {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new InvalidArgumentError({
      parameter: "messages",
      value: messages,
      expected: 'be a non-empty array of { role: "system" | "user" | "assistant", content: string }',
      ...(typeof messages === "string" ? { hint: "To send one prompt, call complete(prompt)." } : {}),
    });
  }
  for (const [index, message] of messages.entries()) {
    const { role, content } = (message ?? {}) as Partial<ChatMessage>;
    if (role !== "system" && role !== "user" && role !== "assistant") {
      throw new InvalidArgumentError({
        parameter: `messages[${index}].role`,
        value: role,
        expected: 'be "system", "user" or "assistant"',
      });
    }
    checkString(`messages[${index}].content`, content);
  }
}

/**
 * Throws an {@link InvalidArgumentError} unless `metadata` is an object (a model's `metadata`, whose context window
 * and output the helpers read): for plain JavaScript callers of `fromLLMMetadata`.
 */
export function checkLLMMetadata(metadata: unknown): asserts metadata is LLMMetadata {
  checkObject(
    "metadata",
    metadata,
    "be a model's metadata ({ model, contextWindow, … })",
    "Pass llm.metadata.",
  );
}
