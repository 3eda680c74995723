import { describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { MockLLM } from "../testing/mock-llm.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { nodesOf } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";
import { RESPONSE_MODES, type ResponseMode } from "./types.js";

// LlamaIndex's measured setup (spec §7): 20 nodes of 300 tokens, window 1024, numOutput 256, 50-token answers.
// LlamaIndex Python (cl100k): refine 20, compact 18, tree_summarize 11, simple_summarize 1, accumulate 20,
// compact_accumulate 10, generation 1, no_text 0, context_only 0.
const cl100k = resolveTokenizer("cl100k_base");
const LABELS = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
];
const texts = Array.from({ length: 20 }, (_, index) => {
  const label = `${LABELS[index % 12]}`;
  return label + " alpha".repeat(300 - cl100k.count(label));
});

const EXPECTED: Record<"short" | "long", Record<ResponseMode, number>> = {
  short: {
    refine: 20,
    compact: 10,
    tree_summarize: 10,
    simple_summarize: 1,
    generation: 1,
    accumulate: 20,
    compact_accumulate: 9,
    no_text: 0,
    context_only: 0,
  },
  long: {
    refine: 20,
    compact: 15,
    tree_summarize: 16,
    simple_summarize: 1,
    generation: 1,
    accumulate: 20,
    compact_accumulate: 13,
    no_text: 0,
    context_only: 0,
  },
};

const QUERIES = { short: "What is alpha?", long: `Why ${"question ".repeat(248).trim()}?` };

describe("call counts on LlamaIndex's benchmark setup", () => {
  it("builds 300-token nodes and a ~250-token query", () => {
    expect(texts.every((text) => cl100k.count(text) === 300)).toBe(true);
    expect(cl100k.count(QUERIES.long)).toBe(250);
  });

  for (const length of ["short", "long"] as const) {
    for (const mode of RESPONSE_MODES) {
      it(`${mode}, ${length} query: ${EXPECTED[length][mode]} calls, every prompt within the window`, async () => {
        const llm = new MockLLM({ maxTokens: 50 });
        const promptHelper = new PromptHelper({ contextWindow: 1024, numOutput: 256 });
        const result = await getResponseSynthesizer({ llm, promptHelper, responseMode: mode }).synthesize({
          query: QUERIES[length],
          nodes: nodesOf(...texts),
        });
        expect(llm.calls).toHaveLength(EXPECTED[length][mode]);
        expect(result.usage.llmCalls).toBe(EXPECTED[length][mode]);
        for (const prompt of llm.prompts) expect(cl100k.count(prompt) + 256).toBeLessThanOrEqual(1024);
        // Every word of every node reached the model (modes that read all context do; simple_summarize truncates).
        if (
          mode === "compact" ||
          mode === "refine" ||
          mode === "accumulate" ||
          mode === "compact_accumulate"
        ) {
          const sent = llm.calls.map(
            (call) =>
              call.options.templateVariables?.context_str ?? call.options.templateVariables?.context_msg,
          );
          expect(sent.join("\n\n").split(/\s+/).length).toBe(texts.join(" ").split(/\s+/).length);
        }
      });
    }
  }
});
