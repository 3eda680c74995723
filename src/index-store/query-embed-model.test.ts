import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { TextNode } from "../schema/text-node.js";
import { SentenceSplitter } from "../splitter/sentence-splitter.js";
import { MockEmbedding } from "../testing/mock-embedding.js";
import { VectorStoreIndex } from "./vector-store-index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ragsynth-query-idf-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const TEXTS = {
  "cats.md": "Cats purr when content. Cats sleep all day. Cats chase mice.",
  "dogs.md": "Dogs bark at strangers. Dogs fetch sticks. Dogs purr never.",
  "fish.md": "Fish swim in schools. Fish sleep with open eyes.",
};
const documents = () =>
  Object.entries(TEXTS).map(([id, text]) => new TextNode({ id, text, metadata: { file_path: id } }));
const splitter = new SentenceSplitter({ chunkSize: 8, chunkOverlap: 0 });

describe("VectorStoreIndex.queryEmbedModel: the index owns query-side weighting", () => {
  it("weights an offline query-only embedder's queries by the index's documents, read on the first query", async () => {
    const index = await VectorStoreIndex.fromDocumentsCached(documents(), {
      embedModel: new HashingEmbedder({ applyIdf: "query" }),
      cacheDir: dir,
      splitter,
    });
    expect(index.nodes.length).toBeGreaterThan(3);
    const weighted = index.queryEmbedModel as HashingEmbedder;
    expect(weighted.id).toBe(index.embedModel.id);
    // Nothing is fitted until a query is embedded (a lexical search never pays for it).
    await index.asRetriever({ similarityTopK: 2, retrievalMode: "lexical" }).retrieve({ query: "purr" });
    expect(weighted.documentCount).toBe(0);
    // The same vector as an embedder fitted on the three documents (one text per document, not per chunk).
    const fitted = new HashingEmbedder({ applyIdf: "query", corpus: Object.values(TEXTS) });
    const query = "which animals purr and sleep";
    expect(await weighted.getQueryEmbedding(query)).toEqual(await fitted.getQueryEmbedding(query));
    expect(weighted.documentCount).toBe(3);
    // Unweighted, every query word counts alike: the index's weighting really changes the vector.
    expect(await weighted.getQueryEmbedding(query)).not.toEqual(
      await index.embedModel.getQueryEmbedding(query),
    );
    // A loaded index weights alike, from its stored documents, after one load.
    const loaded = await VectorStoreIndex.load(dir, {
      embedModel: new HashingEmbedder({ applyIdf: "query" }),
    });
    expect(await loaded.queryEmbedModel.getQueryEmbedding(query)).toEqual(
      await fitted.getQueryEmbedding(query),
    );
  });

  it("leaves any other embedder as it is: a neural one, or a hashing one that weights documents too", async () => {
    const mock = new MockEmbedding({ dimensions: 4 });
    const nodes = ["a", "b"].map((text) => new TextNode({ id: text, text }));
    expect((await VectorStoreIndex.fromNodes(nodes, { embedModel: mock })).queryEmbedModel).toBe(mock);
    const both = new HashingEmbedder();
    expect((await VectorStoreIndex.fromNodes(nodes, { embedModel: both })).queryEmbedModel).toBe(both);
  });

  it("takes each chunk as a document for an index built from nodes (it keeps no documents)", async () => {
    const texts = ["Cats purr.", "Dogs bark.", "Cats sleep."];
    const nodes = texts.map((text, index) => new TextNode({ id: `n${index}`, text }));
    const index = await VectorStoreIndex.fromNodes(nodes, {
      embedModel: new HashingEmbedder({ applyIdf: "query" }),
    });
    const fitted = new HashingEmbedder({ applyIdf: "query", corpus: texts });
    expect(await index.queryEmbedModel.getQueryEmbedding("cats bark")).toEqual(
      await fitted.getQueryEmbedding("cats bark"),
    );
  });
});
