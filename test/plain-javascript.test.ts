// What a plain-JavaScript caller (no type checker) writes, often copied from LlamaIndexTS's docs: each call
// either works with defaults or throws InvalidArgumentError with a hint, never a raw TypeError.

import {
  BlockSplitter,
  ExtractiveLLM,
  getResponseSynthesizer,
  InvalidArgumentError,
  SentenceEmbeddingOptimizer,
  SentenceSplitter,
  SimilarityPostprocessor,
  TextNode,
  TokenTextSplitter,
  VectorStoreIndex,
} from "ragsynth";
import { describe, expect, it } from "vitest";

/** Calls without the type checker, as JavaScript does. */
const untyped = (value: unknown) => value as never;
const documents = [
  new TextNode({ text: "Paris is the capital of France. It lies on the Seine." }),
  new TextNode({ text: "Berlin is the capital of Germany." }),
];
const nodes = documents.map((node, index) => ({ node, score: 0.9 - index / 10 }));

async function failure(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("plain JavaScript callers", () => {
  it("VectorStoreIndex.fromDocuments(docs) and fromNodes(nodes) work with the offline embedder", async () => {
    const index = await VectorStoreIndex.fromDocuments(documents);
    expect(index.embedModel.id).toMatch(/hashing/i);
    const retrieved = await index.asRetriever({ similarityTopK: 1 }).retrieve({ query: "capital of France" });
    expect(retrieved[0]?.node.text).toMatch(/Paris/);
    expect((await VectorStoreIndex.fromNodes(documents)).embedModel.id).toBe(index.embedModel.id);
    const error = await failure(() => VectorStoreIndex.fromDocuments(untyped("not an array")));
    expect(error).toBeInstanceOf(InvalidArgumentError);
  });

  it("a list holding something other than a TextNode names the entry, for index builders and splitters", async () => {
    const cases: [string, () => unknown][] = [
      ["documents[1]", () => VectorStoreIndex.fromDocuments(untyped([documents[0], { text: "plain" }]))],
      ["nodes[0]", () => VectorStoreIndex.fromNodes(untyped([undefined]))],
      [
        "documents[0]",
        () =>
          VectorStoreIndex.fromDocumentsCached(untyped(["a string"]), {
            cacheDir: "/nonexistent/never-made",
          }),
      ],
      ["documents[0]", () => new BlockSplitter().getNodesFromDocuments(untyped([null]))],
      ["document", () => [...new BlockSplitter().iterateNodes(untyped({ text: "plain" }))]],
      ["documents", () => new SentenceSplitter().getNodesFromDocuments(untyped(documents[0]))],
      ["documents[1]", () => new SentenceSplitter().getNodesFromDocuments(untyped([documents[0], {}]))],
    ];
    for (const [parameter, run] of cases) {
      const error = await failure(run);
      expect(error, parameter).toBeInstanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).parameter).toBe(parameter);
      expect((error as Error).message).toMatch(/TextNode/);
      expect((error as Error).message).toMatch(/new TextNode\(json\)/);
    }
  });

  it("a splitter given something other than text says which argument, for every text method", async () => {
    const sentences = new SentenceSplitter();
    const cases: [string, () => unknown][] = [
      ["text", () => sentences.splitText(untyped(42))],
      ["metadataStr", () => sentences.splitTextMetadataAware("text", untyped(undefined))],
      ["texts", () => sentences.splitTexts(untyped("one text"))],
      ["texts[1]", () => sentences.splitTexts(untyped(["a", null]))],
      ["metadataStrs[0]", () => sentences.splitTextsMetadataAware(["a"], untyped([{}]))],
      ["text", () => new TokenTextSplitter().splitText(untyped(null))],
    ];
    for (const [parameter, run] of cases) {
      const error = await failure(run);
      expect(error, parameter).toBeInstanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).parameter).toBe(parameter);
      expect((error as Error).message).toMatch(/to be (a string|an array of strings)/);
    }
  });

  it("index.asQueryEngine() without options says which model to pass", async () => {
    const index = await VectorStoreIndex.fromDocuments(documents);
    const error = await failure(() => index.asQueryEngine());
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toMatch(/`llm`/);
    const engine = index.asQueryEngine({ llm: new ExtractiveLLM() });
    expect((await engine.query({ query: "What is the capital of France?" })).response).toMatch(/Paris/);
  });

  it("postprocessNodes(nodes) without options: works where no query is needed, a hint where one is", async () => {
    const kept = await new SimilarityPostprocessor({ similarityCutoff: 0.85 }).postprocessNodes(
      untyped(nodes),
    );
    expect(kept).toHaveLength(1);
    const error = await failure(() =>
      new SentenceEmbeddingOptimizer({ percentileCutoff: 0.5 }).postprocessNodes(untyped(nodes)),
    );
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toMatch(/postprocessNodes\(nodes, \{ query/);
  });

  it("a template given as a function or a string is an InvalidArgumentError with the hint", async () => {
    for (const template of [(values: unknown) => `Context: ${values}`, "Context: {context_str}"]) {
      const error = await failure(() =>
        getResponseSynthesizer({ llm: new ExtractiveLLM(), textQaTemplate: untyped(template) }),
      );
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as Error).message).toMatch(/new PromptTemplate\(\{ template/);
    }
  });

  it("synthesize({ stream: true }) and query({ stream: true }) point to stream() instead of being ignored", async () => {
    const synthesizer = getResponseSynthesizer({ llm: new ExtractiveLLM() });
    const error = await failure(() => synthesizer.synthesize(untyped({ query: "q", nodes, stream: true })));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toMatch(/synthesizer\.stream/);
    const engine = (await VectorStoreIndex.fromDocuments(documents)).asQueryEngine({
      llm: new ExtractiveLLM(),
    });
    const queried = await failure(() => engine.query(untyped({ query: "q", stream: true })));
    expect((queried as Error).message).toMatch(/engine\.stream/);
  });
});
