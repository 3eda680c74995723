import { type Attributes, context, type Span, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import type { LLMCallStep, RagsynthEvent, SynthesisUsage } from "../events/events.js";

type PackEvent = Extract<RagsynthEvent, { type: "pack" }>;
type CallEnd = Omit<Extract<RagsynthEvent, { type: "llm-call-end" }>, "type" | "mode" | "step">;

/** One LLM call's span. */
export interface CallTrace {
  end(result: CallEnd): void;
}

/**
 * The OpenTelemetry side of a synthesis: a `ragsynth.synthesize` span with one `ragsynth.llm_call` child
 * per call and a `ragsynth.pack` span event per packing round. Spans carry modes, steps, token counts and
 * latencies, never prompt text or credentials. Without a registered SDK every call is a no-op.
 */
export interface SynthesisTrace {
  startCall(
    step: LLMCallStep,
    attributes: { promptTokens: number; contextTokens: number; model: string; maxTokens: number },
  ): CallTrace;
  pack(event: PackEvent): void;
  end(usage: SynthesisUsage, error?: unknown): void;
}

/** The tracer used when none is injected: `trace.getTracer("ragsynth")`, resolved at each span. */
export function defaultTracer(): Tracer {
  return trace.getTracer("ragsynth");
}

function stepAttributes(step: LLMCallStep): Attributes {
  const attributes: Attributes = { "ragsynth.step.kind": step.kind };
  if ("index" in step) attributes["ragsynth.step.index"] = step.index;
  if ("level" in step) attributes["ragsynth.step.level"] = step.level;
  if ("count" in step) attributes["ragsynth.step.count"] = step.count;
  if ("name" in step) attributes["ragsynth.step.name"] = step.name;
  return attributes;
}

function fail(span: Span, error: unknown) {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

/** Starts the spans of one synthesis. */
export function startSynthesisTrace(
  tracer: Tracer,
  { mode, nodeCount, streaming }: { mode: string; nodeCount: number; streaming: boolean },
): SynthesisTrace {
  const root = tracer.startSpan("ragsynth.synthesize", {
    attributes: { "ragsynth.mode": mode, "ragsynth.node_count": nodeCount, "ragsynth.streaming": streaming },
  });
  const parent = trace.setSpan(context.active(), root);
  return {
    startCall(step, { promptTokens, contextTokens, model, maxTokens }) {
      const span = tracer.startSpan(
        "ragsynth.llm_call",
        {
          attributes: {
            ...stepAttributes(step),
            "ragsynth.mode": mode,
            "gen_ai.request.model": model,
            "gen_ai.request.max_tokens": maxTokens,
            "ragsynth.prompt_tokens": promptTokens,
            "ragsynth.context_tokens": contextTokens,
          },
        },
        parent,
      );
      return {
        end(result) {
          span.setAttributes({
            "gen_ai.usage.input_tokens": result.promptTokens,
            "gen_ai.usage.output_tokens": result.completionTokens,
            "ragsynth.latency_ms": result.latencyMs,
          });
          if (result.usage?.retries !== undefined)
            span.setAttribute("ragsynth.retries", result.usage.retries);
          if (result.querySatisfied !== undefined) {
            span.setAttribute("ragsynth.query_satisfied", result.querySatisfied);
          }
          if (result.error !== undefined) fail(span, result.error);
          span.end();
        },
      };
    },
    pack(event) {
      root.addEvent("ragsynth.pack", {
        "ragsynth.round": event.round,
        "ragsynth.chunk_tokens": event.chunkTokens,
        "ragsynth.available_chunk_size": event.availableChunkSize,
        ...(event.truncatedTokens !== undefined
          ? { "ragsynth.truncated_tokens": event.truncatedTokens }
          : {}),
      });
    },
    end(usage, error) {
      root.setAttributes({
        "ragsynth.usage.llm_calls": usage.llmCalls,
        "ragsynth.usage.prompt_tokens": usage.promptTokens,
        "ragsynth.usage.completion_tokens": usage.completionTokens,
        "ragsynth.usage.retries": usage.retries,
      });
      if (error !== undefined) fail(root, error);
      root.end();
    },
  };
}
