import type { Attributes, Context, Tracer } from "@opentelemetry/api";
import type { LLMCallStep, RagsynthEvent } from "../events/events.js";
import {
  type GenAiInput,
  type GenAiRequest,
  genAiResponseAttributes,
  inputMessagesAttribute,
  outputMessagesAttribute,
  startGenAiSpan,
} from "../tracing/gen-ai.js";

type CallEnd = Omit<Extract<RagsynthEvent, { type: "llm-call-end" }>, "type" | "mode" | "callId" | "step">;

/** One model call's span, started when the request is sent. */
export interface CallTrace {
  /** The prompt's token counts (known once counted, while the request is in flight), and the prompt itself. */
  counted(counts: { promptTokens: number; contextTokens: number; input: GenAiInput }): void;
  end(result: CallEnd & { text: string }): void;
  /**
   * Runs `fn` with the call's span as the active context, so spans started inside it (an HTTP client span
   * from undici or http instrumentation) are its children.
   */
  run<R>(fn: () => R): R;
}

/** Starts each model call's span: a synthesis's trace (under its root span), or a reranker's. */
export interface CallTracer {
  startCall(step: LLMCallStep, request: GenAiRequest): CallTrace;
}

/** Where a call sits in its synthesis: `round` is the tree level or refine step, `chunk.index` its chunk in it. */
function stepAttributes(step: LLMCallStep): Attributes {
  const attributes: Attributes = { "ragsynth.step.kind": step.kind };
  if ("level" in step) attributes["ragsynth.round"] = step.level;
  else if (step.kind === "refine" || step.kind === "answer") attributes["ragsynth.round"] = step.index;
  if ("index" in step) attributes["ragsynth.chunk.index"] = step.index;
  if ("count" in step) attributes["ragsynth.step.count"] = step.count;
  if ("name" in step) attributes["ragsynth.step.name"] = step.name;
  return attributes;
}

/**
 * Starts one model call's GenAI span (`chat gpt-4o-mini`, kind CLIENT) under `parent`, by default the active
 * span: under `ragsynth.synthesize` for a synthesizer's calls, under `ragsynth.postprocess` for a reranker's.
 */
export function startCallTrace(
  tracer: Tracer,
  step: LLMCallStep,
  request: GenAiRequest,
  { mode, captureContent, parent }: { mode: string; captureContent: boolean; parent?: Context | undefined },
): CallTrace {
  const call = startGenAiSpan(tracer, request, { "ragsynth.mode": mode, ...stepAttributes(step) }, parent);
  return {
    counted({ promptTokens, contextTokens, input }) {
      call.span.setAttributes({
        "ragsynth.prompt_tokens": promptTokens,
        "ragsynth.context_tokens": contextTokens,
        ...(captureContent ? inputMessagesAttribute(input) : {}),
      });
    },
    end(result) {
      const finishReason = result.usage?.finishReason;
      call.span.setAttributes({
        ...genAiResponseAttributes({
          inputTokens: result.promptTokens,
          outputTokens: result.completionTokens,
          finishReason,
          responseId: result.usage?.responseId,
          responseModel: result.usage?.responseModel,
        }),
        "ragsynth.latency_ms": result.latencyMs,
        "ragsynth.retries": result.usage?.retries ?? 0,
        ...(result.querySatisfied === undefined ? {} : { "ragsynth.query_satisfied": result.querySatisfied }),
        ...(captureContent && result.error === undefined
          ? outputMessagesAttribute(result.text, finishReason)
          : {}),
      });
      call.end(result.error);
    },
    run: (fn) => call.run(fn),
  };
}
