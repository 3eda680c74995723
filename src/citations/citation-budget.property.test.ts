// The budget fuzz in citation mode: whatever the nodes, window and piece size, no prompt the model sees is over
// the window once the `Source N:` labels and the citation templates are counted.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { TextNode } from "../schema/text-node.js";
import { PACKING_MODES } from "../synthesizer/packing-modes.test.util.js";
import { MockLLM, type MockLLMInput } from "../testing/mock-llm.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { CitationQueryEngine } from "./citation-query-engine.js";

const NUM_RUNS = Number(process.env.RAGSYNTH_PROPERTY_RUNS ?? 60);
const SEED = Number(process.env.RAGSYNTH_PROPERTY_SEED ?? 20261202);
const cl100k = resolveTokenizer("cl100k_base");
const WORDS = [
  "alpha",
  "数据集",
  "日本語のテキスト",
  "don't",
  "🙂🙂",
  "\n",
  "...",
  "supercalifragilisticexpialidocious",
  "Source 3:",
  "[2]",
];
const MODES = PACKING_MODES;

describe("citation mode keeps the budget", () => {
  it("no prompt exceeds contextWindow − numOutput, in every mode that sends context", async () => {
    let checkedCalls = 0;
    let overflows = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 300 }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.constantFrom(...MODES),
        fc.integer({ min: 900, max: 2000 }),
        fc.integer({ min: 24, max: 256 }),
        async (nodes, responseMode, contextWindow, citationChunkSize) => {
          // Each answer uses the call's whole output limit, with a marker in it, as the worst case for refine.
          const llm = new MockLLM({
            contextWindow,
            response: ({ options }: MockLLMInput) =>
              `[1] ${Array.from({ length: Math.max(0, (options.maxTokens ?? 4) - 4) }, () => "text").join(" ")}`,
          });
          const engine = new CitationQueryEngine({
            retriever: {
              retrieve: async () => nodes.map((words) => ({ node: new TextNode({ text: words.join(" ") }) })),
            },
            llm,
            responseMode,
            citationChunkSize,
            citationChunkOverlap: Math.floor(citationChunkSize / 10),
          });
          try {
            await engine.query({ query: "What is alpha?" });
          } catch (error) {
            // A window too small for even the template is reported, never sent.
            if (!ContextOverflowError.isInstance(error)) throw error;
            overflows++;
          }
          for (const call of llm.calls) {
            const maxTokens = call.options.maxTokens ?? 0;
            expect(maxTokens).toBeGreaterThan(0);
            expect(cl100k.count(call.prompt ?? "") + maxTokens).toBeLessThanOrEqual(contextWindow);
            checkedCalls++;
          }
        },
      ),
      { numRuns: NUM_RUNS, seed: SEED },
    );
    // The cases exercised the budget: most ran calls rather than overflowing.
    expect(checkedCalls).toBeGreaterThan(NUM_RUNS);
    expect(overflows).toBeLessThan(NUM_RUNS / 2);
  });
});
