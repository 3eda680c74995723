import { checkFunction, optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { LLMError } from "../errors/llm-error.js";
import { llmErrorCodeForStatus } from "../errors/llm-error-code-for-status.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { checkChatMessages, checkPromptText } from "../llm/check-model.js";
import { type ModelMetadataOptions, resolveModelMetadata } from "../llm/resolve-model-metadata.js";
import type { ChatMessage, LLM, LLMCallOptions, LLMMetadata, LLMUsage } from "../llm/types.js";
import { redactUrl } from "../openai/to-llm-error.js";
import type { ContentBlock } from "../schema/content-block.js";
import { readImageFileBlock } from "../schema/image-bytes.js";
import { abortable, createAbortError, createCallSignal } from "../util/abort.js";
import { parseRetryAfter, type RetryInternals, type RetryOptions, retryWithBackoff } from "../util/retry.js";
import {
  type AiSdkCallArguments,
  type AiSdkCallExtras,
  type AiSdkCallSettings,
  type AiSdkFunctions,
  type AiSdkMessage,
  type AiSdkStructuredOutput,
  type AiSdkSystemField,
  type AiSdkUsage,
  type AiSdkUserPart,
  checkCallSettings,
} from "./ai-sdk-call.js";

export type {
  AiSdkCallArguments,
  AiSdkCallExtras,
  AiSdkCallSettings,
  AiSdkFunctions,
  AiSdkMessage,
  AiSdkStructuredOutput,
  AiSdkSystemField,
  AiSdkUsage,
  AiSdkUserPart,
} from "./ai-sdk-call.js";

/** Options of {@link fromAiSdk}. */
export interface FromAiSdkOptions<Model> extends AiSdkFunctions<Model>, ModelMetadataOptions {
  /**
   * Where system text goes. @default from the model's `specificationVersion`: `"v4"` (ai@7 providers) →
   * `"instructions"`, `"v2"`/`"v3"` (ai@5/ai@6 providers) → `"system"`, anything else (a gateway id string) → `"both"`
   */
  systemField?: AiSdkSystemField | undefined;
  /** The model id for metadata and table lookup. @default model.modelId */
  modelId?: string | undefined;
  temperature?: number | undefined;
  /** Deadline of each call in milliseconds, the whole stream included. */
  timeoutMs?: number | undefined;
  /** @default 3 */
  maxRetries?: number | undefined;
  /** Settings passed to every call (see {@link AiSdkCallSettings}): `providerOptions`, `headers`, `experimental_telemetry`, … */
  callSettings?: AiSdkCallSettings | undefined;
  /**
   * `ai`'s `Output` and `jsonSchema`, to get structured answers (`outputSchema`) through the AI SDK's own structured
   * output (`Output.object`), which providers send natively (OpenAI's json_schema, tools elsewhere). Without it,
   * the schema goes as prompt instructions (`metadata.structuredOutput: "instructions"`).
   * @example import { generateText, Output, jsonSchema, streamText } from "ai";
   * fromAiSdk(model, { generateText, streamText, output: { Output, jsonSchema } })
   */
  output?: AiSdkStructuredOutput | undefined;
  retry?: RetryOptions | undefined;
  _internal?: RetryInternals | undefined;
}

function systemFieldOf(model: unknown, chosen: AiSdkSystemField | undefined): AiSdkSystemField {
  if (chosen !== undefined) return chosen;
  const version = (model as { specificationVersion?: unknown } | null)?.specificationVersion;
  if (version === "v4") return "instructions";
  if (version === "v2" || version === "v3") return "system";
  return "both";
}

/** A block as an AI SDK part: bytes as `image` with `mediaType`, URLs as `URL`, `detail` as OpenAI's provider option. */
function toPart(block: ContentBlock): AiSdkUserPart {
  if (block.type === "text") return { type: "text", text: block.text };
  const image = block.data ?? (block.url?.startsWith("data:") ? block.url : new URL(block.url as string));
  return {
    type: "image",
    image,
    ...(block.mediaType === undefined ? {} : { mediaType: block.mediaType }),
    ...(block.detail === undefined ? {} : { providerOptions: { openai: { imageDetail: block.detail } } }),
  };
}

/** Messages with file images read into bytes (the AI SDK takes bytes or URLs); text only unless the model takes pixels. */
async function loadImages(messages: readonly ChatMessage[], pixels: boolean): Promise<ChatMessage[]> {
  return Promise.all(
    messages.map(async (message) => {
      if (!message.blocks) return message;
      if (!pixels) return { role: message.role, content: message.content };
      const blocks = await Promise.all(
        message.blocks.map(async (block) =>
          block.type === "image" && block.path !== undefined && block.data === undefined
            ? { ...block, path: undefined, data: await readImageFileBlock(block) }
            : block,
        ),
      );
      return { ...message, blocks };
    }),
  );
}

/** The system messages' text, for `instructions`/`system`, and the other messages. */
function splitSystem(
  messages: readonly ChatMessage[],
  field: AiSdkSystemField,
): { messages: AiSdkMessage[]; instructions?: string; system?: string } {
  const system = messages.filter((message) => message.role === "system").map((message) => message.content);
  const rest: AiSdkMessage[] = messages.flatMap((message): AiSdkMessage[] => {
    if (message.role === "user" && message.blocks)
      return [{ role: "user", content: message.blocks.map(toPart) }];
    return message.role === "user" || message.role === "assistant"
      ? [{ role: message.role, content: message.content }]
      : [];
  });
  if (system.length === 0) return { messages: rest };
  const text = system.join("\n\n");
  // A prompt that is only a system message still needs a message to answer.
  if (rest.length === 0) return { messages: [{ role: "user", content: text }] };
  return {
    messages: rest,
    ...(field === "system" ? {} : { instructions: text }),
    ...(field === "instructions" ? {} : { system: text }),
  };
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
  if (typeof error !== "object" || error === null || RagsynthError.isInstance(error)) return error;
  const { statusCode, isRetryable, responseHeaders, url, message } = error as Record<string, unknown>;
  if (typeof statusCode !== "number" && typeof isRetryable !== "boolean") return error;
  const status = typeof statusCode === "number" ? statusCode : undefined;
  const headers =
    responseHeaders && typeof responseHeaders === "object" ? (responseHeaders as Record<string, string>) : {};
  const code = llmErrorCodeForStatus(status);
  // A 404 from an OpenAI-compatible server is most often the Responses API, which `openai(model)` calls by default
  // (AI SDK 5 on) and local servers lack: `.chat(model)` calls /chat/completions.
  const notFound =
    status === 404
      ? ` No such endpoint${typeof url === "string" ? ` at ${redactUrl(url)}` : ""}: for an OpenAI-compatible server (Ollama, vLLM, llama.cpp), create the model with createOpenAI({ baseURL }).chat("${modelId}") so it calls /chat/completions.`
      : "";
  return new LLMError({
    code,
    message:
      `The AI SDK model ${modelId} failed${status ? ` (${status})` : ""}: ${String(message ?? "no message")}.${notFound}`.replace(
        /\.\./g,
        ".",
      ),
    status,
    url: typeof url === "string" ? url : undefined,
    retryable: isRetryable === true,
    retryAfterMs: parseRetryAfter({ get: (name) => headers[name] ?? null }),
    cause: error,
  });
}

/**
 * Adapts a Vercel AI SDK model to ragsynth's {@link LLM} through your own `generateText` and `streamText`
 * (dependency injection: ragsynth does not depend on `ai`). Works with ai@6 and ai@7: system text goes in
 * `system` / `instructions` (see {@link FromAiSdkOptions.systemField}), never inside `messages`. The AI SDK's
 * retries are turned off (`maxRetries: 0`) so ragsynth's retry policy applies; structured output goes as prompt
 * instructions.
 * @example
 * import { generateText, streamText } from "ai";
 * import { openai } from "@ai-sdk/openai";
 * const llm = fromAiSdk(openai("gpt-4o-mini"), { generateText, streamText });
 */
export function fromAiSdk<Model>(model: Model, given: FromAiSdkOptions<Model>): LLM {
  if (!((typeof model === "object" && model !== null) || (typeof model === "string" && model !== ""))) {
    throw new InvalidArgumentError({
      parameter: "model",
      value: model,
      expected: "be an AI SDK language model (or a model id string the AI SDK resolves)",
      hint: 'import { openai } from "@ai-sdk/openai" and pass openai("gpt-4o-mini").',
    });
  }
  const options = optionsOf("options", given, '{ generateText, streamText } (from the "ai" package)');
  for (const name of ["generateText", "streamText"] as const) {
    checkFunction(
      name,
      options[name],
      'be the function of that name from the "ai" package',
      'import { generateText, streamText } from "ai" and pass fromAiSdk(model, { generateText, streamText }).',
    );
  }
  checkCallSettings(options.callSettings);
  if (
    options.output !== undefined &&
    (typeof options.output?.Output?.object !== "function" || typeof options.output.jsonSchema !== "function")
  ) {
    throw new InvalidArgumentError({
      parameter: "output",
      value: options.output,
      expected: "be { Output, jsonSchema }, the two exports of the ai package",
      hint: 'import { Output, jsonSchema } from "ai" and pass output: { Output, jsonSchema }.',
    });
  }
  const modelId = options.modelId ?? String((model as { modelId?: unknown })?.modelId ?? "ai-sdk-model");
  const provider = (model as { provider?: unknown })?.provider;
  // AI SDK providers are named `openai.chat`, `anthropic.messages`: the part before the dot.
  const providerName = typeof provider === "string" && provider !== "" ? provider.split(".")[0] : undefined;
  const metadata: LLMMetadata = {
    ...resolveModelMetadata({
      model: modelId,
      contextWindow: options.contextWindow,
      maxOutputTokens: options.maxOutputTokens,
      modelLimits: options.modelLimits,
      imageInput: options.imageInput,
      imageTokens: options.imageTokens,
      servedByOpenAI: providerName === "openai",
    }),
    ...(providerName === undefined ? {} : { provider: providerName }),
    isChatModel: true,
    structuredOutput: options.output === undefined ? "instructions" : "json_schema",
    kind: "generative",
  };
  const pixels = metadata.imageInput === "pixels";

  const systemField = systemFieldOf(model, options.systemField);
  const args = (
    input: { prompt: string } | { messages: ChatMessage[] },
    call: LLMCallOptions,
    signal?: AbortSignal,
  ): AiSdkCallArguments<Model> => {
    const settings = options.callSettings ?? {};
    const result: AiSdkCallArguments<Model> & AiSdkCallExtras =
      "prompt" in input
        ? { ...settings, model, maxRetries: 0, prompt: input.prompt }
        : { ...settings, model, maxRetries: 0, ...splitSystem(input.messages, systemField) };
    if (call.responseFormat !== undefined && options.output !== undefined) {
      const { Output, jsonSchema } = options.output;
      result.output = Output.object({
        schema: jsonSchema(call.responseFormat.schema),
        name: call.responseFormat.name,
      });
    }
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

  async function* streamLoaded(messages: ChatMessage[], call: LLMCallOptions) {
    yield* stream({ messages: await loadImages(messages, pixels) }, call);
  }

  return {
    metadata,
    complete: async (prompt, call = {}) => {
      checkPromptText(prompt);
      return generate({ prompt }, call);
    },
    chat: async (messages, call = {}) => {
      checkChatMessages(messages);
      return generate({ messages: await loadImages(messages, pixels) }, call);
    },
    streamComplete: (prompt, call = {}) => {
      checkPromptText(prompt);
      return stream({ prompt }, call);
    },
    streamChat: (messages, call = {}) => {
      checkChatMessages(messages);
      return streamLoaded(messages, call);
    },
  };
}
