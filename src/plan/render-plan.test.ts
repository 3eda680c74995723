import { describe, expect, it } from "vitest";
import { renderPlanHeading } from "./render-plan.js";

const plain = (text: string) => text;
const style = { bold: plain, dim: plain, yellow: plain };
const budget = {
  model: "gpt-4o-mini",
  contextWindow: 128_000,
  numOutput: 256,
  tokenizer: "o200k_base",
  isChatModel: true,
};

describe("renderPlanHeading", () => {
  it("shows the query, the budget and each retrieved chunk with its score and tokens", () => {
    const text = renderPlanHeading({
      query: "What is the default mode?",
      budget,
      chunks: [
        { name: "docs/modes.md", score: 0.8123, tokens: 1200 },
        { name: "docs/tree.md", score: undefined, tokens: 30 },
      ],
      style,
    });
    expect(text.split("\n")).toEqual([
      'Plan for "What is the default mode?"',
      "gpt-4o-mini · context window 128,000 · numOutput 256 · o200k_base · chat · no model was called",
      "",
      "Retrieved 2 chunks, 1,230 tokens:",
      "  [1]  0.812   1,200 tokens  docs/modes.md",
      "  [2]    -        30 tokens  docs/tree.md",
      "",
    ]);
  });

  it("cuts a long query to 200 characters and says how long it was", () => {
    const query = "é".repeat(250);
    const first = renderPlanHeading({ query, budget, chunks: [], style }).split("\n")[0];
    expect(first).toBe(`Plan for ${JSON.stringify(`${"é".repeat(200)}…`)} (250 characters)`);
  });
});
