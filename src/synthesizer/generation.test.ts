import { describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { MockLLM } from "../testing/mock-llm.js";
import { collect, nodesOf, words } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

const generation = (llm: MockLLM) => getResponseSynthesizer({ llm, responseMode: "generation" });

describe("generation", () => {
  it("GEN-1/GEN-3: answers the query alone, one call even with no nodes", async () => {
    const llm = new MockLLM({ response: "echo" });
    const result = await generation(llm).synthesize({ query: "test", nodes: [] });
    expect(String(result)).toBe("test");
    expect(llm.prompts).toEqual(["test"]);
    expect(llm.calls[0]?.options).toMatchObject({ promptType: "simple_input", maxTokens: 256 });
  });

  it("GEN-2/GEN-4: streams the answer", async () => {
    const streaming = generation(new MockLLM({ response: "echo" })).stream({ query: "test", nodes: [] });
    expect(await collect(streaming.textStream)).toEqual(["t", "e", "s", "t"]);
    expect((await streaming.response).response).toBe("test");
  });

  it("ignores the node texts but returns the nodes as sources", async () => {
    const llm = new MockLLM({ response: "echo" });
    const nodes = nodesOf("secret context");
    const result = await generation(llm).synthesize({ query: "test", nodes });
    expect(llm.prompts).toEqual(["test"]);
    expect(result.sourceNodes).toEqual(nodes);
  });

  it("renders the query as one user message for chat models", async () => {
    const llm = new MockLLM({ response: "echo", isChatModel: true });
    expect((await generation(llm).synthesize({ query: "test", nodes: [] })).response).toBe(
      "user: test\nassistant: ",
    );
  });
});

describe("generation: the budget", () => {
  it("throws ContextOverflowError before any call when the query prompt plus numOutput is over the window", async () => {
    const llm = new MockLLM({ response: "echo" });
    const query = words(1000);
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "generation",
      promptHelper: new PromptHelper({ contextWindow: 512, numOutput: 64 }),
    });
    const error = await synthesizer.synthesize({ query, nodes: [] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect((error as ContextOverflowError).contextWindow).toBe(512);
    expect(llm.calls).toHaveLength(0);
  });

  it("answers when the query fits", async () => {
    const llm = new MockLLM({ response: "ok" });
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "generation",
      promptHelper: new PromptHelper({ contextWindow: 512, numOutput: 64 }),
    });
    expect((await synthesizer.synthesize({ query: words(100), nodes: [] })).response).toBe("ok");
  });
});
