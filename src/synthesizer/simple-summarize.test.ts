import { describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { MockLLM } from "../testing/mock-llm.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { collect, MOCK_TOKENIZER, nodesOf, recordEvents, words } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

const MOCK_TEXT_QA = new PromptTemplate({ template: "{context_str}\n{query_str}\n", promptType: "text_qa" });
const long = Array.from({ length: 20 }, (_, index) => `w${index + 1}`);

function simple(llm: MockLLM, contextWindow: number, onEvent?: ReturnType<typeof recordEvents>["onEvent"]) {
  return getResponseSynthesizer({
    llm,
    responseMode: "simple_summarize",
    promptHelper: new PromptHelper({ contextWindow, numOutput: 0, tokenizer: MOCK_TOKENIZER }),
    textQaTemplate: MOCK_TEXT_QA,
    ...(onEvent ? { onEvent } : {}),
  });
}

describe("simple_summarize", () => {
  it("sends the chunks as plain text joined by newlines, in one call", async () => {
    const llm = new MockLLM({ response: "answer" });
    const result = await simple(llm, 3900).synthesize({ query: "q", nodes: nodesOf("line one", "line two") });
    expect(llm.prompts).toEqual(["line one\nline two\nq\n"]);
    expect(result.response).toBe("answer");
  });

  it("joins the nodes first and truncates once, in order (as LlamaIndex): later text is dropped first", async () => {
    // Window 23, numOutput 0, query "q" (1 token): 22 context tokens.
    const { events, onEvent } = recordEvents();
    const llm = new MockLLM({ response: "answer" });
    await simple(llm, 23, onEvent).synthesize({
      query: "q",
      nodes: nodesOf("s1 s2", long.join(" "), "last"),
    });
    expect(llm.prompts).toEqual([`s1 s2\n${long.join(" ")}\nq\n`]);
    const pack = events.find((event) => event.type === "pack");
    expect(pack).toMatchObject({ chunkTokens: [22], availableChunkSize: 22, truncatedTokens: 1 });
  });

  it("fills the budget: a long first node takes all the room", async () => {
    const llm = new MockLLM({ response: "answer" });
    await simple(llm, 31).synthesize({ query: "q", nodes: nodesOf(long.join(" "), long.join(" ")) });
    expect(llm.prompts).toEqual([`${long.join(" ")}\n${long.slice(0, 10).join(" ")}\nq\n`]);
  });

  it("streams the one call, and an empty answer becomes the empty response", async () => {
    const llm = new MockLLM({ response: ["ok", ""] });
    const streaming = simple(llm, 3900).stream({ query: "q", nodes: nodesOf("a") });
    expect(await collect(streaming.textStream)).toEqual(["o", "k"]);
    expect((await simple(llm, 3900).synthesize({ query: "q", nodes: nodesOf("a") })).response).toBe(
      "Empty Response",
    );
  });
});

describe("simple_summarize: the budget (cl100k, default templates)", () => {
  const cl100k = resolveTokenizer("cl100k_base");
  // About 62 tokens each.
  const node = (index: number) => `Node ${index}: ${words(58, "fact")}`;
  const manyNodes = (count: number) => nodesOf(...Array.from({ length: count }, (_, index) => node(index)));

  for (const [contextWindow, count] of [
    [1024, 150],
    [1024, 100],
    [3900, 700],
  ] as const) {
    it(`answers ${count} nodes at window ${contextWindow} with one prompt that uses the budget`, async () => {
      const llm = new MockLLM({ response: "answer" });
      const synthesizer = getResponseSynthesizer({
        llm,
        responseMode: "simple_summarize",
        promptHelper: new PromptHelper({ contextWindow, numOutput: 256 }),
      });
      const result = await synthesizer.synthesize({ query: "What is it?", nodes: manyNodes(count) });
      expect(result.response).toBe("answer");
      expect(llm.prompts).toHaveLength(1);
      const sent = cl100k.count(llm.prompts[0] ?? "");
      expect(sent + 256).toBeLessThanOrEqual(contextWindow);
      expect(sent + 256).toBeGreaterThanOrEqual(contextWindow - 5);
      // Nodes in order from the first.
      const context = llm.calls[0]?.options.templateVariables?.context_str ?? "";
      expect(context.startsWith(`${node(0)}\n${node(1)}\n`)).toBe(true);
    });
  }

  it("throws ContextOverflowError only when not one token of context fits", async () => {
    const llm = new MockLLM({ response: "answer" });
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "simple_summarize",
      promptHelper: new PromptHelper({ contextWindow: 300, numOutput: 256 }),
    });
    const error = await synthesizer
      .synthesize({ query: words(40), nodes: manyNodes(2) })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect(llm.calls).toHaveLength(0);
  });
});
