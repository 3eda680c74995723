// Every "does not fit" is a ContextOverflowError carrying its numbers: the prompt helper's own checks, the
// packer (repack) when a character cannot be cut, truncate, and every mode that calls the model.
import {
  ContextOverflowError,
  getResponseSynthesizer,
  PromptHelper,
  PromptTemplate,
  RESPONSE_MODES,
  TextNode,
} from "ragsynth";
import { MockLLM } from "ragsynth/testing";
import { describe, expect, it } from "vitest";

const prompt = new PromptTemplate({ template: "Context: {context_str}\nQ: {query_str}" });
const budget = { variables: { query_str: "why" } };
// This template with query "why" is 6 tokens (cl100k_base); "漢" is 2 tokens on its own.
const helper = (contextWindow: number) => new PromptHelper({ contextWindow, numOutput: 5 });

function overflowOf(run: () => unknown): ContextOverflowError {
  try {
    run();
  } catch (error) {
    expect(ContextOverflowError.isInstance(error), String(error)).toBe(true);
    return error as ContextOverflowError;
  }
  throw new Error("expected a ContextOverflowError");
}

function expectNumbers(error: ContextOverflowError, contextWindow: number, overBy: number): void {
  expect(error.code).toBe("context_overflow");
  expect(error.contextWindow).toBe(contextWindow);
  expect(error.numOutput).toBe(5);
  expect(error.overBy).toBe(overBy);
  expect(error.promptTokens + error.numOutput - error.contextWindow).toBe(overBy);
}

describe("every does-not-fit path throws ContextOverflowError with contextWindow and overBy", () => {
  it("getAvailableChunkSize: the prompt alone, and a chunk share too small for its padding", () => {
    expectNumbers(
      overflowOf(() => helper(10).getAvailableChunkSize(prompt, budget)),
      10,
      1, // 6 + 5 − 10
    );
    // 16 − 6 − 5 = 5 tokens of context, but one chunk needs padding 5 + 1 token.
    const share = overflowOf(() => helper(16).getAvailableChunkSize(prompt, budget));
    expect(share.contextWindow).toBe(16);
    expect(share.overBy).toBe(1);
    expect(share.message).toMatch(/leaves a chunk size of 0/);
  });

  it("repack: the prompt alone, and a character bigger than the room beside the prompt", () => {
    expectNumbers(
      overflowOf(() => helper(10).repack(prompt, ["alpha"], budget)),
      10,
      1,
    );
    // 12 − 6 − 5 = 1 token of room with padding 0; "漢" needs 2 and cannot be cut (it used to be a bare
    // RagsynthError without numbers).
    const character = overflowOf(() => helper(12).repack(prompt, ["漢字"], { ...budget, padding: 0 }));
    expectNumbers(character, 12, 1);
    expect(character.message).toMatch(/The character "漢" \(2 tokens on its own\) with its prompt/);
  });

  it("truncate: the prompt alone, and a share too small for a character (it used to blame chunkSize)", () => {
    expectNumbers(
      overflowOf(() => helper(10).truncate(prompt, ["alpha", "beta"], budget)),
      10,
      1,
    );
    // 13 − 6 − 5 = 2 tokens shared by two chunks: 1 each, and "漢" needs 2.
    const character = overflowOf(() =>
      helper(13).truncate(prompt, ["alpha beta", "漢字"], { ...budget, padding: 0 }),
    );
    expectNumbers(character, 13, 1);
    expect(character.message).not.toMatch(/chunkSize/);
  });

  it.each(RESPONSE_MODES.filter((mode) => mode !== "no_text" && mode !== "context_only"))(
    "%s: a query over the window fails before any model call",
    async (responseMode) => {
      const llm = new MockLLM({ response: "ok" });
      const synthesizer = getResponseSynthesizer({
        llm,
        responseMode,
        promptHelper: new PromptHelper({ contextWindow: 64, numOutput: 5 }),
      });
      const query = "why ".repeat(80);
      const error = await synthesizer
        .synthesize({ query, nodes: [{ node: new TextNode({ text: "Paris is in France." }) }] })
        .catch((caught: unknown) => caught);
      expect(ContextOverflowError.isInstance(error), String(error)).toBe(true);
      const overflow = error as ContextOverflowError;
      expect(overflow.contextWindow).toBe(64);
      expect(overflow.overBy).toBeGreaterThan(0);
      expect(llm.calls).toHaveLength(0);
    },
  );
});
