import { context, trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/prompt-helper.js";
import { OpenAILike } from "../openai/openai-like.js";
import { OpenAILikeEmbedding } from "../openai/openai-like-embedding.js";
import { fakeServersClosedAfterEach } from "../testing/fake-servers-closed-after-each.test.util.js";
import { createInMemoryTracing, type InMemoryTracing } from "../tracing/in-memory-tracing.test.util.js";
import { nodesOf, words } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

const startFakeServer = fakeServersClosedAfterEach();
let tracing: InMemoryTracing | undefined;
afterEach(async () => {
  await tracing?.shutdown();
  tracing = undefined;
});

/**
 * A fetch that starts a span in the active context, as HTTP client instrumentation (undici's) does: where it
 * lands shows which span was active while the request was sent.
 */
function instrumentedFetch(tracer: InMemoryTracing["tracer"]): typeof fetch {
  return async (input, init) => {
    const span = tracer.startSpan("HTTP POST", {}, context.active());
    try {
      return await fetch(input, init);
    } finally {
      span.end();
    }
  };
}

describe("OpenTelemetry spans nest and are complete (real SDK, fake OpenAI server)", () => {
  it("each HTTP request is a child of its chat span; response id/model, server and output type are recorded", async () => {
    tracing = createInMemoryTracing();
    const server = await startFakeServer({ handler: () => ({ text: "A short summary." }) });
    const llm = new OpenAILike({
      model: "gpt-4o-mini",
      baseURL: server.url,
      apiKey: "sk-test-key-not-real-123",
      fetch: instrumentedFetch(tracing.tracer),
    });
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "tree_summarize",
      promptHelper: new PromptHelper({ contextWindow: 300, numOutput: 40 }),
      tracer: tracing.tracer,
      captureContent: true,
    });
    const response = await synthesizer.synthesize({
      query: "What do the notes say?",
      nodes: nodesOf(words(120, "a"), words(120, "b")),
    });

    const root = tracing.byName("ragsynth.synthesize");
    const calls = tracing.childrenOf(root).filter((span) => span.name === "chat gpt-4o-mini");
    expect(calls).toHaveLength(response.usage.llmCalls);
    const requests = tracing.spans().filter((span) => span.name === "HTTP POST");
    expect(requests).toHaveLength(calls.length);
    for (const call of calls) {
      // Exactly one request under each call, none beside it under the root.
      expect(tracing.childrenOf(call).map((span) => span.name)).toEqual(["HTTP POST"]);
      const { port } = new URL(server.url);
      expect(call.attributes).toMatchObject({
        "gen_ai.response.id": "fake-1",
        "gen_ai.response.model": "gpt-4o-mini",
        "gen_ai.output.type": "text",
        "server.address": "127.0.0.1",
        "server.port": Number(port),
        "openinference.span.kind": "LLM",
        "llm.token_count.prompt": call.attributes["gen_ai.usage.input_tokens"],
      });
    }
    // With content capture on, the root carries the question and the answer (Langfuse's trace input/output).
    expect(root.attributes["input.value"]).toBe("What do the notes say?");
    expect(root.attributes["output.value"]).toBe(response.response);
    expect(root.attributes["openinference.span.kind"]).toBe("CHAIN");
  });

  it("an embeddings request is an `embeddings <model>` client span with its usage, and no input text", async () => {
    tracing = createInMemoryTracing();
    const server = await startFakeServer({});
    const embedder = new OpenAILikeEmbedding({
      model: "text-embedding-3-small",
      baseURL: server.url,
      apiKey: "sk-test-key-not-real-123",
      batchSize: 2,
      tracer: tracing.tracer,
      fetch: instrumentedFetch(tracing.tracer),
    });
    const parent = tracing.tracer.startSpan("caller");
    await context.with(trace.setSpan(context.active(), parent), () =>
      embedder.getTextEmbeddings(["alpha secret-text", "beta", "gamma"]),
    );
    parent.end();
    const spans = tracing.spans().filter((span) => span.name === "embeddings text-embedding-3-small");
    expect(spans).toHaveLength(2); // two batches
    for (const span of spans) {
      expect(span.kind).toBe(2); // CLIENT
      expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
      expect(tracing.childrenOf(span).map((child) => child.name)).toEqual(["HTTP POST"]);
      expect(span.attributes).toMatchObject({
        "gen_ai.operation.name": "embeddings",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "text-embedding-3-small",
        "server.address": "127.0.0.1",
        "openinference.span.kind": "EMBEDDING",
      });
      expect(span.attributes["gen_ai.usage.input_tokens"]).toEqual(expect.any(Number));
    }
    expect(JSON.stringify(tracing.spans().map((span) => span.attributes))).not.toContain("secret-text");
  });
});
