import { checkInteger } from "../errors/check-integer.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { lookupModelLimits, type ModelLimitsTable } from "../llm/model-context-windows.js";
import { DEFAULT_CONTEXT_WINDOW, type ImageTokenRule, type LLMMetadata } from "../llm/types.js";
import { tokenizerNameForModel } from "../tokenizer/resolve-tokenizer.js";
import type { RetryEvent, RetryInternals, RetryOptions } from "../util/retry.js";
import type { OpenAIConnectionOptions } from "./openai-connection.js";
import { looksLikeOllama } from "./to-llm-error.js";

/** The `num_ctx` Ollama runs a model with unless told otherwise (4096 since 0.6; 2048 before). */
export const OLLAMA_DEFAULT_NUM_CTX = 4096;

/** Options of {@link OpenAILike}. Connection fields (`apiKey`, `baseURL`, `fetch`, `headers`) come first. */
export interface OpenAILikeOptions extends OpenAIConnectionOptions {
  /** The model id the server knows (`gpt-4o-mini`, `llama3.1:8b`, `Qwen/Qwen2.5-7B-Instruct`). */
  model: string;
  /** Total tokens the model accepts. @default from {@link MODEL_CONTEXT_WINDOWS} or `modelLimits`, else 3900 */
  contextWindow?: number | undefined;
  /** The most tokens one answer may have; larger `maxTokens` fail before the request. @default from the table */
  maxOutputTokens?: number | undefined;
  /** Your own limits table, consulted before the built-in one. */
  modelLimits?: ModelLimitsTable | undefined;
  /** False to use the legacy `/v1/completions` endpoint (`gpt-3.5-turbo-instruct`, base models). @default true */
  isChatModel?: boolean | undefined;
  /**
   * How `responseFormat` is honoured. `json_schema` sends `response_format` (OpenAI; recent Ollama, vLLM and
   * llama.cpp accept it too, with varying strictness); `instructions` relies on the schema the prompt carries.
   * @default "json_schema" for api.openai.com, otherwise "instructions"
   */
  structuredOutput?: "json_schema" | "instructions" | undefined;
  /**
   * The model takes images: `pixels` sends them as `image_url` content parts (data URLs for bytes and
   * files, URLs as given, `detail` passed through). @default "pixels" for OpenAI's vision models on
   * api.openai.com (gpt-4o, gpt-4.1, gpt-5, o1/o3/o4), otherwise unset (images are an error)
   */
  imageInput?: "pixels" | "captions" | undefined;
  /**
   * What an image costs in prompt tokens on this server. @default OpenAI's rule (stated in
   * `metadata.assumptions` for other servers)
   */
  imageTokens?: ImageTokenRule | undefined;
  /** Sampling temperature; omitted (server default) when unset, as reasoning models reject other values. */
  temperature?: number | undefined;
  /** Deadline of each call in milliseconds, retries and the whole stream included. */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt (429, 408, 409, 5xx, dropped connections). @default 3 */
  maxRetries?: number | undefined;
  /** Backoff tuning of the shared retry policy. */
  retry?: RetryOptions | undefined;
  /** Called before each retry (for logs). */
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
 * What an {@link OpenAILike} says about itself. Unknown models get 3900 tokens and an entry in
 * `assumptions`; on Ollama (port 11434) the table's context window is capped at the server's `num_ctx`
 * (`OLLAMA_CONTEXT_LENGTH`, else 4096) because Ollama silently truncates longer prompts.
 */
export function resolveOpenAILikeMetadata(
  options: OpenAILikeOptions,
  connection: { baseURL: string; isOpenAI: boolean },
): LLMMetadata {
  const { model } = options;
  const limits = lookupModelLimits(model, options.modelLimits);
  const assumptions: string[] = [];
  let contextWindow = options.contextWindow ?? limits?.contextWindow;
  if (contextWindow === undefined) {
    contextWindow = DEFAULT_CONTEXT_WINDOW;
    assumptions.push(
      `contextWindow ${DEFAULT_CONTEXT_WINDOW} assumed for unknown model ${model}; pass contextWindow`,
    );
  } else if (options.contextWindow === undefined && looksLikeOllama(connection.baseURL)) {
    const numCtx = ollamaNumCtx();
    if (contextWindow > numCtx) {
      assumptions.push(
        `contextWindow ${numCtx} used instead of ${model}'s ${contextWindow}: Ollama runs models with num_ctx ${numCtx} unless OLLAMA_CONTEXT_LENGTH or a Modelfile raises it; pass contextWindow to match your server`,
      );
      contextWindow = numCtx;
    }
  }
  const tokenizer = tokenizerNameForModel(model);
  if (!connection.isOpenAI && !limits?.matched.startsWith("gpt")) {
    assumptions.push(`tokenizer ${tokenizer} approximates ${model}'s own tokenizer`);
  }
  const metadata: LLMMetadata = {
    model,
    // The OpenAI API flavor, whoever serves it (the GenAI conventions' discriminator for the telemetry format).
    provider: "openai",
    contextWindow,
    isChatModel: options.isChatModel ?? true,
    tokenizer,
    structuredOutput: options.structuredOutput ?? (connection.isOpenAI ? "json_schema" : "instructions"),
    kind: "generative",
  };
  const openAIVision = connection.isOpenAI && /^(gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-5|o[134])/.test(model);
  const imageInput = options.imageInput ?? (openAIVision ? "pixels" : undefined);
  if (imageInput !== undefined) metadata.imageInput = imageInput;
  if (options.imageTokens !== undefined) metadata.imageTokens = options.imageTokens;
  else if (imageInput !== undefined && !connection.isOpenAI) {
    assumptions.push(
      `image tokens of ${model} counted by OpenAI's rule; pass imageTokens if the server counts otherwise`,
    );
  }
  const maxOutputTokens = options.maxOutputTokens ?? limits?.maxOutputTokens;
  if (maxOutputTokens !== undefined) metadata.maxOutputTokens = Math.min(maxOutputTokens, contextWindow);
  if (assumptions.length > 0) metadata.assumptions = assumptions;
  return metadata;
}
