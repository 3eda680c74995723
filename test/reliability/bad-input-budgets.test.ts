import { ContextOverflowError, getResponseSynthesizer, PromptHelper, type RagsynthEvent } from "ragsynth";
import {
  countPromptTokens,
  DEFAULT_REFINE_PROMPT_TMPL,
  DEFAULT_TEXT_QA_PROMPT_TMPL,
  DEFAULT_TREE_SUMMARIZE_TMPL,
  resolveTokenizer,
} from "ragsynth/extend";
import { MockLLM } from "ragsynth/testing";
import { describe, expect, it } from "vitest";
import {
  CONTEXT_MODES,
  collectUnhandledRejections,
  expectTiling,
  expectTyped,
  extractSlot,
  LLM_MODES,
  mockLLM,
  rejectionOf,
  textNode,
  thrownBy,
} from "./helpers.js";

// The bad-input catalogue, part 2: budgets (windows, numOutput, overlap, oversized nodes).

collectUnhandledRejections();

const node = textNode;
const mock = mockLLM;
const cl100k = resolveTokenizer("cl100k_base");

describe("bad-input catalogue: budgets", () => {
  const huge = `START ${"lorem ipsum dolor sit amet consectetur ".repeat(400)}END`;
  const window = 400;
  const numOutput = 32;

  it.each(CONTEXT_MODES)(
    "%s: one node larger than the whole window is split (or, in simple_summarize, truncated and reported), never over budget",
    async (mode) => {
      const llm = mock({ response: "a" });
      const events: RagsynthEvent[] = [];
      const promptHelper = new PromptHelper({ contextWindow: window, numOutput });
      expect(cl100k.count(huge)).toBeGreaterThan(window * 3);
      await getResponseSynthesizer({
        llm,
        promptHelper,
        responseMode: mode,
        onEvent: (event) => events.push(event),
      }).synthesize({
        query: "q",
        nodes: [node(huge)],
      });
      for (const prompt of llm.prompts) {
        expect(
          countPromptTokens({ kind: "completion", text: prompt }, cl100k).total + numOutput,
        ).toBeLessThanOrEqual(window);
      }
      const contexts = llm.prompts.map(
        (prompt) =>
          extractSlot(prompt, DEFAULT_TEXT_QA_PROMPT_TMPL, "context_str", { query_str: "q" }) ??
          extractSlot(prompt, DEFAULT_TREE_SUMMARIZE_TMPL, "context_str", { query_str: "q" }) ??
          extractSlot(prompt, DEFAULT_REFINE_PROMPT_TMPL, "context_msg", {
            query_str: "q",
            existing_answer: "a",
          }),
      );
      expect(contexts.every((context) => context !== undefined)).toBe(true);
      if (mode === "simple_summarize") {
        expect(llm.calls).toHaveLength(1);
        expect(huge.startsWith(contexts[0] as string)).toBe(true);
        const pack = events.find((event) => event.type === "pack");
        expect(pack?.type === "pack" && (pack.truncatedTokens ?? 0) > 0).toBe(true);
      } else {
        const leaves = (contexts as string[]).filter(
          (context) => context !== "a\n\na" && !/^a(\n\na)*$/.test(context),
        );
        expect(leaves.length).toBeGreaterThan(3);
        expectTiling(huge, leaves);
      }
    },
  );

  it.each(LLM_MODES.filter((mode) => mode !== "generation"))(
    "%s: contextWindow smaller than the prompt is a context_overflow error with every number and the fix, before any call",
    async (mode) => {
      const llm = mock();
      const promptHelper = new PromptHelper({ contextWindow: 20, numOutput: 5 });
      const error = await rejectionOf(
        getResponseSynthesizer({ llm, promptHelper, responseMode: mode }).synthesize({
          query: "q",
          nodes: [node("hello")],
        }),
      );
      expectTyped(
        error,
        "context_overflow",
        /needs \d+ tokens/,
        /contextWindow is 20/,
        /Raise contextWindow, lower numOutput/,
      );
      expect(error).toBeInstanceOf(ContextOverflowError);
      expect((error as ContextOverflowError).overBy).toBeGreaterThan(0);
      expect(llm.calls).toHaveLength(0);
    },
  );

  it("numOutput ≥ contextWindow: invalid_argument from the PromptHelper constructor, before any call", () => {
    for (const numOutput of [100, 250]) {
      expectTyped(
        thrownBy(() => new PromptHelper({ contextWindow: 100, numOutput })),
        "invalid_argument",
        /Expected `numOutput` to be less than contextWindow \(100\)/,
        /lower numOutput or raise contextWindow/,
      );
    }
  });

  it("a model whose maxOutputTokens fills its window gets a quarter of it reserved, and still answers", async () => {
    const llm = new MockLLM({ response: "a", contextWindow: 100, maxTokens: 100 });
    const response = await getResponseSynthesizer({ llm }).synthesize({ query: "q", nodes: [node("c")] });
    expect(response.response).toBe("a");
    expect(llm.calls.map((call) => call.options.maxTokens)).toEqual([25]);
  });

  it.each([1.5, -0.1, Number.NaN])(
    "chunkOverlapRatio %s: invalid_argument saying it must be between 0 and 1",
    (ratio) => {
      const error = thrownBy(() => new PromptHelper({ chunkOverlapRatio: ratio }));
      expectTyped(
        error,
        "invalid_argument",
        /Expected `chunkOverlapRatio` to be a number between 0 and 1, got `/,
      );
    },
  );

  it.each([
    ["contextWindow", { contextWindow: 0 }],
    ["contextWindow", { contextWindow: 1.5 }],
    ["numOutput", { numOutput: -1 }],
  ] as const)("%s out of range: invalid_argument naming it", (parameter, options) => {
    expectTyped(
      thrownBy(() => new PromptHelper(options)),
      "invalid_argument",
      new RegExp(`Expected \`${parameter}\` to be`),
    );
  });
});
