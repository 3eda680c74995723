import { describe, expect, it } from "vitest";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { similarity } from "./similarity.js";
import type { SimilarityMode } from "./types.js";

describe("similarity", () => {
  it("defaults to cosine", () => {
    expect(similarity([1, 0], [0.6, 0.8])).toBeCloseTo(0.6, 12);
    expect(similarity([1, 1], [2, 2])).toBeCloseTo(1, 12);
    expect(similarity([1, 0], [-1, 0])).toBe(-1);
  });

  // EMB-D7: LlamaIndex returns NaN here; we return 0 on purpose (documented on `similarity`).
  it("returns 0, not NaN, for the cosine of a zero vector (deliberate difference from EMB-D7)", () => {
    expect(similarity([0, 0], [1, 0])).toBe(0);
    expect(similarity([1, 0], [0, 0], "cosine")).toBe(0);
    expect(similarity([0, 0], [0, 0])).toBe(0);
  });

  it("computes the dot product (EMB-D8)", () => {
    expect(similarity([1, 2], [3, 4], "dot_product")).toBe(11);
  });

  it("returns the negative euclidean distance (EMB-D9)", () => {
    expect(similarity([0, 0], [3, 4], "euclidean")).toBe(-5);
    expect(similarity([1, 1], [1, 1], "euclidean")).toBe(-0);
  });

  it("rejects vectors of different lengths", () => {
    expect(() => similarity([1, 2], [1, 2, 3])).toThrowError(
      "Expected `b` to have the same length as `a` (2), but it has length 3",
    );
    try {
      similarity([1], [1, 2], "dot_product");
    } catch (error) {
      expect(RagsynthError.isInstance(error, "invalid_argument")).toBe(true);
    }
  });

  it("rejects an unknown mode and lists the valid ones", () => {
    expect(() => similarity([1], [1], "manhattan" as SimilarityMode)).toThrowError(
      /Expected `mode` to be one of "cosine", "dot_product", "euclidean", got `"manhattan"` \(string\)/,
    );
  });
});
