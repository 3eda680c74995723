import { describe, expect, it } from "vitest";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { getTopKEmbeddings } from "./get-top-k-embeddings.js";

// Conformance section I, EMB-D: query (1,0), embeddings [(1,0),(0,1),(.6,.8)].
const queryEmbedding = [1, 0];
const embeddings = [
  [1, 0],
  [0, 1],
  [0.6, 0.8],
];

describe("getTopKEmbeddings", () => {
  it("EMB-D1: without k, sorts every embedding by score", () => {
    const result = getTopKEmbeddings({ queryEmbedding, embeddings });
    expect(result.ids).toEqual([0, 2, 1]);
    expect(result.similarities[0]).toBeCloseTo(1, 12);
    expect(result.similarities[1]).toBeCloseTo(0.6, 12);
    expect(result.similarities[2]).toBeCloseTo(0, 12);
  });

  it("EMB-D2: k=2 keeps the two best", () => {
    const result = getTopKEmbeddings({ queryEmbedding, embeddings, similarityTopK: 2 });
    expect(result.ids).toEqual([0, 2]);
    expect(result.similarities).toHaveLength(2);
    expect(result.similarities[1]).toBeCloseTo(0.6, 12);
  });

  it("EMB-D3: k=0 means no limit", () => {
    expect(getTopKEmbeddings({ queryEmbedding, embeddings, similarityTopK: 0 })).toEqual(
      getTopKEmbeddings({ queryEmbedding, embeddings }),
    );
  });

  it("EMB-D4: the cutoff is strict", () => {
    // 0.6·1 + 0.8·0 over norms 1·1 is exactly 0.6 in floating point, so it does not pass `> 0.6`.
    expect(getTopKEmbeddings({ queryEmbedding, embeddings, similarityCutoff: 0.6 })).toEqual({
      similarities: [1],
      ids: [0],
    });
    expect(getTopKEmbeddings({ queryEmbedding, embeddings, similarityCutoff: 0.59 }).ids).toEqual([0, 2]);
  });

  it("EMB-D5: among equal scores the larger ids survive k=2", () => {
    const result = getTopKEmbeddings({
      queryEmbedding,
      embeddings: [queryEmbedding, queryEmbedding, queryEmbedding],
      embeddingIds: ["a", "b", "c"],
      similarityTopK: 2,
    });
    expect(result.ids).toEqual(["b", "c"]);
  });

  it("EMB-D6: equal scores without k keep the heap's order", () => {
    const result = getTopKEmbeddings({
      queryEmbedding,
      embeddings: [queryEmbedding, queryEmbedding, queryEmbedding],
      embeddingIds: ["a", "b", "c"],
    });
    expect(result).toEqual({ similarities: [1, 1, 1], ids: ["a", "b", "c"] });
  });

  // Expected orders computed with CPython's heapq push/pop and sorted(..., reverse=True).
  it("follows Python's heap order for ties after several pops", () => {
    const tied = (count: number) => Array.from({ length: count }, () => queryEmbedding);
    expect(getTopKEmbeddings({ queryEmbedding, embeddings: tied(6), similarityTopK: 3 }).ids).toEqual([
      3, 5, 4,
    ]);
    expect(
      getTopKEmbeddings({
        queryEmbedding,
        embeddings: tied(7),
        embeddingIds: ["a", "b", "c", "d", "e", "f", "g"],
        similarityTopK: 5,
      }).ids,
    ).toEqual(["c", "d", "g", "f", "e"]);
    const scores = [0.5, 1, 1, 0.2, 1, 1, 0.7, 1];
    const mixed = getTopKEmbeddings({
      queryEmbedding: [1],
      embeddings: scores.map((score) => [score]),
      similarityTopK: 4,
      mode: "dot_product",
    });
    expect(mixed).toEqual({ similarities: [1, 1, 1, 1], ids: [2, 4, 7, 5] });
  });

  it("compares numeric ids as numbers, not strings", () => {
    const result = getTopKEmbeddings({
      queryEmbedding,
      embeddings: [queryEmbedding, queryEmbedding],
      embeddingIds: [10, 9],
      similarityTopK: 1,
    });
    expect(result.ids).toEqual([10]);
  });

  it("supports the other modes", () => {
    const result = getTopKEmbeddings({
      queryEmbedding: [0, 0],
      embeddings: [
        [3, 4],
        [1, 0],
        [0, 2],
      ],
      mode: "euclidean",
    });
    expect(result).toEqual({ similarities: [-1, -2, -5], ids: [1, 2, 0] });
    expect(
      getTopKEmbeddings({ queryEmbedding: [1, 2], embeddings: [[3, 4]], mode: "dot_product" }).similarities,
    ).toEqual([11]);
  });

  it("ranks a zero vector last instead of producing NaN", () => {
    const result = getTopKEmbeddings({
      queryEmbedding,
      embeddings: [
        [0, 0],
        [0.6, 0.8],
      ],
    });
    expect(result).toEqual({ similarities: [expect.closeTo(0.6, 12), 0], ids: [1, 0] });
  });

  it("keeps the k best of many, in order, like a full sort", () => {
    const many = Array.from({ length: 500 }, (_, index) => [Math.cos(index * 0.37), Math.sin(index * 0.37)]);
    const full = getTopKEmbeddings({ queryEmbedding, embeddings: many });
    const top = getTopKEmbeddings({ queryEmbedding, embeddings: many, similarityTopK: 7 });
    expect(top.ids).toEqual(full.ids.slice(0, 7));
    expect(top.similarities).toEqual(full.similarities.slice(0, 7));
  });

  it("returns empty lists for no embeddings", () => {
    expect(getTopKEmbeddings({ queryEmbedding, embeddings: [], similarityTopK: 3 })).toEqual({
      similarities: [],
      ids: [],
    });
  });

  it("rejects bad arguments with typed errors", () => {
    const cases = [
      () => getTopKEmbeddings({ queryEmbedding, embeddings, similarityTopK: -1 }),
      () => getTopKEmbeddings({ queryEmbedding, embeddings, similarityTopK: 1.5 }),
      () => getTopKEmbeddings({ queryEmbedding, embeddings, embeddingIds: ["a"] }),
      () => getTopKEmbeddings({ queryEmbedding, embeddings, similarityCutoff: Number.NaN }),
      () => getTopKEmbeddings({ queryEmbedding: [1, 0, 0], embeddings }),
    ];
    for (const run of cases) {
      expect(run).toThrow();
      try {
        run();
      } catch (error) {
        expect(RagsynthError.isInstance(error, "invalid_argument")).toBe(true);
      }
    }
    expect(() => getTopKEmbeddings({ queryEmbedding, embeddings, embeddingIds: ["a"] })).toThrowError(
      "Expected `embeddingIds` to have one id per embedding (3), but it has 1",
    );
  });
});
