import { describe, expect, it } from "vitest";
import { hashString } from "../embedding/fnv1a.js";
import type { Embedder } from "../embedding/types.js";
import { TextNode } from "../schema/text-node.js";
import { useTempDirs } from "../store/temp-dir.test.util.js";
import { VectorStoreIndex } from "./vector-store-index.js";

const tempDir = useTempDirs("sparse");
const SLOTS = 128;
const WORDS = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta", "lambda", "zeta"];

/** A hashing embedder of the user's own (not the built-in one): each word adds ±1 to one of 128 slots. */
function sparseVector(text: string): number[] {
  const vector = new Array<number>(SLOTS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const hash = hashString(word);
    vector[hash % SLOTS] = (vector[hash % SLOTS] as number) + (hash & 0x100 ? 1 : -1);
  }
  return vector;
}

const sparse: Embedder = {
  id: "sparse-test",
  getTextEmbeddings: async (texts) => texts.map(sparseVector),
  getQueryEmbedding: async (query) => sparseVector(query),
};

function cosine(left: readonly number[], right: readonly number[]): number {
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  left.forEach((value, d) => {
    dot += value * (right[d] as number);
    leftNorm += value * value;
    rightNorm += (right[d] as number) ** 2;
  });
  return leftNorm === 0 || rightNorm === 0 ? 0 : dot / Math.sqrt(leftNorm * rightNorm);
}

describe("dense search over a stored index of sparse vectors", () => {
  it("scores every vector (exact), as the sign codes would miss most of the best", async () => {
    // 3,000 chunks of four words each, far more than the 500 candidates the codes keep.
    const texts = Array.from({ length: 3000 }, (_, index) =>
      [0, 3, 7, 11]
        .map((step) => `${WORDS[(index * (step + 1)) % WORDS.length]}${(index * 7 + step) % 97}`)
        .join(" "),
    );
    const documents = texts.map((text, index) => new TextNode({ id: `doc-${index}.md`, text }));
    const index = await VectorStoreIndex.fromDocumentsCached(documents, {
      cacheDir: tempDir(),
      embedModel: sparse,
    });
    const retriever = index.asRetriever({ similarityTopK: 5, retrievalMode: "dense" });
    for (const query of ["alpha3 gamma10 zeta52", "omega0 kappa7", "delta15 beta88 theta33 sigma4"]) {
      const exact = texts
        .map((text) => cosine(sparseVector(text), sparseVector(query)))
        .sort((a, b) => b - a);
      const found = await retriever.retrieve({ query });
      expect(found).toHaveLength(5);
      for (const [rank, { score }] of found.entries()) expect(score).toBeCloseTo(exact[rank] as number, 6);
    }
    await index.close();
  });
});
