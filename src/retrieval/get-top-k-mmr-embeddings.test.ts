import { describe, expect, it } from "vitest";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { getTopKEmbeddings } from "./get-top-k-embeddings.js";
import { getTopKEmbeddingsMmr } from "./get-top-k-mmr-embeddings.js";

// Conformance section I, EMB-1.
describe("getTopKEmbeddingsMmr", () => {
  it("EMB-1: penalises overlap with the previous pick", () => {
    const result = getTopKEmbeddingsMmr({
      queryEmbedding: [5, 0, 0],
      embeddings: [
        [4, 3, 0],
        [3, 4, 0],
        [-4, 3, 0],
      ],
      mmrThreshold: 0.8,
    });
    expect(result.ids).toEqual([0, 1, 2]);
    expect(result.similarities[0]).toBeCloseTo((0.8 * 4) / 5, 12);
    expect(result.similarities[1]).toBeCloseTo((0.8 * 3) / 5 - 0.2 * (24 / 25), 12);
    expect(result.similarities[2]).toBeCloseTo(0.8 * (-4 / 5) - 0.2 * (-12 / 25 + 12 / 25), 12);
  });

  it("EMB-1: diversity reorders near-duplicates", () => {
    const queryEmbedding = [1, 0, 1];
    const embeddings = [
      [1, 0, 0.9],
      [1, 0, 0.8],
      [0.7, 0, 1],
    ];
    expect(getTopKEmbeddingsMmr({ queryEmbedding, embeddings, mmrThreshold: 0.5 }).ids).toEqual([0, 2, 1]);
    expect(
      getTopKEmbeddingsMmr({ queryEmbedding, embeddings, mmrThreshold: 0.5, embeddingIds: ["A", "B", "C"] })
        .ids,
    ).toEqual(["A", "C", "B"]);
    expect(getTopKEmbeddingsMmr({ queryEmbedding, embeddings, mmrThreshold: 1 }).ids).toEqual([0, 1, 2]);
    expect(
      getTopKEmbeddingsMmr({ queryEmbedding, embeddings, mmrThreshold: 1, similarityTopK: 2 }).ids,
    ).toEqual([0, 1]);
  });

  it("EMB-1: threshold 1 gives the plain top-k scores", () => {
    const queryEmbedding = [10, 23, 90, 78];
    const embeddings = [
      [1, 23, 89, 68],
      [1, 74, 144, 23],
      [0.23, 0, 1, 9],
    ];
    const plain = getTopKEmbeddings({ queryEmbedding, embeddings });
    const mmr = getTopKEmbeddingsMmr({ queryEmbedding, embeddings, mmrThreshold: 1 });
    expect(mmr.ids).toEqual(plain.ids);
    mmr.similarities.forEach((score, index) => {
      expect(Math.abs(score - (plain.similarities[index] as number))).toBeLessThan(1e-5);
    });
  });

  it("defaults the threshold to 0.5 and honours 0 (LlamaIndex would turn 0 into 0.5)", () => {
    const queryEmbedding = [1, 0, 1];
    const embeddings = [
      [1, 0, 0.9],
      [1, 0, 0.8],
      [0.7, 0, 1],
    ];
    expect(getTopKEmbeddingsMmr({ queryEmbedding, embeddings }).ids).toEqual([0, 2, 1]);
    const zero = getTopKEmbeddingsMmr({ queryEmbedding, embeddings, mmrThreshold: 0 });
    expect(zero.similarities[0]).toBe(0);
  });

  it("handles no embeddings and rejects bad arguments", () => {
    expect(getTopKEmbeddingsMmr({ queryEmbedding: [1], embeddings: [] })).toEqual({
      similarities: [],
      ids: [],
    });
    const bad = [
      () => getTopKEmbeddingsMmr({ queryEmbedding: [1], embeddings: [[1]], mmrThreshold: 1.5 }),
      () => getTopKEmbeddingsMmr({ queryEmbedding: [1], embeddings: [[1], [2]], embeddingIds: ["x", "x"] }),
      () => getTopKEmbeddingsMmr({ queryEmbedding: [1], embeddings: [[1]], similarityTopK: -2 }),
    ];
    for (const run of bad) {
      expect(run).toThrow();
      try {
        run();
      } catch (error) {
        expect(RagsynthError.isInstance(error, "invalid_argument")).toBe(true);
      }
    }
  });
});
