import {
  type Attributes,
  type Context,
  context,
  type Span,
  type SpanOptions,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { MockLLM } from "../testing/mock-llm.js";
import { nodesOf, words } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

/** A compact synthesizer that needs three calls for these nodes. */
function threeSteps(llm: MockLLM) {
  const synthesizer = getResponseSynthesizer({
    llm,
    responseMode: "compact",
    promptHelper: new PromptHelper({ contextWindow: 170, numOutput: 20 }),
  });
  return { synthesizer, nodes: nodesOf(words(40, "a"), words(40, "b"), words(40, "c")) };
}

interface RecordedSpan {
  name: string;
  attributes: Attributes;
  events: Array<{ name: string; attributes?: Attributes }>;
  parent: RecordedSpan | undefined;
  status?: { code: number; message?: string };
  ended: boolean;
}

/** A minimal in-memory tracer: enough of the API to see what ragsynth records. */
function recordingTracer() {
  const spans: RecordedSpan[] = [];
  const handles = new WeakMap<Span, RecordedSpan>();
  const tracer = {
    startSpan(name: string, options: SpanOptions = {}, parentContext: Context = context.active()): Span {
      const parentSpan = trace.getSpan(parentContext);
      const record: RecordedSpan = {
        name,
        attributes: { ...options.attributes },
        events: [],
        parent: parentSpan ? handles.get(parentSpan) : undefined,
        ended: false,
      };
      spans.push(record);
      const span: Span = {
        spanContext: () => ({
          traceId: "1".repeat(32),
          spanId: String(spans.length).padStart(16, "0"),
          traceFlags: 1,
        }),
        setAttribute: (key, value) => {
          record.attributes[key] = value;
          return span;
        },
        setAttributes: (attributes) => {
          Object.assign(record.attributes, attributes);
          return span;
        },
        addEvent: (eventName, attributes) => {
          record.events.push({ name: eventName, attributes: attributes as Attributes });
          return span;
        },
        addLink: () => span,
        addLinks: () => span,
        setStatus: (status) => {
          record.status = status;
          return span;
        },
        updateName: () => span,
        end: () => {
          record.ended = true;
        },
        isRecording: () => true,
        recordException: () => {},
      };
      handles.set(span, record);
      return span;
    },
  };
  return { spans, tracer: tracer as unknown as Tracer };
}

describe("OpenTelemetry spans", () => {
  afterEach(() => trace.disable());

  it("nest one span per call under the synthesize span, with steps and tokens but no text", async () => {
    const { spans, tracer } = recordingTracer();
    trace.setGlobalTracerProvider({ getTracer: () => tracer });
    const { synthesizer, nodes } = threeSteps(new MockLLM({ response: "done" }));
    await synthesizer.synthesize({ query: "secret question", nodes });
    const [root, ...calls] = spans;
    expect(root).toMatchObject({
      name: "ragsynth.synthesize",
      ended: true,
      attributes: { "ragsynth.mode": "compact", "ragsynth.usage.llm_calls": 3 },
    });
    expect(root?.events.map((event) => event.name)).toEqual([
      "ragsynth.pack",
      "ragsynth.pack",
      "ragsynth.pack",
    ]);
    expect(
      calls.map((span) => [span.name, span.parent === root, span.attributes["ragsynth.step.kind"]]),
    ).toEqual([
      ["ragsynth.llm_call", true, "answer"],
      ["ragsynth.llm_call", true, "refine"],
      ["ragsynth.llm_call", true, "refine"],
    ]);
    expect(calls[0]?.attributes).toMatchObject({
      "gen_ai.request.model": "mock",
      "gen_ai.request.max_tokens": 20,
      "gen_ai.usage.output_tokens": 1,
      "ragsynth.latency_ms": expect.any(Number),
    });
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain("secret");
  });

  it("use an injected tracer and mark failures", async () => {
    const { spans, tracer } = recordingTracer();
    const failing = new MockLLM({
      response: () => {
        throw new Error("server down");
      },
    });
    await expect(
      getResponseSynthesizer({ llm: failing, responseMode: "generation", tracer }).synthesize({
        query: "q",
        nodes: [],
      }),
    ).rejects.toThrow("server down");
    expect(spans.map((span) => [span.name, span.status?.code, span.ended])).toEqual([
      ["ragsynth.synthesize", 2, true],
      ["ragsynth.llm_call", 2, true],
    ]);
  });
});
