import { describe, expect, it } from "vitest";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { createEventLog } from "../events/event-log.js";
import { VectorStoreIndex } from "../index-store/index.js";
import { TextNode } from "../schema/text-node.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { indexQuery, retrievalEngine } from "./index-query.js";

const TEXTS = [
  "The default response mode is compact. It packs chunks into as few calls as fit.",
  "tree_summarize builds summaries level by level until one answer is left.",
  "refine asks the model once per chunk and improves the answer each time.",
];

async function textIndex(extra: TextNode[] = []): Promise<VectorStoreIndex> {
  const documents = TEXTS.map(
    (text, id) => new TextNode({ id: `d${id}`, text, metadata: { file_path: `d${id}.md` } }),
  );
  return VectorStoreIndex.fromDocuments([...documents, ...extra], { embedModel: new HashingEmbedder() });
}

describe("indexQuery", () => {
  it("retrieves top-k and adds only the postprocessors asked for, cut-off first", async () => {
    const index = await textIndex();
    const plain = indexQuery(index, { topK: 2 });
    expect(plain.nodePostprocessors).toEqual([]);
    expect(await plain.retriever.retrieve({ query: "answer each chunk" })).toHaveLength(2);
    const one = indexQuery(index, { topK: 1 });
    expect(await one.retriever.retrieve({ query: "answer each chunk" })).toHaveLength(1);
    const cut = indexQuery(index, { topK: 2, similarityCutoff: 0.1, optimizer: { percentileCutoff: 0.5 } });
    expect(cut.nodePostprocessors.map((step) => step.name)).toEqual([
      "SimilarityPostprocessor",
      "SentenceEmbeddingOptimizer",
    ]);
  });

  it("adds no image step to an index without images, and one to an index with an image reference", async () => {
    const images = { attach: false, paths: ["."], cwd: process.cwd() };
    expect(indexQuery(await textIndex(), { topK: 2, images }).images).toBeUndefined();
    const withImage = await textIndex([
      new TextNode({
        id: "img",
        text: "See the diagram ![modes](diagram.png) of the modes.",
        metadata: { file_path: "img.md" },
      }),
    ]);
    const query = indexQuery(withImage, { topK: 4, images });
    expect(query.images).toMatchObject({ attach: false, attached: 0 });
    expect(query.nodePostprocessors.at(-1)?.name).toBe("ReferencedImages");
  });
});

describe("retrievalEngine", () => {
  it("retrieves and postprocesses, reporting the events, and never answers", async () => {
    const log = createEventLog();
    const engine = retrievalEngine(indexQuery(await textIndex(), { topK: 1 }), {
      tokenizer: resolveTokenizer(undefined),
      onEvent: log.handler,
    });
    const nodes = await engine.retrieve({ query: "tree summaries level by level" });
    expect(nodes[0]?.node.text).toContain("tree_summarize");
    expect(log.events.map((event) => event.type)).toContain("retrieve-end");
    expect(log.events.some((event) => event.type === "llm-call-start")).toBe(false);
  });
});
