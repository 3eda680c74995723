import { describe, expect, it } from "vitest";
import { batchCostUsd, batchEtaMs, defaultRunId, summarizeBatch } from "./batch-summary.js";
import { type BatchProgress, emptyProgress } from "./types.js";

const progress = (more: Partial<BatchProgress>): BatchProgress => ({ ...emptyProgress(10), ...more });

describe("batch summary", () => {
  it("names a run by its results file: the name, then a hash of the absolute path", () => {
    expect(defaultRunId("/runs/answers v2.jsonl")).toMatch(/^answers_v2\.jsonl-[0-9a-f]{8}$/);
    expect(defaultRunId("/a/answers.jsonl")).not.toBe(defaultRunId("/b/answers.jsonl"));
  });

  it("costs tokens per million at the prices given, and nothing without prices", () => {
    const tokens = { promptTokens: 2_000_000, completionTokens: 500_000 };
    expect(batchCostUsd(tokens, { input: 0.15, output: 0.6 })).toBeCloseTo(0.6);
    expect(batchCostUsd(tokens, { input: undefined, output: 0.6 })).toBeCloseTo(0.3);
    expect(batchCostUsd(tokens, { input: undefined, output: undefined })).toBeNull();
  });

  it("estimates the time left from the items this run finished, not the ones it skipped", () => {
    expect(batchEtaMs(progress({ skipped: 4 }))).toBeUndefined();
    // 2 finished in 1 s; 10 - 2 - 4 skipped = 4 left: 2 s.
    expect(batchEtaMs(progress({ done: 1, failed: 1, skipped: 4, elapsedMs: 1000 }))).toBe(2000);
  });

  it("summarizes the counts, the cost and the first twenty failures", () => {
    const results = Array.from({ length: 25 }, (_, index) => ({
      id: `q${index}`,
      ok: false,
      error: { code: "llm_timeout" as const, message: "slow" },
    }));
    const summary = summarizeBatch(
      {
        results: [{ id: "ok", ok: true, value: "a" }, ...results],
        progress: progress({ done: 1, failed: 25, elapsedMs: 1234.6, promptTokens: 1_000_000 }),
      },
      { backend: "embedded", runId: "r", out: "/o.jsonl", prices: { input: 1, output: undefined } },
    );
    expect(summary).toMatchObject({ done: 1, failed: 25, costUsd: 1, elapsedMs: 1235, runId: "r" });
    expect(summary.failures).toHaveLength(20);
    expect(summary.failures[0]).toEqual({ id: "q0", error: { code: "llm_timeout", message: "slow" } });
  });
});
