import { Document } from "@langchain/core/documents";
import { FakeRetriever, FakeVectorStore, SyntheticEmbeddings } from "@langchain/core/utils/testing";
import { describe, expect, it } from "vitest";
import { ExtractiveLLM } from "../extractive/extractive-llm.js";
import { VectorStoreIndex } from "../index-store/vector-store-index.js";
import { RetrieverQueryEngine } from "../query-engine/retriever-query-engine.js";
import { TextNode } from "../schema/text-node.js";
import { fromLangChainEmbeddings } from "./from-langchain-embeddings.js";
import { fromLangChainRetriever, fromLangChainVectorStore } from "./from-langchain-retriever.js";

const documents = [
  new Document({ pageContent: "Paris is the capital of France.", metadata: { source: "fr.txt" }, id: "fr" }),
  new Document({
    pageContent: "Berlin is the capital of Germany.",
    metadata: { source: "de.txt" },
    id: "de",
  }),
];

describe("fromLangChainRetriever / fromLangChainVectorStore (real @langchain/core)", () => {
  it("turns a retriever's documents into nodes with text, metadata and id, and scores from rerank metadata", async () => {
    const retriever = new FakeRetriever({
      output: [
        new Document({
          pageContent: "Paris.",
          metadata: { source: "fr.txt", relevanceScore: 0.93 },
          id: "fr",
        }),
        new Document({ pageContent: "Berlin.", metadata: { source: "de.txt" } }),
      ],
    });
    const nodes = await fromLangChainRetriever(retriever).retrieve({ query: "capital" });
    expect(nodes).toHaveLength(2);
    expect(nodes[0]?.node).toBeInstanceOf(TextNode);
    expect(nodes[0]).toMatchObject({
      score: 0.93,
      node: { id: "fr", text: "Paris.", metadata: { source: "fr.txt" } },
    });
    expect(nodes[0]?.node.metadata).not.toHaveProperty("relevanceScore"); // the model does not read it as a source line
    expect(nodes[1]?.score).toBeUndefined();
  });

  it("answers through a RetrieverQueryEngine over a LangChain vector store, with similarity scores", async () => {
    const store = await FakeVectorStore.fromDocuments(documents, new SyntheticEmbeddings({ vectorSize: 32 }));
    const engine = new RetrieverQueryEngine({
      retriever: fromLangChainVectorStore(store, { k: 2 }),
      llm: new ExtractiveLLM(),
    });
    const response = await engine.query({ query: "Paris is the capital of France." });
    expect(response.sourceNodes).toHaveLength(2);
    expect(response.sourceNodes[0]?.node.metadata).toEqual({ source: "fr.txt" }); // the identical text scores highest
    expect(response.sourceNodes[0]?.score).toBeCloseTo(1, 5);
    expect(response.sourceNodes.every((source) => typeof source.score === "number")).toBe(true);
    expect(response.toString()).toContain("Paris is the capital of France.");
  });

  it("asRetriever() works too, and the abort signal reaches it", async () => {
    const store = await FakeVectorStore.fromDocuments(documents, new SyntheticEmbeddings({ vectorSize: 32 }));
    const retriever = fromLangChainRetriever(store.asRetriever(1));
    expect(await retriever.retrieve({ query: "Berlin is the capital of Germany." })).toMatchObject([
      { node: { text: "Berlin is the capital of Germany.", metadata: { source: "de.txt" } } },
    ]);
    await expect(retriever.retrieve({ query: "x", signal: AbortSignal.abort() })).rejects.toThrow(/abort/i);
  });

  it("rejects non-retrievers and a bad k with typed errors", () => {
    expect(() => fromLangChainRetriever({} as never)).toThrow(/LangChain retriever .*invoke\(query\)/);
    expect(() => fromLangChainVectorStore({} as never)).toThrow(/similaritySearchWithScore/);
    const store = new FakeVectorStore(new SyntheticEmbeddings());
    expect(() => fromLangChainVectorStore(store, { k: 0 })).toThrow(/Expected `k` to be a positive integer/);
  });
});

describe("fromLangChainEmbeddings (real @langchain/core)", () => {
  it("embeds documents and queries for a VectorStoreIndex, which then retrieves the matching node", async () => {
    const embedder = fromLangChainEmbeddings(new SyntheticEmbeddings({ vectorSize: 32 }));
    expect(embedder.id).toBe("langchain:SyntheticEmbeddings");
    const index = await VectorStoreIndex.fromDocuments(
      [
        new TextNode({ id: "fr", text: "Paris is the capital of France." }),
        new TextNode({ id: "de", text: "Berlin." }),
      ],
      { embedModel: embedder },
    );
    const [best] = await index
      .asRetriever({ similarityTopK: 1 })
      .retrieve({ query: "Paris is the capital of France." });
    expect(best?.node.text).toBe("Paris is the capital of France.");
    expect(await embedder.getTextEmbeddings([])).toEqual([]);
  });

  it("takes an explicit id, stops waiting when aborted, and rejects non-embeddings", async () => {
    const embedder = fromLangChainEmbeddings(new SyntheticEmbeddings(), { id: "my-model-v2" });
    expect(embedder.id).toBe("my-model-v2");
    await expect(embedder.getQueryEmbedding("q", { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(() => fromLangChainEmbeddings({ embedQuery: () => [] } as never)).toThrow(/embedDocuments\(\)/);
  });
});
