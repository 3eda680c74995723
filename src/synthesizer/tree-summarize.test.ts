import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PromptHelper } from "../budget/index.js";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import type { RagsynthEventHandler } from "../events/events.js";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { MockLLM, type MockLLMInput } from "../testing/mock-llm.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { collect, MOCK_TOKENIZER, nodesOf, ptypeLLM, recordEvents, words } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

const SUM0 = new PromptTemplate({ template: "{context_str}{query_str}", promptType: "summary" });
const CHUNKS = ["Text chunk 1", "Text chunk 2", "Text chunk 3", "Text chunk 4"];

/** Summarizes `Text chunk 1\n\nText chunk 2` as `1+2`, and `1+2\n\n3+4` as `1+2+3+4`. */
function shrinkingAnswer({ options }: MockLLMInput): string {
  const context = options.templateVariables?.context_str ?? "";
  return context
    .split("\n\n")
    .map((part) => part.replace("Text chunk ", ""))
    .join("+");
}

// Chunk size 6 MOCK tokens: 13 − 2 ("What is?") − 0 − 5. Two 3-token chunks per piece.
const helper = () => new PromptHelper({ contextWindow: 13, numOutput: 0, tokenizer: MOCK_TOKENIZER });

function tree(llm: MockLLM, extra: { concurrency?: number; onEvent?: RagsynthEventHandler } = {}) {
  return getResponseSynthesizer({
    llm,
    responseMode: "tree_summarize",
    promptHelper: helper(),
    summaryTemplate: SUM0,
    ...extra,
  });
}

const immediate = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("tree_summarize", () => {
  it("TR-1/TR-3/TR-4: leaves, then one final call over the packed summaries", async () => {
    const llm = new MockLLM({ response: shrinkingAnswer });
    const result = await tree(llm).synthesize({ query: "What is?", nodes: nodesOf(...CHUNKS) });
    expect(llm.prompts).toEqual([
      "Text chunk 1\n\nText chunk 2What is?",
      "Text chunk 3\n\nText chunk 4What is?",
      "1+2\n\n3+4What is?",
    ]);
    expect(result.response).toBe("1+2+3+4");
    expect(result.sourceNodes.map(({ node }) => node.text)).toEqual(CHUNKS);
  });

  it("TR-2: with outputSchema the final call returns the object and intermediate summaries are JSON", async () => {
    const llm = new MockLLM({ response: '{"hello":"Test Chunk 5"}', structuredOutput: "json_schema" });
    const schema = z.object({ hello: z.string() });
    const base = helper();
    const schemaTokens = base.countPrompt(SUM0, {
      llm,
      responseFormat: { name: "Output", schema: z.toJSONSchema(schema) },
    });
    const promptHelper = new PromptHelper({
      contextWindow: 13 + schemaTokens.parts.schema,
      numOutput: 0,
      tokenizer: MOCK_TOKENIZER,
    });
    const result = await getResponseSynthesizer({
      llm,
      responseMode: "tree_summarize",
      promptHelper,
      summaryTemplate: SUM0,
      outputSchema: schema,
    }).synthesize({
      query: "What is?",
      nodes: nodesOf(...[1, 2, 3, 4].map((k) => `{"hello":"Test Chunk ${k}"}`)),
    });
    expect(result.object).toEqual({ hello: "Test Chunk 5" });
    expect(llm.calls).toHaveLength(3);
    expect(llm.calls[2]?.options.templateVariables?.context_str).toBe(
      '{"hello":"Test Chunk 5"}\n\n{"hello":"Test Chunk 5"}',
    );
  });

  it("raises tree_not_shrinking instead of recursing when summaries echo their input", async () => {
    const llm = ptypeLLM();
    const error = await tree(llm)
      .synthesize({ query: "What is?", nodes: nodesOf(...CHUNKS) })
      .catch((caught: unknown) => caught);
    expect(RagsynthError.isInstance(error, "tree_not_shrinking")).toBe(true);
    expect((error as Error).message).toMatch(/level 1 packed 2 summaries into 2 chunks/);
    expect(llm.calls).toHaveLength(2);
  });

  it("bounds concurrency, keeps order, and streams only the final call", async () => {
    const llm = new MockLLM({ response: shrinkingAnswer, latencyMs: 1, _internal: { sleep: immediate } });
    const eight = Array.from({ length: 8 }, (_, index) => `Text chunk ${index + 1}`);
    // Four leaves of two chunks, then one final call.
    const synthesizer = tree(llm, { concurrency: 2 });
    const streaming = synthesizer.stream({ query: "What is?", nodes: nodesOf(...eight) });
    const text = (await collect(streaming.textStream)).join("");
    expect(text).toBe("1+2+3+4+5+6+7+8");
    expect(llm.peakConcurrency).toBe(2);
    expect(llm.calls.map((call) => call.stream)).toEqual([false, false, false, false, true]);
    expect(llm.calls.at(-1)?.options.templateVariables?.context_str).toBe("1+2\n\n3+4\n\n5+6\n\n7+8");
  });

  it("labels each call with its level and index", async () => {
    const { events, onEvent } = recordEvents();
    await tree(new MockLLM({ response: shrinkingAnswer }), { onEvent }).synthesize({
      query: "What is?",
      nodes: nodesOf(...CHUNKS),
    });
    expect(events.flatMap((event) => (event.type === "llm-call-start" ? [event.step] : []))).toEqual([
      { kind: "tree", level: 0, index: 0, count: 2 },
      { kind: "tree", level: 0, index: 1, count: 2 },
      { kind: "tree", level: 1, index: 0, count: 1 },
    ]);
    expect(events.filter((event) => event.type === "pack").map((event) => event.chunkTokens)).toEqual([
      [6, 6],
      [2],
    ]);
  });

  it("reports each packed chunk's exact token count (cl100k), equal to the count of the context sent", async () => {
    const { events, onEvent } = recordEvents();
    const llm = new MockLLM({
      response: (input) => `Summary ${input.callIndex}: ${"short words ".repeat(3)}`,
    });
    const texts = Array.from({ length: 12 }, (_, index) =>
      `Chunk ${index}: ${"The 教育 reactor coolant loop was 😀 isolated, twice. ".repeat(9)}`.trim(),
    );
    await getResponseSynthesizer({
      llm,
      responseMode: "tree_summarize",
      promptHelper: new PromptHelper({ contextWindow: 600, numOutput: 50 }),
      onEvent,
    }).synthesize({ query: "What happened?", nodes: nodesOf(...texts) });
    const tokenizer = resolveTokenizer("cl100k_base");
    const packs = events.flatMap((event) => (event.type === "pack" ? [event] : []));
    const contexts = llm.calls.map((call) => call.options.templateVariables?.context_str ?? "");
    expect(packs.length).toBeGreaterThan(1);
    expect(packs.flatMap((pack) => pack.chunkTokens)).toEqual(contexts.map((text) => tokenizer.count(text)));
    for (const pack of packs) {
      for (const tokens of pack.chunkTokens) expect(tokens).toBeLessThanOrEqual(pack.availableChunkSize);
    }
  });

  it("one failing call aborts the others and rejects with that error; no new call starts", async () => {
    const boom = new Error("leaf 2 failed");
    const llm = new MockLLM({
      latencyMs: 1,
      _internal: {
        sleep: (_ms, signal) =>
          new Promise((resolve, reject) => {
            signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
            setImmediate(resolve);
          }),
      },
      response: (input) => {
        if (input.callIndex === 1) throw boom;
        return new Promise((_resolve, reject) => {
          input.options.signal?.addEventListener("abort", () => reject(input.options.signal?.reason), {
            once: true,
          });
        });
      },
    });
    const eight = Array.from({ length: 8 }, (_, index) => `Text chunk ${index + 1}`);
    const error = await tree(llm)
      .synthesize({ query: "What is?", nodes: nodesOf(...eight) })
      .catch((caught: unknown) => caught);
    expect(error).toBe(boom);
    expect(llm.calls).toHaveLength(4);
    expect(llm.inFlight).toBe(0);
  });

  it("aborting cancels the calls in flight and starts no new one", async () => {
    const controller = new AbortController();
    const llm = new MockLLM({
      response: (input) => {
        if (input.callIndex === 1) controller.abort();
        return new Promise((_resolve, reject) => {
          const signal = input.options.signal;
          if (signal?.aborted) reject(signal.reason);
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
        });
      },
    });
    const eight = Array.from({ length: 8 }, (_, index) => `Text chunk ${index + 1}`);
    await expect(
      tree(llm, { concurrency: 2 }).synthesize({
        query: "What is?",
        nodes: nodesOf(...eight),
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(llm.calls).toHaveLength(2);
    expect(llm.inFlight).toBe(0);
  });
});

describe("tree_summarize: the tree always converges", () => {
  const cl100k = resolveTokenizer("cl100k_base");
  /** A model whose every answer uses its whole output limit. */
  const fullLength = () =>
    new MockLLM({
      response: ({ options }) => Array.from({ length: options.maxTokens ?? 0 }, () => "text").join(" "),
    });

  it("caps intermediate summaries so two share a chunk (window 8192, numOutput 2048, 2.7k-token system prompt)", async () => {
    const llm = fullLength();
    const { events, onEvent } = recordEvents();
    const systemPrompt = `You are careful. ${Array.from({ length: 2700 }, () => "ok").join(" ")}`;
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "tree_summarize",
      promptHelper: new PromptHelper({ contextWindow: 8192, numOutput: 2048 }),
      systemPrompt,
      onEvent,
    });
    const nodes = nodesOf(...Array.from({ length: 30 }, (_, index) => words(400, `n${index}w`)));
    const result = await synthesizer.synthesize({ query: "Summarize.", nodes });
    expect(result.response.startsWith("text")).toBe(true);
    const pack = events.find((event) => event.type === "pack");
    const available = pack?.type === "pack" ? pack.availableChunkSize : 0;
    const cap = Math.min(2048, Math.floor((available - cl100k.count("\n\n")) / 2));
    expect(cap).toBeLessThan(2048);
    const limits = llm.calls.map((call) => call.options.maxTokens);
    expect(limits.slice(0, -1).every((limit) => limit === cap)).toBe(true);
    expect(limits.at(-1)).toBe(2048);
    // Each round at most halves (rounded up) the chunks of the one before.
    const counts = events.flatMap((event) => (event.type === "pack" ? [event.chunkTokens.length] : []));
    for (let round = 1; round < counts.length; round += 1)
      expect(counts[round]).toBeLessThanOrEqual(Math.ceil((counts[round - 1] ?? 0) / 2));
  });

  it("refuses before the first call when two summaries of the useful minimum cannot share a chunk", async () => {
    const llm = fullLength();
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "tree_summarize",
      promptHelper: new PromptHelper({ contextWindow: 260, numOutput: 100 }),
      systemPrompt: Array.from({ length: 100 }, () => "ok").join(" "),
    });
    const error = await synthesizer
      .synthesize({ query: "Summarize.", nodes: nodesOf(words(200, "a"), words(200, "b")) })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect((error as Error).message).toMatch(/useful minimum of 16/);
    expect(llm.calls).toHaveLength(0);
  });
});
