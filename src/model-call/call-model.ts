import type { PromptHelper } from "../budget/index.js";
import type { LLMCallStep, RagsynthEvent, SynthesisUsage } from "../events/events.js";
import type { JsonSchemaFormat, LLM, LLMUsage } from "../llm/types.js";
import { type PredictOptions, predict, preparePrompt, streamPredict } from "../prompt/predict.js";
import type { BasePromptTemplate, TemplateVariables } from "../prompt/prompt-template.js";
import { countPromptTokens, type PromptContent, type RenderedPrompt } from "../prompt/render-prompt.js";
import type { ImageBlock } from "../schema/content-block.js";
import { createAbortError } from "../util/abort.js";
import type { ConcurrencyLimiter } from "../util/concurrency-limiter.js";
import { mergeAbortSignals } from "../util/merge-abort-signals.js";
import type { CallTracer } from "./call-trace.js";

// Call ids pair a call's events (start, retries, end): unique in the process, and cheap (no node:crypto on the
// path of an offline ask).
const RUN = Math.floor(Math.random() * 36 ** 6).toString(36);
let calls = 0;
function nextCallId(): string {
  calls += 1;
  return `call-${RUN}-${calls.toString(36)}`;
}

/** Options of one model call made through the call path ({@link callModel}). */
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
  /** Ids of the nodes whose content the packer put in this call (whole or in part); on the start event. */
  nodeIds?: readonly string[] | undefined;
  /** Ids of the earlier calls whose answers this call reads (a tree level's summaries, refine's answer so far). */
  inputCallIds?: readonly string[] | undefined;
}

/** What a call returns. */
export interface SynthesizerCallResult {
  /** The call's id, as on its events: what a later call that reads this answer names in `inputCallIds`. */
  callId: string;
  text: string;
  /** True when `onDelta` stopped the call early. */
  stopped: boolean;
  promptTokens: number;
  completionTokens: number;
  /** Exactly what the model received. */
  rendered: RenderedPrompt;
}

/**
 * What one instrumented model call needs: the model and budget, where its events, usage and spans go. A
 * synthesizer's context provides one per run; `LLMRerank` builds one per `postprocessNodes`, so a rerank call
 * is counted, evented, traced and capped exactly like a synthesizer's.
 */
export interface ModelCallPath {
  /** Shown as the events' and spans' `mode` (`"compact"`, `"rerank"`). */
  readonly mode: string;
  readonly llm: LLM;
  /** Counts the prompt (its tokenizer, and its image rule for calls with `content`) and caps each answer (its `numOutput`). */
  readonly promptHelper: PromptHelper;
  readonly systemPrompt: string | undefined;
  /** Cancels the call (a call's own `signal` option takes its place). */
  readonly signal: AbortSignal;
  /** The model's shared adaptive limiter, if any. */
  readonly limiter: ConcurrencyLimiter | undefined;
  /** Added to by every call: calls, tokens (the server's usage, else counted), retries. */
  readonly usage: SynthesisUsage;
  /** Starts each call's GenAI span. */
  readonly trace: CallTracer;
  emit(event: RagsynthEvent): void;
  now(): number;
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

/**
 * The one instrumented model call: renders the prompt, sends it (streaming when `onDelta` is set) capped at
 * `numOutput`, counts the prompt while the request is in flight, emits `llm-call-start` / `llm-call-end`, records
 * a GenAI span, and adds the server's usage (or, where it reports none, the counted tokens) to `path.usage`.
 * @throws the model's error (an abort as the abort error of the run's signal), after the end event and span
 */
export async function callModel(
  path: ModelCallPath,
  prompt: BasePromptTemplate,
  variables: TemplateVariables,
  options: SynthesizerCallOptions,
): Promise<SynthesizerCallResult> {
  const runSignal = options.signal ?? path.signal;
  runSignal.throwIfAborted();
  const { llm, promptHelper, systemPrompt } = path;
  const { responseFormat, step, content } = options;
  const tokenizer = promptHelper.tokenizer;
  const maxTokens = Math.min(options.maxTokens ?? promptHelper.numOutput, promptHelper.numOutput);
  const rendered = preparePrompt({ llm, prompt, variables, systemPrompt, responseFormat, content });
  path.usage.llmCalls += 1;
  const callId = nextCallId();
  const started = path.now();
  const span = path.trace.startCall(step, {
    operation: rendered.kind === "chat" ? "chat" : "text_completion",
    provider: llm.metadata.provider ?? "unknown",
    model: llm.metadata.model,
    maxTokens,
    outputType: responseFormat ? "json" : "text",
    server: llm.metadata.server,
  });
  const stopper = new AbortController();
  let reported: LLMUsage | undefined;
  // Sent inside the call's span: the HTTP client's spans (undici instrumentation) nest under it.
  const pending = span.run(() =>
    send(
      {
        llm,
        prompt,
        variables,
        rendered,
        systemPrompt,
        responseFormat,
        content,
        maxTokens,
        signal: mergeAbortSignals(runSignal, stopper.signal),
        limiter: path.limiter,
        onUsage: (usage) => {
          reported = { ...reported, ...usage };
        },
      },
      options.onDelta,
      stopper,
    ),
  );
  let counted: number;
  let contextTokens: number;
  if (options.tokens) {
    ({ prompt: counted, context: contextTokens } = options.tokens);
  } else {
    // Count while the request is in flight, after the other calls of a concurrent round have been sent:
    // counting first would hold back every later call of the round by the CPU time of the earlier counts.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const chatHelper = content ? promptHelper : undefined;
    const countImage = chatHelper ? (image: ImageBlock) => chatHelper.countImage(image) : undefined;
    counted = countPromptTokens(rendered, tokenizer, { systemPrompt, responseFormat, llm, countImage }).total;
    contextTokens = chatHelper
      ? chatHelper.countBlocks((content as PromptContent).blocks)
      : options.context === undefined
        ? 0
        : tokenizer.count(options.context);
  }
  path.emit({
    type: "llm-call-start",
    mode: path.mode,
    callId,
    step,
    promptTokens: counted,
    contextTokens,
    ...(options.context === undefined ? {} : { context: options.context }),
    ...(options.nodeIds === undefined ? {} : { nodeIds: [...options.nodeIds] }),
    ...(options.inputCallIds === undefined ? {} : { inputCallIds: [...options.inputCallIds] }),
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
    path.emit({
      type: "warning",
      mode: path.mode,
      code: "implausible_usage",
      message: `The server reported implausible token usage (${reported.ignoredUsage.join(", ")}); counted with the tokenizer instead.`,
    });
  }
  const promptTokens = reported?.promptTokens ?? counted;
  const completionTokens = reported?.completionTokens ?? tokenizer.count(text);
  path.usage.promptTokens += promptTokens;
  path.usage.completionTokens += completionTokens;
  path.usage.retries += reported?.retries ?? 0;
  const end = {
    promptTokens,
    completionTokens,
    latencyMs: path.now() - started,
    ...(reported ? { usage: reported } : {}),
    ...described,
    ...(error === undefined ? {} : { error }),
  };
  span.end({ ...end, text });
  path.emit({ type: "llm-call-end", mode: path.mode, callId, step, ...end, text });
  if (error !== undefined) throw error;
  return { callId, text, stopped, promptTokens, completionTokens, rendered };
}
