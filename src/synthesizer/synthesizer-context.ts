import { type BudgetOptions, ChatPromptHelper, type PromptHelper } from "../budget/index.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { RagsynthEvent, SynthesisUsage } from "../events/events.js";
import type { LLM } from "../llm/types.js";
import {
  callModel,
  type ModelCallPath,
  type SynthesizerCallOptions,
  type SynthesizerCallResult,
} from "../model-call/call-model.js";
import type { BasePromptTemplate, TemplateVariables } from "../prompt/prompt-template.js";
import type { ContentBlock } from "../schema/content-block.js";
import { MetadataMode, type NodeWithScore } from "../schema/text-node.js";
import type { ConcurrencyLimiter } from "../util/concurrency-limiter.js";
import type { SynthesisTrace } from "./synthesis-trace.js";

/**
 * Everything a synthesizer's `run` needs: the query and chunks, the budget, and model calls that are
 * counted, evented, traced, capped at `numOutput` tokens and cancelled with the synthesis.
 */
export interface SynthesizerContext {
  readonly mode: string;
  readonly query: string;
  readonly nodes: readonly NodeWithScore[];
  /** Each node's text as the LLM sees it (`getContent(MetadataMode.LLM)`), in order. */
  readonly chunks: readonly string[];
  /**
   * The nodes as text and image blocks, in order, image sizes read from their headers: what the message
   * path packs. Empty unless the run is multimodal (see `multimodal`).
   */
  readonly blocks: readonly ContentBlock[];
  /** True when the run takes the message path: the nodes hold images, or the synthesizer was built multimodal. */
  readonly multimodal: boolean;
  /** The model. Throws an `invalid_argument` error in synthesizers built without one. */
  readonly llm: LLM;
  /**
   * The budget, text and images: the helper given (or built from the model), with the model's image-token rule
   * when the helper states none. Throws an `invalid_argument` error in synthesizers built without a model or helper.
   */
  readonly promptHelper: PromptHelper;
  /**
   * The same budget as {@link promptHelper}, as a `ChatPromptHelper`.
   * @deprecated `promptHelper` counts images itself (`countImage`, `countBlocks`, `getAvailableContentSize`, …).
   */
  readonly chatPromptHelper: ChatPromptHelper;
  readonly systemPrompt: string | undefined;
  /** The prompts by key, as `getPrompts()` returns them (after any `updatePrompts`). */
  readonly prompts: Readonly<Record<string, BasePromptTemplate>>;
  /** Aborts on the caller's signal and when a stream's consumer stops early. */
  readonly signal: AbortSignal;
  /** True inside `stream()`: text given to {@link write} or {@link stream} reaches the caller as it comes. */
  readonly streaming: boolean;
  /** The most model calls to run at once (with an adaptive limiter: its cap; the limiter gates each call). */
  readonly concurrency: number;
  /** The text of an answer that came back empty. */
  readonly emptyResponse: string;
  /** The budget options for this model and system prompt, plus `extra`. */
  budget(extra?: BudgetOptions): BudgetOptions;
  /** Calls the model once (never streaming to the caller). */
  call(
    prompt: BasePromptTemplate,
    variables: TemplateVariables,
    options: SynthesizerCallOptions,
  ): Promise<SynthesizerCallResult>;
  /** Like {@link call}, streaming the answer to the caller when the synthesis streams. */
  stream(
    prompt: BasePromptTemplate,
    variables: TemplateVariables,
    options: SynthesizerCallOptions,
  ): Promise<SynthesizerCallResult>;
  /** Sends text to the caller's stream (ignored when not streaming). */
  write(text: string): void;
  /** Reports an event (`pack`) to `onEvent` and the trace. */
  emit(event: RagsynthEvent): void;
}

export interface ContextInit {
  mode: string;
  query: string;
  nodes: readonly NodeWithScore[];
  blocks?: readonly ContentBlock[] | undefined;
  llm: LLM | undefined;
  promptHelper: PromptHelper | undefined;
  systemPrompt: string | undefined;
  prompts: Readonly<Record<string, BasePromptTemplate>>;
  signal: AbortSignal;
  streaming: boolean;
  concurrency: number;
  /** The model's shared adaptive limiter; undefined when `concurrency` is a fixed number. */
  limiter: ConcurrencyLimiter | undefined;
  emptyResponse: string;
  usage: SynthesisUsage;
  trace: SynthesisTrace;
  emit: (event: RagsynthEvent) => void;
  write: (text: string) => void;
  now: () => number;
}

function missing(parameter: "llm" | "promptHelper", mode: string): never {
  throw new InvalidArgumentError({
    parameter,
    value: undefined,
    expected: "be given to a synthesizer that calls the model",
    hint: `Mode "${mode}" needs it; there is no global Settings fallback.`,
  });
}

/** Builds the context of one synthesis run. */
export function createSynthesizerContext(init: ContextInit): SynthesizerContext {
  const chunks = init.nodes.map(({ node }) => node.getContent(MetadataMode.LLM));
  let helper: PromptHelper | undefined;
  let chatHelper: ChatPromptHelper | undefined;
  const context: SynthesizerContext = {
    mode: init.mode,
    query: init.query,
    nodes: init.nodes,
    chunks,
    blocks: init.blocks ?? [],
    multimodal: init.blocks !== undefined,
    get llm() {
      return init.llm ?? missing("llm", init.mode);
    },
    get promptHelper() {
      const given = init.promptHelper ?? missing("promptHelper", init.mode);
      helper ??= init.llm ? given.withImageRuleOf(init.llm.metadata) : given;
      return helper;
    },
    get chatPromptHelper() {
      chatHelper ??= new ChatPromptHelper({ promptHelper: context.promptHelper });
      return chatHelper;
    },
    systemPrompt: init.systemPrompt,
    prompts: init.prompts,
    signal: init.signal,
    streaming: init.streaming,
    concurrency: init.concurrency,
    emptyResponse: init.emptyResponse,
    budget(extra = {}) {
      const options: BudgetOptions = { llm: context.llm, ...extra };
      if (init.systemPrompt !== undefined) options.systemPrompt = init.systemPrompt;
      return options;
    },
    call: (prompt, variables, options) => callModel(path, prompt, variables, options),
    stream: (prompt, variables, options) =>
      callModel(
        path,
        prompt,
        variables,
        init.streaming ? { ...options, onDelta: writeThrough(init, options) } : options,
      ),
    write: (text) => {
      if (init.streaming) init.write(text);
    },
    emit: (event) => {
      if (event.type === "pack") init.trace.pack(event);
      init.emit(event);
    },
  };
  // The call path reads the model and budget through the context (they throw when a synthesizer has none).
  const path: ModelCallPath = {
    mode: init.mode,
    get llm() {
      return context.llm;
    },
    get promptHelper() {
      return context.promptHelper;
    },
    systemPrompt: init.systemPrompt,
    signal: init.signal,
    limiter: init.limiter,
    usage: init.usage,
    trace: init.trace,
    emit: init.emit,
    now: init.now,
  };
  return context;
}

function writeThrough(
  init: ContextInit,
  options: SynthesizerCallOptions,
): (delta: string, textSoFar: string) => undefined | "stop" {
  return (delta, textSoFar) => {
    init.write(delta);
    return options.onDelta?.(delta, textSoFar);
  };
}
