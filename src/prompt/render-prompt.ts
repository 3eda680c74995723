import type { PromptTokenParts } from "../errors/context-overflow-error.js";
import type { ChatMessage, JsonSchemaFormat, LLMMetadata } from "../llm/types.js";
import type { Tokenizer } from "../tokenizer/tokenizer.js";
import { JSON_SCHEMA_INSTRUCTIONS_TMPL } from "./default-prompts.js";
import type { BasePromptTemplate, TemplateVariables } from "./prompt-template.js";

/** Exactly what a model receives: one completion string, or chat messages. */
export type RenderedPrompt = { kind: "completion"; text: string } | { kind: "chat"; messages: ChatMessage[] };

/** The parts of a model the renderer reads. */
export type RenderTarget = {
  metadata: Pick<LLMMetadata, "isChatModel"> & Partial<Pick<LLMMetadata, "structuredOutput">>;
};

export interface RenderPromptOptions {
  prompt: BasePromptTemplate;
  variables?: TemplateVariables;
  /** Picks the chat or completion form and how the prompt is wrapped. Without one: a completion model. */
  llm?: RenderTarget | undefined;
  /** Prepended as a system message (chat) or as `system + "\n\n"` (completion), as LlamaIndex does. */
  systemPrompt?: string | undefined;
  /** A JSON Schema sent with the call: natively, or as instructions appended to the prompt. */
  responseFormat?: JsonSchemaFormat | undefined;
  /** Fill every variable without a value with `""` instead of throwing: the prompt's fixed part. */
  empty?: boolean;
}

/** Tokens per chat message for roles and separators, and for priming the reply (OpenAI's accounting). */
export const CHAT_TOKENS_PER_MESSAGE = 3;
export const CHAT_TOKENS_REPLY_PRIMING = 3;

/** True when the schema travels as instructions inside the prompt rather than natively. */
export function sendsSchemaAsInstructions(
  llm: RenderTarget | undefined,
  responseFormat: JsonSchemaFormat | undefined,
) {
  return responseFormat !== undefined && llm?.metadata.structuredOutput !== "json_schema";
}

function schemaInstructions(responseFormat: JsonSchemaFormat): string {
  // Built by concatenation, not by the template formatter: the schema text is never re-scanned.
  const [before, after] = JSON_SCHEMA_INSTRUCTIONS_TMPL.split("{schema}") as [string, string];
  return before + JSON.stringify(responseFormat.schema) + after;
}

/**
 * Renders a prompt exactly as it will be sent. This is the single path for both the budget (with
 * `empty: true`) and the model call, so the budget counts what is sent, not an approximation.
 */
export function renderPrompt({
  prompt,
  variables = {},
  llm,
  systemPrompt,
  responseFormat,
  empty = false,
}: RenderPromptOptions): RenderedPrompt {
  const template = prompt.kind === "selector" ? prompt.select(llm) : prompt;
  const isChat = llm?.metadata.isChatModel ?? false;
  const instructions = sendsSchemaAsInstructions(llm, responseFormat)
    ? schemaInstructions(responseFormat as JsonSchemaFormat)
    : "";
  let messages: ChatMessage[];
  if (template.kind === "completion") {
    const text = (empty ? template.formatEmpty(variables) : template.format(variables)) + instructions;
    if (!isChat) return { kind: "completion", text: systemPrompt ? `${systemPrompt}\n\n${text}` : text };
    messages = [{ role: "user", content: text }];
  } else {
    messages = empty ? template.formatMessagesEmpty(variables) : template.formatMessages(variables);
    if (instructions) {
      const last = messages[messages.length - 1] as ChatMessage;
      messages[messages.length - 1] = { role: last.role, content: last.content + instructions };
    }
    if (!isChat) {
      const text = `${messages.map((message) => `${message.role}: ${message.content}`).join("\n")}\nassistant: `;
      return { kind: "completion", text: systemPrompt ? `${systemPrompt}\n\n${text}` : text };
    }
  }
  return {
    kind: "chat",
    messages: systemPrompt ? [{ role: "system", content: systemPrompt }, ...messages] : messages,
  };
}

/** Every token a rendered prompt costs, and how they divide up. */
export interface PromptTokenCount {
  total: number;
  parts: PromptTokenParts;
}

/**
 * Counts a rendered prompt as the server will: the text, plus for chat the role and per-message
 * wrapping, plus a natively sent JSON Schema.
 */
export function countPromptTokens(
  rendered: RenderedPrompt,
  tokenizer: Tokenizer,
  {
    systemPrompt,
    responseFormat,
    llm,
  }: Pick<RenderPromptOptions, "systemPrompt" | "responseFormat" | "llm"> = {},
): PromptTokenCount {
  const nativeSchema =
    responseFormat && !sendsSchemaAsInstructions(llm, responseFormat)
      ? tokenizer.count(JSON.stringify(responseFormat.schema)) + tokenizer.count(responseFormat.name)
      : 0;
  const instructionSchema =
    responseFormat && sendsSchemaAsInstructions(llm, responseFormat)
      ? tokenizer.count(schemaInstructions(responseFormat))
      : 0;
  const systemTokens = systemPrompt ? tokenizer.count(systemPrompt) : 0;
  if (rendered.kind === "completion") {
    const total = tokenizer.count(rendered.text) + nativeSchema;
    return {
      total,
      parts: {
        template: Math.max(0, total - nativeSchema - systemTokens - instructionSchema),
        systemPrompt: systemTokens,
        chatOverhead: 0,
        schema: nativeSchema + instructionSchema,
      },
    };
  }
  let content = 0;
  let overhead = CHAT_TOKENS_REPLY_PRIMING;
  for (const message of rendered.messages) {
    content += tokenizer.count(message.content);
    overhead += tokenizer.count(message.role) + CHAT_TOKENS_PER_MESSAGE;
  }
  return {
    total: content + overhead + nativeSchema,
    parts: {
      template: Math.max(0, content - systemTokens - instructionSchema),
      systemPrompt: systemTokens,
      chatOverhead: overhead,
      schema: nativeSchema + instructionSchema,
    },
  };
}

/** The rendered prompt as one string, for logs and token checks. */
export function renderedPromptText(rendered: RenderedPrompt): string {
  return rendered.kind === "completion"
    ? rendered.text
    : rendered.messages.map((message) => `${message.role}: ${message.content}`).join("\n");
}
