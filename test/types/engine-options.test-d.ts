// Type tests (checked by `npm run typecheck`): a query engine takes either a ready synthesizer or the options to
// build one, never both; `asQueryEngine` takes the same union without `retriever`.
import {
  type AsQueryEngineOptions,
  getResponseSynthesizer,
  type Retriever,
  RetrieverQueryEngine,
  type RetrieverQueryEngineOptions,
  type VectorStoreIndex,
} from "ragsynth";
import { MockLLM } from "ragsynth/testing";
import { describe, expectTypeOf, it } from "vitest";

const llm = new MockLLM({ response: "ok" });
const retriever: Retriever = { retrieve: async () => [] };
const responseSynthesizer = getResponseSynthesizer({ llm });
declare const index: VectorStoreIndex;

describe("RetrieverQueryEngineOptions", () => {
  it("accepts a ready synthesizer", () => {
    expectTypeOf({ retriever, responseSynthesizer }).toExtend<RetrieverQueryEngineOptions>();
    new RetrieverQueryEngine({ retriever, responseSynthesizer, nodePostprocessors: [] });
  });

  it("accepts the options to build one", () => {
    expectTypeOf({ retriever, llm, responseMode: "refine" as const }).toExtend<RetrieverQueryEngineOptions>();
    new RetrieverQueryEngine({ retriever, llm, responseMode: "tree_summarize", onEvent: () => {} });
  });

  it("refuses a synthesizer with build options beside it", () => {
    expectTypeOf({ retriever, responseSynthesizer, llm }).not.toExtend<RetrieverQueryEngineOptions>();
    // @ts-expect-error responseMode would be ignored next to a ready synthesizer
    new RetrieverQueryEngine({ retriever, responseSynthesizer, responseMode: "refine" });
  });

  it("needs a retriever", () => {
    expectTypeOf({ llm }).not.toExtend<RetrieverQueryEngineOptions>();
    // @ts-expect-error retriever is required
    new RetrieverQueryEngine({ responseSynthesizer });
  });
});

describe("AsQueryEngineOptions", () => {
  it("is the same union without retriever, plus the index's own options", () => {
    expectTypeOf({ responseSynthesizer, similarityTopK: 3 }).toExtend<AsQueryEngineOptions>();
    expectTypeOf({ llm, retrievalMode: "hybrid" as const }).toExtend<AsQueryEngineOptions>();
    expectTypeOf({ responseSynthesizer, llm }).not.toExtend<AsQueryEngineOptions>();
    // @ts-expect-error the index provides the retriever
    index.asQueryEngine({ llm, retriever });
    // @ts-expect-error not a retrieval mode
    index.asQueryEngine({ llm, retrievalMode: "semantic" });
    expectTypeOf(index.asQueryEngine({ llm })).toEqualTypeOf<RetrieverQueryEngine<unknown>>();
  });
});
