import { describe, expect, it } from "vitest";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import type { Embedder } from "../embedding/types.js";
import { TextNode } from "../schema/text-node.js";
import { storesVectors } from "./check-embed-model.js";
import { defaultRetrievalMode } from "./index-retriever.js";
import { queryEmbedModel } from "./query-embed-model.js";
import { VectorStoreIndex } from "./vector-store-index.js";

// An index asks the embedder contract what the embedder can do; it never tests for a class. These embedders are
// plain objects, so each expectation below failed while the index tested `instanceof HashingEmbedder`.
const embedded: string[] = [];
const plain = (capabilities: Partial<Embedder> = {}): Embedder => ({
  id: "plain",
  getTextEmbeddings: async (texts) => {
    embedded.push(...texts);
    return texts.map(() => [1, 0]);
  },
  getQueryEmbedding: async (query) => {
    throw new Error(`the query "${query}" was embedded`);
  },
  ...capabilities,
});

const documents = () => [
  new TextNode({ id: "cats.md", text: "Cats purr when content." }),
  new TextNode({ id: "dogs.md", text: "Dogs bark at strangers." }),
];

describe("the embedder contract's capabilities", () => {
  it("a `lexical` embedder ranks by BM25 by default and has no vectors stored; a model of meaning is fused and stored", () => {
    expect(defaultRetrievalMode(plain({ lexical: true }))).toBe("lexical");
    expect(storesVectors(plain({ lexical: true }))).toBe(false);
    expect(defaultRetrievalMode(plain())).toBe("hybrid");
    expect(storesVectors(plain())).toBe(true);
    expect(defaultRetrievalMode(new HashingEmbedder())).toBe("lexical");
    expect(storesVectors(new HashingEmbedder())).toBe(false);
  });

  it("an index over a `lexical` embedder embeds neither the documents nor the query for its default search", async () => {
    embedded.length = 0;
    const index = await VectorStoreIndex.fromDocuments(documents(), { embedModel: plain({ lexical: true }) });
    const found = await index.asRetriever({ similarityTopK: 1 }).retrieve({ query: "purr" });
    expect(found.map(({ node }) => node.text)).toEqual(["Cats purr when content."]);
    expect(embedded).toEqual([]);
  });

  it("an embedder with `withQueryCorpus` is lent the index's documents, read only when it asks", () => {
    const nodes = documents();
    let lent: (() => readonly string[]) | undefined;
    const weighted = plain({ id: "weighted" });
    const embedder = plain({
      withQueryCorpus: (corpus) => {
        lent = corpus;
        return weighted;
      },
    });
    expect(
      queryEmbedModel(
        embedder,
        () => nodes,
        () => [],
      ),
    ).toBe(weighted);
    expect(lent?.()).toEqual(["Cats purr when content.", "Dogs bark at strangers."]);
    const alone = plain();
    expect(
      queryEmbedModel(
        alone,
        () => nodes,
        () => [],
      ),
    ).toBe(alone);
  });
});
