import { describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { ExtractiveLLM } from "../extractive/extractive-llm.js";
import { TextNode } from "../schema/text-node.js";
import { getResponseSynthesizer } from "../synthesizer/get-response-synthesizer.js";
import { RESPONSE_MODES } from "../synthesizer/types.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { planModes, textOfTokens } from "./plan-modes.js";

const sentence = (topic: string, index: number) =>
  `The ${topic} part number ${index} explains how ragsynth packs retrieved text into prompts for the model.`;
const nodes = ["budget", "modes", "optimizer", "streaming", "cli", "index"].map((topic, index) => ({
  node: new TextNode({ text: Array.from({ length: 12 }, (_, line) => sentence(topic, line)).join(" ") }),
  score: 1 - index / 10,
}));
const query = "How does ragsynth pack retrieved text into prompts?";

describe("textOfTokens", () => {
  it("builds text of exactly the asked number of tokens", () => {
    const tokenizer = resolveTokenizer("cl100k_base");
    for (const tokens of [0, 1, 7, 256])
      expect(tokenizer.count(textOfTokens(tokenizer, tokens))).toBe(tokens);
  });
});

describe("planModes", () => {
  // A small window, so that packing needs several calls and the refine steps feel the answer's size.
  const llm = new ExtractiveLLM({ contextWindow: 900, maxOutputTokens: 128 });
  const promptHelper = PromptHelper.fromLLMMetadata(llm.metadata, { numOutput: 128 });

  it("predicts what the real synthesizers then do: exact counts match, ranges contain", async () => {
    const plans = await planModes({
      modes: RESPONSE_MODES,
      nodes,
      query,
      metadata: llm.metadata,
      promptHelper,
      prices: { input: 1, output: 2 },
      signal: new AbortController().signal,
    });
    expect(plans.map((plan) => plan.mode)).toEqual([...RESPONSE_MODES]);
    for (const plan of plans) {
      const synthesizer = getResponseSynthesizer({
        responseMode: plan.mode,
        llm,
        promptHelper,
        concurrency: 1,
      });
      const { usage } = await synthesizer.synthesize({ query, nodes });
      if (plan.exact) expect(usage.llmCalls, plan.mode).toBe(plan.llmCalls.min);
      expect(usage.llmCalls, plan.mode).toBeGreaterThanOrEqual(plan.llmCalls.min);
      expect(usage.llmCalls, plan.mode).toBeLessThanOrEqual(plan.llmCalls.max);
      expect(usage.promptTokens, plan.mode).toBeGreaterThanOrEqual(plan.promptTokens.min);
      expect(usage.promptTokens, plan.mode).toBeLessThanOrEqual(plan.promptTokens.max);
    }
    const byMode = Object.fromEntries(plans.map((plan) => [plan.mode, plan]));
    expect(byMode.no_text?.llmCalls).toEqual({ min: 0, max: 0 });
    expect(byMode.generation?.llmCalls).toEqual({ min: 1, max: 1 });
    expect(byMode.accumulate?.exact).toBe(true);
    // The refine step with a numOutput-long answer leaves less room, so compact needs more calls.
    expect(byMode.compact?.llmCalls.max).toBeGreaterThan(byMode.compact?.llmCalls.min ?? 0);
    const accumulate = byMode.accumulate;
    expect(accumulate?.costUsd?.max).toBeCloseTo(
      ((accumulate?.promptTokens.max ?? 0) * 1 + (accumulate?.completionTokens.max ?? 0) * 2) / 1e6,
    );
  });

  it("reports a mode that cannot fit instead of failing the plan", async () => {
    const tiny = new PromptHelper({ contextWindow: 120, numOutput: 64 });
    const [plan] = await planModes({
      modes: ["refine"],
      nodes,
      query,
      metadata: llm.metadata,
      promptHelper: tiny,
      prices: { input: undefined, output: undefined },
      signal: new AbortController().signal,
    });
    expect(plan?.scenarios[1].error?.code).toBe("context_overflow");
  });

  it("lists generation under would-fail when the query alone is over the window", async () => {
    const longQuery = Array.from({ length: 1000 }, (_, index) => `word${index}`).join(" ");
    const [plan] = await planModes({
      modes: ["generation"],
      nodes,
      query: longQuery,
      metadata: llm.metadata,
      promptHelper: new PromptHelper({ contextWindow: 512, numOutput: 64 }),
      prices: { input: undefined, output: undefined },
      signal: new AbortController().signal,
    });
    expect(plan?.scenarios.map((scenario) => scenario.error?.code)).toEqual([
      "context_overflow",
      "context_overflow",
    ]);
    expect(plan?.llmCalls).toEqual({ min: 0, max: 0 });
  });
});
