import type { Tracer } from "@opentelemetry/api";
import type { RagsynthEvent, SynthesisUsage } from "../events/events.js";
import { type CallTracer, startCallTrace } from "../model-call/call-trace.js";
import { rootContentAttributes } from "../tracing/gen-ai.js";
import { startSpan } from "../tracing/start-span.js";

type PackEvent = Extract<RagsynthEvent, { type: "pack" }>;

/**
 * The OpenTelemetry side of a synthesis: a `ragsynth.synthesize` span with one inference span per model call,
 * named and attributed by the OpenTelemetry GenAI conventions (`chat gpt-4o-mini`, kind CLIENT, `gen_ai.*`),
 * ragsynth's own detail under `ragsynth.*`, and a `ragsynth.pack` span event per packing round. Prompt and
 * answer text are recorded only with `captureContent` (scrubbed of secrets). Without an SDK all is a no-op.
 */
export interface SynthesisTrace extends CallTracer {
  pack(event: PackEvent): void;
  /** Ends the root span; with content capture on, `answer` becomes its `output.value`. */
  end(usage: SynthesisUsage, error?: unknown, answer?: string): void;
}

/** Starts the spans of one synthesis. */
export function startSynthesisTrace(
  tracer: Tracer,
  {
    mode,
    query,
    nodeCount,
    streaming,
    captureContent,
  }: { mode: string; query: string; nodeCount: number; streaming: boolean; captureContent: boolean },
): SynthesisTrace {
  const root = startSpan(tracer, "ragsynth.synthesize", {
    attributes: {
      "ragsynth.mode": mode,
      "ragsynth.node_count": nodeCount,
      "ragsynth.streaming": streaming,
      "openinference.span.kind": "CHAIN",
      ...(captureContent ? rootContentAttributes({ query }) : {}),
    },
  });
  return {
    startCall(step, request) {
      return startCallTrace(tracer, step, request, { mode, captureContent, parent: root.context });
    },
    pack(event) {
      root.span.addEvent("ragsynth.pack", {
        "ragsynth.round": event.round,
        "ragsynth.chunk_tokens": event.chunkTokens,
        "ragsynth.available_chunk_size": event.availableChunkSize,
        ...(event.truncatedTokens !== undefined
          ? { "ragsynth.truncated_tokens": event.truncatedTokens }
          : {}),
      });
    },
    end(usage, error, answer) {
      root.span.setAttributes({
        ...(captureContent && answer !== undefined ? rootContentAttributes({ answer }) : {}),
        "ragsynth.usage.llm_calls": usage.llmCalls,
        "ragsynth.usage.prompt_tokens": usage.promptTokens,
        "ragsynth.usage.completion_tokens": usage.completionTokens,
        "ragsynth.usage.retries": usage.retries,
      });
      root.end(error);
    },
  };
}
