import { countImageTokens } from "../budget/image-tokens.js";
import { optionsOf } from "../errors/check-options.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { messagesToPrompt } from "../llm/messages-to-prompt.js";
import type { ChatMessage, LLM, LLMCallOptions, LLMMetadata, LLMResult, LLMUsage } from "../llm/types.js";
import { countPromptTokens } from "../prompt/render-prompt.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import type { Tokenizer, TokenizerLike } from "../tokenizer/tokenizer.js";
import { createAbortError, sleep as defaultSleep } from "../util/abort.js";

/** What a {@link MockLLM} response function receives. */
export interface MockLLMInput {
  kind: "complete" | "chat";
  /** The completion prompt (`complete`, `streamComplete`). */
  prompt?: string;
  /** The chat messages (`chat`, `streamChat`). */
  messages?: ChatMessage[];
  options: LLMCallOptions;
  /** 0 for the first call. */
  callIndex: number;
}

/** One answer: its text, or its text and the usage to report. */
export type MockAnswer = string | LLMResult;

/**
 * How a {@link MockLLM} answers: one text for every call, an array consumed one per call, a function of
 * the call, or `"echo"` (the prompt itself, as LlamaIndex's `MockLLM()` does).
 */
export type MockResponse =
  | string
  | readonly MockAnswer[]
  | "echo"
  | ((input: MockLLMInput) => MockAnswer | Promise<MockAnswer>);

/** How a stream is cut into deltas. */
export type MockStreamBy = "character" | "token" | "word";

/** One recorded call. */
export interface MockLLMCall {
  kind: "complete" | "chat";
  prompt?: string;
  messages?: ChatMessage[];
  options: LLMCallOptions;
  stream: boolean;
  startedAt: number;
  /** Set when the call (for streams: the last delta, an abort or an early `return`) has ended. */
  endedAt?: number;
}

export interface MockLLMOptions {
  /** How to answer. Without it (and without `maxTokens`) every call throws a `not_implemented` error. */
  response?: MockResponse;
  /** Answer `"text"` repeated N times (LlamaIndex's `MockLLM(max_tokens=N)`); also sets `maxOutputTokens`. */
  maxTokens?: number;
  /** @default 3900 */
  contextWindow?: number;
  /** @default false */
  isChatModel?: boolean;
  /** @default "mock" */
  model?: string;
  /** Reported as `metadata.imageInput`: `"pixels"` makes it a vision model that records image blocks. */
  imageInput?: LLMMetadata["imageInput"];
  /** Reported as `metadata.imageTokens`; also how its usage counts images. @default OpenAI's rule */
  imageTokens?: LLMMetadata["imageTokens"];
  /** Reported as `metadata.structuredOutput`. */
  structuredOutput?: LLMMetadata["structuredOutput"];
  /**
   * Delta size: one character (LlamaIndex's mock), one word with its trailing space, or one pre-token piece of
   * `tokenizer` (` world`, `!`): token-sized, as servers stream.
   * @default "character"
   */
  streamBy?: MockStreamBy;
  /** Waited before each answer (and before the first delta of a stream). @default 0 */
  latencyMs?: number;
  /** Waited before each stream delta after the first. @default 0 */
  deltaLatencyMs?: number;
  /** Cut answers to the call's `maxTokens`, as a server does. @default false (LlamaIndex's mock never cuts) */
  truncateToMaxTokens?: boolean;
  /**
   * Usage reported through `onUsage` and the result: counted with `tokenizer` (`"count"`), not at all
   * (`false`), or computed per call.
   * @default "count"
   */
  usage?: "count" | false | ((input: MockLLMInput & { text: string }) => LLMUsage);
  /** Counts usage, `truncateToMaxTokens` and `streamBy: "token"`. @default "cl100k_base" */
  tokenizer?: TokenizerLike;
  /** Test seams: the delay used for latencies (must reject on abort) and the clock of `calls`. */
  _internal?: {
    sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
    now?: () => number;
  };
}

// cl100k's pre-tokenizer without possessive quantifiers, for tokenizers that do not expose theirs.
const PRETOKENIZER =
  /'(?:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+/giu;

/** Splits a stream's text into deltas. Pieces always join back to the text. */
function splitDeltas(text: string, by: MockStreamBy, tokenizer: Tokenizer): string[] {
  if (text === "") return [""];
  if (by === "character") return Array.from(text);
  if (by === "word") return text.match(/\s+|\S+\s*/g) ?? [text];
  // The BPE pre-tokenizer's pieces: token-sized deltas, as a server streams them.
  return text.match(tokenizer.pretokenizer ?? PRETOKENIZER) ?? [text];
}

/**
 * A scriptable {@link LLM} for tests: answers from a script, records every call, tracks concurrency,
 * reports usage and honours `signal` (an `AbortError`, also during latency waits and between deltas).
 * @example new MockLLM({ response: ["first", "second"], contextWindow: 1024 })
 */
export class MockLLM implements LLM {
  readonly metadata: LLMMetadata;
  /** Every call, in the order it started. */
  readonly calls: MockLLMCall[] = [];
  /** Calls running now. */
  inFlight = 0;
  /** The most calls that ran at once. */
  peakConcurrency = 0;
  private readonly options: MockLLMOptions;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly now: () => number;

  constructor(given: MockLLMOptions = {}) {
    const options = optionsOf("options", given, "{ model?, contextWindow?, responses?, … }");
    this.options = options;
    this.metadata = {
      model: options.model ?? "mock",
      contextWindow: options.contextWindow ?? 3900,
      isChatModel: options.isChatModel ?? false,
      ...(options.maxTokens !== undefined ? { maxOutputTokens: options.maxTokens } : {}),
      ...(options.structuredOutput ? { structuredOutput: options.structuredOutput } : {}),
      ...(options.imageInput ? { imageInput: options.imageInput } : {}),
      ...(options.imageTokens ? { imageTokens: options.imageTokens } : {}),
    };
    this.sleep = options._internal?.sleep ?? defaultSleep;
    this.now = options._internal?.now ?? Date.now;
  }

  /** The prompts received, in order: completion text, or chat messages rendered as `role: content` lines. */
  get prompts(): string[] {
    return this.calls.map((call) => call.prompt ?? messagesToPrompt(call.messages ?? []));
  }

  complete(prompt: string, options: LLMCallOptions = {}): Promise<LLMResult> {
    return this.run({ kind: "complete", prompt, options });
  }

  chat(messages: ChatMessage[], options: LLMCallOptions = {}): Promise<LLMResult> {
    return this.run({ kind: "chat", messages, options });
  }

  streamComplete(prompt: string, options: LLMCallOptions = {}): AsyncIterable<string> {
    return this.runStream({ kind: "complete", prompt, options });
  }

  streamChat(messages: ChatMessage[], options: LLMCallOptions = {}): AsyncIterable<string> {
    return this.runStream({ kind: "chat", messages, options });
  }

  private begin(input: Omit<MockLLMInput, "callIndex">, stream: boolean): [MockLLMInput, MockLLMCall] {
    const call: MockLLMCall = { kind: input.kind, options: input.options, stream, startedAt: this.now() };
    if (input.prompt !== undefined) call.prompt = input.prompt;
    if (input.messages !== undefined) call.messages = input.messages.map((message) => ({ ...message }));
    const callIndex = this.calls.length;
    this.calls.push(call);
    this.inFlight += 1;
    this.peakConcurrency = Math.max(this.peakConcurrency, this.inFlight);
    return [{ ...input, callIndex }, call];
  }

  private end(call: MockLLMCall) {
    if (call.endedAt !== undefined) return;
    call.endedAt = this.now();
    this.inFlight -= 1;
  }

  private async answer(input: MockLLMInput): Promise<LLMResult> {
    const { signal } = input.options;
    if (signal?.aborted) throw createAbortError(signal);
    if (this.options.latencyMs) await this.sleep(this.options.latencyMs, signal);
    const scripted = await this.scripted(input);
    if (signal?.aborted) throw createAbortError(signal);
    let text = typeof scripted === "string" ? scripted : scripted.text;
    const tokenizer = resolveTokenizer(this.options.tokenizer);
    const maxTokens = input.options.maxTokens;
    if (this.options.truncateToMaxTokens && maxTokens !== undefined && tokenizer.count(text) > maxTokens) {
      text = truncateToTokens(text, maxTokens, (piece) => tokenizer.count(piece));
    }
    const usage =
      typeof scripted === "string"
        ? this.usageOf(input, text)
        : (scripted.usage ?? this.usageOf(input, text));
    return usage ? { text, usage } : { text };
  }

  private async scripted(input: MockLLMInput): Promise<MockAnswer> {
    const { response, maxTokens } = this.options;
    if (response === "echo")
      return input.prompt ?? messagesToPrompt(input.messages ?? [], { assistantTurn: true });
    if (typeof response === "string") return response;
    if (typeof response === "function") return response(input);
    if (Array.isArray(response)) {
      const answer = response[input.callIndex];
      if (answer === undefined) {
        throw new RagsynthError({
          code: "not_implemented",
          message: `MockLLM received call ${input.callIndex + 1} but \`response\` has only ${response.length} answer${response.length === 1 ? "" : "s"}. Add answers or pass a function.`,
        });
      }
      return answer;
    }
    if (maxTokens !== undefined) return Array.from({ length: maxTokens }, () => "text").join(" ");
    throw new RagsynthError({
      code: "not_implemented",
      message: `MockLLM.${input.kind} was called but no \`response\` is configured. Pass \`response\` (a string, an array, a function or "echo") or \`maxTokens\`.`,
    });
  }

  private usageOf(input: MockLLMInput, text: string): LLMUsage | undefined {
    const { usage = "count" } = this.options;
    if (usage === false) return undefined;
    if (typeof usage === "function") return usage({ ...input, text });
    const tokenizer = resolveTokenizer(this.options.tokenizer);
    const rendered =
      input.prompt !== undefined
        ? { kind: "completion" as const, text: input.prompt }
        : { kind: "chat" as const, messages: input.messages ?? [] };
    return {
      promptTokens: countPromptTokens(rendered, tokenizer, {
        countImage: (image) => countImageTokens(image, this.metadata.imageTokens).tokens,
      }).total,
      completionTokens: tokenizer.count(text),
    };
  }

  private async run(input: Omit<MockLLMInput, "callIndex">): Promise<LLMResult> {
    const [withIndex, call] = this.begin(input, false);
    try {
      const result = await this.answer(withIndex);
      if (result.usage) input.options.onUsage?.(result.usage);
      return result;
    } finally {
      this.end(call);
    }
  }

  private runStream(input: Omit<MockLLMInput, "callIndex">): AsyncIterable<string> {
    const mock = this;
    const { signal } = input.options;
    return {
      async *[Symbol.asyncIterator]() {
        const [withIndex, call] = mock.begin(input, true);
        try {
          const result = await mock.answer(withIndex);
          const deltas = splitDeltas(
            result.text,
            mock.options.streamBy ?? "character",
            resolveTokenizer(mock.options.tokenizer),
          );
          for (const [index, delta] of deltas.entries()) {
            if (index > 0 && mock.options.deltaLatencyMs)
              await mock.sleep(mock.options.deltaLatencyMs, signal);
            if (signal?.aborted) throw createAbortError(signal);
            yield delta;
          }
          if (result.usage) input.options.onUsage?.(result.usage);
        } finally {
          mock.end(call);
        }
      },
    };
  }
}

function truncateToTokens(text: string, maxTokens: number, count: (text: string) => number): string {
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (count(text.slice(0, middle)) <= maxTokens) low = middle;
    else high = middle - 1;
  }
  return text.slice(0, low);
}
