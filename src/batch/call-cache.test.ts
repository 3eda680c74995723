import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TextNode } from "../schema/text-node.js";
import { getResponseSynthesizer } from "../synthesizer/get-response-synthesizer.js";
import { MockLLM } from "../testing/mock-llm.js";
import { callCacheKey, countCachedCalls, withCallCache } from "./call-cache.js";
import { FileCallCache } from "./file-call-cache.js";

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), "ragsynth-cache-"));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const nodes = Array.from({ length: 40 }, (_, index) => ({
  node: new TextNode({ id: `n${index}`, text: `Fact ${index}: the value of item ${index} is ${index * 7}.` }),
  score: 1,
}));

describe("withCallCache", () => {
  it("pays each call once: a rerun with the same cache file replays every call with its usage", async () => {
    const path = join(folder, "calls.jsonl");
    const answer = ({ prompt }: { prompt?: string }) => `summary of ${prompt?.length ?? 0} chars`;
    const first = new MockLLM({ response: answer, contextWindow: 512 });
    const cached = withCallCache({ llm: first, store: await FileCallCache.open(path) });
    const synthesize = (llm: typeof cached) =>
      getResponseSynthesizer({ llm, responseMode: "tree_summarize" }).synthesize({ query: "Sum up", nodes });
    const paid = await synthesize(cached);
    expect(first.calls.length).toBeGreaterThan(3);
    expect(cached.stats).toEqual({ hits: 0, misses: first.calls.length });

    const second = new MockLLM({ response: answer, contextWindow: 512 });
    const replaying = withCallCache({ llm: second, store: await FileCallCache.open(path) });
    const replayed = await synthesize(replaying);
    expect(second.calls).toHaveLength(0);
    expect(replayed.response).toBe(paid.response);
    expect(replayed.usage).toEqual(paid.usage);
    expect(replaying.stats.hits).toBe(first.calls.length);
  });

  it("replays a streamed call as one delta and reports its usage", async () => {
    const path = join(folder, "calls.jsonl");
    const llm = new MockLLM({ response: "streamed answer", streamBy: "word" });
    const cached = withCallCache({ llm, store: await FileCallCache.open(path) });
    const collect = async (iterable: AsyncIterable<string>) => {
      const deltas: string[] = [];
      for await (const delta of iterable) deltas.push(delta);
      return deltas;
    };
    expect(await collect(cached.streamComplete("hello", { maxTokens: 5 }))).toEqual(["streamed ", "answer"]);
    const usage: unknown[] = [];
    const again = withCallCache({ llm, store: await FileCallCache.open(path) });
    expect(
      await collect(again.streamComplete("hello", { maxTokens: 5, onUsage: (u) => usage.push(u) })),
    ).toEqual(["streamed answer"]);
    expect(llm.calls).toHaveLength(1);
    expect(usage).toHaveLength(1);
    // A different maxTokens is a different call.
    await collect(again.streamComplete("hello", { maxTokens: 6 }));
    expect(llm.calls).toHaveLength(2);
  });

  it("sends identical calls in flight at once only once", async () => {
    const llm = new MockLLM({ response: "same", latencyMs: 20 });
    const cached = withCallCache({ llm, store: await FileCallCache.open(join(folder, "c.jsonl")) });
    const answers = await Promise.all([cached.complete("p"), cached.complete("p"), cached.complete("q")]);
    expect(answers.map((answer) => answer.text)).toEqual(["same", "same", "same"]);
    expect(llm.calls).toHaveLength(2);
  });

  it("keys by model, server and answer-changing parameters, never by credentials", async () => {
    const base = { model: "gpt-4o-mini", input: { prompt: "p" } };
    const key = callCacheKey(base);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(callCacheKey({ ...base, baseURL: "http://a/v1" })).not.toBe(key);
    expect(callCacheKey({ ...base, parameters: { temperature: 0 } })).not.toBe(key);
    expect(callCacheKey({ ...base, model: "gpt-4o" })).not.toBe(key);
    expect(callCacheKey({ ...base, parameters: { a: 1, b: 2 } })).toBe(
      callCacheKey({ ...base, parameters: { b: 2, a: 1 } }),
    );
    const path = join(folder, "calls.jsonl");
    const cached = withCallCache({
      llm: new MockLLM({ response: "x" }),
      store: await FileCallCache.open(path),
      baseURL: "http://127.0.0.1:1/v1",
    });
    await cached.complete("secret question");
    const stored = await readFile(path, "utf8");
    expect(stored).not.toContain("secret question");
    expect(stored).not.toMatch(/sk-|apiKey|authorization/i);
  });
});

describe("countCachedCalls", () => {
  it("adds up paid and replayed calls across the cached models, and is undefined without one", async () => {
    const store = await FileCallCache.open(join(folder, "calls.jsonl"));
    const first = withCallCache({ llm: new MockLLM({ response: "a" }), store });
    const second = withCallCache({ llm: new MockLLM({ response: "b", model: "other" }), store });
    await first.complete("one");
    await first.complete("one");
    await second.complete("two");
    expect(countCachedCalls([first, undefined, second])).toEqual({ paid: 2, replayed: 1 });
    expect(countCachedCalls([new MockLLM({ response: "x" }), undefined])).toBeUndefined();
  });
});
