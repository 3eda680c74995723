import { describe, expect, it } from "vitest";
import { bestQualityPerCost } from "./best-mode.js";
import { dollars, resolvePrices } from "./prices.js";

describe("bestQualityPerCost", () => {
  it("ranks by quality per dollar when every mode is priced", () => {
    const best = bestQualityPerCost([
      { mode: "refine", quality: 0.9, dollars: 0.09, tokens: 90_000 },
      { mode: "compact", quality: 0.8, dollars: 0.02, tokens: 20_000 },
    ]);
    expect(best).toEqual({ mode: "compact", costUnit: "dollars", qualityPerCost: 40 });
  });

  it("falls back to tokens when a price is unknown or every run cost $0 (offline)", () => {
    const offline = bestQualityPerCost([
      { mode: "refine", quality: 0.5, dollars: 0, tokens: 1000 },
      { mode: "compact", quality: 0.5, dollars: 0, tokens: 500 },
    ]);
    expect(offline).toEqual({ mode: "compact", costUnit: "tokens", qualityPerCost: 1 });
    const unpriced = bestQualityPerCost([
      { mode: "refine", quality: 0.5, dollars: undefined, tokens: 400 },
      { mode: "compact", quality: 0.5, dollars: 1, tokens: 500 },
    ]);
    expect(unpriced?.mode).toBe("refine");
  });

  it("never marks a mode without quality, and prefers free quality, then the higher quality", () => {
    expect(bestQualityPerCost([{ mode: "no_text", quality: 0, dollars: 0, tokens: 0 }])).toBeUndefined();
    const best = bestQualityPerCost([
      { mode: "context_only", quality: 0.4, dollars: 0, tokens: 0 },
      { mode: "generation", quality: 0.1, dollars: 0, tokens: 0 },
      { mode: "compact", quality: 0.9, dollars: 0, tokens: 10 },
    ]);
    expect(best).toEqual({
      mode: "context_only",
      costUnit: "tokens",
      qualityPerCost: Number.POSITIVE_INFINITY,
    });
  });
});

describe("prices", () => {
  it("takes the given prices, else a known model's (dated snapshots too), else none", () => {
    expect(resolvePrices({ model: "gpt-4o-mini", input: 1 })).toEqual({ input: 1, output: 0 });
    expect(resolvePrices({ model: "gpt-4o-mini-2024-07-18" })).toEqual({ input: 0.15, output: 0.6 });
    expect(resolvePrices({ model: "llama3" })).toBeUndefined();
    expect(
      dollars({ promptTokens: 2_000_000, completionTokens: 1_000_000 }, { input: 0.15, output: 0.6 }),
    ).toBeCloseTo(0.9, 12);
    expect(dollars({ promptTokens: 5, completionTokens: 5 }, undefined)).toBeUndefined();
  });
});
