import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { NodePostprocessor } from "../postprocessor/types.js";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { MockLLM } from "../testing/mock-llm.js";
import { createEngineFakes, ids } from "./engine-fakes.test.util.js";
import { RetrieverQueryEngine } from "./retriever-query-engine.js";

describe("RetrieverQueryEngine: conformance J (QE-D)", () => {
  it("retrieves, runs the postprocessors in list order with the query, then synthesizes what survived", async () => {
    const fakes = createEngineFakes();
    const engine = new RetrieverQueryEngine({
      retriever: fakes.retriever,
      responseSynthesizer: fakes.synthesizer,
      nodePostprocessors: [fakes.dropLast("first"), fakes.dropLast("second")],
    });
    const response = await engine.query({ query: "why?" });
    expect(fakes.log).toEqual(["retrieve:why?", "postprocess:first", "postprocess:second", "synthesize:a"]);
    expect(fakes.postprocessorCalls).toEqual([
      { name: "first", nodes: ["a", "b", "c"], query: "why?", signal: undefined },
      { name: "second", nodes: ["a", "b"], query: "why?", signal: undefined },
    ]);
    expect(fakes.synthesizeCalls[0]?.query).toBe("why?");
    expect(response.response).toBe("answer to why?");
    expect(ids(response.sourceNodes)).toEqual(["a"]);
    expect(response.metadata).toEqual({ a: { file: "a.md" } });
  });

  it("passes one signal to the retriever, every postprocessor and the synthesizer", async () => {
    const fakes = createEngineFakes();
    const controller = new AbortController();
    await new RetrieverQueryEngine({
      retriever: fakes.retriever,
      responseSynthesizer: fakes.synthesizer,
      nodePostprocessors: [fakes.dropLast("only")],
    }).query({ query: "q", signal: controller.signal });
    expect(fakes.retrieverCalls[0]?.signal).toBe(controller.signal);
    expect(fakes.postprocessorCalls[0]?.signal).toBe(controller.signal);
    expect(fakes.synthesizeCalls[0]?.signal).toBe(controller.signal);
  });

  it("exposes retrieve(): the retrieved nodes after postprocessing, without synthesis", async () => {
    const fakes = createEngineFakes();
    const engine = new RetrieverQueryEngine({
      retriever: fakes.retriever,
      responseSynthesizer: fakes.synthesizer,
      nodePostprocessors: [fakes.dropLast("only")],
    });
    expect(ids(await engine.retrieve({ query: "q" }))).toEqual(["a", "b"]);
    expect(fakes.synthesizeCalls).toEqual([]);
  });

  it("withRetriever() shares the synthesizer and postprocessors", async () => {
    const fakes = createEngineFakes();
    const engine = new RetrieverQueryEngine({
      retriever: fakes.retriever,
      responseSynthesizer: fakes.synthesizer,
      nodePostprocessors: [fakes.dropLast("only")],
    });
    const other = engine.withRetriever({ retrieve: async () => fakes.retrieved.slice(1) });
    expect(other.responseSynthesizer).toBe(engine.responseSynthesizer);
    expect(ids((await other.query({ query: "q" })).sourceNodes)).toEqual(["b"]);
  });
});

describe("RetrieverQueryEngine events", () => {
  it("emits query, retrieve and postprocess events in order, one postprocess-end per postprocessor", async () => {
    const fakes = createEngineFakes();
    const reporting: NodePostprocessor = {
      name: "reporting",
      async postprocessNodes(nodes, { onEvent }) {
        onEvent?.({
          type: "postprocess-end",
          name: "reporting",
          nodesBefore: nodes.length,
          nodesAfter: nodes.length,
          tokensBefore: 1,
          tokensAfter: 1,
          durationMs: 0,
          detail: { own: true },
        });
        return nodes;
      },
    };
    await new RetrieverQueryEngine({
      retriever: fakes.retriever,
      responseSynthesizer: fakes.synthesizer,
      nodePostprocessors: [reporting, fakes.dropLast("silent")],
      onEvent: fakes.onEvent,
      tokenizer: (text: string) => text.split(/\s+/).filter(Boolean),
    }).query({ query: "q" });
    expect(fakes.events).toEqual([
      { type: "query-start", query: "q" },
      { type: "retrieve-start", query: "q" },
      // "file: a.md\n\nalpha" is 3 words; "beta" and "gamma" 1 each.
      { type: "retrieve-end", query: "q", nodeCount: 3, tokens: 5, durationMs: expect.any(Number) },
      expect.objectContaining({ type: "postprocess-end", name: "reporting", detail: { own: true } }),
      {
        type: "postprocess-end",
        name: "silent",
        nodesBefore: 3,
        nodesAfter: 2,
        tokensBefore: 5,
        tokensAfter: 4,
        durationMs: expect.any(Number),
      },
      { type: "query-end", query: "q", durationMs: expect.any(Number) },
    ]);
  });

  it("reports a failure in query-end and rethrows it", async () => {
    const fakes = createEngineFakes();
    const failure = new Error("index offline");
    const engine = new RetrieverQueryEngine({
      retriever: {
        retrieve: async () => {
          throw failure;
        },
      },
      responseSynthesizer: fakes.synthesizer,
      onEvent: fakes.onEvent,
    });
    await expect(engine.query({ query: "q" })).rejects.toBe(failure);
    expect(fakes.events.at(-1)).toEqual({
      type: "query-end",
      query: "q",
      durationMs: expect.any(Number),
      error: failure,
    });
  });
});

describe("RetrieverQueryEngine.stream", () => {
  it("resolves after retrieval with the sources, streams, and ends the query when the stream ends", async () => {
    const fakes = createEngineFakes();
    const engine = new RetrieverQueryEngine({
      retriever: fakes.retriever,
      responseSynthesizer: fakes.synthesizer,
      nodePostprocessors: [fakes.dropLast("only")],
      onEvent: fakes.onEvent,
    });
    const streaming = await engine.stream({ query: "q" });
    expect(ids(streaming.sourceNodes)).toEqual(["a", "b"]);
    expect(fakes.events.map((event) => event.type)).not.toContain("query-end");
    let text = "";
    for await (const delta of streaming.textStream) text += delta;
    expect(text).toBe("answer to q");
    expect((await streaming.response).response).toBe("answer to q");
    await Promise.resolve();
    expect(fakes.events.at(-1)).toMatchObject({ type: "query-end", query: "q" });
    expect(fakes.log).toEqual(["retrieve:q", "postprocess:only", "stream:a,b"]);
  });

  it("rejects, not mid-stream, when retrieval fails", async () => {
    const fakes = createEngineFakes();
    const engine = new RetrieverQueryEngine({
      retriever: { retrieve: async () => Promise.reject(new Error("down")) },
      responseSynthesizer: fakes.synthesizer,
    });
    await expect(engine.stream({ query: "q" })).rejects.toThrow("down");
    expect(fakes.synthesizeCalls).toEqual([]);
  });
});

describe("RetrieverQueryEngine abort", () => {
  it("stops before postprocessing when the signal aborts during retrieval", async () => {
    const fakes = createEngineFakes();
    const controller = new AbortController();
    const engine = new RetrieverQueryEngine({
      retriever: {
        retrieve: async () => {
          controller.abort();
          return fakes.retrieved;
        },
      },
      responseSynthesizer: fakes.synthesizer,
      nodePostprocessors: [fakes.dropLast("never")],
      onEvent: fakes.onEvent,
    });
    await expect(engine.query({ query: "q", signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(fakes.postprocessorCalls).toEqual([]);
    expect(fakes.synthesizeCalls).toEqual([]);
    expect(fakes.events.at(-1)).toMatchObject({ type: "query-end", error: { name: "AbortError" } });
  });

  it("stops between postprocessors and before synthesis", async () => {
    const fakes = createEngineFakes();
    const controller = new AbortController();
    const aborting: NodePostprocessor = {
      name: "aborting",
      postprocessNodes: async (nodes) => {
        controller.abort();
        return nodes;
      },
    };
    const engine = new RetrieverQueryEngine({
      retriever: fakes.retriever,
      responseSynthesizer: fakes.synthesizer,
      nodePostprocessors: [aborting, fakes.dropLast("never")],
    });
    await expect(engine.stream({ query: "q", signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(fakes.postprocessorCalls).toEqual([]);
    expect(fakes.synthesizeCalls).toEqual([]);
  });

  it("does nothing for an already aborted signal", async () => {
    const fakes = createEngineFakes();
    const engine = new RetrieverQueryEngine({
      retriever: fakes.retriever,
      responseSynthesizer: fakes.synthesizer,
    });
    await expect(engine.query({ query: "q", signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(fakes.log).toEqual([]);
  });
});

describe("RetrieverQueryEngine validation", () => {
  it("rejects an empty query before any call", async () => {
    const fakes = createEngineFakes();
    const engine = new RetrieverQueryEngine({
      retriever: fakes.retriever,
      responseSynthesizer: fakes.synthesizer,
    });
    for (const query of ["", "   "]) {
      await expect(engine.query({ query })).rejects.toThrow(InvalidArgumentError);
      await expect(engine.stream({ query })).rejects.toThrow(/Expected `query` to be a non-empty string/);
      await expect(engine.retrieve({ query })).rejects.toThrow(InvalidArgumentError);
    }
    expect(fakes.log).toEqual([]);
  });

  it("rejects a retriever, postprocessor or result that breaks its contract", async () => {
    const fakes = createEngineFakes();
    const synthesizer = fakes.synthesizer;
    expect(
      () => new RetrieverQueryEngine({ retriever: {} as never, responseSynthesizer: synthesizer }),
    ).toThrow(/index.asRetriever\(\) gives one/);
    expect(
      () =>
        new RetrieverQueryEngine({
          retriever: fakes.retriever,
          responseSynthesizer: synthesizer,
          nodePostprocessors: [{ name: "x" } as never],
        }),
    ).toThrow(/nodePostprocessors\[0\]/);
    const broken = new RetrieverQueryEngine({
      retriever: fakes.retriever,
      responseSynthesizer: synthesizer,
      nodePostprocessors: [{ name: "broken", postprocessNodes: async () => undefined as never }],
    });
    await expect(broken.query({ query: "q" })).rejects.toThrow(
      /return an array of NodeWithScore from postprocessNodes \(broken\)/,
    );
  });
});

describe("RetrieverQueryEngine: prompts", () => {
  it("getPrompts/updatePrompts are keyed response_synthesizer:…, as in LlamaIndex, and reach the synthesizer", async () => {
    const fakes = createEngineFakes();
    const llm = new MockLLM({ response: "echo" });
    const engine = new RetrieverQueryEngine({
      retriever: fakes.retriever,
      llm,
      responseMode: "simple_summarize",
    });
    const keys = Object.keys(engine.getPrompts());
    expect(keys).toContain("response_synthesizer:text_qa_template");
    expect(keys.every((key) => key.startsWith("response_synthesizer:"))).toBe(true);
    engine.updatePrompts({
      "response_synthesizer:text_qa_template": new PromptTemplate({
        template: "C={context_str} Q={query_str}",
      }),
    });
    await engine.query({ query: "why?" });
    expect(llm.prompts[0]).toMatch(/^C=.* Q=why\?$/s);
    expect(() =>
      engine.updatePrompts({ text_qa_template: new PromptTemplate({ template: "{context_str}" }) }),
    ).toThrow(/response_synthesizer:text_qa_template/);
  });
});
