import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { RagsynthEvent } from "../events/events.js";
import type { Retriever } from "../retrieval/retriever.js";
import { TextNode } from "../schema/text-node.js";
import { getResponseSynthesizer } from "../synthesizer/get-response-synthesizer.js";
import { MockLLM } from "../testing/mock-llm.js";
import { RetrieverQueryEngine } from "./retriever-query-engine.js";

const retriever: Retriever = {
  retrieve: async () => [
    { node: new TextNode({ id: "n", text: "Paris is the capital of France." }), score: 1 },
  ],
};

describe("RetrieverQueryEngine options", () => {
  it("builds the synthesizer from responseMode and llm, and hands it the engine's onEvent", async () => {
    const llm = new MockLLM({ response: "Paris." });
    const events: RagsynthEvent[] = [];
    const engine = new RetrieverQueryEngine({
      retriever,
      llm,
      responseMode: "tree_summarize",
      onEvent: (event) => events.push(event),
    });
    expect(engine.responseSynthesizer.mode).toBe("tree_summarize");
    const response = await engine.query({ query: "What is the capital of France?" });
    expect(response.response).toBe("Paris.");
    expect(response.sourceNodes.map((item) => item.node.id)).toEqual(["n"]);
    expect(events.map((event) => event.type)).toEqual([
      "query-start",
      "retrieve-start",
      "retrieve-end",
      "synthesize-start",
      "pack",
      "llm-call-start",
      "llm-call-end",
      "synthesize-end",
      "query-end",
    ]);
  });

  it('defaults to "compact", as LlamaIndex does', () => {
    expect(
      new RetrieverQueryEngine({ retriever, llm: new MockLLM({ response: "x" }) }).responseSynthesizer.mode,
    ).toBe("compact");
  });

  it("rejects synthesizer options next to a ready synthesizer (from_args would ignore them)", () => {
    const responseSynthesizer = getResponseSynthesizer({ responseMode: "context_only" });
    expect(
      () =>
        new RetrieverQueryEngine({
          retriever,
          responseSynthesizer,
          // @ts-expect-error: a ready synthesizer excludes the options to build one
          responseMode: "refine",
        }),
    ).toThrow(/Expected `responseMode` to be left out when `responseSynthesizer` is given/);
    const both = {
      retriever,
      responseSynthesizer,
      llm: new MockLLM({ response: "x" }),
    };
    // @ts-expect-error: as above, also when the options are built beforehand
    expect(() => new RetrieverQueryEngine(both)).toThrow(InvalidArgumentError);
  });

  it("rejects unknown options instead of ignoring them", () => {
    expect(
      () =>
        new RetrieverQueryEngine({
          retriever,
          llm: new MockLLM({ response: "x" }),
          // @ts-expect-error: not an option
          similarityTopK: 3,
        }),
    ).toThrow(/Expected `similarityTopK` to be a known option/);
  });

  it("passes the factory's own errors through: no model, and no global default", () => {
    expect(() => new RetrieverQueryEngine({ retriever, responseMode: "refine" })).toThrow(
      /There is no global Settings/,
    );
  });

  it("accepts undefined for options left out", () => {
    const responseSynthesizer = getResponseSynthesizer({ responseMode: "no_text" });
    expect(
      () => new RetrieverQueryEngine({ retriever, responseSynthesizer, onEvent: undefined }),
    ).not.toThrow();
  });
});
