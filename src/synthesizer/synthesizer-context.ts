import { type BudgetOptions, ChatPromptHelper, type PromptHelper } from "../budget/index.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { LLMCallStep, RagsynthEvent, SynthesisUsage } from "../events/events.js";
import type { JsonSchemaFormat, LLM, LLMUsage } from "../llm/types.js";
import { type PredictOptions, predict, preparePrompt, streamPredict } from "../prompt/predict.js";
import type { BasePromptTemplate, TemplateVariables } from "../prompt/prompt-template.js";
import { countPromptTokens, type PromptContent, type RenderedPrompt } from "../prompt/render-prompt.js";
import type { ContentBlock, ImageBlock } from "../schema/content-block.js";
import { MetadataMode, type NodeWithScore } from "../schema/text-node.js";
import { createAbortError } from "../util/abort.js";
import type { ConcurrencyLimiter } from "../util/concurrency-limiter.js";
import type { SynthesisTrace } from "./synthesis-trace.js";

/** Options of one model call made through a {@link SynthesizerContext}. */
export interface SynthesizerCallOptions {
  /** Which step of the synthesis this call is; shown in events and spans. */
  step: LLMCallStep;
  /** The context text placed in the prompt, counted as the start event's `contextTokens`. */
  context?: string;
  /** Ask for JSON matching this schema (the budget must have counted it too). */
  responseFormat?: JsonSchemaFormat | undefined;
  /**
   * Receives each text delta; when set, the call streams. Return `"stop"` to end the call at once
   * (the model stops generating; the call still counts).
   */
  onDelta?: (delta: string, textSoFar: string) => undefined | "stop";
  /**
   * Extra fields for the `llm-call-end` event, computed from the answer (and whether `onDelta` stopped the
   * call). An error thrown here (a validation failure) becomes the call's error.
   */
  describe?: (text: string, stopped: boolean) => { querySatisfied?: boolean };
  /** A signal derived from the context's (a pool's); defaults to the context's signal. */
  signal?: AbortSignal;
  /**
   * Exact counts the caller already has (the packer's): the whole prompt and the context on its own. Given,
   * the call sends at once without counting the prompt again.
   */
  tokens?: { prompt: number; context: number } | undefined;
  /**
   * The most tokens the model may answer, at most `numOutput` (tree_summarize's intermediate summaries ask
   * for less, so two fit one chunk). @default promptHelper.numOutput
   */
  maxTokens?: number;
  /** Text and image blocks placed where a template variable is (the message path); counted with the image rule. */
  content?: PromptContent | undefined;
}

/** What a call returns. */
export interface SynthesizerCallResult {
  text: string;
  /** True when `onDelta` stopped the call early. */
  stopped: boolean;
  promptTokens: number;
  completionTokens: number;
  /** Exactly what the model received. */
  rendered: RenderedPrompt;
}

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
  /** The budget. Throws an `invalid_argument` error in synthesizers built without a model or helper. */
  readonly promptHelper: PromptHelper;
  /** The multimodal budget: {@link promptHelper} plus the model's image-token rule. */
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
      return init.promptHelper ?? missing("promptHelper", init.mode);
    },
    get chatPromptHelper() {
      chatHelper ??= ChatPromptHelper.fromLLMMetadata(context.llm.metadata, context.promptHelper);
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
    call: (prompt, variables, options) => callModel(init, context, prompt, variables, options),
    stream: (prompt, variables, options) =>
      callModel(
        init,
        context,
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

/** Runs the request, streaming when `onDelta` is set; failures are returned, not thrown. */
async function send(
  request: PredictOptions,
  onDelta: SynthesizerCallOptions["onDelta"],
  stopper: AbortController,
): Promise<{ text: string; stopped: boolean; usage?: LLMUsage; error?: unknown }> {
  let text = "";
  try {
    if (!onDelta) {
      const result = await predict(request);
      return result.usage
        ? { text: result.text, stopped: false, usage: result.usage }
        : { text: result.text, stopped: false };
    }
    for await (const delta of streamPredict(request).textStream) {
      text += delta;
      if (onDelta(delta, text) === "stop") {
        stopper.abort(createAbortError());
        return { text, stopped: true };
      }
    }
    return { text, stopped: false };
  } catch (error) {
    return { text, stopped: false, error };
  }
}

async function callModel(
  init: ContextInit,
  context: SynthesizerContext,
  prompt: BasePromptTemplate,
  variables: TemplateVariables,
  options: SynthesizerCallOptions,
): Promise<SynthesizerCallResult> {
  const runSignal = options.signal ?? init.signal;
  runSignal.throwIfAborted();
  const { llm, promptHelper } = context;
  const { systemPrompt } = init;
  const { responseFormat, step, content } = options;
  const tokenizer = promptHelper.tokenizer;
  const maxTokens = Math.min(options.maxTokens ?? promptHelper.numOutput, promptHelper.numOutput);
  const rendered = preparePrompt({ llm, prompt, variables, systemPrompt, responseFormat, content });
  init.usage.llmCalls += 1;
  const started = init.now();
  const span = init.trace.startCall(step, {
    operation: rendered.kind === "chat" ? "chat" : "text_completion",
    provider: llm.metadata.provider ?? "unknown",
    model: llm.metadata.model,
    maxTokens,
  });
  const stopper = new AbortController();
  let reported: LLMUsage | undefined;
  const pending = send(
    {
      llm,
      prompt,
      variables,
      systemPrompt,
      responseFormat,
      content,
      maxTokens,
      signal: AbortSignal.any([runSignal, stopper.signal]),
      limiter: init.limiter,
      onUsage: (usage) => {
        reported = { ...reported, ...usage };
      },
    },
    options.onDelta,
    stopper,
  );
  let counted: number;
  let contextTokens: number;
  if (options.tokens) {
    ({ prompt: counted, context: contextTokens } = options.tokens);
  } else {
    // Count while the request is in flight, after the other calls of a concurrent round have been sent:
    // counting first would hold back every later call of the round by the CPU time of the earlier counts.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const chatHelper = content ? context.chatPromptHelper : undefined;
    const countImage = chatHelper ? (image: ImageBlock) => chatHelper.countImage(image) : undefined;
    counted = countPromptTokens(rendered, tokenizer, { systemPrompt, responseFormat, llm, countImage }).total;
    contextTokens = chatHelper
      ? chatHelper.countBlocks((content as PromptContent).blocks)
      : options.context === undefined
        ? 0
        : tokenizer.count(options.context);
  }
  init.emit({
    type: "llm-call-start",
    mode: init.mode,
    step,
    promptTokens: counted,
    contextTokens,
    ...(options.context === undefined ? {} : { context: options.context }),
  });
  span.counted({ promptTokens: counted, contextTokens, input: rendered });
  const outcome = await pending;
  const { text, stopped } = outcome;
  if (outcome.usage) reported = { ...outcome.usage, ...reported };
  let error =
    outcome.error === undefined ? undefined : runSignal.aborted ? createAbortError(runSignal) : outcome.error;
  let described: { querySatisfied?: boolean } = {};
  if (error === undefined && options.describe) {
    try {
      described = options.describe(text, stopped);
    } catch (caught) {
      error = caught;
    }
  }
  if (reported?.ignoredUsage) {
    init.emit({
      type: "warning",
      mode: init.mode,
      code: "implausible_usage",
      message: `The server reported implausible token usage (${reported.ignoredUsage.join(", ")}); counted with the tokenizer instead.`,
    });
  }
  const promptTokens = reported?.promptTokens ?? counted;
  const completionTokens = reported?.completionTokens ?? tokenizer.count(text);
  init.usage.promptTokens += promptTokens;
  init.usage.completionTokens += completionTokens;
  init.usage.retries += reported?.retries ?? 0;
  const end = {
    promptTokens,
    completionTokens,
    latencyMs: init.now() - started,
    ...(reported ? { usage: reported } : {}),
    ...described,
    ...(error === undefined ? {} : { error }),
  };
  span.end({ ...end, text });
  init.emit({ type: "llm-call-end", mode: init.mode, step, ...end, text });
  if (error !== undefined) throw error;
  return { text, stopped, promptTokens, completionTokens, rendered };
}
