import type OpenAI from "openai";
import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { LLMError } from "../errors/llm-error.js";
import { checkChatMessages, checkPromptText } from "../llm/check-model.js";
import { messagesToPrompt } from "../llm/messages-to-prompt.js";
import { toStrictJsonSchema } from "../llm/strict-json-schema.js";
import type { ChatMessage, LLM, LLMCallOptions, LLMMetadata, LLMResult, LLMUsage } from "../llm/types.js";
import { createAbortError, createAttemptSignal, createCallSignal } from "../util/abort.js";
import { retryWithBackoff } from "../util/retry.js";
import {
  badResponse,
  checkCompletionBody,
  checkStreamChunk,
  checkStreamContentType,
  type ReplyContext,
  toResponseIdentity,
  toUsage,
} from "./check-response.js";
import {
  createOpenAIConnection,
  isOpenAIBaseURL,
  OPENAI_BASE_URL,
  type OpenAIConnection,
} from "./openai-connection.js";
import {
  type OpenAILikeOptions,
  resolveOpenAILikeMetadata,
  validateOpenAILikeOptions,
} from "./openai-like-options.js";
import { toLLMError } from "./to-llm-error.js";
import { type OpenAIMessage, toOpenAIMessages } from "./to-openai-messages.js";

type Request = { kind: "chat"; messages: ChatMessage[] } | { kind: "completion"; prompt: string };

/** The options' shape, for the message of a call without them. */
const OPTIONS_SHAPE = '{ model: "gpt-4o-mini", apiKey?, baseURL?, … }';
/** A request as sent: chat messages converted to OpenAI's form (images as data URLs). */
type WireRequest = { kind: "chat"; messages: OpenAIMessage[] } | { kind: "completion"; prompt: string };
/** One piece of a normalized answer: text, usage, or both. */
type Piece = {
  text?: string | undefined;
  usage?: LLMUsage | undefined;
  finishReason?: string | undefined;
  identity?: { responseId?: string; responseModel?: string };
};
type PieceStream = { pieces: AsyncIterator<Piece>; close(): void };

/**
 * A model behind any OpenAI-compatible server, on the official `openai` client (chat completions, or
 * legacy completions with `isChatModel: false`). Retries, timeouts and errors follow ragsynth's policy:
 * the client's own retries are off, failures become typed {@link LLMError}s that never contain the key.
 *
 * @example OpenAI (key from OPENAI_API_KEY; structured output sent natively as json_schema)
 * new OpenAILike({ model: "gpt-4o-mini" })
 * @example Ollama (no key needed; context window capped at Ollama's num_ctx, see metadata.assumptions)
 * new OpenAILike({ model: "llama3.1:8b", baseURL: "http://localhost:11434/v1" })
 * @example vLLM (`vllm serve Qwen/Qwen2.5-7B-Instruct`, which supports json_schema via guided decoding)
 * new OpenAILike({ model: "Qwen/Qwen2.5-7B-Instruct", baseURL: "http://localhost:8000/v1", structuredOutput: "json_schema" })
 * @example llama.cpp (`llama-server -m model.gguf -c 8192`: pass the -c value as contextWindow)
 * new OpenAILike({ model: "local", baseURL: "http://localhost:8080/v1", contextWindow: 8192 })
 */
export class OpenAILike implements LLM {
  readonly metadata: LLMMetadata;
  readonly #options: OpenAILikeOptions;
  readonly #connection: OpenAIConnection;

  /** @throws LLMError `missing_api_key` for api.openai.com without a key; InvalidArgumentError for bad options */
  constructor(given: OpenAILikeOptions) {
    const options = optionsOf("options", given, OPTIONS_SHAPE);
    validateOpenAILikeOptions(options);
    this.#options = options;
    this.#connection = createOpenAIConnection(options, "OpenAILike");
    this.metadata = resolveOpenAILikeMetadata(options, this.#connection);
  }

  /**
   * What a model with these options says about itself, without building a client or needing a key (for a plan
   * that calls no model, or a queue that stands in for the model). The same rule as `metadata`.
   * @throws InvalidArgumentError for bad options
   */
  static metadataFor(given: OpenAILikeOptions): LLMMetadata {
    const options = optionsOf("options", given, OPTIONS_SHAPE);
    validateOpenAILikeOptions(options);
    const baseURL = options.baseURL ?? (process.env.OPENAI_BASE_URL || OPENAI_BASE_URL);
    return resolveOpenAILikeMetadata(options, { baseURL, isOpenAI: isOpenAIBaseURL(baseURL) });
  }

  /** One answer to a prompt (sent as a user message to chat models). @throws LLMError, InvalidArgumentError, AbortError */
  async complete(prompt: string, options: LLMCallOptions = {}): Promise<LLMResult> {
    checkPromptText(prompt);
    return this.#run(this.#toRequest({ kind: "completion", prompt }), options);
  }

  /** One answer to a chat. @throws LLMError, InvalidArgumentError, AbortError */
  async chat(messages: ChatMessage[], options: LLMCallOptions = {}): Promise<LLMResult> {
    checkChatMessages(messages);
    return this.#run(this.#toRequest({ kind: "chat", messages }), options);
  }

  /** The answer's text deltas over SSE; `onUsage` fires after the last one. Breaking early closes the connection. */
  streamComplete(prompt: string, options: LLMCallOptions = {}): AsyncIterable<string> {
    checkPromptText(prompt);
    return this.#stream(this.#toRequest({ kind: "completion", prompt }), options);
  }

  /**
   * The answer's text deltas over SSE; `onUsage` fires after the last one. A drop before the first delta is
   * retried; a drop after it throws `llm_stream_interrupted`. Breaking early closes the connection.
   */
  streamChat(messages: ChatMessage[], options: LLMCallOptions = {}): AsyncIterable<string> {
    checkChatMessages(messages);
    return this.#stream(this.#toRequest({ kind: "chat", messages }), options);
  }

  /** Chat models get prompts as one user message; completion models get chats flattened (as LlamaIndex does). */
  #toRequest(request: Request): Request {
    if (this.metadata.isChatModel && request.kind === "completion") {
      return { kind: "chat", messages: [{ role: "user", content: request.prompt }] };
    }
    if (!this.metadata.isChatModel && request.kind === "chat") {
      return { kind: "completion", prompt: messagesToPrompt(request.messages, { assistantTurn: true }) };
    }
    return request;
  }

  #endpoint(request: Request): string {
    return this.#connection.endpoint(request.kind === "chat" ? "chat/completions" : "completions");
  }

  /** Chat messages in OpenAI's form; images (files read, bytes encoded) only when the model takes pixels. */
  async #wire(request: Request): Promise<WireRequest> {
    if (request.kind === "completion") return request;
    const messages =
      this.metadata.imageInput === "pixels"
        ? request.messages
        : request.messages.map((message) => ({ role: message.role, content: message.content }));
    return { kind: "chat", messages: await toOpenAIMessages(messages) };
  }

  #body(request: WireRequest, options: LLMCallOptions): Record<string, unknown> {
    const { maxTokens, responseFormat } = options;
    if (maxTokens !== undefined) {
      const limit = this.metadata.maxOutputTokens;
      if (!Number.isInteger(maxTokens) || maxTokens <= 0 || (limit !== undefined && maxTokens > limit)) {
        throw new InvalidArgumentError({
          parameter: "maxTokens",
          value: maxTokens,
          expected: `be a positive integer${limit === undefined ? "" : ` no larger than ${this.metadata.model}'s maxOutputTokens (${limit})`}`,
          hint: "Lower numOutput, or pass maxOutputTokens if the model allows more.",
        });
      }
    }
    const { model, temperature } = this.#options;
    const body: Record<string, unknown> =
      request.kind === "chat" ? { model, messages: request.messages } : { model, prompt: request.prompt };
    if (maxTokens !== undefined) {
      const field =
        request.kind === "completion"
          ? "max_tokens"
          : (this.#options.maxTokensParameter ??
            (this.#connection.isOpenAI ? "max_completion_tokens" : "max_tokens"));
      body[field] = maxTokens;
    }
    if (temperature !== undefined) body.temperature = temperature;
    if (responseFormat && request.kind === "chat" && this.metadata.structuredOutput === "json_schema") {
      const name = responseFormat.name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "Output";
      // Strict mode needs every property required (optional ones nullable); a schema that cannot be made
      // strict goes with strict: false rather than being rejected by the server.
      const strict = toStrictJsonSchema(responseFormat.schema);
      body.response_format = {
        type: "json_schema",
        json_schema: strict
          ? { name, schema: strict, strict: true }
          : { name, schema: responseFormat.schema, strict: false },
      };
    }
    return body;
  }

  #errorContext(url: string, deltasYielded?: number) {
    const context = {
      url,
      secrets: this.#connection.secrets,
      now: (this.#options._internal?.now ?? Date.now)(),
    };
    return deltasYielded === undefined ? context : { ...context, deltasYielded };
  }

  #retry<T>(
    run: () => Promise<T>,
    url: string,
    signal: AbortSignal | undefined,
    call: LLMCallOptions,
    deltas?: number,
  ) {
    return retryWithBackoff({
      run: () =>
        run().catch((error: unknown) => Promise.reject(toLLMError(error, this.#errorContext(url, deltas)))),
      maxRetries: this.#options.maxRetries ?? 3,
      retry: this.#options.retry,
      signal,
      onRetry: this.#options.onRetry,
      beforeRetry: call.onRetry,
      _internal: this.#options._internal,
    });
  }

  async #run(request: Request, options: LLMCallOptions): Promise<LLMResult> {
    const body = this.#body(await this.#wire(request), options);
    const url = this.#endpoint(request);
    const { signal, fail } = createCallSignal({ signal: options.signal, timeoutMs: this.#options.timeoutMs });
    const client = await this.#connection.client();
    try {
      const { value, retries } = await this.#retry(
        async () => {
          // Each attempt its own signal: the SDK's abort listener goes on it, not on the caller's.
          const attempt = createAttemptSignal(signal);
          try {
            const requestOptions = attempt.signal ? { signal: attempt.signal } : {};
            const reply = this.#reply(url);
            if (request.kind === "chat") {
              const params = body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming;
              const { data, response } = await client.chat.completions
                .create(params, requestOptions)
                .withResponse();
              checkCompletionBody(data, response.headers.get("content-type"), reply);
              const choice = data.choices[0];
              return {
                text: choice?.message?.content ?? "",
                usage: { ...toUsage(data.usage, choice?.finish_reason), ...toResponseIdentity(data) },
              };
            }
            const params = body as unknown as OpenAI.CompletionCreateParamsNonStreaming;
            const { data, response } = await client.completions.create(params, requestOptions).withResponse();
            checkCompletionBody(data, response.headers.get("content-type"), reply);
            const choice = data.choices[0];
            return {
              text: choice?.text ?? "",
              usage: { ...toUsage(data.usage, choice?.finish_reason), ...toResponseIdentity(data) },
            };
          } finally {
            attempt.dispose();
          }
        },
        url,
        signal,
        options,
      );
      const usage: LLMUsage = { ...value.usage, retries };
      options.onUsage?.(usage);
      return { text: value.text, usage };
    } catch (error) {
      throw fail(error, url);
    }
  }

  #reply(url: string): ReplyContext {
    return { url, secrets: this.#connection.secrets };
  }

  async #open(
    request: Request,
    body: Record<string, unknown>,
    url: string,
    signal?: AbortSignal,
  ): Promise<PieceStream> {
    const client = await this.#connection.client();
    const streamBody = { ...body, stream: true, stream_options: { include_usage: true } };
    const requestOptions = signal ? { signal } : {};
    const reply = this.#reply(url);
    const opened =
      request.kind === "chat"
        ? await client.chat.completions
            .create(streamBody as unknown as OpenAI.ChatCompletionCreateParamsStreaming, requestOptions)
            .withResponse()
        : await client.completions
            .create(streamBody as unknown as OpenAI.CompletionCreateParamsStreaming, requestOptions)
            .withResponse();
    const stream = opened.data;
    try {
      checkStreamContentType(opened.response.headers.get("content-type"), reply);
    } catch (error) {
      stream.controller.abort();
      throw error;
    }
    const pieces = (async function* () {
      let chunks = 0;
      for await (const chunk of stream as AsyncIterable<unknown>) {
        checkStreamChunk(chunk, reply);
        chunks++;
        const typed = chunk as OpenAI.ChatCompletionChunk | OpenAI.Completion;
        const choice = typed.choices[0] as
          | (OpenAI.ChatCompletionChunk.Choice & OpenAI.CompletionChoice)
          | undefined;
        yield {
          text: (request.kind === "chat" ? choice?.delta?.content : choice?.text) ?? undefined,
          usage: toUsage(typed.usage),
          finishReason: choice?.finish_reason ?? undefined,
          identity: toResponseIdentity(typed),
        };
      }
      // A completion stream always ends with a chunk carrying finish_reason; an empty one is not an answer.
      if (chunks === 0) throw badResponse(reply, "sent an SSE stream with no completion chunks");
    })();
    return { pieces, close: () => stream.controller.abort() };
  }

  async *#stream(request: Request, options: LLMCallOptions): AsyncGenerator<string> {
    const body = this.#body(await this.#wire(request), options);
    const url = this.#endpoint(request);
    const { signal, fail } = createCallSignal({ signal: options.signal, timeoutMs: this.#options.timeoutMs });
    let stream: PieceStream | undefined;
    // The signal of the attempt whose stream is open; given up when the next attempt starts or the call ends.
    let attempt: ReturnType<typeof createAttemptSignal> | undefined;
    let usage: LLMUsage | undefined;
    let finishReason: string | undefined;
    let identity: Piece["identity"] = {};
    let deltas = 0;
    let finished = false;
    // Reads up to the next text delta, noting usage on the way. Reaching the first delta is part of the
    // retried attempt (a drop before it is retried); a drop after it is not (that would repeat text).
    const next = async (): Promise<string | undefined> => {
      if (!stream) throw new Error("unreachable: stream not open");
      for (;;) {
        const { value, done } = await stream.pieces.next();
        if (done) return undefined;
        if (value.usage) usage = value.usage;
        if (value.finishReason) finishReason = value.finishReason;
        if (value.identity) identity = { ...identity, ...value.identity };
        if (value.text) return value.text;
      }
    };
    try {
      const { value: first, retries } = await this.#retry(
        async () => {
          stream?.close();
          attempt?.dispose();
          attempt = createAttemptSignal(signal);
          usage = undefined;
          identity = {};
          stream = await this.#open(request, body, url, attempt.signal);
          return next();
        },
        url,
        signal,
        options,
        0,
      );
      let text = first;
      while (text !== undefined) {
        deltas++;
        yield text;
        text = await next().catch((error: unknown) => {
          const mapped = toLLMError(error, this.#errorContext(url, deltas));
          throw LLMError.isInstance(mapped) ? (mapped as LLMError).withAttempts(retries + 1) : mapped;
        });
      }
      if (signal?.aborted) throw createAbortError(signal);
      finished = true;
      options.onUsage?.({ ...usage, ...identity, ...(finishReason ? { finishReason } : {}), retries });
    } catch (error) {
      throw fail(error, url);
    } finally {
      if (!finished) stream?.close();
      attempt?.dispose();
    }
  }
}
