// What a plain-JavaScript caller (no type checker) writes, often copied from LlamaIndexTS's docs: each call
// either works with defaults or throws InvalidArgumentError with a hint, never a raw TypeError.

import {
  ExtractiveLLM,
  getResponseSynthesizer,
  InvalidArgumentError,
  SentenceEmbeddingOptimizer,
  SimilarityPostprocessor,
  TextNode,
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
