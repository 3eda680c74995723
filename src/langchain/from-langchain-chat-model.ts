import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { checkChatMessages, checkPromptText } from "../llm/check-model.js";
import { lookupModelLimits, type ModelLimitsTable } from "../llm/model-context-windows.js";
import {
  type ChatMessage,
  DEFAULT_CONTEXT_WINDOW,
  type LLM,
  type LLMCallOptions,
  type LLMMetadata,
  type LLMUsage,
} from "../llm/types.js";
import { tokenizerNameForModel } from "../tokenizer/resolve-tokenizer.js";
import { abortable, createAbortError, createCallSignal } from "../util/abort.js";

/** The parts of a LangChain message ragsynth reads (an `AIMessage` or `AIMessageChunk`). */
export interface LangChainAIMessageLike {
  content: unknown;
  /** Token usage, as LangChain standardises it across providers. */
  usage_metadata?: { input_tokens?: number; output_tokens?: number } | undefined;
  /** Provider details; `finish_reason` (OpenAI) or `stop_reason` (Anthropic) say why the model stopped. */
  response_metadata?: Record<string, unknown> | undefined;
}

/** A message as LangChain accepts it on input: `[role, content]` is one of its message-like forms. */
export type LangChainMessageInput = [role: "system" | "user" | "assistant", content: string];

/**
 * The parts of a LangChain chat model ragsynth calls: any `BaseChatModel` (`ChatOpenAI`, `ChatAnthropic`,
 * `ChatOllama`, …) has them. A structural type, so ragsynth never imports `@langchain/core` for it.
 */
export interface LangChainChatModelLike {
  invoke(
    input: string | LangChainMessageInput[],
    options?: { signal?: AbortSignal },
  ): Promise<LangChainAIMessageLike>;
  stream(
    input: string | LangChainMessageInput[],
    options?: { signal?: AbortSignal },
  ): Promise<AsyncIterable<LangChainAIMessageLike>>;
  /** LangChain's model profile (`maxInputTokens`, `maxOutputTokens`), filled in by provider packages. */
  readonly profile?: { maxInputTokens?: number | undefined; maxOutputTokens?: number | undefined };
  /** LangSmith parameters: the model name and the configured `maxTokens`. */
  getLsParams?(options: Record<string, unknown>): {
    ls_provider?: string;
    ls_model_name?: string;
    ls_max_tokens?: number;
  };
  getName?(): string;
}

/** Options of {@link fromLangChainChatModel}. */
export interface FromLangChainChatModelOptions {
  /** The model id for metadata, tokenizer choice and table lookup. @default the model's LangSmith `ls_model_name`, else its name */
  modelId?: string | undefined;
  /** @default the model's profile `maxInputTokens`, else the model table, else 3900 (stated in `metadata.assumptions`) */
  contextWindow?: number | undefined;
  /** @default the model's configured `maxTokens`, else its profile `maxOutputTokens`, else the model table */
  maxOutputTokens?: number | undefined;
  modelLimits?: ModelLimitsTable | undefined;
  /** Deadline of each call in milliseconds, the whole stream included. */
  timeoutMs?: number | undefined;
}

/** The text of a LangChain message: its `content` string, or the text blocks of a content array. */
function messageText(message: LangChainAIMessageLike): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) =>
      typeof block === "string"
        ? block
        : block && typeof block === "object" && (block as { type?: unknown }).type === "text"
          ? String((block as { text?: unknown }).text ?? "")
          : "",
    )
    .join("");
}

function addUsage(total: LLMUsage, message: LangChainAIMessageLike): void {
  const reason = message.response_metadata?.finish_reason ?? message.response_metadata?.stop_reason;
  if (typeof reason === "string" && reason !== "") total.finishReason = reason;
  const usage = message.usage_metadata;
  if (typeof usage?.input_tokens === "number")
    total.promptTokens = (total.promptTokens ?? 0) + usage.input_tokens;
  if (typeof usage?.output_tokens === "number")
    total.completionTokens = (total.completionTokens ?? 0) + usage.output_tokens;
}

function lsParams(
  model: LangChainChatModelLike,
): ReturnType<NonNullable<LangChainChatModelLike["getLsParams"]>> {
  try {
    return model.getLsParams?.({}) ?? {};
  } catch {
    return {};
  }
}

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** What the model says about its limits, with what was assumed said in `assumptions`. */
function describeModel(model: LangChainChatModelLike, options: FromLangChainChatModelOptions): LLMMetadata {
  const params = lsParams(model);
  const modelId = options.modelId ?? params.ls_model_name ?? model.getName?.() ?? "langchain-chat-model";
  const profile = model.profile ?? {};
  const table = lookupModelLimits(modelId, options.modelLimits);
  const known = options.contextWindow ?? positive(profile.maxInputTokens) ?? table?.contextWindow;
  const metadata: LLMMetadata = {
    model: modelId,
    ...(params.ls_provider ? { provider: params.ls_provider } : {}),
    contextWindow: known ?? DEFAULT_CONTEXT_WINDOW,
    isChatModel: true,
    tokenizer: tokenizerNameForModel(modelId),
    structuredOutput: "instructions",
    kind: "generative",
  };
  const maxOutputTokens =
    options.maxOutputTokens ??
    positive(params.ls_max_tokens) ??
    positive(profile.maxOutputTokens) ??
    table?.maxOutputTokens;
  if (maxOutputTokens !== undefined) metadata.maxOutputTokens = maxOutputTokens;
  if (known === undefined) {
    metadata.assumptions = [
      `contextWindow ${DEFAULT_CONTEXT_WINDOW} assumed for LangChain model ${modelId} (no profile.maxInputTokens); pass contextWindow`,
    ];
  }
  return metadata;
}

/**
 * Adapts a LangChain.js chat model to ragsynth's {@link LLM}: `invoke` for answers, `stream` for deltas,
 * the abort signal passed through, and LangChain's `usage_metadata` reported as usage. The context window
 * comes from the model's profile when the provider package fills it in; otherwise pass `contextWindow`
 * (the assumed 3900 is stated in `metadata.assumptions`).
 * Differs from the other providers: LangChain has no per-call output limit, so configure `maxTokens` on
 * the model (ragsynth reads it and reserves that many tokens); retries follow the model's own `maxRetries`.
 * @example
 * import { ChatOpenAI } from "@langchain/openai";
 * const llm = fromLangChainChatModel(new ChatOpenAI({ model: "gpt-4o-mini", maxTokens: 512 }));
 */
export function fromLangChainChatModel(
  model: LangChainChatModelLike,
  options: FromLangChainChatModelOptions = {},
): LLM {
  if (typeof model?.invoke !== "function" || typeof model.stream !== "function") {
    throw new InvalidArgumentError({
      parameter: "model",
      value: model,
      expected: "be a LangChain chat model (an object with invoke() and stream())",
      hint: "Pass a BaseChatModel such as new ChatOpenAI({ model }) from @langchain/openai.",
    });
  }
  const metadata = describeModel(model, options);

  async function generate(input: string | LangChainMessageInput[], call: LLMCallOptions) {
    const { signal, fail } = createCallSignal({ signal: call.signal, timeoutMs: options.timeoutMs });
    try {
      // Raced with the signal: not every LangChain model stops its invoke() when the signal aborts.
      const message = await abortable(() => model.invoke(input, signal ? { signal } : {}), signal);
      const usage: LLMUsage = {};
      addUsage(usage, message);
      call.onUsage?.(usage);
      return { text: messageText(message), usage };
    } catch (error) {
      throw fail(error, metadata.model);
    }
  }

  async function* stream(input: string | LangChainMessageInput[], call: LLMCallOptions) {
    const { signal, fail } = createCallSignal({ signal: call.signal, timeoutMs: options.timeoutMs });
    const usage: LLMUsage = {};
    let iterator: AsyncIterator<LangChainAIMessageLike> | undefined;
    let finished = false;
    try {
      const chunks = await abortable(() => model.stream(input, signal ? { signal } : {}), signal);
      const opened = chunks[Symbol.asyncIterator]();
      iterator = opened;
      for (let next = await abortable(() => opened.next(), signal); !next.done; ) {
        addUsage(usage, next.value);
        const text = messageText(next.value);
        if (text !== "") yield text;
        next = await abortable(() => opened.next(), signal);
      }
      if (signal?.aborted) throw createAbortError(signal);
      finished = true;
    } catch (error) {
      throw fail(error, metadata.model);
    } finally {
      // Not awaited: a stream that ignores the signal may never settle.
      if (!finished) iterator?.return?.()?.catch(() => {});
    }
    call.onUsage?.(usage);
  }

  const toMessages = (messages: ChatMessage[]): LangChainMessageInput[] =>
    messages.map(({ role, content }): LangChainMessageInput => [role, content]);
  return {
    metadata,
    complete: async (prompt, call = {}) => {
      checkPromptText(prompt);
      return generate(prompt, call);
    },
    chat: async (messages, call = {}) => {
      checkChatMessages(messages);
      return generate(toMessages(messages), call);
    },
    streamComplete: (prompt, call = {}) => {
      checkPromptText(prompt);
      return stream(prompt, call);
    },
    streamChat: (messages, call = {}) => {
      checkChatMessages(messages);
      return stream(toMessages(messages), call);
    },
  };
}
