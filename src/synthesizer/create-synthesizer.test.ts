import { describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { MockLLM } from "../testing/mock-llm.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { createSynthesizer } from "./create-synthesizer.js";
import { collect, nodesOf, recordEvents, words } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

const cl100k = resolveTokenizer("cl100k_base");

/** A compact synthesizer that needs three calls for these nodes. */
function threeSteps(llm: MockLLM, onEvent?: ReturnType<typeof recordEvents>["onEvent"]) {
  const synthesizer = getResponseSynthesizer({
    llm,
    responseMode: "compact",
    promptHelper: new PromptHelper({ contextWindow: 170, numOutput: 20 }),
    ...(onEvent ? { onEvent } : {}),
  });
  return { synthesizer, nodes: nodesOf(words(40, "a"), words(40, "b"), words(40, "c")) };
}

/** Waits until `signal` aborts, then rejects with its reason, like a real request. */
function hang(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal?.aborted) reject(signal.reason);
    signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

describe("custom synthesizers", () => {
  it("reuse the budget, calls, events and response plumbing", async () => {
    const llm = new MockLLM({ response: "echo" });
    const { events, onEvent } = recordEvents();
    const quoted = createSynthesizer({
      mode: "quoted",
      llm,
      onEvent,
      prompts: { quote_template: new PromptTemplate({ template: "Quote for {query_str}:\n{context_str}" }) },
      run: async (ctx) => {
        const template = ctx.prompts.quote_template as PromptTemplate;
        const available = ctx.promptHelper.getAvailableChunkSize(
          template,
          ctx.budget({ variables: { query_str: ctx.query } }),
        );
        const contextText = ctx.promptHelper.createPacker(ctx.chunks).next(available) ?? "";
        const { text } = await ctx.stream(
          template,
          { query_str: ctx.query, context_str: contextText },
          { step: { kind: "custom", name: "quote" }, context: contextText },
        );
        // Text not written yet is sent when the run ends.
        return `${text} [${ctx.nodes.length} sources]`;
      },
    });
    const streaming = quoted.stream({ query: "q", nodes: nodesOf("one", "two") });
    const text = (await collect(streaming.textStream)).join("");
    expect(text).toBe("Quote for q:\none\n\ntwo [2 sources]");
    const response = await streaming.response;
    expect(response.response).toBe(text);
    expect(response.usage.llmCalls).toBe(1);
    expect(llm.calls[0]?.options.maxTokens).toBe(256);
    expect(events.map((event) => event.type)).toEqual([
      "synthesize-start",
      "llm-call-start",
      "llm-call-end",
      "synthesize-end",
    ]);
    expect(events[1]).toMatchObject({
      mode: "quoted",
      step: { kind: "custom", name: "quote" },
      contextTokens: 3,
    });
  });

  it("are refused a model call when built without one", async () => {
    const synthesizer = createSynthesizer({
      mode: "needs_llm",
      run: async (ctx) =>
        (await ctx.call(new PromptTemplate({ template: "x" }), {}, { step: { kind: "generation" } })).text,
    });
    await expect(synthesizer.synthesize({ query: "q", nodes: nodesOf("a") })).rejects.toThrow(
      /`llm` to be given/,
    );
  });
});

describe("streaming", () => {
  it("returns at once; awaiting only `response` drains the stream", async () => {
    const llm = new MockLLM({ response: "done" });
    const { synthesizer, nodes } = threeSteps(llm);
    const streaming = synthesizer.stream({ query: "q", nodes });
    expect(llm.calls).toHaveLength(0);
    expect((await streaming.response).response).toBe("done");
  });

  it("can be consumed once", async () => {
    const { synthesizer, nodes } = threeSteps(new MockLLM({ response: "done" }));
    const streaming = synthesizer.stream({ query: "q", nodes });
    await collect(streaming.textStream);
    expect(() => streaming.textStream[Symbol.asyncIterator]()).toThrow(InvalidArgumentError);
  });

  it("an early break aborts the remaining work and releases the call in flight", async () => {
    const llm = new MockLLM({ response: ({ options }) => hang(options.signal) });
    const { events, onEvent } = recordEvents();
    const synthesizer = getResponseSynthesizer({ llm, responseMode: "accumulate", concurrency: 1, onEvent });
    const streaming = synthesizer.stream({ query: "q", nodes: nodesOf("a", "b", "c") });
    for await (const delta of streaming.textStream) {
      expect(delta).toBe("Response 1: ");
      break;
    }
    await expect(streaming.response).rejects.toMatchObject({ name: "AbortError" });
    expect(llm.calls).toHaveLength(1);
    expect(llm.inFlight).toBe(0);
    expect(events.at(-1)).toMatchObject({ type: "synthesize-end", error: { name: "AbortError" } });
  });

  it("fires synthesize-end only when the stream has really finished", async () => {
    const { events, onEvent } = recordEvents();
    const { synthesizer, nodes } = threeSteps(new MockLLM({ response: "done" }), onEvent);
    const streaming = synthesizer.stream({ query: "q", nodes });
    const iterator = streaming.textStream[Symbol.asyncIterator]();
    await iterator.next();
    const endedEarly = events.some((event) => event.type === "synthesize-end");
    await streaming.response;
    expect(endedEarly).toBe(false);
    expect(events.at(-1)?.type).toBe("synthesize-end");
  });
});

describe("abort", () => {
  it("stops between steps and rejects with an AbortError", async () => {
    const controller = new AbortController();
    const llm = new MockLLM({
      response: ({ callIndex, options }) => {
        if (callIndex === 1) {
          controller.abort();
          return hang(options.signal);
        }
        return "partial";
      },
    });
    const { events, onEvent } = recordEvents();
    const { synthesizer, nodes } = threeSteps(llm, onEvent);
    await expect(
      synthesizer.synthesize({ query: "q", nodes, signal: controller.signal }),
    ).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(llm.calls).toHaveLength(2);
    expect(llm.calls.every((call) => call.options.signal !== undefined)).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "synthesize-end", usage: { llmCalls: 2 } });
  });

  it("makes no call when the signal is already aborted, streamed or not", async () => {
    const llm = new MockLLM({ response: "x" });
    const { synthesizer, nodes } = threeSteps(llm);
    const signal = AbortSignal.abort();
    await expect(synthesizer.synthesize({ query: "q", nodes, signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    const streaming = synthesizer.stream({ query: "q", nodes, signal });
    await expect(collect(streaming.textStream)).rejects.toMatchObject({ name: "AbortError" });
    expect(llm.calls).toHaveLength(0);
  });
});

describe("events and usage", () => {
  it("report every pack and call, with usage as the server reported it", async () => {
    const { events, onEvent } = recordEvents();
    const llm = new MockLLM({
      response: "done",
      usage: ({ callIndex }) => ({ promptTokens: 100 + callIndex, completionTokens: 1, retries: callIndex }),
    });
    const { synthesizer, nodes } = threeSteps(llm, onEvent);
    const result = await synthesizer.synthesize({ query: "q", nodes });
    expect(events.map((event) => event.type)).toEqual([
      "synthesize-start",
      ...Array.from({ length: llm.calls.length }, () => ["pack", "llm-call-start", "llm-call-end"]).flat(),
      "synthesize-end",
    ]);
    expect(llm.calls.length).toBe(3);
    expect(result.usage).toEqual({ llmCalls: 3, promptTokens: 303, completionTokens: 3, retries: 3 });
    expect(events.at(-1)).toMatchObject({ type: "synthesize-end", usage: result.usage });
    const end = events.find((event) => event.type === "llm-call-end");
    expect(end).toMatchObject({
      step: { kind: "answer", index: 0 },
      promptTokens: 100,
      latencyMs: expect.any(Number),
    });
  });

  it("count tokens with the budget's tokenizer when the server reports none", async () => {
    const llm = new MockLLM({ response: "two words", usage: false, isChatModel: true });
    const { synthesizer, nodes } = threeSteps(llm);
    const result = await synthesizer.synthesize({ query: "q", nodes });
    const expected = llm.calls.reduce(
      (sum, call) =>
        sum +
        (call.messages ?? []).reduce(
          (total, message) => total + cl100k.count(message.content) + cl100k.count(message.role) + 3,
          3,
        ),
      0,
    );
    expect(result.usage).toMatchObject({
      llmCalls: llm.calls.length,
      promptTokens: expected,
      completionTokens: 2 * llm.calls.length,
    });
  });
});
