import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  type Embedder,
  ExtractiveLLM,
  HashingEmbedder,
  InvalidArgumentError,
  MetadataMode,
  type NodeWithScore,
  type RagsynthEvent,
  type Retriever,
  RetrieverQueryEngine,
  SentenceEmbeddingOptimizer,
  SimilarityPostprocessor,
  TextNode,
  VectorStoreIndex,
} from "ragsynth";
import { splitSentences } from "ragsynth/extend";
import { MockEmbedding, MockLLM } from "ragsynth/testing";
import { describe, expect, it } from "vitest";

const FIXTURE = fileURLToPath(new URL("../fixtures/mixed-zh-en/", import.meta.url));

/** The fixture documents as nodes: the `# title` line becomes the `title` metadata, the rest the text. */
function loadFixture(): TextNode[] {
  return readdirSync(FIXTURE)
    .filter((file) => file.endsWith(".md") && file !== "README.md")
    .sort()
    .map((file) => {
      const [heading = "", ...rest] = readFileSync(`${FIXTURE}${file}`, "utf8").split("\n");
      return new TextNode({
        id: file,
        text: rest.join("\n").trim(),
        metadata: { title: heading.replace(/^#\s*/, ""), file },
        excludedLlmMetadataKeys: ["file"],
      });
    });
}

const fixed = (nodes: NodeWithScore[]): Retriever => ({ retrieve: async () => nodes });

describe("end to end with MockLLM and MockEmbedding", () => {
  const sentences = {
    "Paris is the capital of France.": [1, 0, 0],
    "It has about two million inhabitants.": [0.2, 0.9, 0],
    "The Seine flows through the city.": [0, 1, 0],
    "Bread is sold in bakeries.": [0, 0, 1],
    "Lyon is known for its food.": [0.1, 0, 1],
    "The Louvre is in Paris.": [0.9, 0.1, 0],
  };
  const query = "What is the capital of France?";
  const embedModel = new MockEmbedding({
    embeddings: { ...sentences, [query]: [1, 0, 0], "city: Paris": [0.5, 0.5, 0], "city: Lyon": [0, 0, 1] },
  });
  const nodes: NodeWithScore[] = [
    {
      node: new TextNode({
        id: "paris",
        text: "Paris is the capital of France. It has about two million inhabitants. The Seine flows through the city. Bread is sold in bakeries.",
        metadata: { city: "Paris" },
      }),
      score: 0.8,
    },
    {
      node: new TextNode({
        id: "lyon",
        text: "Lyon is known for its food. The Louvre is in Paris.",
        metadata: { city: "Lyon" },
      }),
      score: 0.4,
    },
  ];

  it("the optimizer shortens the context the model receives; sources and metadata survive", async () => {
    const plain = new MockLLM({ response: "Paris." });
    await new RetrieverQueryEngine({ retriever: fixed(nodes), llm: plain, responseMode: "compact" }).query({
      query,
    });

    const llm = new MockLLM({ response: "Paris." });
    const events: RagsynthEvent[] = [];
    const engine = new RetrieverQueryEngine({
      retriever: fixed(nodes),
      llm,
      responseMode: "compact",
      nodePostprocessors: [
        new SentenceEmbeddingOptimizer({
          embedModel,
          thresholdCutoff: 0.85,
          contextBefore: 0,
          contextAfter: 0,
        }),
      ],
      onEvent: (event) => events.push(event),
    });
    const response = await engine.query({ query });

    expect(llm.prompts).toHaveLength(1);
    const prompt = llm.prompts[0] as string;
    expect(prompt).toContain("city: Paris\n\nParis is the capital of France.");
    expect(prompt).toContain("city: Lyon\n\nThe Louvre is in Paris.");
    for (const dropped of ["two million", "Seine", "Bread", "Lyon is known"])
      expect(prompt).not.toContain(dropped);
    expect(prompt.match(/city: Paris/g)).toHaveLength(1);
    expect(prompt.length).toBeLessThan((plain.prompts[0] as string).length);

    expect(response.response).toBe("Paris.");
    expect(response.sourceNodes.map(({ node, score }) => [node.id, node.text, score])).toEqual([
      ["paris", "Paris is the capital of France.", 0.8],
      ["lyon", "The Louvre is in Paris.", 0.4],
    ]);
    expect(response.metadata).toEqual({ paris: { city: "Paris" }, lyon: { city: "Lyon" } });
    expect(nodes[0]?.node.text).toMatch(/Bread is sold in bakeries\.$/);

    const optimized = events.find((event) => event.type === "postprocess-end");
    expect(optimized).toMatchObject({ name: "SentenceEmbeddingOptimizer", nodesBefore: 2, nodesAfter: 2 });
    if (optimized?.type !== "postprocess-end") throw new Error("no postprocess-end event");
    expect(optimized.tokensAfter).toBeLessThan(optimized.tokensBefore);
  });

  it("one abort stops embedding calls and model calls alike", async () => {
    const controller = new AbortController();
    const llm = new MockLLM({ response: "never" });
    const aborting: Embedder = {
      id: "aborting",
      getQueryEmbedding: async (text, options) => {
        controller.abort();
        return embedModel.getQueryEmbedding(text, options);
      },
      getTextEmbeddings: (texts, options) => embedModel.getTextEmbeddings(texts, options),
    };
    const engine = new RetrieverQueryEngine({
      retriever: fixed(nodes),
      llm,
      nodePostprocessors: [new SentenceEmbeddingOptimizer({ embedModel: aborting, percentileCutoff: 0.5 })],
    });
    await expect(engine.query({ query, signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(llm.calls).toHaveLength(0);
  });
});

describe("end to end with HashingEmbedder on the Chinese + English fixture", () => {
  const documents = loadFixture();
  const embedModel = new HashingEmbedder().fit(
    documents.flatMap((document) => splitSentences(document.text, { trim: true })),
  );
  const index = VectorStoreIndex.fromDocuments(documents, { embedModel });

  async function ask(query: string, optimize: boolean) {
    const llm = new MockLLM({ response: "echo" });
    const engine = new RetrieverQueryEngine({
      retriever: (await index).asRetriever({ similarityTopK: 2 }),
      llm,
      responseMode: "compact",
      nodePostprocessors: [
        new SimilarityPostprocessor({ similarityCutoff: 0.05 }),
        ...(optimize
          ? [new SentenceEmbeddingOptimizer({ embedModel, percentileCutoff: 0.3, contextBefore: 0 })]
          : []),
      ],
    });
    const response = await engine.query({ query });
    return { prompt: llm.prompts.join("\n"), response };
  }

  it("keeps the Chinese sentence that answers a Chinese question, joined without spaces", async () => {
    const query = "长城的总长度是多少公里？";
    const { prompt, response } = await ask(query, true);
    const full = await ask(query, false);
    expect(response.sourceNodes[0]?.node.metadata).toMatchObject({ title: "长城", file: "great-wall.zh.md" });
    expect(prompt).toContain("title: 长城\n\n");
    expect(prompt).toContain("长城的总长度约为两万一千多公里。");
    expect(prompt).not.toMatch(/。 \S/u);
    expect(prompt).not.toContain("file:");
    expect(prompt.length).toBeLessThan(full.prompt.length);
  });

  it("keeps the English sentence of the mixed document that answers an English question", async () => {
    const { prompt, response } = await ask("How many kilograms of bamboo does an adult panda eat?", true);
    expect(response.sourceNodes[0]?.node.metadata.file).toBe("giant-panda.mixed.md");
    expect(prompt).toContain("An adult panda eats between 12 and 38 kilograms of bamboo a day.");
    expect(prompt).not.toContain("Cubs weigh only about 100 grams at birth.");
  });
});

describe("done when: a VectorStoreIndex engine with tree_summarize and the optimizer answers offline", () => {
  it("index.asQueryEngine answers from the fixture with HashingEmbedder and ExtractiveLLM", async () => {
    const documents = loadFixture();
    const embedModel = new HashingEmbedder().fit(documents.map((document) => document.text));
    const index = await VectorStoreIndex.fromDocuments(documents, { embedModel });
    const events: RagsynthEvent[] = [];
    const engine = index.asQueryEngine({
      similarityTopK: 3,
      llm: new ExtractiveLLM(),
      responseMode: "tree_summarize",
      nodePostprocessors: [new SentenceEmbeddingOptimizer({ embedModel, percentileCutoff: 0.5 })],
      onEvent: (event) => events.push(event),
    });
    const response = await engine.query({ query: "What did the watchtowers along the wall send?" });
    expect(response.response).toContain(
      "Watchtowers along the wall sent warnings with smoke by day and fire by night.",
    );
    expect(response.sourceNodes[0]?.node.metadata).toMatchObject({
      title: "The Great Wall",
      file: "great-wall.en.md",
    });
    const optimized = events.find((event) => event.type === "postprocess-end");
    const call = events.find((event) => event.type === "llm-call-start");
    if (optimized?.type !== "postprocess-end" || call?.type !== "llm-call-start")
      throw new Error("missing events");
    expect(optimized.tokensAfter).toBeLessThan(optimized.tokensBefore);
    expect(call.contextTokens).toBeLessThan(optimized.tokensBefore);
    expect(engine.responseSynthesizer.mode).toBe("tree_summarize");
    // BM25 (the default with the offline embedder) sends only the chunks that share a query term (the
    // Chinese chunk shares "wall" through its metadata, `file: great-wall.zh.md`).
    expect(response.sourceNodes.length).toBeGreaterThanOrEqual(1);
    for (const { node } of response.sourceNodes) {
      expect(node.getContent(MetadataMode.EMBED)).toMatch(/watchtower|wall|sen[dt]/i);
    }
  });

  it("the issue's exact form: the optimizer with only percentileCutoff (offline default embedding model) shortens the context", async () => {
    const documents = loadFixture();
    const index = await VectorStoreIndex.fromDocuments(documents, { embedModel: new HashingEmbedder() });
    const events: RagsynthEvent[] = [];
    const engine = index.asQueryEngine({
      llm: new ExtractiveLLM(),
      responseMode: "tree_summarize",
      nodePostprocessors: [new SentenceEmbeddingOptimizer({ percentileCutoff: 0.5 })],
      onEvent: (event) => events.push(event),
    });
    const response = await engine.query({ query: "What did the watchtowers along the wall send?" });
    expect(response.response).toContain("smoke by day and fire by night");
    const optimized = events.find((event) => event.type === "postprocess-end");
    if (optimized?.type !== "postprocess-end") throw new Error("missing postprocess-end event");
    expect(optimized.tokensAfter).toBeLessThan(optimized.tokensBefore);
  });

  it("asQueryEngine rejects unknown options, and synthesizer options next to a synthesizer", async () => {
    const embedModel = new HashingEmbedder();
    const index = await VectorStoreIndex.fromNodes([new TextNode({ text: "a" })], { embedModel });
    // @ts-expect-error: not an option
    expect(() => index.asQueryEngine({ llm: new ExtractiveLLM(), topK: 3 })).toThrow(
      /Expected `topK` to be a known option/,
    );
    const responseSynthesizer = index.asQueryEngine({ responseMode: "context_only" }).responseSynthesizer;
    // @ts-expect-error: a ready synthesizer excludes the options to build one
    expect(() => index.asQueryEngine({ responseSynthesizer, responseMode: "refine" })).toThrow(
      InvalidArgumentError,
    );
  });
});
