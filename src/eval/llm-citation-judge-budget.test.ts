// The judge keeps the budget: whatever the piece's length and the judge's window, no judge prompt plus its
// output reserve is over the window (the piece is cut to fit), and every pair gets a verdict or a reason.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MockLLM } from "../testing/mock-llm.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { llmCitationJudge } from "./llm-citation-judge.js";

const cl100k = resolveTokenizer("cl100k_base");
const WORDS = ["alpha", "数据集", "don't", "🙂", "\n", "supercalifragilistic", "[2]", "Source 3:"];

describe("llmCitationJudge keeps the judge's window", () => {
  it("no judge prompt exceeds contextWindow − numOutput; every pair gets a verdict or a reason", async () => {
    let calls = 0;
    let overlong = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3000, size: "max" }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.integer({ min: 700, max: 3000 }),
        async (pieces, contextWindow) => {
          const judge = new MockLLM({ contextWindow, response: "YES" });
          const pairs = pieces.map((words, index) => ({
            sentence: `Alpha is a dataset number ${index}.`,
            source: words.join(" "),
          }));
          overlong += pairs.filter((pair) => cl100k.count(pair.source) > contextWindow).length;
          const { verdicts, usage } = await llmCitationJudge({ judge }).judgeCitations(pairs, {});
          expect(verdicts).toHaveLength(pairs.length);
          for (const verdict of verdicts)
            expect(verdict.supported === true || verdict.error !== undefined).toBe(true);
          expect(usage.calls).toBe(judge.calls.length);
          for (const call of judge.calls) {
            const maxTokens = call.options.maxTokens ?? 0;
            expect(maxTokens).toBeGreaterThan(0);
            expect(cl100k.count(call.prompt ?? "") + maxTokens).toBeLessThanOrEqual(contextWindow);
            calls++;
          }
        },
      ),
      { numRuns: Number(process.env.RAGSYNTH_PROPERTY_RUNS ?? 40), seed: 20261202 },
    );
    expect(calls).toBeGreaterThan(40);
    // Pieces longer than the whole window were among them: those were cut, not sent whole.
    expect(overlong).toBeGreaterThan(0);
  });
});
