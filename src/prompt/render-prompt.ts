import { checkMethod, optionsOf } from "../errors/check-options.js";
import type { PromptTokenParts } from "../errors/context-overflow-error.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { messagesToPrompt } from "../llm/messages-to-prompt.js";
import { toStrictJsonSchema } from "../llm/strict-json-schema.js";
import type { ChatMessage, JsonSchemaFormat, LLMMetadata } from "../llm/types.js";
import { blocksToText, type ContentBlock, describeImage, type ImageBlock } from "../schema/content-block.js";
import type { Tokenizer } from "../tokenizer/tokenizer.js";
import { checkPrompt } from "./check-prompt.js";
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
  /**
   * Content blocks (text and images) placed where `variable` is in the template. For a chat model the message
   * holding the variable gets `blocks`: the text before it, these blocks, the text after it, each its own
   * block, so each is counted on its own. A completion model gets the blocks flattened to text.
   */
  content?: PromptContent | undefined;
}

/** Blocks for one template variable of a multimodal prompt. */
export interface PromptContent {
  /** The variable the blocks replace (`context_str`, `context_msg`). */
  variable: string;
  blocks: readonly ContentBlock[];
}

const CONTENT_MARK = "\u0000ragsynth-content\u0000";

function placeContent(messages: ChatMessage[], content: PromptContent): ChatMessage[] {
  return messages.map((message) => {
    const at = message.content.indexOf(CONTENT_MARK);
    if (at === -1) return message;
    const before = message.content.slice(0, at);
    const after = message.content.slice(at + CONTENT_MARK.length);
    const blocks: ContentBlock[] = [
      ...(before === "" ? [] : [{ type: "text" as const, text: before }]),
      ...content.blocks,
      ...(after === "" ? [] : [{ type: "text" as const, text: after }]),
    ];
    return { role: message.role, content: before + blocksToText(content.blocks) + after, blocks };
  });
}

function appendText(message: ChatMessage, text: string): ChatMessage {
  if (!message.blocks) return { role: message.role, content: message.content + text };
  return {
    role: message.role,
    content: message.content + text,
    blocks: [...message.blocks, { type: "text", text }],
  };
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
export function renderPrompt(options: RenderPromptOptions): RenderedPrompt {
  let {
    prompt,
    variables = {},
    llm,
    systemPrompt,
    responseFormat,
    empty = false,
    content,
  } = optionsOf("options", options, "{ prompt, variables?, llm?, … }");
  checkPrompt("prompt", prompt);
  if (content) variables = { ...variables, [content.variable]: CONTENT_MARK };
  const template = prompt.kind === "selector" ? prompt.select(llm) : prompt;
  const isChat = llm?.metadata.isChatModel ?? false;
  const instructions = sendsSchemaAsInstructions(llm, responseFormat)
    ? schemaInstructions(responseFormat as JsonSchemaFormat)
    : "";
  let messages: ChatMessage[];
  if (template.kind === "completion") {
    const formatted = empty ? template.formatEmpty(variables) : template.format(variables);
    if (!isChat) {
      const text = flatten(formatted, content) + instructions;
      return { kind: "completion", text: systemPrompt ? `${systemPrompt}\n\n${text}` : text };
    }
    messages = [{ role: "user", content: formatted }];
  } else {
    messages = empty ? template.formatMessagesEmpty(variables) : template.formatMessages(variables);
  }
  if (content)
    messages = isChat
      ? placeContent(messages, content)
      : messages.map((message) => ({ role: message.role, content: flatten(message.content, content) }));
  if (instructions) {
    messages[messages.length - 1] = appendText(messages[messages.length - 1] as ChatMessage, instructions);
  }
  if (!isChat) {
    const text = messagesToPrompt(messages, { assistantTurn: true });
    return { kind: "completion", text: systemPrompt ? `${systemPrompt}\n\n${text}` : text };
  }
  return {
    kind: "chat",
    messages: systemPrompt ? [{ role: "system", content: systemPrompt }, ...messages] : messages,
  };
}

function flatten(text: string, content: PromptContent | undefined): string {
  return content ? text.replace(CONTENT_MARK, () => blocksToText(content.blocks)) : text;
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
  options: Pick<RenderPromptOptions, "systemPrompt" | "responseFormat" | "llm"> & {
    /** The tokens of an image block (the model's image-token rule); required when the prompt has images. */
    countImage?: ((image: ImageBlock) => number) | undefined;
  } = {},
): PromptTokenCount {
  const shape = rendered as { kind?: unknown; text?: unknown; messages?: unknown } | null | undefined;
  if (
    !(
      (shape?.kind === "completion" && typeof shape.text === "string") ||
      (shape?.kind === "chat" && Array.isArray(shape.messages))
    )
  ) {
    throw new InvalidArgumentError({
      parameter: "rendered",
      value: rendered,
      expected: "be a rendered prompt",
      hint: "renderPrompt({ prompt, variables, llm }) gives one.",
    });
  }
  checkMethod(
    "tokenizer",
    tokenizer,
    "count",
    "be a Tokenizer (an object with count(text))",
    'resolveTokenizer("cl100k_base") gives one.',
  );
  const { systemPrompt, responseFormat, llm, countImage } = optionsOf(
    "options",
    options,
    "{ systemPrompt?, responseFormat?, llm?, countImage? }",
  );
  const nativeSchema =
    responseFormat && !sendsSchemaAsInstructions(llm, responseFormat)
      ? tokenizer.count(JSON.stringify(toStrictJsonSchema(responseFormat.schema) ?? responseFormat.schema)) +
        tokenizer.count(responseFormat.name)
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
    content += message.blocks
      ? countBlocks(message.blocks, tokenizer, countImage)
      : tokenizer.count(message.content);
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

function countBlocks(
  blocks: readonly ContentBlock[],
  tokenizer: Tokenizer,
  countImage: ((image: ImageBlock) => number) | undefined,
): number {
  let total = 0;
  for (const block of blocks) {
    if (block.type === "text") total += tokenizer.count(block.text);
    else if (countImage) total += countImage(block);
    else {
      throw new InvalidArgumentError({
        parameter: "countImage",
        value: undefined,
        expected: `be given to count a prompt with images (${describeImage(block)})`,
        hint: "Count multimodal prompts with PromptHelper.countContentPrompt, which knows the image-token rule.",
      });
    }
  }
  return total;
}

/** The rendered prompt as one string, for logs and token checks. */
export function renderedPromptText(rendered: RenderedPrompt): string {
  return rendered.kind === "completion" ? rendered.text : messagesToPrompt(rendered.messages);
}
