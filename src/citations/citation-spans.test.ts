import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TextNode } from "../schema/text-node.js";
import { MockLLM } from "../testing/mock-llm.js";
import { createInMemoryTracing, type InMemoryTracing } from "../tracing/in-memory-tracing.test.util.js";
import { CitationQueryEngine } from "./citation-query-engine.js";

// The real OpenTelemetry SDK: the query span carries the ragsynth.citations.* counts, streamed or not.
let tracing: InMemoryTracing;
beforeEach(() => {
  tracing = createInMemoryTracing();
});
afterEach(() => tracing.shutdown());

const ANSWER =
  "Water is wet when the sky is red [2]. Penguins juggle torches on the moon [1]. The sky is red [7]. It is so.";

function engine() {
  return new CitationQueryEngine({
    retriever: {
      retrieve: async () => [
        { node: new TextNode({ text: "The sky is red in the evening and blue in the morning." }) },
        { node: new TextNode({ text: "Water is wet when the sky is red." }) },
      ],
    },
    llm: new MockLLM({ response: ANSWER }),
    tracer: tracing.tracer,
  });
}

describe("citation counts on the query span", () => {
  for (const streamed of [false, true]) {
    it(streamed ? "streamed" : "not streamed", async () => {
      let report: Awaited<ReturnType<CitationQueryEngine["query"]>>["citations"];
      if (streamed) {
        const streaming = await engine().stream({ query: "When is water wet?" });
        for await (const _ of streaming.textStream);
        report = (await streaming.response).citations;
      } else {
        report = (await engine().query({ query: "When is water wet?" })).citations;
      }
      // Two valid citations ([2] supported, [1] not), one invalid marker ([7]), one sentence citing nothing.
      expect([report.citations.length, report.unsupported.length, report.invalid.length]).toEqual([2, 1, 1]);
      const root = tracing.byName("ragsynth.query");
      expect(root.attributes).toMatchObject({
        "ragsynth.streaming": streamed,
        "ragsynth.citations.total": 2,
        "ragsynth.citations.invalid": 1,
        "ragsynth.citations.unsupported": 1,
        "ragsynth.citations.uncited": report.uncited.length,
        "ragsynth.citations.sources": 2,
      });
      expect(report.uncited.map((sentence) => sentence.sentence)).toContain("It is so.");
      // The synthesis still nests under the query span, which ended after it.
      const synthesize = tracing.byName("ragsynth.synthesize");
      expect(synthesize.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    });
  }
});
