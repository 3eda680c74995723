import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { LLMMetadata } from "../llm/types.js";
import { OpenAILike } from "../openai/openai-like.js";
import { fromAiSdk } from "./from-ai-sdk.js";

// One rule (llm/resolve-model-metadata.ts) for both providers: for the same model and options, OpenAILike and
// fromAiSdk say the same about its limits, tokenizer and images. Nothing is sent: metadata needs no server.
const functions = {
  generateText: async () => ({ text: "", usage: {} }),
  streamText: () => ({ textStream: (async function* () {})(), usage: Promise.resolve({}) }),
};
const SHARED = [
  "model",
  "contextWindow",
  "maxOutputTokens",
  "tokenizer",
  "imageInput",
  "imageTokens",
  "assumptions",
] as const;
const shared = (metadata: LLMMetadata) =>
  Object.fromEntries(SHARED.map((key) => [key, metadata[key]])) as Partial<LLMMetadata>;

type Options = {
  contextWindow?: number;
  maxOutputTokens?: number;
  modelLimits?: Record<string, { contextWindow: number; maxOutputTokens?: number }>;
  imageInput?: "pixels" | "captions";
};

/** The same model through both providers: OpenAI's own server and the AI SDK's openai provider, or neither. */
function both(model: string, options: Options, servedByOpenAI: boolean) {
  const openAILike = new OpenAILike({
    model,
    apiKey: "sk-test-not-sent-anywhere",
    baseURL: servedByOpenAI ? "https://api.openai.com/v1" : "http://127.0.0.1:8000/v1",
    ...options,
  });
  const aiSdk = fromAiSdk(
    { modelId: model, provider: servedByOpenAI ? "openai.chat" : "anthropic.messages" },
    { ...functions, ...options },
  );
  return { openAILike: shared(openAILike.metadata), aiSdk: shared(aiSdk.metadata) };
}

describe("OpenAILike and fromAiSdk resolve the same metadata", () => {
  const cases: [string, string, Options, boolean][] = [
    ["a known OpenAI model on OpenAI", "gpt-4o-mini", {}, true],
    ["a known OpenAI model elsewhere", "gpt-4o-mini", {}, false],
    ["a model outside the table", "my-finetune", {}, false],
    ["a table model off OpenAI, images by pixels", "claude-3-5-sonnet", { imageInput: "pixels" }, false],
    [
      "a user table",
      "house-model",
      { modelLimits: { "house-model": { contextWindow: 32_000, maxOutputTokens: 4000 } } },
      false,
    ],
    // fromAiSdk kept an output limit larger than the window; both now cap it at the window.
    ["an output limit over the window", "my-finetune", { contextWindow: 1000, maxOutputTokens: 5000 }, false],
    ["OpenAI vision with images", "gpt-4o", { imageInput: "pixels" }, true],
  ];
  for (const [name, model, options, servedByOpenAI] of cases) {
    it(name, () => {
      const { openAILike, aiSdk } = both(model, options, servedByOpenAI);
      expect(aiSdk).toEqual(openAILike);
    });
  }

  it("states the same assumptions off OpenAI (tokenizer and image rule), and none on it", () => {
    const off = both("my-finetune", { imageInput: "pixels" }, false);
    expect(off.aiSdk.assumptions).toEqual([
      "contextWindow 3900 assumed for unknown model my-finetune; pass contextWindow",
      "tokenizer cl100k_base approximates my-finetune's own tokenizer",
      "image tokens of my-finetune counted by OpenAI's rule; pass imageTokens if the server counts otherwise",
    ]);
    expect(both("gpt-4o", { imageInput: "pixels" }, true).aiSdk.assumptions).toBeUndefined();
    expect(both("gpt-4o", {}, true).aiSdk.maxOutputTokens).toBe(
      both("gpt-4o", {}, true).openAILike.maxOutputTokens,
    );
  });

  it("rejects the same bad limits with the same typed error", () => {
    for (const contextWindow of [0, -5, 2.5]) {
      expect(() => fromAiSdk({ modelId: "m" }, { ...functions, contextWindow })).toThrow(
        InvalidArgumentError,
      );
      expect(
        () => new OpenAILike({ model: "m", baseURL: "http://127.0.0.1:8000/v1", contextWindow }),
      ).toThrow(InvalidArgumentError);
    }
    expect(() => fromAiSdk({ modelId: "m" }, { ...functions, maxOutputTokens: 0 })).toThrow(
      /Expected `maxOutputTokens` to be a positive integer/,
    );
  });
});
