import type { ContentBlock } from "../schema/content-block.js";
import type { TokenizerName } from "../tokenizer/tokenizer.js";
import type { LLMUsage } from "../usage/usage.js";

export type { LLMUsage };

export type MessageRole = "system" | "user" | "assistant";

/** One chat message. */
export interface ChatMessage {
  role: MessageRole;
  /** The text; for a multimodal message, its blocks flattened to text (images as `[image: alt]`). */
  content: string;
  /**
   * A multimodal message's text and image blocks, in order. When set, models that take images send these
   * instead of `content`; models that read text only may keep using `content`.
   */
  blocks?: readonly ContentBlock[] | undefined;
}

/**
 * How many prompt tokens an image costs on a model. `openai` is OpenAI's published rule for its vision
 * models (low detail: 85; high: fit 2048×2048, shortest side to 768, 85 + 170 per 512-pixel tile);
 * `fixed` is a count per image, for servers that state one.
 */
export type ImageTokenRule =
  /**
   * OpenAI's published rule for `model` (its images-and-vision guide: 512-px tiles with a per-model base and tile
   * cost, or 32-px patches times a per-model multiplier); without `model`, the GPT-4o family's. A model the table
   * does not know is counted by the costliest rule (gpt-4o-mini's), stated as an assumption.
   */
  { kind: "openai"; model?: string | undefined } | { kind: "fixed"; tokensPerImage: number };

/** What a model says about itself. The budget reads `contextWindow` and `maxOutputTokens`. */
export interface LLMMetadata {
  /** The model id sent to the server (`gpt-4o-mini`, `llama3.1:8b`). */
  model: string;
  /**
   * Who serves the model, as the OpenTelemetry GenAI conventions name it (`gen_ai.provider.name`: `openai`,
   * `anthropic`, `ollama`, …); traces say `unknown` when absent.
   */
  provider?: string;
  /** Total tokens the model accepts: prompt plus output. */
  contextWindow: number;
  /** The most tokens the model may generate in one call, when known. */
  maxOutputTokens?: number;
  /** True when the model takes chat messages; selects the chat prompt variants. */
  isChatModel: boolean;
  /** The encoding that matches the model's own tokenizer, when known. */
  tokenizer?: TokenizerName;
  /**
   * `json_schema` when the server enforces a JSON Schema natively (`response_format`); otherwise the
   * schema is sent as instructions and the answer is parsed and validated.
   * @default "instructions"
   */
  structuredOutput?: "json_schema" | "instructions";
  /** `extractive` for answerers that copy sentences rather than generate text. @default "generative" */
  kind?: "generative" | "extractive";
  /**
   * How the model takes images: `pixels` (a vision model: images are sent as image parts) or `captions`
   * (it reads only their captions and alt text). Absent: no images; multimodal synthesis is an error.
   */
  imageInput?: "pixels" | "captions" | undefined;
  /** What an image costs in prompt tokens. @default { kind: "openai" } (and stated in `assumptions` when not given) */
  imageTokens?: ImageTokenRule | undefined;
  /** Values the provider assumed rather than knew (an unknown model's context window); shown in traces. */
  assumptions?: string[];
  /**
   * Where the model is served: the host and port of its base URL, never its path, query or credentials. Traced as
   * `server.address` / `server.port`.
   */
  server?: { address: string; port: number } | undefined;
}

/** A JSON Schema to constrain the answer to. */
export interface JsonSchemaFormat {
  name: string;
  schema: Record<string, unknown>;
}

/** What an `onRetry` hook returns: `{ paced: true }` when it timed the retry itself (no backoff follows). */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook that returns nothing keeps the backoff
export type RetryHookResult = Promise<{ paced: boolean } | void> | { paced: boolean } | void;

/** Options of one model call. */
export interface LLMCallOptions {
  /** The most tokens to generate; synthesizers pass the budget's `numOutput`. */
  maxTokens?: number;
  signal?: AbortSignal;
  /** Ask for JSON matching this schema (sent natively when `metadata.structuredOutput` is `json_schema`). */
  responseFormat?: JsonSchemaFormat;
  /** Called once when the call ends with the usage the server reported (for streams, after the last delta). */
  onUsage?: (usage: LLMUsage) => void;
  /**
   * The values the prompt was formatted with (`query_str`, `context_str`, …) and the template's type.
   * Generative models ignore them; {@link ExtractiveLLM} and test fakes read them.
   */
  templateVariables?: Readonly<Record<string, string>>;
  promptType?: string;
  /**
   * Called before each retry of a failed attempt (429, 5xx, a dropped connection), with the error and the
   * backoff; the retry waits until the returned promise settles, and then for the backoff unless it resolved
   * to `{ paced: true }` (the hook timed the retry itself). A concurrency limiter gives up its slot here and
   * takes one again before the retry; when it re-sends the call as soon as a slot frees (no backoff) it sets
   * `event.delayMs` to 0 before it first awaits, so call it before reporting the retry. Models without retries of
   * their own ignore it.
   */
  onRetry?: (event: { attempt: number; delayMs: number; error: unknown }) => RetryHookResult;
}

/** The answer to one non-streaming call. */
export interface LLMResult {
  text: string;
  usage?: LLMUsage;
}

/**
 * The model contract. A structural type: any object with these members is a model.
 * Streaming forms return the text deltas; an aborted signal makes them throw an `AbortError`.
 */
export interface LLM {
  readonly metadata: LLMMetadata;
  complete(prompt: string, options?: LLMCallOptions): Promise<LLMResult>;
  streamComplete(prompt: string, options?: LLMCallOptions): AsyncIterable<string>;
  chat(messages: ChatMessage[], options?: LLMCallOptions): Promise<LLMResult>;
  streamChat(messages: ChatMessage[], options?: LLMCallOptions): AsyncIterable<string>;
}

/** The context window assumed for a model nobody told us about (LlamaIndex's default). */
export const DEFAULT_CONTEXT_WINDOW = 3900;
/** Tokens reserved for the answer when the model states no limit (LlamaIndex's default). */
export const DEFAULT_NUM_OUTPUT = 256;
