import { LLMError } from "../errors/llm-error.js";
import type { LLMErrorCode } from "../errors/ragsynth-error.js";
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
import { parseRetryAfter, type RetryInternals, type RetryOptions, retryWithBackoff } from "../util/retry.js";

/** Usage as the AI SDK reports it (v5 `inputTokens`/`outputTokens`, v4 `promptTokens`/`completionTokens`). */
export interface AiSdkUsage {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  promptTokens?: number | undefined;
  completionTokens?: number | undefined;
}

/** The arguments ragsynth passes to `generateText` / `streamText`. */
export interface AiSdkCallArguments<Model> {
  model: Model;
  prompt?: string;
  messages?: ChatMessage[];
  maxOutputTokens?: number;
  temperature?: number;
  abortSignal?: AbortSignal;
  /** Always 0: ragsynth's retry policy does the retrying. */
  maxRetries: number;
  /** streamText only: the AI SDK reports stream errors here instead of throwing. */
  onError?: (event: { error: unknown }) => void;
}

/** The two AI SDK functions ragsynth needs, passed in so ragsynth never imports `ai`. */
export interface AiSdkFunctions<Model> {
  generateText: (args: AiSdkCallArguments<Model>) => PromiseLike<{ text: string; usage?: AiSdkUsage }>;
  streamText: (args: AiSdkCallArguments<Model>) => {
    textStream: AsyncIterable<string>;
    usage?: PromiseLike<AiSdkUsage | undefined>;
  };
}

/** Options of {@link fromAiSdk}. */
export interface FromAiSdkOptions<Model> extends AiSdkFunctions<Model> {
  /** The model id for metadata and table lookup. @default model.modelId */
  modelId?: string | undefined;
  /** @default from the model table, else 3900 (recorded in metadata.assumptions) */
  contextWindow?: number | undefined;
  maxOutputTokens?: number | undefined;
  modelLimits?: ModelLimitsTable | undefined;
  temperature?: number | undefined;
  /** Deadline of each call in milliseconds, the whole stream included. */
  timeoutMs?: number | undefined;
  /** @default 3 */
  maxRetries?: number | undefined;
  retry?: RetryOptions | undefined;
  _internal?: RetryInternals | undefined;
}

function toUsage(usage: AiSdkUsage | undefined): LLMUsage {
  const result: LLMUsage = {};
  const prompt = usage?.inputTokens ?? usage?.promptTokens;
  const completion = usage?.outputTokens ?? usage?.completionTokens;
  if (typeof prompt === "number") result.promptTokens = prompt;
  if (typeof completion === "number") result.completionTokens = completion;
  return result;
}

/** Turns an AI SDK `APICallError`-like error (statusCode, isRetryable, responseHeaders) into an LLMError. */
function toTypedError(error: unknown, modelId: string): unknown {
  if (typeof error !== "object" || error === null || LLMError.isInstance(error)) return error;
  const { statusCode, isRetryable, responseHeaders, url, message } = error as Record<string, unknown>;
  if (typeof statusCode !== "number" && typeof isRetryable !== "boolean") return error;
  const status = typeof statusCode === "number" ? statusCode : undefined;
  const headers =
    responseHeaders && typeof responseHeaders === "object" ? (responseHeaders as Record<string, string>) : {};
  const code: LLMErrorCode =
    status === 401 || status === 403
      ? "llm_auth"
      : status === 429
        ? "llm_rate_limit"
        : status === undefined || status >= 500
          ? "llm_server_error"
          : "llm_bad_request";
  return new LLMError({
    code,
    message: `The AI SDK model ${modelId} failed${status ? ` (${status})` : ""}: ${String(message ?? "no message")}`,
    status,
    url: typeof url === "string" ? url : undefined,
    retryable: isRetryable === true,
    retryAfterMs: parseRetryAfter({ get: (name) => headers[name] ?? null }),
    cause: error,
  });
}

/**
 * Adapts a Vercel AI SDK model to ragsynth's {@link LLM} through your own `generateText` and `streamText`
 * (dependency injection: ragsynth does not depend on `ai`). The AI SDK's retries are turned off
 * (`maxRetries: 0`) so ragsynth's retry policy applies; structured output goes as prompt instructions.
 * @example
 * import { generateText, streamText } from "ai";
 * import { openai } from "@ai-sdk/openai";
 * const llm = fromAiSdk(openai("gpt-4o-mini"), { generateText, streamText });
 */
export function fromAiSdk<Model>(model: Model, options: FromAiSdkOptions<Model>): LLM {
  const modelId = options.modelId ?? String((model as { modelId?: unknown })?.modelId ?? "ai-sdk-model");
  const limits = lookupModelLimits(modelId, options.modelLimits);
  const provider = (model as { provider?: unknown })?.provider;
  const metadata: LLMMetadata = {
    model: modelId,
    // AI SDK providers are named `openai.chat`, `anthropic.messages`: the part before the dot.
    ...(typeof provider === "string" && provider !== ""
      ? { provider: provider.split(".")[0] as string }
      : {}),
    contextWindow: options.contextWindow ?? limits?.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    isChatModel: true,
    tokenizer: tokenizerNameForModel(modelId),
    structuredOutput: "instructions",
    kind: "generative",
  };
  const maxOutputTokens = options.maxOutputTokens ?? limits?.maxOutputTokens;
  if (maxOutputTokens !== undefined) metadata.maxOutputTokens = maxOutputTokens;
  if (options.contextWindow === undefined && !limits) {
    metadata.assumptions = [
      `contextWindow ${DEFAULT_CONTEXT_WINDOW} assumed for unknown model ${modelId}; pass contextWindow`,
    ];
  }

  const args = (
    input: { prompt: string } | { messages: ChatMessage[] },
    call: LLMCallOptions,
    signal?: AbortSignal,
  ) => {
    const result: AiSdkCallArguments<Model> = { model, maxRetries: 0, ...input };
    if (call.maxTokens !== undefined) result.maxOutputTokens = call.maxTokens;
    if (options.temperature !== undefined) result.temperature = options.temperature;
    if (signal) result.abortSignal = signal;
    return result;
  };
  const retry = <T>(run: () => Promise<T>, signal: AbortSignal | undefined) =>
    retryWithBackoff({
      run: () => run().catch((error: unknown) => Promise.reject(toTypedError(error, modelId))),
      maxRetries: options.maxRetries ?? 3,
      retry: options.retry,
      signal,
      _internal: options._internal,
    });

  async function generate(input: { prompt: string } | { messages: ChatMessage[] }, call: LLMCallOptions) {
    const { signal, fail } = createCallSignal({ signal: call.signal, timeoutMs: options.timeoutMs });
    try {
      const { value, retries } = await retry(
        () => abortable(() => options.generateText(args(input, call, signal)), signal),
        signal,
      );
      const usage = { ...toUsage(value.usage), retries };
      call.onUsage?.(usage);
      return { text: value.text, usage };
    } catch (error) {
      throw fail(error, modelId);
    }
  }

  async function* stream(input: { prompt: string } | { messages: ChatMessage[] }, call: LLMCallOptions) {
    const { signal, fail } = createCallSignal({ signal: call.signal, timeoutMs: options.timeoutMs });
    // The AI SDK reports stream errors through onError rather than throwing from textStream.
    const reported: { error?: { error: unknown } | undefined } = {};
    let iterator: AsyncIterator<string> | undefined;
    let deltas = 0;
    let finished = false;
    try {
      const { value: result, retries } = await retry(async () => {
        reported.error = undefined;
        const onError = ({ error }: { error: unknown }) => {
          reported.error = { error };
        };
        const opened = options.streamText({ ...args(input, call, signal), onError });
        iterator = opened.textStream[Symbol.asyncIterator]();
        const first = await abortable(() => (iterator as AsyncIterator<string>).next(), signal);
        const failure = reported.error as { error: unknown } | undefined;
        if (failure) throw failure.error;
        return { opened, first };
      }, signal);
      let next = result.first;
      while (!next.done) {
        deltas++;
        yield next.value;
        next = await abortable(() => (iterator as AsyncIterator<string>).next(), signal);
      }
      if (signal?.aborted) throw createAbortError(signal);
      if (reported.error) {
        throw new LLMError({
          code: "llm_stream_interrupted",
          message: `The answer stream of ${modelId} failed after ${deltas} text deltas; not retried, as that would repeat text already delivered.`,
          cause: toTypedError(reported.error.error, modelId),
          attempts: retries + 1,
        });
      }
      finished = true;
      call.onUsage?.({ ...toUsage(await result.opened.usage), retries });
    } catch (error) {
      throw fail(error, modelId);
    } finally {
      // Not awaited: a stream that ignores the signal may never settle.
      if (!finished) iterator?.return?.()?.catch(() => {});
    }
  }

  return {
    metadata,
    complete: (prompt, call = {}) => generate({ prompt }, call),
    chat: (messages, call = {}) => generate({ messages }, call),
    streamComplete: (prompt, call = {}) => stream({ prompt }, call),
    streamChat: (messages, call = {}) => stream({ messages }, call),
  };
}
