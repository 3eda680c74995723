import { checkInteger } from "../errors/check-integer.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { type ModelMetadataOptions, resolveModelMetadata } from "../llm/resolve-model-metadata.js";
import type { LLMMetadata } from "../llm/types.js";
import type { RetryEvent, RetryInternals, RetryOptions } from "../util/retry.js";
import type { OpenAIConnectionOptions } from "./openai-connection.js";
import { serverOf } from "./openai-connection.js";
import { looksLikeOllama } from "./to-llm-error.js";

/** The `num_ctx` Ollama runs a model with unless told otherwise (4096 since 0.6; 2048 before). */
export const OLLAMA_DEFAULT_NUM_CTX = 4096;

/** Options of {@link OpenAILike}. Connection fields (`apiKey`, `baseURL`, `fetch`, `headers`) come first. */
export interface OpenAILikeOptions extends OpenAIConnectionOptions, ModelMetadataOptions {
  /** The model id the server knows (`gpt-4o-mini`, `llama3.1:8b`, `Qwen/Qwen2.5-7B-Instruct`). */
  model: string;
  /** False to use the legacy `/v1/completions` endpoint (`gpt-3.5-turbo-instruct`, base models). @default true */
  isChatModel?: boolean | undefined;
  /**
   * How `responseFormat` is honoured. `json_schema` sends `response_format` (OpenAI; recent Ollama, vLLM and
   * llama.cpp accept it too, with varying strictness); `instructions` relies on the schema the prompt carries.
   * @default "json_schema" for api.openai.com, otherwise "instructions"
   */
  structuredOutput?: "json_schema" | "instructions" | undefined;
  /** Sampling temperature; omitted (server default) when unset, as reasoning models reject other values. */
  temperature?: number | undefined;
  /** Deadline of each call in milliseconds, retries and the whole stream included. */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt (429, 408, 409, 5xx, dropped connections). @default 3 */
  maxRetries?: number | undefined;
  /** Backoff tuning of the shared retry policy. */
  retry?: RetryOptions | undefined;
  /**
   * Called before each retry (for logs), with the wait that follows: the backoff or `Retry-After`, or 0 when the
   * model's shared concurrency limiter re-sends a 429'd call as soon as a running call frees a slot.
   */
  onRetry?: ((event: RetryEvent) => void) | undefined;
  /**
   * The request field for `maxTokens`. OpenAI's newer models (o-series, GPT-5) accept only
   * `max_completion_tokens`; compatible servers universally accept `max_tokens`.
   * @default "max_completion_tokens" for api.openai.com, otherwise "max_tokens"
   */
  maxTokensParameter?: "max_tokens" | "max_completion_tokens" | undefined;
  /** Test seams for the retry policy: `sleep`, `random`, `now`. */
  _internal?: RetryInternals | undefined;
}

/** Validates the options that can be wrong on their own. */
export function validateOpenAILikeOptions(options: OpenAILikeOptions): void {
  if (typeof options.model !== "string" || options.model.trim() === "") {
    throw new InvalidArgumentError({
      parameter: "model",
      value: options.model,
      expected: "be a non-empty model id",
      hint: 'For example "gpt-4o-mini" or, with Ollama, "llama3.1:8b".',
    });
  }
  const { contextWindow, maxOutputTokens, timeoutMs } = options;
  if (contextWindow !== undefined) checkInteger("contextWindow", contextWindow, 1);
  if (maxOutputTokens !== undefined) checkInteger("maxOutputTokens", maxOutputTokens, 1);
  if (timeoutMs !== undefined) checkInteger("timeoutMs", timeoutMs, 1);
  if (
    options.maxRetries !== undefined &&
    !(Number.isInteger(options.maxRetries) && options.maxRetries >= 0)
  ) {
    throw new InvalidArgumentError({
      parameter: "maxRetries",
      value: options.maxRetries,
      expected: "be a non-negative integer",
    });
  }
}

function ollamaNumCtx(): number {
  const fromEnv = Number(process.env.OLLAMA_CONTEXT_LENGTH);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : OLLAMA_DEFAULT_NUM_CTX;
}

/**
 * What an {@link OpenAILike} says about itself: the shared rule ({@link resolveModelMetadata}; unknown models
 * get 3900 tokens and an entry in `assumptions`), with OpenAI's own servers exact, and on Ollama (port 11434)
 * the table's context window capped at the server's `num_ctx` (`OLLAMA_CONTEXT_LENGTH`, else 4096) because
 * Ollama silently truncates longer prompts.
 */
export function resolveOpenAILikeMetadata(
  options: OpenAILikeOptions,
  connection: { baseURL: string; isOpenAI: boolean },
): LLMMetadata {
  const { model } = options;
  const numCtx = looksLikeOllama(connection.baseURL) ? ollamaNumCtx() : undefined;
  const shared = resolveModelMetadata({
    model,
    contextWindow: options.contextWindow,
    maxOutputTokens: options.maxOutputTokens,
    modelLimits: options.modelLimits,
    imageInput: options.imageInput,
    imageTokens: options.imageTokens,
    servedByOpenAI: connection.isOpenAI,
    serverWindowCap:
      numCtx === undefined
        ? undefined
        : {
            tokens: numCtx,
            reason: `Ollama runs models with num_ctx ${numCtx} unless OLLAMA_CONTEXT_LENGTH or a Modelfile raises it; pass contextWindow to match your server`,
          },
  });
  return {
    ...shared,
    // The OpenAI API flavor, whoever serves it (the GenAI conventions' discriminator for the telemetry format).
    provider: "openai",
    server: serverOf(connection.baseURL),
    isChatModel: options.isChatModel ?? true,
    structuredOutput: options.structuredOutput ?? (connection.isOpenAI ? "json_schema" : "instructions"),
    kind: "generative",
  };
}
