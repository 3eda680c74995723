import { describe, expect, it } from "vitest";
import { lookupModelLimits, MODEL_CONTEXT_WINDOWS } from "./model-context-windows.js";

const window = (model: string) => lookupModelLimits(model)?.contextWindow;

describe("lookupModelLimits", () => {
  it("knows common OpenAI models, with output limits", () => {
    expect(lookupModelLimits("gpt-4o")).toEqual({
      contextWindow: 128_000,
      maxOutputTokens: 16_384,
      matched: "gpt-4o",
    });
    expect(window("gpt-4o-mini")).toBe(128_000);
    expect(window("gpt-4.1")).toBe(1_047_576);
    expect(window("gpt-3.5-turbo")).toBe(16_385);
    expect(window("gpt-4")).toBe(8192);
    expect(window("gpt-5")).toBe(400_000);
    expect(window("o3-mini")).toBe(200_000);
  });

  it("matches dated snapshots and provider prefixes by the longest name", () => {
    expect(lookupModelLimits("gpt-4o-mini-2024-07-18")?.matched).toBe("gpt-4o-mini");
    expect(lookupModelLimits("gpt-4-0613")?.matched).toBe("gpt-4");
    expect(lookupModelLimits("gpt-4-turbo-2024-04-09")?.contextWindow).toBe(128_000);
    expect(lookupModelLimits("openai/gpt-4.1-mini")?.matched).toBe("gpt-4.1-mini");
    expect(window("GPT-4o")).toBe(128_000);
  });

  it("knows common local models by Ollama tag and Hugging Face name", () => {
    expect(window("llama3.1:8b")).toBe(131_072);
    expect(window("llama3")).toBe(8192);
    expect(window("llama3.2:3b-instruct-q4_K_M")).toBe(131_072);
    expect(window("meta-llama/Llama-3.1-8B-Instruct")).toBe(131_072);
    expect(window("qwen2.5:7b")).toBe(32_768);
    expect(window("Qwen/Qwen2.5-7B-Instruct")).toBe(32_768);
    expect(window("mistral:latest")).toBe(32_768);
    expect(window("gemma2:9b")).toBe(8192);
    expect(window("phi3")).toBe(4096);
    expect(window("phi3:mini-128k")).toBe(131_072);
  });

  it("does not treat a dot or a glued suffix as a boundary", () => {
    expect(lookupModelLimits("llama3.9")).toBeUndefined();
    expect(lookupModelLimits("gpt-4.7")).toBeUndefined();
    expect(lookupModelLimits("o1x")).toBeUndefined();
    expect(lookupModelLimits("my-private-model")).toBeUndefined();
  });

  it("consults the user table first, accepting plain numbers", () => {
    expect(lookupModelLimits("my-model:7b", { "my-model": 6000 })).toEqual({
      contextWindow: 6000,
      matched: "my-model",
    });
    expect(
      lookupModelLimits("gpt-4o", { "gpt-4o": { contextWindow: 1000, maxOutputTokens: 10 } })?.contextWindow,
    ).toBe(1000);
    expect(lookupModelLimits("gpt-4o", { other: 5 })?.contextWindow).toBe(128_000);
  });

  it("has sane values throughout", () => {
    for (const [name, value] of Object.entries(MODEL_CONTEXT_WINDOWS)) {
      const limits = typeof value === "number" ? { contextWindow: value } : value;
      expect(limits.contextWindow, name).toBeGreaterThanOrEqual(4096);
      if (limits.maxOutputTokens !== undefined)
        expect(limits.maxOutputTokens, name).toBeLessThanOrEqual(limits.contextWindow);
    }
  });
});
