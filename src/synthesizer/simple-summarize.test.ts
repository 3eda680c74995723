import { describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { MockLLM } from "../testing/mock-llm.js";
import { collect, MOCK_TOKENIZER, nodesOf, recordEvents } from "./fixtures.test.util.js";
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

  it("truncates each node to its share; short nodes give their unused share to long ones", async () => {
    // Share per node: floor((31 − 1) / 2) − 5 = 10; the 2-token node leaves 8 for the 20-token one.
    const { events, onEvent } = recordEvents();
    const llm = new MockLLM({ response: "answer" });
    await simple(llm, 31, onEvent).synthesize({ query: "q", nodes: nodesOf("s1 s2", long.join(" ")) });
    expect(llm.prompts).toEqual([`s1 s2\n${long.slice(0, 18).join(" ")}\nq\n`]);
    expect(events.find((event) => event.type === "pack")).toEqual({
      type: "pack",
      mode: "simple_summarize",
      round: 0,
      chunkTokens: [2, 18],
      availableChunkSize: 10,
      truncatedTokens: 2,
    });
  });

  it("never drops a node whole: every node keeps its share", async () => {
    const llm = new MockLLM({ response: "answer" });
    await simple(llm, 31).synthesize({ query: "q", nodes: nodesOf(long.join(" "), long.join(" ")) });
    expect(llm.prompts).toEqual([`${long.slice(0, 10).join(" ")}\n${long.slice(0, 10).join(" ")}\nq\n`]);
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
