import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { ChatMessage } from "./types.js";

/** Options of {@link messagesToPrompt}. */
export interface MessagesToPromptOptions {
  /**
   * End with `"\nassistant: "`, the open turn a completion model continues: what a chat prompt becomes when it
   * is sent to a completion model. @default false
   */
  assistantTurn?: boolean | undefined;
}

/**
 * Chat messages flattened to one text, `role: content` a line, as LlamaIndex's `messages_to_prompt`. The one
 * home of this rule: prompts rendered for completion models, `OpenAILike` sending a chat to a completion
 * model, the offline answerer, `MockLLM`'s recorded prompts and the prompt text in logs all use it.
 * @example messagesToPrompt([{ role: "user", content: "Hi" }], { assistantTurn: true }) // "user: Hi\nassistant: "
 */
export function messagesToPrompt(
  messages: readonly Pick<ChatMessage, "role" | "content">[],
  options: MessagesToPromptOptions = {},
): string {
  if (!Array.isArray(messages)) {
    throw new InvalidArgumentError({
      parameter: "messages",
      value: messages,
      expected: 'be an array of { role: "system" | "user" | "assistant", content: string }',
    });
  }
  const { assistantTurn = false } = optionsOf("options", options, "{ assistantTurn? }");
  const text = messages.map((message) => `${message.role}: ${message.content}`).join("\n");
  return assistantTurn ? `${text}\nassistant: ` : text;
}
