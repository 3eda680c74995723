import { describe, expect, it } from "vitest";
import { MockLLM } from "../testing/mock-llm.js";
import { collect, nodesOf } from "./fixtures.test.util.js";
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
