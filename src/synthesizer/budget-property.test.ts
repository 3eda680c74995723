import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import type { LLMCallOptions } from "../llm/types.js";
import { countPromptTokens } from "../prompt/render-prompt.js";
import { MockLLM, type MockLLMInput } from "../testing/mock-llm.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { nodesOf, recordEvents } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";
import { RESPONSE_MODES } from "./types.js";

/** A few hundred cases in CI; `RAGSYNTH_PROPERTY_RUNS=2000` (or more) for a long run. Fixed seed: reproducible. */
const NUM_RUNS = Number(process.env.RAGSYNTH_PROPERTY_RUNS ?? 300);
const SEED = Number(process.env.RAGSYNTH_PROPERTY_SEED ?? 20261130);
const cl100k = resolveTokenizer("cl100k_base");
// Every mode that calls the model.
const GENERATING_MODES = RESPONSE_MODES.filter((mode) => mode !== "no_text" && mode !== "context_only");
// Words that tokenize very differently: multi-token, non-Latin (CJK), emoji, punctuation, newlines.
const VOCABULARY = [
  "alpha",
  "beta",
  "γάμμα",
  "数据集",
  "日本語のテキスト",
  "don't",
  "x1y2",
  "—",
  "🙂🙂",
  "👍🏽",
  "\n",
  "...",
  "Lorem",
  "{json}",
  "ipsum",
  "supercalifragilisticexpialidocious",
];

const text = (maxWords: number) =>
  fc.array(fc.constantFrom(...VOCABULARY), { maxLength: maxWords }).map((words) => words.join(" "));

/** Every answer uses the call's whole output limit (`" text"` is one cl100k token). */
function fullLengthAnswer(filtering: boolean) {
  return ({ options, callIndex }: MockLLMInput) => {
    const limit = options.maxTokens ?? 0;
    if (!filtering) return Array.from({ length: limit }, () => "text").join(" ");
    const answer = Array.from({ length: Math.max(1, limit - 16) }, () => "text").join(" ");
    return JSON.stringify({ query_satisfied: callIndex % 3 !== 2, answer });
  };
}

const contextOf = (options: LLMCallOptions) =>
  options.templateVariables?.context_str ?? options.templateVariables?.context_msg ?? "";
const squash = (value: string) => value.replace(/\s+/g, "");

describe("budget fuzz: no prompt over the window, in any mode", () => {
  it(
    "prompt + the output limit sent ≤ window; only the allowed overflows; no node lost",
    async () => {
      const outcomes = { answered: 0, overflowBeforeCalls: 0, overflowAtRefine: 0 };
      await fc.assert(
        fc.asyncProperty(
          fc
            .record({
              mode: fc.constantFrom(...GENERATING_MODES),
              filtering: fc.boolean(),
              texts: fc.array(text(120), { maxLength: 8 }),
              query: text(80).map((words) => `Question: ${words}`),
              contextWindow: fc.integer({ min: 96, max: 3000 }),
              outputShare: fc.double({ min: 0.01, max: 0.9, noNaN: true }),
              isChatModel: fc.boolean(),
              systemPrompt: fc.option(text(200), { nil: undefined }),
            })
            .map((input) => ({
              ...input,
              numOutput: Math.max(1, Math.floor(input.contextWindow * input.outputShare)),
            })),
          async ({ mode, filtering, texts, query, contextWindow, numOutput, isChatModel, systemPrompt }) => {
            const structured = filtering && numOutput >= 24 && (mode === "refine" || mode === "compact");
            const llm = new MockLLM({
              contextWindow,
              isChatModel,
              truncateToMaxTokens: true,
              response: fullLengthAnswer(structured),
            });
            const { events, onEvent } = recordEvents();
            const synthesizer = getResponseSynthesizer({
              llm,
              responseMode: mode,
              promptHelper: new PromptHelper({ contextWindow, numOutput }),
              structuredAnswerFiltering: structured,
              onEvent,
              ...(systemPrompt ? { systemPrompt } : {}),
            });
            const outcome = await synthesizer.synthesize({ query, nodes: nodesOf(...texts) }).then(
              () => undefined,
              (error: unknown) => error,
            );

            // Every call: the prompt as sent plus the output limit it asked for fits the window.
            for (const call of llm.calls) {
              const rendered =
                call.prompt !== undefined
                  ? { kind: "completion" as const, text: call.prompt }
                  : { kind: "chat" as const, messages: call.messages ?? [] };
              const { total } = countPromptTokens(rendered, cl100k, {
                llm,
                responseFormat: call.options.responseFormat,
              });
              const limit = call.options.maxTokens ?? Number.NaN;
              expect(limit).toBeGreaterThan(0);
              expect(limit).toBeLessThanOrEqual(numOutput);
              expect(total + limit).toBeLessThanOrEqual(contextWindow);
            }

            // The only failures: an overflow before the first call, or (refine/compact) at the step where the
            // real answer leaves no room. Never tree_not_shrinking.
            if (outcome === undefined) outcomes.answered += 1;
            else if (llm.calls.length === 0) outcomes.overflowBeforeCalls += 1;
            else outcomes.overflowAtRefine += 1;
            if (outcome !== undefined) {
              expect(RagsynthError.isInstance(outcome, "context_overflow"), String(outcome)).toBe(true);
              if (llm.calls.length > 0) {
                expect(mode === "refine" || mode === "compact", String(outcome)).toBe(true);
                expect(outcome).toBeInstanceOf(ContextOverflowError);
                expect((outcome as Error).message).toMatch(/existing answer \(\d+ tokens\)/);
              }
              return;
            }

            // No node lost.
            const all = squash(texts.join(""));
            if (
              mode === "refine" ||
              mode === "compact" ||
              mode === "accumulate" ||
              mode === "compact_accumulate"
            ) {
              expect(squash(llm.calls.map((call) => contextOf(call.options)).join(""))).toBe(all);
            } else if (mode === "tree_summarize") {
              const leaves = events.find((event) => event.type === "pack");
              const count = leaves?.type === "pack" ? leaves.chunkTokens.length : 0;
              const sent = llm.calls.slice(0, Math.max(1, count)).map((call) => contextOf(call.options));
              expect(squash(sent.join(""))).toBe(all);
            } else if (mode === "simple_summarize" && llm.calls[0]) {
              const sent = squash(contextOf(llm.calls[0].options));
              expect(all.startsWith(sent)).toBe(true);
              const pack = events.find((event) => event.type === "pack");
              if (pack?.type === "pack" && pack.truncatedTokens === undefined) expect(sent).toBe(all);
            }
          },
        ),
        { numRuns: NUM_RUNS, seed: SEED },
      );
      // The fuzz must mostly exercise answers, not only refusals.
      expect(outcomes.answered).toBeGreaterThan(NUM_RUNS / 2);
    },
    Math.max(120_000, NUM_RUNS * 100),
  );
});
