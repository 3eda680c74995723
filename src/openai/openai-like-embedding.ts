import type { Tracer } from "@opentelemetry/api";
import type { Embedder, EmbedOptions } from "../embedding/types.js";
import { checkInteger } from "../errors/check-integer.js";
import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { LLMError } from "../errors/llm-error.js";
import { startEmbeddingSpan } from "../tracing/gen-ai.js";
import { defaultTracer, prepareTracer } from "../tracing/start-span.js";
import { createCallSignal } from "../util/abort.js";
import { mergeAbortSignals } from "../util/merge-abort-signals.js";
import { type RetryEvent, type RetryInternals, type RetryOptions, retryWithBackoff } from "../util/retry.js";
import { toResponseIdentity } from "./check-response.js";
import {
  createOpenAIConnection,
  type OpenAIConnection,
  type OpenAIConnectionOptions,
  serverOf,
} from "./openai-connection.js";
import { toLLMError } from "./to-llm-error.js";

/** Options of {@link OpenAILikeEmbedding}. Connection fields (`apiKey`, `baseURL`, `fetch`, `headers`) come first. */
export interface OpenAILikeEmbeddingOptions extends OpenAIConnectionOptions {
  /** The embedding model (`text-embedding-3-small`, with Ollama `nomic-embed-text`). */
  model: string;
  /** Output dimensions, for models that support shortening (`text-embedding-3-*`). */
  dimensions?: number | undefined;
  /** Texts per request. @default 100 */
  batchSize?: number | undefined;
  /** Requests in flight at once. @default 4 */
  concurrency?: number | undefined;
  /** Deadline of each `getTextEmbeddings` call in milliseconds, all batches and retries included. */
  timeoutMs?: number | undefined;
  /** Retries per batch (429, 408, 409, 5xx, dropped connections). @default 3 */
  maxRetries?: number | undefined;
  /** Backoff tuning of the shared retry policy. */
  retry?: RetryOptions | undefined;
  /** Called before each retry (for logs). */
  onRetry?: ((event: RetryEvent) => void) | undefined;
  /** Test seams for the retry policy: `sleep`, `random`, `now`. */
  _internal?: RetryInternals | undefined;
  /**
   * Where each request's `embeddings <model>` span goes. @default the global provider's tracer (a no-op until an
   * OpenTelemetry SDK is registered)
   */
  tracer?: Tracer | undefined;
}

/**
 * Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint, batched (`batchSize`) with bounded
 * concurrency (`concurrency`), order preserved, each batch under the shared retry policy. The signal
 * reaches every batch; the first failure cancels the batches still running.
 *
 * `id` is `openai:<model>` on api.openai.com and `<baseURL>#<model>` elsewhere (plus `@<dimensions>`).
 *
 * @example
 * new OpenAILikeEmbedding({ model: "text-embedding-3-small" })
 * new OpenAILikeEmbedding({ model: "nomic-embed-text", baseURL: "http://localhost:11434/v1" })
 */
export class OpenAILikeEmbedding implements Embedder {
  readonly id: string;
  readonly #options: OpenAILikeEmbeddingOptions;
  readonly #connection: OpenAIConnection;
  readonly #batchSize: number;
  readonly #concurrency: number;

  /** @throws LLMError `missing_api_key` for api.openai.com without a key; InvalidArgumentError for bad options */
  constructor(given: OpenAILikeEmbeddingOptions) {
    const options = optionsOf("options", given, '{ model: "text-embedding-3-small", apiKey?, baseURL?, … }');
    if (typeof options.model !== "string" || options.model.trim() === "") {
      throw new InvalidArgumentError({
        parameter: "model",
        value: options.model,
        expected: "be a non-empty embedding model id",
        hint: 'For example "text-embedding-3-small" or, with Ollama, "nomic-embed-text".',
      });
    }
    const { batchSize = 100, concurrency = 4, dimensions, timeoutMs } = options;
    checkInteger("batchSize", batchSize, 1);
    checkInteger("concurrency", concurrency, 1);
    if (dimensions !== undefined) checkInteger("dimensions", dimensions, 1);
    if (timeoutMs !== undefined) checkInteger("timeoutMs", timeoutMs, 1);
    this.#batchSize = batchSize;
    this.#concurrency = concurrency;
    this.#options = options;
    this.#connection = createOpenAIConnection(options, "OpenAILikeEmbedding");
    const prefix = this.#connection.isOpenAI
      ? "openai:"
      : `${this.#connection.endpoint("").replace(/\/$/, "")}#`;
    this.id = `${prefix}${options.model}${options.dimensions ? `@${options.dimensions}` : ""}`;
  }

  async getQueryEmbedding(query: string, options: EmbedOptions = {}): Promise<number[]> {
    const [embedding] = await this.getTextEmbeddings([query], options);
    return embedding ?? [];
  }

  async getTextEmbeddings(texts: string[], options: EmbedOptions = {}): Promise<number[][]> {
    const url = this.#connection.endpoint("embeddings");
    await prepareTracer(this.#tracer());
    const { signal, fail } = createCallSignal({ signal: options.signal, timeoutMs: this.#options.timeoutMs });
    const batches: string[][] = [];
    for (let start = 0; start < texts.length; start += this.#batchSize) {
      batches.push(texts.slice(start, start + this.#batchSize));
    }
    const results: number[][][] = new Array(batches.length);
    // The first failed batch aborts the others, so nothing keeps running after the call has failed.
    const stop = new AbortController();
    const batchSignal = mergeAbortSignals(signal, stop.signal);
    let firstError: { error: unknown } | undefined;
    let next = 0;
    const worker = async () => {
      while (next < batches.length && !batchSignal.aborted) {
        const index = next++;
        try {
          results[index] = await this.#embedBatch(batches[index] ?? [], url, batchSignal);
        } catch (error) {
          firstError ??= { error };
          stop.abort();
        }
      }
    };
    try {
      if (signal?.aborted) throw signal.reason;
      await Promise.all(Array.from({ length: Math.min(this.#concurrency, batches.length) }, worker));
      if (firstError) throw firstError.error;
      if (signal?.aborted) throw signal.reason;
      return results.flat();
    } catch (error) {
      throw fail(error, url);
    }
  }

  #tracer(): Tracer {
    return this.#options.tracer ?? defaultTracer();
  }

  /** One request's span around its attempts; the HTTP client's spans nest under it. */
  async #embedBatch(input: string[], url: string, signal: AbortSignal): Promise<number[][]> {
    const span = startEmbeddingSpan(this.#tracer(), {
      provider: "openai",
      model: this.#options.model,
      inputs: input.length,
      server: serverOf(this.#connection.baseURL),
    });
    try {
      const { vectors, usage, model } = await span.run(() => this.#requestBatch(input, url, signal));
      span.span.setAttributes({
        ...(usage === undefined ? {} : { "gen_ai.usage.input_tokens": usage }),
        ...(model ? { "gen_ai.response.model": model } : {}),
        ...(vectors[0] ? { "gen_ai.embeddings.dimension.count": vectors[0].length } : {}),
      });
      span.end();
      return vectors;
    } catch (error) {
      span.end(error);
      throw error;
    }
  }

  async #requestBatch(
    input: string[],
    url: string,
    signal: AbortSignal,
  ): Promise<{ vectors: number[][]; usage: number | undefined; model: string | undefined }> {
    const context = {
      url,
      secrets: this.#connection.secrets,
      now: (this.#options._internal?.now ?? Date.now)(),
    };
    const { value } = await retryWithBackoff({
      run: async () => {
        try {
          const response = await (await this.#connection.client()).embeddings.create(
            {
              model: this.#options.model,
              input,
              encoding_format: "float",
              ...(this.#options.dimensions ? { dimensions: this.#options.dimensions } : {}),
            },
            { signal },
          );
          const data = [...response.data].sort((a, b) => a.index - b.index);
          if (data.length !== input.length) {
            throw new LLMError({
              code: "llm_server_error",
              url,
              message: `${url} returned ${data.length} embeddings for ${input.length} texts.`,
            });
          }
          const reported = response.usage?.prompt_tokens;
          return {
            vectors: data.map((item) => item.embedding),
            usage:
              typeof reported === "number" && Number.isInteger(reported) && reported >= 0
                ? reported
                : undefined,
            model: toResponseIdentity(response).responseModel,
          };
        } catch (error) {
          throw toLLMError(error, context);
        }
      },
      maxRetries: this.#options.maxRetries ?? 3,
      retry: this.#options.retry,
      signal,
      onRetry: this.#options.onRetry,
      _internal: this.#options._internal,
    });
    return value;
  }
}
