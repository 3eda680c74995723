import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { MockLLM } from "../testing/mock-llm.js";
import { createInMemoryTracing, type InMemoryTracing } from "../tracing/in-memory-tracing.test.util.js";
import { nodesOf, words } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";
import type { ResponseMode } from "./types.js";

// The real OpenTelemetry SDK (BasicTracerProvider + InMemorySpanExporter): each mode's span tree and attributes.
let tracing: InMemoryTracing;
beforeEach(() => {
  tracing = createInMemoryTracing();
});
afterEach(() => tracing.shutdown());

/** Three 40-word nodes in a window that holds one per call, so every mode makes several calls. */
function run(responseMode: ResponseMode, llm = new MockLLM({ response: "done", model: "mock-model" })) {
  const synthesizer = getResponseSynthesizer({
    llm,
    responseMode,
    promptHelper: new PromptHelper({ contextWindow: 170, numOutput: 20 }),
    tracer: tracing.tracer,
  });
  return synthesizer.synthesize({
    query: "secret question",
    nodes: nodesOf(words(40, "a"), words(40, "b"), words(40, "c")),
  });
}

function calls(): ReadableSpan[] {
  return tracing.childrenOf(tracing.byName("ragsynth.synthesize"));
}

describe("OpenTelemetry GenAI spans, per mode (real SDK)", () => {
  it("compact: a chain of inference spans under ragsynth.synthesize, one per model call, as the conventions name them", async () => {
    const response = await run("compact");
    const root = tracing.byName("ragsynth.synthesize");
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.attributes).toMatchObject({ "ragsynth.mode": "compact", "ragsynth.usage.llm_calls": 3 });
    expect(root.events.map((event) => event.name)).toEqual([
      "ragsynth.pack",
      "ragsynth.pack",
      "ragsynth.pack",
    ]);
    const children = calls();
    expect(children).toHaveLength(response.usage.llmCalls);
    for (const span of children) {
      expect(span.name).toBe("text_completion mock-model"); // MockLLM is a completion model by default
      expect(span.kind).toBe(SpanKind.CLIENT);
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
    }
    expect(
      children.map((span) => [span.attributes["ragsynth.step.kind"], span.attributes["ragsynth.round"]]),
    ).toEqual([
      ["answer", 0],
      ["refine", 1],
      ["refine", 2],
    ]);
    expect(children[0]?.attributes).toMatchObject({
      "gen_ai.operation.name": "text_completion",
      "gen_ai.provider.name": "unknown",
      "gen_ai.request.model": "mock-model",
      "gen_ai.request.max_tokens": 20,
      "gen_ai.usage.input_tokens": expect.any(Number),
      "gen_ai.usage.output_tokens": 1,
      "ragsynth.mode": "compact",
      "ragsynth.chunk.index": 0,
      "ragsynth.prompt_tokens": expect.any(Number),
      "ragsynth.context_tokens": expect.any(Number),
      "ragsynth.retries": 0,
    });
    expect((children[0]?.attributes["ragsynth.context_tokens"] as number) > 0).toBe(true);
  });

  it("tree_summarize: the calls of each level, then the root, all children of the synthesis span", async () => {
    const response = await run("tree_summarize");
    const children = calls();
    expect(children).toHaveLength(response.usage.llmCalls);
    const levels = children.map((span) => span.attributes["ragsynth.round"]);
    expect(levels.filter((level) => level === 0)).toHaveLength(3); // one leaf call per chunk
    expect(levels.at(-1)).toBeGreaterThan(0);
    expect(children.at(-1)?.attributes["ragsynth.step.count"]).toBe(1); // the root
    expect(new Set(children.map((span) => span.attributes["ragsynth.step.kind"]))).toEqual(new Set(["tree"]));
    const leafIndexes = children
      .filter((span) => span.attributes["ragsynth.round"] === 0)
      .map((span) => span.attributes["ragsynth.chunk.index"]);
    expect(leafIndexes.sort()).toEqual([0, 1, 2]);
  });

  it("accumulate: a fan-out of one call per chunk, chunk indexes 0..n-1", async () => {
    await run("accumulate");
    const children = calls();
    expect(children.map((span) => span.attributes["ragsynth.step.kind"])).toEqual([
      "accumulate",
      "accumulate",
      "accumulate",
    ]);
    expect(children.map((span) => span.attributes["ragsynth.chunk.index"]).sort()).toEqual([0, 1, 2]);
    expect(children.every((span) => span.attributes["ragsynth.step.count"] === 3)).toBe(true);
  });

  it("refine, simple_summarize, generation, compact_accumulate: one span per model call; no_text and context_only: none", async () => {
    const expected: Array<[ResponseMode, string]> = [
      ["refine", "answer"],
      ["simple_summarize", "simple_summarize"],
      ["generation", "generation"],
      ["compact_accumulate", "accumulate"],
    ];
    for (const [mode, firstStep] of expected) {
      const before = tracing.spans().length;
      const response = await run(mode);
      const root = tracing
        .spans()
        .slice(before)
        .find((span) => span.name === "ragsynth.synthesize");
      const children = tracing.childrenOf(root as ReadableSpan);
      expect(children, mode).toHaveLength(response.usage.llmCalls);
      expect(children[0]?.attributes["ragsynth.step.kind"], mode).toBe(firstStep);
      expect(children[0]?.attributes["ragsynth.mode"], mode).toBe(mode);
    }
    for (const mode of ["no_text", "context_only"] as const) {
      const before = tracing.spans().length;
      await run(mode);
      expect(
        tracing
          .spans()
          .slice(before)
          .map((span) => span.name),
        mode,
      ).toEqual(["ragsynth.synthesize"]);
    }
  });

  it("records no prompt or answer text by default", async () => {
    await run("compact");
    const text = JSON.stringify(tracing.spans().map((span) => span.attributes));
    expect(text).not.toContain("secret question");
    expect(text).not.toContain("gen_ai.input.messages");
  });

  it("with captureContent: the prompt and answer as gen_ai messages, secrets scrubbed", async () => {
    const key = "sk-abcdefghijklmnopqrstuvwx";
    const llm = new MockLLM({ response: `the key is ${key}`, isChatModel: true, model: "chat-model" });
    const synthesizer = getResponseSynthesizer({ llm, tracer: tracing.tracer, captureContent: true });
    await synthesizer.synthesize({
      query: `What is Bearer ${key}?`,
      nodes: nodesOf("Paris is the capital of France."),
    });
    const [call] = calls();
    expect(call?.name).toBe("chat chat-model");
    expect(call?.attributes["gen_ai.operation.name"]).toBe("chat");
    const input = JSON.parse(call?.attributes["gen_ai.input.messages"] as string);
    const output = JSON.parse(call?.attributes["gen_ai.output.messages"] as string);
    expect(input.at(-1)).toMatchObject({ role: "user", parts: [{ type: "text" }] });
    expect(input.at(-1).parts[0].content).toContain("Paris is the capital of France.");
    expect(output).toEqual([
      {
        role: "assistant",
        parts: [{ type: "text", content: "the key is [REDACTED]" }],
        finish_reason: "stop",
      },
    ]);
    expect(JSON.stringify(call?.attributes)).not.toContain(key);
  });

  it("marks a failed call and the synthesis with error.type and ERROR status, both ended", async () => {
    const failing = new MockLLM({
      response: () => {
        throw new Error("server down");
      },
    });
    await expect(
      getResponseSynthesizer({ llm: failing, responseMode: "generation", tracer: tracing.tracer }).synthesize(
        {
          query: "q",
          nodes: [],
        },
      ),
    ).rejects.toThrow("server down");
    const root = tracing.byName("ragsynth.synthesize");
    const [call] = tracing.childrenOf(root);
    for (const span of [root, call]) {
      expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: "server down" });
      expect(span?.attributes["error.type"]).toBe("Error");
      expect(span?.ended).toBe(true);
    }
  });
});
