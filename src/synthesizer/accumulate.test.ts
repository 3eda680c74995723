import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PromptHelper } from "../budget/index.js";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { MockLLM } from "../testing/mock-llm.js";
import { MOCK_TOKENIZER, nodesOf, ptypeLLM } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

const QA0 = new PromptTemplate({ template: "{context_str}{query_str}", promptType: "text_qa" });
const R = "\n---------------------\n";
const RB3 = ["What is?:This", "What is?:is", "What is?:bar", "What is?:This", "What is?:is", "What is?:foo"];

// LlamaIndex's PH(11, 0, 0, MOCK) with a chunk-size limit: 1 re-splits every word as its NLSPLIT fake did.
const helper = (limit: number) =>
  new PromptHelper({ contextWindow: 11, numOutput: 0, tokenizer: MOCK_TOKENIZER, chunkSizeLimit: limit });

function accumulate(
  llm: MockLLM,
  options: { limit?: number; concurrency?: number; separator?: string } = {},
) {
  return getResponseSynthesizer({
    llm,
    responseMode: "accumulate",
    promptHelper: helper(options.limit ?? 1),
    textQaTemplate: QA0,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    ...(options.separator ? { separator: options.separator } : {}),
  });
}

const numbered = (answers: string[], separator = R) =>
  answers.map((answer, index) => `Response ${index + 1}: ${answer}`).join(separator);

describe("accumulate", () => {
  it("RB-3/RB-4: one answer per piece, numbered across nodes, whatever the concurrency", async () => {
    for (const concurrency of [1, 4]) {
      const llm = ptypeLLM();
      const result = await accumulate(llm, { concurrency }).synthesize({
        query: "What is?",
        nodes: nodesOf("This\nis\nbar", "This\nis\nfoo"),
      });
      expect(result.response).toBe(numbered(RB3));
      expect(llm.prompts).toEqual(
        ["This", "is", "bar", "This", "is", "foo"].map((word) => `${word}What is?`),
      );
    }
  });

  it("RB-5: a custom separator", async () => {
    const result = await accumulate(ptypeLLM(), { separator: "\nWHATEVER~~~~~~\n" }).synthesize({
      query: "What is?",
      nodes: nodesOf("This\nis\nbar", "This\nis\nfoo"),
    });
    expect(result.response).toBe(numbered(RB3, "\nWHATEVER~~~~~~\n"));
  });

  it("splits a node only when it does not fit", async () => {
    const llm = ptypeLLM();
    await accumulate(llm, { limit: 4 }).synthesize({ query: "What is?", nodes: nodesOf("a b", "c d e f g") });
    expect(llm.prompts).toEqual(["a bWhat is?", "c d e fWhat is?", "gWhat is?"]);
  });

  it("RB-6: compact_accumulate packs all nodes first", async () => {
    const result = await getResponseSynthesizer({
      llm: ptypeLLM(),
      responseMode: "compact_accumulate",
      promptHelper: helper(4),
      textQaTemplate: QA0,
    }).synthesize({ query: "What is?", nodes: nodesOf("This", "is", "bar", "This", "is", "foo") });
    expect(result.response).toBe(
      "Response 1: What is?:This\n\nis\n\nbar\n\nThis\n---------------------\nResponse 2: What is?:is\n\nfoo",
    );
  });

  it("shows an empty answer as the empty response", async () => {
    const result = await accumulate(new MockLLM({ response: ["", "x"] }), { concurrency: 1 }).synthesize({
      query: "q",
      nodes: nodesOf("a", "b"),
    });
    expect(result.response).toBe(numbered(["Empty Response", "x"]));
  });

  it("streams answers in order while later calls run concurrently", async () => {
    let releaseFirst = () => {};
    const firstGate = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const llm = new MockLLM({
      response: async ({ callIndex }) => {
        if (callIndex === 0) await firstGate;
        return ["one", "", "three"][callIndex] ?? "?";
      },
    });
    const streaming = accumulate(llm, { limit: 4 }).stream({ query: "q", nodes: nodesOf("a", "b", "c") });
    const deltas: string[] = [];
    const reading = (async () => {
      for await (const delta of streaming.textStream) deltas.push(delta);
    })();
    await new Promise((resolve) => setImmediate(resolve));
    // Calls 2 and 3 have finished; call 1 is still running, so only its label is out.
    expect(llm.calls).toHaveLength(3);
    expect(deltas).toEqual(["Response 1: "]);
    releaseFirst();
    await reading;
    const expected = numbered(["one", "Empty Response", "three"]);
    expect(deltas.join("")).toBe(expected);
    expect((await streaming.response).response).toBe(expected);
    expect(llm.calls.every((call) => call.stream)).toBe(true);
  });

  it("returns an array of typed objects, and the joined JSON as text", async () => {
    const llm = new MockLLM({
      response: ['{"hello":"a"}', '{"hello":"b"}'],
      structuredOutput: "json_schema",
    });
    const result = await getResponseSynthesizer({
      llm,
      responseMode: "accumulate",
      concurrency: 1,
      outputSchema: z.object({ hello: z.string() }),
    }).synthesize({ query: "q", nodes: nodesOf("a", "b") });
    expect(result.object).toEqual([{ hello: "a" }, { hello: "b" }]);
    expect(result.response).toBe(numbered(['{"hello":"a"}', '{"hello":"b"}']));
  });
});
