import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PromptHelper } from "../budget/index.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import type { LLMCallOptions } from "../llm/types.js";
import { MockLLM } from "../testing/mock-llm.js";
import { collect, nodesOf, recordEvents } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";
import { createStructuredRefineParser } from "./structured-refine-parser.js";

const LONG = "lorem ipsum dolor sit amet ".repeat(20).trim();

/** LlamaIndex's program double: the answer is the context; whether it satisfies the query comes from a table. */
function tableLLM(table: Record<string, boolean>, options: { streamBy?: "character" | "token" } = {}) {
  return new MockLLM({
    streamBy: options.streamBy ?? "token",
    response: ({ options: call }) => {
      const context = contextOf(call);
      const satisfied = table[context];
      if (satisfied === undefined) throw new Error(`no table entry for ${context}`);
      // An irrelevant chunk's answer is long: stopping after `query_satisfied` must save it.
      return JSON.stringify({ query_satisfied: satisfied, answer: satisfied ? context : LONG });
    },
  });
}

function contextOf(call: LLMCallOptions): string {
  return call.templateVariables?.context_str ?? call.templateVariables?.context_msg ?? "";
}

function filtering(llm: MockLLM, responseMode: "refine" | "compact" = "refine") {
  return getResponseSynthesizer({
    llm,
    responseMode,
    structuredAnswerFiltering: true,
    promptHelper: new PromptHelper({ contextWindow: 3900, numOutput: 256 }),
  });
}

describe("structured answer filtering", () => {
  it("RF-1: is rejected where it cannot work; unlike LlamaIndex, streaming is allowed", () => {
    const llm = new MockLLM({ response: "x" });
    expect(() =>
      getResponseSynthesizer({ llm, responseMode: "tree_summarize", structuredAnswerFiltering: true }),
    ).toThrow(InvalidArgumentError);
    expect(() =>
      getResponseSynthesizer({
        llm,
        structuredAnswerFiltering: true,
        outputSchema: z.object({ a: z.string() }),
      }),
    ).toThrow(/be left out when structuredAnswerFiltering is on/);
    expect(() => filtering(llm).stream({ query: "q", nodes: [] })).not.toThrow();
  });

  it("RF-2: keeps the satisfied answer; an unsatisfied first chunk is never refined against a placeholder", async () => {
    const llm = tableLLM({ input1: false, input2: true, input3: false });
    const result = await filtering(llm).synthesize({
      query: "question",
      nodes: nodesOf("input1", "input2", "input3"),
    });
    expect(result.response).toBe("input2");
    expect(llm.calls.map((call) => [call.options.promptType, contextOf(call.options)])).toEqual([
      ["text_qa", "input1"],
      ["text_qa", "input2"],
      ["refine", "input3"],
    ]);
    expect(llm.calls[2]?.options.templateVariables?.existing_answer).toBe("input2");
    expect(result.usage.llmCalls).toBe(3);
  });

  it("RF-3: all unsatisfied gives the empty response", async () => {
    const llm = tableLLM({ input1: false, input2: false, input3: false });
    const result = await filtering(llm).synthesize({
      query: "question",
      nodes: nodesOf("input1", "input2", "input3"),
    });
    expect(result.response).toBe("Empty Response");
    expect(llm.calls.map((call) => call.options.promptType)).toEqual(["text_qa", "text_qa", "text_qa"]);
  });

  it("refines a satisfied answer with the next satisfied chunk, skipping unsatisfied ones (LlamaIndex [run] case)", async () => {
    const llm = tableLLM({ c1: true, c2: false, c3: true });
    const result = await filtering(llm).synthesize({ query: "q", nodes: nodesOf("c1", "c2", "c3") });
    expect(result.response).toBe("c3");
    expect(llm.calls.map((call) => call.options.templateVariables?.existing_answer)).toEqual([
      undefined,
      "c1",
      "c1",
    ]);
  });

  it("abandons an unsatisfied chunk as soon as query_satisfied arrives, and counts the call", async () => {
    const { events, onEvent } = recordEvents();
    const llm = tableLLM({ input1: false, input2: true });
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "refine",
      structuredAnswerFiltering: true,
      promptHelper: new PromptHelper({ contextWindow: 3900, numOutput: 256 }),
      onEvent,
    });
    await synthesizer.synthesize({ query: "q", nodes: nodesOf("input1", "input2") });
    const ends = events.flatMap((event) => (event.type === "llm-call-end" ? [event] : []));
    expect(ends.map((end) => end.querySatisfied)).toEqual([false, true]);
    // `{"query_satisfied": false` is a handful of tokens; the 100-word answer behind it was never generated.
    expect(ends[0]?.completionTokens).toBeLessThan(10);
    expect(ends[0]?.usage).toBeUndefined();
    expect(llm.inFlight).toBe(0);
    expect(
      llm.calls.every(
        (call) => call.stream && call.options.responseFormat?.name === "StructuredRefineResponse",
      ),
    ).toBe(true);
    // The schema travels as instructions for this model, so the prompt carries it (and the budget counted it).
    expect(llm.prompts[0]).toContain('"query_satisfied"');
  });

  it("streams the final answer's text, not its JSON", async () => {
    const llm = tableLLM({ input1: true, input2: true }, { streamBy: "character" });
    const streaming = filtering(llm).stream({ query: "q", nodes: nodesOf("input1", "input2") });
    const deltas = await collect(streaming.textStream);
    expect(deltas.join("")).toBe("input2");
    expect(deltas.length).toBeGreaterThan(1);
    expect((await streaming.response).response).toBe("input2");
  });

  it("when the final chunk is unsatisfied, the stream gives the earlier answer once", async () => {
    const llm = tableLLM({ input1: true, input2: false });
    const streaming = filtering(llm, "refine").stream({ query: "q", nodes: nodesOf("input1", "input2") });
    expect(await collect(streaming.textStream)).toEqual(["input1"]);
  });

  it("fails with the raw text when the answer is not the structured object (LlamaIndex logs and drops it)", async () => {
    const llm = new MockLLM({ response: "I think so." });
    const error = await filtering(llm)
      .synthesize({ query: "q", nodes: nodesOf("a") })
      .catch((caught: unknown) => caught);
    expect(RagsynthError.isInstance(error, "no_object_generated")).toBe(true);
    expect(error).toMatchObject({ text: "I think so." });
  });
});

describe("createStructuredRefineParser", () => {
  it("skips a code fence, passes on answer text only once the query is satisfied", async () => {
    const seen: string[] = [];
    const parser = await createStructuredRefineParser((delta) => seen.push(delta));
    const text = '```json\n{"answer": "hel\\nlo", "query_satisfied": true}\n```';
    for (const character of text) expect(parser.feed(character)).toBeUndefined();
    expect(seen).toEqual(["hel\nlo"]);
    expect(parser.finish(text)).toEqual({ querySatisfied: true, answer: "hel\nlo" });
  });

  it("stops at query_satisfied false", async () => {
    const parser = await createStructuredRefineParser();
    expect(parser.feed('{"query_satisfied": fal')).toBeUndefined();
    expect(parser.feed("se, ")).toBe("stop");
  });
});
