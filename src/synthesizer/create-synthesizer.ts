import type { Tracer } from "@opentelemetry/api";
import { PromptHelper } from "../budget/index.js";
import { checkFunction, checkObject, optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { RagsynthEvent, RagsynthEventHandler, SynthesisUsage } from "../events/events.js";
import type { LLM } from "../llm/types.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import { describeImage } from "../schema/content-block.js";
import { hasImageNodes, nodesToBlocks } from "../schema/nodes-to-blocks.js";
import type { NodeWithScore } from "../schema/text-node.js";
import { captureContentFromEnv } from "../tracing/gen-ai.js";
import { defaultTracer, prepareTracer } from "../tracing/start-span.js";
import { createAbortError } from "../util/abort.js";
import { limiterForModel } from "../util/concurrency-limiter.js";
import { mergeAbortSignals } from "../util/merge-abort-signals.js";
import {
  annotate,
  buildResponse,
  imageAssumptions,
  JSON_TEXT_MODES,
  type SynthesizerRunResult,
} from "./synthesis-result.js";
import { startSynthesisTrace } from "./synthesis-trace.js";
import { allBlank, checkImageModel, checkSynthesizeOptions, prepareBlocks } from "./synthesize-input.js";
import { createSynthesizerContext, type SynthesizerContext } from "./synthesizer-context.js";
import { checkTemplateSlots, templateWarnings } from "./template-slots.js";
import { createTextChannel } from "./text-channel.js";
import {
  RESPONSE_MODES,
  type ResponseSynthesizer,
  type StreamingSynthesisResponse,
  type SynthesisResponse,
  type SynthesizeOptions,
} from "./types.js";

/** Settings shared by every synthesizer, built in or custom. */
export interface SynthesizerSettings {
  /** The model. Required by every mode that calls it; there is no global `Settings` fallback. */
  llm?: LLM | undefined;
  /** The token budget. @default PromptHelper.fromLLMMetadata(llm.metadata) */
  promptHelper?: PromptHelper | undefined;
  /** Sent with every call (a system message for chat models) and counted by the budget. */
  systemPrompt?: string | undefined;
  /** The answer when there are no nodes, or when the model's answer is empty. @default "Empty Response" */
  emptyResponse?: string | undefined;
  /**
   * How many model calls run at once (tree_summarize, accumulate). `"adaptive"`: the model's shared limiter
   * starts at 8, grows 1.5× per round trip while calls succeed, cuts to the calls in flight on 429/503/`Retry-After` and
   * re-queues the rejected call at once (see `AdaptiveConcurrencyLimiter`), never above 64;
   * every synthesizer and postprocessor using the same model object shares it. A number fixes the limit.
   * @default "adaptive"
   */
  concurrency?: number | "adaptive" | undefined;
  /** Receives every event: synthesize start/end, pack rounds, each LLM call. */
  onEvent?: RagsynthEventHandler | undefined;
  /** Logs every event with `console.info`. @default false */
  verbose?: boolean | undefined;
  /** The OpenTelemetry tracer. @default trace.getTracer("ragsynth") (a no-op until an SDK is registered) */
  tracer?: Tracer | undefined;
  /**
   * Record each call's prompt and answer on its span (`gen_ai.input.messages`, `gen_ai.output.messages`),
   * scrubbed of secrets. Off by default, as the OpenTelemetry GenAI conventions require.
   * @default true only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is `true`
   */
  captureContent?: boolean | undefined;
  /**
   * Take the message path (text and image blocks, chat content prompts) even when no node is an image.
   * Nodes that hold images always take it in the modes that send context.
   * @default false
   */
  multimodal?: boolean | undefined;
  /** Test seams. */
  _internal?: { now?: () => number } | undefined;
}

export type { SynthesizerRunResult } from "./synthesis-result.js";

export interface CreateSynthesizerOptions<T = unknown> extends SynthesizerSettings {
  /** The mode's name, shown in events and spans (`"my_mode"`). */
  mode: string;
  /** The prompts `getPrompts()` returns and `updatePrompts()` may replace, by key. */
  prompts?: Record<string, BasePromptTemplate>;
  /**
   * Produces the answer. Text sent with `context.write`/`context.stream` reaches a streaming caller as it
   * comes; the returned text is the response, and whatever of it was not written yet is sent at the end.
   */
  run: (context: SynthesizerContext) => Promise<string | SynthesizerRunResult<T>>;
  /**
   * The message path: used instead of `run` when the nodes hold images (or `multimodal` is set), with
   * `context.blocks` ready. Without it, `run` handles every run (modes that send no context).
   */
  runMessages?: ((context: SynthesizerContext) => Promise<string | SynthesizerRunResult<T>>) | undefined;
  /**
   * How `run` takes nodes that hold images. `"blocks"`: it reads `context.blocks` (text and image blocks in
   * order, sizes read from the headers) and `context.multimodal` is true, as every built-in mode that sends
   * context does; the model must take images. `"text"`: the mode sends no node content to the model (it answers
   * from the query alone, or returns the context as text), so `run` sees the nodes as they are. Unset, and
   * without `runMessages`, nodes with images are refused (an `invalid_argument` error naming `runMessages`)
   * rather than sent as text with the images silently dropped, as LlamaIndex raises for a missing method.
   */
  imageNodes?: "blocks" | "text" | undefined;
  /** With no nodes: answer `emptyResponse` without calling `run` (LlamaIndex), or call `run` anyway. @default "empty-response" */
  emptyNodes?: "empty-response" | "run";
}

const DEFAULT_EMPTY_RESPONSE = "Empty Response";

/** A synthesizer without a message path was given images: say so before any call instead of dropping them. */
function refuseImages(mode: string, nodes: readonly NodeWithScore[]): never {
  const image = nodesToBlocks(nodes).find((block) => block.type === "image");
  throw new InvalidArgumentError({
    parameter: "runMessages",
    value: undefined,
    expected: `be given to synthesizer "${mode}" for nodes with images (${image ? describeImage(image) : "an image"})`,
    hint:
      "Its `run` sees only the nodes' text, so the images would be dropped. Add `runMessages` (it gets " +
      '`context.blocks`, text and images in order), set `imageNodes: "blocks"` if `run` reads `context.blocks`, or pass only text nodes.',
  });
}

/**
 * Builds a {@link ResponseSynthesizer} from a `run` function: the same plumbing as the built-in modes
 * (sources, usage, events, spans, streaming, abort, the empty-nodes answer).
 * @example
 * const quoted = createSynthesizer({
 *   mode: "quoted", llm,
 *   prompts: { text_qa_template: myPrompt },
 *   run: async (context) => (await context.stream(context.prompts.text_qa_template!,
 *     { query_str: context.query, context_str: context.chunks.join("\n\n") }, { step: { kind: "custom", name: "quoted" } })).text,
 * });
 */
export function createSynthesizer<T = unknown>(given: CreateSynthesizerOptions<T>): ResponseSynthesizer<T> {
  const options = optionsOf("options", given, "{ mode, run, llm?, … }");
  if (typeof options.mode !== "string" || options.mode === "") {
    throw new InvalidArgumentError({
      parameter: "mode",
      value: options.mode,
      expected: "be the mode's name (a non-empty string)",
    });
  }
  const { mode, run, runMessages, llm, systemPrompt, onEvent, verbose = false } = options;
  checkFunction("run", run, "be a function (context) => Promise<string> that answers from the context");
  const { emptyNodes = "empty-response", multimodal = false, imageNodes } = options;
  const emptyResponse = options.emptyResponse ?? DEFAULT_EMPTY_RESPONSE;
  const concurrency = options.concurrency ?? "adaptive";
  if (concurrency !== "adaptive" && (!Number.isInteger(concurrency) || concurrency < 1)) {
    throw new InvalidArgumentError({
      parameter: "concurrency",
      value: concurrency,
      expected: 'be a positive integer or "adaptive"',
    });
  }
  const limiter = concurrency === "adaptive" && llm ? limiterForModel(llm) : undefined;
  const promptHelper = options.promptHelper ?? (llm ? PromptHelper.fromLLMMetadata(llm.metadata) : undefined);
  const tracer = options.tracer ?? defaultTracer();
  const captureContent = options.captureContent ?? captureContentFromEnv();
  const now = options._internal?.now ?? (() => performance.now());
  const prompts: Record<string, BasePromptTemplate> = { ...options.prompts };

  const emit = (event: RagsynthEvent) => {
    if (verbose) console.info(`[ragsynth] ${event.type}`, event);
    onEvent?.(event);
  };
  const countingEmit = (counter: { succeeded: number }) => (event: RagsynthEvent) => {
    if (event.type === "llm-call-end" && event.error === undefined) counter.succeeded += 1;
    emit(event);
  };

  async function execute(
    request: SynthesizeOptions,
    streaming: boolean,
    write: (text: string) => void,
    streamSignal?: AbortSignal,
  ): Promise<SynthesisResponse<T>> {
    const { query, nodes, additionalSourceNodes = [] } = request;
    const signal = mergeAbortSignals(request.signal, streamSignal);
    const sourceNodes = [...nodes, ...additionalSourceNodes];
    const usage: SynthesisUsage = { llmCalls: 0, promptTokens: 0, completionTokens: 0, retries: 0 };
    await prepareTracer(tracer);
    const started = now();
    const trace = startSynthesisTrace(tracer, {
      mode,
      query,
      nodeCount: nodes.length,
      streaming,
      captureContent,
    });
    const counter = { succeeded: 0 };
    let written = "";
    const writeOut = (text: string) => {
      if (text === "") return;
      written += text;
      write(text);
    };
    emit({ type: "synthesize-start", mode, query, nodeCount: nodes.length });
    if ((RESPONSE_MODES as readonly string[]).includes(mode)) {
      for (const [key, prompt] of Object.entries(prompts)) {
        for (const message of templateWarnings(key, prompt))
          emit({ type: "warning", mode, code: "template_without_query", message });
      }
    }
    try {
      signal.throwIfAborted();
      let result: SynthesizerRunResult<T>;
      if (emptyNodes === "empty-response" && (nodes.length === 0 || allBlank(nodes))) {
        result = { text: emptyResponse };
      } else {
        const hasImages = hasImageNodes(nodes);
        if (hasImages && !runMessages && imageNodes === undefined) refuseImages(mode, nodes);
        const messageRun = multimodal || hasImages ? runMessages : undefined;
        // The one corridor: a mode that reads blocks gets them in `run`; `runMessages` is a custom mode's own path.
        const messagePath =
          messageRun !== undefined || ((multimodal || hasImages) && imageNodes === "blocks");
        if (messagePath) checkImageModel(llm, mode);
        const context = createSynthesizerContext({
          mode,
          query,
          nodes,
          blocks: messagePath ? await prepareBlocks(nodes) : undefined,
          llm,
          promptHelper,
          systemPrompt,
          prompts: { ...prompts },
          signal,
          streaming,
          concurrency: typeof concurrency === "number" ? concurrency : (limiter?.maxLimit ?? 1),
          limiter,
          emptyResponse,
          usage,
          trace,
          emit: countingEmit(counter),
          write: writeOut,
          now,
        });
        const output = await (messageRun ?? run)(context);
        result = typeof output === "string" ? { text: output } : output;
        // As LlamaIndex's str(PydanticResponse): one typed answer's text is its JSON, not the model's wording.
        if (result.object !== undefined && JSON_TEXT_MODES.has(mode))
          result = { ...result, text: JSON.stringify(result.object) };
        const assumptions = messagePath ? imageAssumptions(context) : [];
        if (assumptions.length > 0)
          result = { ...result, assumptions: [...(result.assumptions ?? []), ...assumptions] };
      }
      if (streaming && result.text.startsWith(written)) writeOut(result.text.slice(written.length));
      trace.end(usage, undefined, result.text);
      emit({ type: "synthesize-end", mode, usage: { ...usage }, durationMs: now() - started });
      return buildResponse(result, sourceNodes, usage);
    } catch (caught) {
      const error = signal.aborted ? createAbortError(signal) : caught;
      annotate(error, usage, counter.succeeded);
      trace.end(usage, error);
      emit({ type: "synthesize-end", mode, usage: { ...usage }, durationMs: now() - started, error });
      throw error;
    }
  }

  return {
    mode,
    getPrompts: () => ({ ...prompts }),
    updatePrompts(updates) {
      checkObject("prompts", updates, "be an object of prompts by key, as getPrompts() returns them");
      for (const [key, prompt] of Object.entries(updates)) {
        if (!Object.hasOwn(prompts, key)) {
          const known = Object.keys(prompts);
          throw new InvalidArgumentError({
            parameter: `prompts.${key}`,
            value: prompt,
            expected:
              known.length > 0
                ? `be one of ${known.map((name) => `\`${name}\``).join(", ")}`
                : "not be set: this synthesizer has no prompts",
          });
        }
        if ((RESPONSE_MODES as readonly string[]).includes(mode)) checkTemplateSlots(key, prompt);
      }
      Object.assign(prompts, updates);
    },
    synthesize(request) {
      try {
        checkSynthesizeOptions(request);
      } catch (error) {
        return Promise.reject(error);
      }
      return execute(request, false, () => {});
    },
    stream(request): StreamingSynthesisResponse<T> {
      checkSynthesizeOptions(request);
      const controller = new AbortController();
      const channel = createTextChannel("textStream", () =>
        controller.abort(new DOMException("The text stream was closed before it ended.", "AbortError")),
      );
      // Started on the next microtask, so stream() returns before any packing or call.
      const response = Promise.resolve()
        .then(() => execute(request, true, channel.push, controller.signal))
        .then(
          (result) => {
            channel.close();
            return result;
          },
          (error: unknown) => {
            channel.fail(error);
            throw error;
          },
        );
      // Consumers of textStream alone must not see an unhandled rejection; awaiting `response` still throws.
      response.catch(() => {});
      return {
        sourceNodes: [...request.nodes, ...(request.additionalSourceNodes ?? [])],
        textStream: channel.iterable,
        response,
      };
    },
  };
}
