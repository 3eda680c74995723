import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { countPromptTokens } from "../prompt/render-prompt.js";
import { MockLLM, type MockLLMInput } from "../testing/mock-llm.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { nodesOf } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

const NUM_RUNS = Number(process.env.RAGSYNTH_PROPERTY_RUNS ?? 200);
const cl100k = resolveTokenizer("cl100k_base");
const GENERATING_MODES = [
  "refine",
  "compact",
  "tree_summarize",
  "simple_summarize",
  "generation",
  "accumulate",
  "compact_accumulate",
] as const;
// Words that tokenize very differently: multi-token, non-Latin, emoji, punctuation, newlines.
const VOCABULARY = [
  "alpha",
  "beta",
  "γάμμα",
  "数据集",
  "don't",
  "x1y2",
  "—",
  "🙂🙂",
  "\n",
  "...",
  "Lorem",
  "{json}",
  "ipsum",
];
const EXPECTED_FAILURES = ["context_overflow", "tree_not_shrinking"];

const text = (maxWords: number) =>
  fc.array(fc.constantFrom(...VOCABULARY), { maxLength: maxWords }).map((words) => words.join(" "));

/** Answers of 1..numOutput tokens (`text` is one token), or the structured form when filtering. */
function answerer(seed: number, numOutput: number, filtering: boolean) {
  return ({ callIndex }: MockLLMInput) => {
    const length = 1 + ((seed * 7919 + callIndex * 104729) % (filtering ? numOutput - 16 : numOutput));
    const answer = Array.from({ length }, () => "text").join(" ");
    if (!filtering) return answer;
    return JSON.stringify({ query_satisfied: (seed + callIndex) % 3 !== 0, answer });
  };
}

describe("budget property: every prompt fits", () => {
  it("count(received prompt) + numOutput ≤ contextWindow in every generating mode", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          mode: fc.constantFrom(...GENERATING_MODES),
          filtering: fc.boolean(),
          texts: fc.array(text(60), { minLength: 1, maxLength: 6 }),
          query: text(40).map((words) => `Question: ${words}`),
          numOutput: fc.integer({ min: 24, max: 120 }),
          extra: fc.integer({ min: 0, max: 500 }),
          isChatModel: fc.boolean(),
          systemPrompt: fc.option(
            fc.constantFrom("Be concise.", "You answer questions about the documents given."),
            {
              nil: undefined,
            },
          ),
          seed: fc.nat(1000),
        }),
        async ({ mode, filtering, texts, query, numOutput, extra, isChatModel, systemPrompt, seed }) => {
          const structured = filtering && (mode === "refine" || mode === "compact");
          const contextWindow = 2 * numOutput + cl100k.count(query) + 150 + extra;
          const llm = new MockLLM({
            contextWindow,
            isChatModel,
            response: answerer(seed, numOutput, structured),
          });
          const synthesizer = getResponseSynthesizer({
            llm,
            responseMode: mode,
            promptHelper: new PromptHelper({ contextWindow, numOutput }),
            structuredAnswerFiltering: structured,
            ...(systemPrompt ? { systemPrompt } : {}),
          });
          const outcome = await synthesizer.synthesize({ query, nodes: nodesOf(...texts) }).then(
            () => undefined,
            (error: unknown) => error,
          );
          if (outcome !== undefined) {
            expect(RagsynthError.isInstance(outcome) && EXPECTED_FAILURES.includes(outcome.code)).toBe(true);
          }
          for (const call of llm.calls) {
            const rendered =
              call.prompt !== undefined
                ? { kind: "completion" as const, text: call.prompt }
                : { kind: "chat" as const, messages: call.messages ?? [] };
            const { total } = countPromptTokens(rendered, cl100k, {
              llm,
              responseFormat: call.options.responseFormat,
            });
            expect(total + numOutput).toBeLessThanOrEqual(contextWindow);
            expect(call.options.maxTokens).toBe(numOutput);
          }
          if (
            outcome === undefined &&
            mode !== "simple_summarize" &&
            mode !== "generation" &&
            mode !== "tree_summarize"
          ) {
            // Nothing lost: the contexts sent, in order, hold exactly the node texts.
            const sent = llm.calls.map(
              (call) =>
                call.options.templateVariables?.context_str ??
                call.options.templateVariables?.context_msg ??
                "",
            );
            expect(sent.join("").replace(/\s+/g, "")).toBe(texts.join("").replace(/\s+/g, ""));
          }
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});
