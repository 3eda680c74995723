import { describe, expect, it } from "vitest";
import type { RagsynthEvent } from "./events.js";
import { renderStepListing } from "./step-listing.js";
import { OPTIMIZER_FALLBACK_EVENT } from "./step-listing.test.util.js";

const plain = (text: string) => text;
const style = { bold: plain, dim: plain, red: plain, yellow: plain };
const usage = { llmCalls: 0, promptTokens: 0, completionTokens: 0, retries: 0 };

describe("renderStepListing", () => {
  it("draws a refine chain with tokens, after retrieval and the optimizer", () => {
    const events: RagsynthEvent[] = [
      { type: "retrieve-end", query: "q", nodeCount: 2, tokens: 300, durationMs: 3 },
      {
        type: "postprocess-end",
        name: "SentenceEmbeddingOptimizer",
        nodesBefore: 2,
        nodesAfter: 2,
        tokensBefore: 300,
        tokensAfter: 120,
        durationMs: 4,
      },
      { type: "synthesize-start", mode: "refine", query: "q", nodeCount: 2 },
      { type: "pack", mode: "refine", round: 0, chunkTokens: [70], availableChunkSize: 3800 },
      {
        type: "llm-call-end",
        mode: "refine",
        step: { kind: "answer", index: 0 },
        promptTokens: 100,
        completionTokens: 20,
        latencyMs: 5,
      },
      { type: "pack", mode: "refine", round: 1, chunkTokens: [50], availableChunkSize: 3700 },
      {
        type: "llm-call-end",
        mode: "refine",
        step: { kind: "refine", index: 1 },
        promptTokens: 150,
        completionTokens: 25,
        latencyMs: 6,
      },
      {
        type: "synthesize-end",
        mode: "refine",
        usage: { ...usage, llmCalls: 2, promptTokens: 250, completionTokens: 45 },
        durationMs: 12,
      },
    ];
    const text = renderStepListing(events, style);
    expect(text).toContain("retrieve    2 chunks · 300 tokens");
    expect(text).toContain("SentenceEmbeddingOptimizer: 300 → 120 tokens (−60%) · 2 → 2 chunks");
    expect(text).toMatch(/┌ {2}1\. answer +prompt 100 → completion 20/);
    expect(text).toMatch(/└ {2}2\. refine +prompt 150 → completion 25/);
    expect(text).toContain("step 1: packed into 1 chunk [50] tokens (≤ 3,700 each)");
    expect(text).toContain("total       2 LLM calls · 250 prompt + 45 completion tokens");
  });

  it("draws tree_summarize by level, calls in index order", () => {
    const call = (level: number, index: number, count: number): RagsynthEvent => ({
      type: "llm-call-end",
      mode: "tree_summarize",
      step: { kind: "tree", level, index, count },
      promptTokens: 10 * (index + 1),
      completionTokens: 5,
      latencyMs: 1,
    });
    const events: RagsynthEvent[] = [
      { type: "pack", mode: "tree_summarize", round: 0, chunkTokens: [900, 880], availableChunkSize: 1000 },
      call(0, 1, 2),
      call(0, 0, 2),
      { type: "pack", mode: "tree_summarize", round: 1, chunkTokens: [40], availableChunkSize: 1000 },
      call(1, 0, 1),
    ];
    const lines = renderStepListing(events, style).split("\n");
    const level0 = lines.findIndex((line) => line.includes("level 0"));
    expect(lines[level0]).toContain("packed into 2 chunks [900, 880]");
    expect(lines[level0 + 1]).toMatch(/├─ summary 1\/2 +prompt 10/);
    expect(lines[level0 + 2]).toMatch(/└─ summary 2\/2 +prompt 20/);
    expect(lines[level0 + 3]).toContain("level 1 (root)");
    expect(lines[level0 + 4]).toMatch(/└─ root +prompt 10/);
  });

  it("says so when no model was called", () => {
    expect(
      renderStepListing([{ type: "synthesize-start", mode: "no_text", query: "q", nodeCount: 1 }], style),
    ).toContain("no LLM calls");
  });
});

describe("optimizer fallbacks", () => {
  it("are counted in the listing", () => {
    expect(renderStepListing([OPTIMIZER_FALLBACK_EVENT], style)).toContain(
      "· 2 chunks kept only their best sentence",
    );
  });
});
