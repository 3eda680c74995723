import { SpanStatusCode } from "@opentelemetry/api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TextNode } from "../schema/text-node.js";
import { MockLLM } from "../testing/mock-llm.js";
import { createInMemoryTracing, type InMemoryTracing } from "../tracing/in-memory-tracing.test.util.js";
import { createEngineFakes } from "./engine-fakes.test.util.js";
import { RetrieverQueryEngine } from "./retriever-query-engine.js";

// The real OpenTelemetry SDK with async context: the engine's spans and the synthesizer's under them.
let tracing: InMemoryTracing;
beforeEach(() => {
  tracing = createInMemoryTracing();
});
afterEach(() => tracing.shutdown());

describe("RetrieverQueryEngine spans (real SDK)", () => {
  it("opens a query span with retrieve and postprocess children, all ended, no query text", async () => {
    const fakes = createEngineFakes();
    await new RetrieverQueryEngine({
      retriever: fakes.retriever,
      responseSynthesizer: fakes.synthesizer,
      nodePostprocessors: [fakes.dropLast("only")],
      tracer: tracing.tracer,
    }).query({ query: "secret question" });
    const root = tracing.byName("ragsynth.query");
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.attributes).toEqual({
      "ragsynth.mode": "fake",
      "ragsynth.streaming": false,
      "ragsynth.postprocessors": ["only"],
      "openinference.span.kind": "CHAIN",
    });
    expect(tracing.childrenOf(root).map((span) => [span.name, span.attributes])).toEqual([
      ["ragsynth.retrieve", { "ragsynth.node_count": 3, "ragsynth.tokens": 0 }],
      [
        "ragsynth.postprocess",
        { "ragsynth.postprocessor": "only", "ragsynth.nodes_before": 3, "ragsynth.nodes_after": 2 },
      ],
    ]);
    expect(JSON.stringify(tracing.spans().map((span) => span.attributes))).not.toContain("secret");
  });

  it("nests the synthesis and its model calls under the query span", async () => {
    const engine = new RetrieverQueryEngine({
      retriever: { retrieve: async () => [{ node: new TextNode({ text: "Paris is in France." }) }] },
      llm: new MockLLM({ response: "Paris.", model: "mock-model" }),
      tracer: tracing.tracer,
    });
    await engine.query({ query: "Where is Paris?" });
    const root = tracing.byName("ragsynth.query");
    const synthesize = tracing.byName("ragsynth.synthesize");
    expect(synthesize.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(synthesize.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(tracing.childrenOf(synthesize).map((span) => span.name)).toEqual(["text_completion mock-model"]);
  });

  it("marks the spans of a failed query as errors and still ends them", async () => {
    const fakes = createEngineFakes();
    await expect(
      new RetrieverQueryEngine({
        retriever: { retrieve: async () => Promise.reject(new Error("down")) },
        responseSynthesizer: fakes.synthesizer,
        tracer: tracing.tracer,
      }).query({ query: "q" }),
    ).rejects.toThrow("down");
    expect(tracing.spans().map((span) => [span.name, span.status.code, span.ended])).toEqual([
      ["ragsynth.retrieve", SpanStatusCode.ERROR, true],
      ["ragsynth.query", SpanStatusCode.ERROR, true],
    ]);
  });
});
