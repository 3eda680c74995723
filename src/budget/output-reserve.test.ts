import { describe, expect, it } from "vitest";
import type { LLMMetadata } from "../llm/types.js";
import { TextNode } from "../schema/text-node.js";
import { getResponseSynthesizer } from "../synthesizer/get-response-synthesizer.js";
import { MockLLM } from "../testing/mock-llm.js";
import { PromptHelper } from "./prompt-helper.js";

/** A MockLLM that describes itself as the given model. */
function modelLike(metadata: Partial<LLMMetadata>): MockLLM {
  const llm = new MockLLM({ response: "ok", contextWindow: metadata.contextWindow ?? 128_000 });
  (llm as { metadata: LLMMetadata }).metadata = { ...llm.metadata, ...metadata };
  return llm;
}

/** The output the library reserves: the maxTokens its call is sent with. */
async function libraryReserve(llm: MockLLM, numOutput?: number): Promise<number | undefined> {
  const synthesizer = getResponseSynthesizer({
    llm,
    ...(numOutput === undefined
      ? {}
      : { promptHelper: PromptHelper.fromLLMMetadata(llm.metadata, { numOutput }) }),
  });
  await synthesizer.synthesize({
    query: "q",
    nodes: [{ node: new TextNode({ text: "Paris is in France." }) }],
  });
  return llm.calls[0]?.options.maxTokens;
}

describe("one output-reserve policy for the library and the CLI", () => {
  it.each([
    ["gpt-4o-mini (16,384 output tokens)", { model: "gpt-4o-mini", maxOutputTokens: 16_384 }, undefined, 256],
    ["a model stating no limit", { model: "local" }, undefined, 256],
    ["a model that writes at most 100 tokens", { model: "small", maxOutputTokens: 100 }, undefined, 100],
    ["--num-output 1000 on gpt-4o-mini", { model: "gpt-4o-mini", maxOutputTokens: 16_384 }, 1000, 1000],
    ["--num-output 1000 on a 100-token model", { model: "small", maxOutputTokens: 100 }, 1000, 100],
  ] as const)(
    "%s reserves the same output in fromLLMMetadata and the synthesizer, and sends it as maxTokens",
    async (_, metadata, numOutput, expected) => {
      // The CLI builds its budget with fromLLMMetadata (cli/pipeline.ts openRetrieval).
      const helper = PromptHelper.fromLLMMetadata({ ...modelLike(metadata).metadata }, { numOutput });
      expect(helper.numOutput).toBe(expected);
      expect(await libraryReserve(modelLike(metadata), numOutput)).toBe(expected);
    },
  );
});
