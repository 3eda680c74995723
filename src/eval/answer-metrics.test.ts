import { describe, expect, it } from "vitest";
import { holdsPhrase, tokenF1 } from "./answer-metrics.js";

describe("holdsPhrase", () => {
  it("ignores case and runs of whitespace, like the bench", () => {
    expect(holdsPhrase({ answer: "The DEFAULT\n\n  mode is compact.", phrase: "default mode" })).toBe(true);
    expect(holdsPhrase({ answer: "The default-mode", phrase: "default mode" })).toBe(false);
  });

  it("keeps the phrase's edge spaces, as the bench's normalize does (no trim)", () => {
    expect(holdsPhrase({ answer: "compact", phrase: " compact" })).toBe(false);
  });
});

describe("tokenF1", () => {
  it("is 1 for the same words up to case, punctuation and articles", () => {
    expect(tokenF1({ answer: "The compact mode!", reference: "compact mode" })).toBe(1);
  });

  it("is the harmonic mean of token precision and recall, counting repeats once per match", () => {
    // answer tokens: compact compact refine (3), reference: compact tree (2); common: 1.
    const f1 = tokenF1({ answer: "compact compact refine", reference: "compact tree" });
    const precision = 1 / 3;
    const recall = 1 / 2;
    expect(f1).toBeCloseTo((2 * precision * recall) / (precision + recall), 12);
  });

  it("is 0 with no common token, and 0 when only one side is empty", () => {
    expect(tokenF1({ answer: "refine", reference: "compact" })).toBe(0);
    expect(tokenF1({ answer: "", reference: "compact" })).toBe(0);
    expect(tokenF1({ answer: "the", reference: "a" })).toBe(1);
  });
});
