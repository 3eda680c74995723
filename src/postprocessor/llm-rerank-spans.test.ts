import { SpanKind } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/prompt-helper.js";
import type { RagsynthEvent } from "../events/events.js";
import { TextNode } from "../schema/text-node.js";
import { getResponseSynthesizer } from "../synthesizer/get-response-synthesizer.js";
import { MockLLM } from "../testing/mock-llm.js";
import { createInMemoryTracing, type InMemoryTracing } from "../tracing/in-memory-tracing.test.util.js";
import { startSpan } from "../tracing/start-span.js";
import { LLMRerank } from "./llm-rerank.js";

// The real OpenTelemetry SDK (BasicTracerProvider + InMemorySpanExporter): a rerank call goes through the
// synthesizers' call path, so its span and events have the same shape as a synthesizer call's.
let tracing: InMemoryTracing;
beforeEach(() => {
  tracing = createInMemoryTracing();
});
afterEach(() => tracing.shutdown());

const model = (response: string) =>
  new MockLLM({ response, model: "mock-model", isChatModel: true, contextWindow: 4096 });
const node = { node: new TextNode({ id: "n1", text: "Paris is the capital of France." }), score: 0.5 };
const keys = (record: object) => Object.keys(record).sort();
const callSpans = () => tracing.spans().filter((span) => span.name === "chat mock-model");

async function synthesizerCall(): Promise<{ span: ReadableSpan; events: RagsynthEvent[] }> {
  const events: RagsynthEvent[] = [];
  await getResponseSynthesizer({
    llm: model("Paris."),
    responseMode: "compact",
    promptHelper: new PromptHelper({ contextWindow: 4096, numOutput: 256 }),
    tracer: tracing.tracer,
    onEvent: (event) => events.push(event),
  }).synthesize({ query: "capital?", nodes: [node] });
  return {
    span: callSpans()[0] as ReadableSpan,
    events: events.filter((e) => e.type.startsWith("llm-call")),
  };
}

async function rerankCall(): Promise<{ span: ReadableSpan; parent: ReadableSpan; events: RagsynthEvent[] }> {
  const events: RagsynthEvent[] = [];
  const rerank = new LLMRerank({ llm: model("Doc: 1, Relevance: 9"), tracer: tracing.tracer });
  // As the query engine runs it: inside its ragsynth.postprocess span.
  const postprocess = startSpan(tracing.tracer, "ragsynth.postprocess");
  await postprocess.run(() =>
    rerank.postprocessNodes([node], { query: "capital?", onEvent: (event) => events.push(event) }),
  );
  postprocess.end();
  const span = callSpans().at(-1) as ReadableSpan;
  return {
    span,
    parent: tracing.byName("ragsynth.postprocess"),
    events: events.filter((e) => e.type.startsWith("llm-call")),
  };
}

describe("LLMRerank on the synthesizers' call path (real SDK)", () => {
  it("a rerank call has the same GenAI span and the same events as a synthesizer call", async () => {
    const synthesis = await synthesizerCall();
    const rerank = await rerankCall();
    expect(callSpans()).toHaveLength(2);

    // The span: same name, kind and attribute set; the rerank's names its mode and step.
    expect(rerank.span.name).toBe(synthesis.span.name);
    expect(rerank.span.kind).toBe(SpanKind.CLIENT);
    expect(rerank.span.parentSpanContext?.spanId).toBe(rerank.parent.spanContext().spanId);
    const withoutRound = (span: ReadableSpan) =>
      keys(span.attributes).filter((key) => key !== "ragsynth.round" && key !== "ragsynth.step.count");
    expect(withoutRound(rerank.span)).toEqual(withoutRound(synthesis.span));
    expect(rerank.span.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "mock-model",
      "gen_ai.request.max_tokens": 256,
      "ragsynth.mode": "rerank",
      "ragsynth.step.kind": "rerank",
      "ragsynth.step.count": 1,
      "ragsynth.retries": 0,
    });

    // The events: the same start/end pair with the same fields.
    expect(rerank.events.map((event) => event.type)).toEqual(["llm-call-start", "llm-call-end"]);
    expect(synthesis.events.map((event) => event.type)).toEqual(["llm-call-start", "llm-call-end"]);
    for (const index of [0, 1]) {
      expect(keys(rerank.events[index] as object)).toEqual(keys(synthesis.events[index] as object));
    }

    // The usage fallback: MockLLM reports no usage, so the end event and the span carry the counted prompt.
    const [start, end] = rerank.events as [
      Extract<RagsynthEvent, { type: "llm-call-start" }>,
      Extract<RagsynthEvent, { type: "llm-call-end" }>,
    ];
    expect(start.promptTokens).toBeGreaterThan(0);
    expect(end.promptTokens).toBe(start.promptTokens);
    expect(rerank.span.attributes["gen_ai.usage.input_tokens"]).toBe(start.promptTokens);
    expect(rerank.span.attributes["ragsynth.prompt_tokens"]).toBe(start.promptTokens);
  });
});
