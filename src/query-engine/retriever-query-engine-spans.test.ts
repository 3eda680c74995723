import { type Context, type Span, type SpanOptions, type Tracer, trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { createEngineFakes } from "./engine-fakes.test.util.js";
import { RetrieverQueryEngine } from "./retriever-query-engine.js";

/** A tracer that records each span's name, attributes, parent, status and whether it ended. */
function recordingTracer() {
  const spans: {
    name: string;
    attributes: Record<string, unknown>;
    parent?: string;
    ended: boolean;
    error: boolean;
  }[] = [];
  let nextId = 1;
  const tracer: Tracer = {
    startSpan(name: string, options?: SpanOptions, parentContext?: Context): Span {
      const id = String(nextId++).padStart(16, "0");
      const parentSpan = parentContext ? trace.getSpan(parentContext) : undefined;
      const parentName = parentSpan ? spans[Number(parentSpan.spanContext().spanId) - 1]?.name : undefined;
      const record = {
        name,
        attributes: { ...options?.attributes },
        ended: false,
        error: false,
        ...(parentName ? { parent: parentName } : {}),
      };
      spans.push(record);
      const span = {
        spanContext: () => ({ traceId: "1".repeat(32), spanId: id, traceFlags: 1 }),
        setAttribute: (key: string, value: unknown) => {
          record.attributes[key] = value;
          return span;
        },
        setAttributes: (attributes: Record<string, unknown>) => {
          Object.assign(record.attributes, attributes);
          return span;
        },
        setStatus: () => {
          record.error = true;
          return span;
        },
        recordException: () => {},
        end: () => {
          record.ended = true;
        },
      };
      return span as unknown as Span;
    },
    startActiveSpan: () => {
      throw new Error("not used");
    },
  };
  return { tracer, spans };
}

describe("RetrieverQueryEngine spans", () => {
  it("opens a query span with retrieve and postprocess children, all ended", async () => {
    const fakes = createEngineFakes();
    const { tracer, spans } = recordingTracer();
    await new RetrieverQueryEngine({
      retriever: fakes.retriever,
      responseSynthesizer: fakes.synthesizer,
      nodePostprocessors: [fakes.dropLast("only")],
      tracer,
    }).query({ query: "secret question" });
    expect(spans).toEqual([
      {
        name: "ragsynth.query",
        attributes: {
          "ragsynth.mode": "fake",
          "ragsynth.streaming": false,
          "ragsynth.postprocessors": ["only"],
        },
        ended: true,
        error: false,
      },
      {
        name: "ragsynth.retrieve",
        attributes: { "ragsynth.node_count": 3, "ragsynth.tokens": 0 },
        parent: "ragsynth.query",
        ended: true,
        error: false,
      },
      {
        name: "ragsynth.postprocess",
        attributes: {
          "ragsynth.postprocessor": "only",
          "ragsynth.nodes_before": 3,
          "ragsynth.nodes_after": 2,
        },
        parent: "ragsynth.query",
        ended: true,
        error: false,
      },
    ]);
    expect(JSON.stringify(spans)).not.toContain("secret");
  });

  it("marks the spans of a failed query as errors and still ends them", async () => {
    const { tracer, spans } = recordingTracer();
    const fakes = createEngineFakes();
    await expect(
      new RetrieverQueryEngine({
        retriever: { retrieve: async () => Promise.reject(new Error("down")) },
        responseSynthesizer: fakes.synthesizer,
        tracer,
      }).query({ query: "q" }),
    ).rejects.toThrow("down");
    expect(spans.map(({ name, ended, error }) => ({ name, ended, error }))).toEqual([
      { name: "ragsynth.query", ended: true, error: true },
      { name: "ragsynth.retrieve", ended: true, error: true },
    ]);
  });
});
