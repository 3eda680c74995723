import { describe, expect, it } from "vitest";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { MockLLM } from "./mock-llm.js";

async function collect(stream: AsyncIterable<string>): Promise<string[]> {
  const deltas: string[] = [];
  for await (const delta of stream) deltas.push(delta);
  return deltas;
}

/** A sleep that waits for the test to release it, and rejects on abort. */
function manualSleep() {
  const waiting: Array<() => void> = [];
  const sleep = (_ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      waiting.push(resolve);
    });
  const release = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  return { sleep, release, waiting };
}

describe("MockLLM", () => {
  it("answers one string, an array consumed per call, or a function", async () => {
    expect((await new MockLLM({ response: "hi" }).complete("p")).text).toBe("hi");
    const scripted = new MockLLM({ response: ["a", { text: "b", usage: { promptTokens: 7 } }] });
    expect((await scripted.complete("1")).text).toBe("a");
    expect(await scripted.complete("2")).toEqual({ text: "b", usage: { promptTokens: 7 } });
    await expect(scripted.complete("3")).rejects.toThrow(/received call 3 but `response` has only 2 answers/);
    const fn = new MockLLM({ response: async ({ prompt, callIndex }) => `${callIndex}:${prompt}` });
    expect((await fn.complete("x")).text).toBe("0:x");
  });

  it("echoes like LlamaIndex's MockLLM, including the chat rendering", async () => {
    const echo = new MockLLM({ response: "echo" });
    expect((await echo.complete("test")).text).toBe("test");
    expect((await echo.chat([{ role: "user", content: "test" }])).text).toBe("user: test\nassistant: ");
    expect(await collect(echo.streamComplete("test"))).toEqual(["t", "e", "s", "t"]);
    expect(await collect(echo.streamComplete(""))).toEqual([""]);
  });

  it("answers TEXT(N) with maxTokens and reports it as maxOutputTokens", async () => {
    const llm = new MockLLM({ maxTokens: 3, streamBy: "word" });
    expect((await llm.complete("p")).text).toBe("text text text");
    expect(llm.metadata).toMatchObject({
      maxOutputTokens: 3,
      contextWindow: 3900,
      isChatModel: false,
      model: "mock",
    });
    expect(await collect(llm.streamComplete("p"))).toEqual(["text ", "text ", "text"]);
  });

  it("streams by token-sized pieces that join back to the text", async () => {
    const llm = new MockLLM({ response: "Hello, world! It's 2024.", streamBy: "token" });
    const deltas = await collect(llm.streamComplete("p"));
    expect(deltas.join("")).toBe("Hello, world! It's 2024.");
    expect(deltas).toEqual(["Hello", ",", " world", "!", " It", "'s", " ", "202", "4", "."]);
  });

  it("throws a clear not_implemented error when nothing is configured", async () => {
    const error = await new MockLLM().complete("p").catch((caught: unknown) => caught);
    expect(RagsynthError.isInstance(error, "not_implemented")).toBe(true);
    expect((error as Error).message).toMatch(/no `response` is configured/);
  });

  it("records calls with options and times, and reports usage counted with cl100k", async () => {
    let clock = 0;
    const llm = new MockLLM({ response: "two words", _internal: { now: () => clock++ } });
    const usages: unknown[] = [];
    const result = await llm.chat([{ role: "user", content: "hello" }], {
      maxTokens: 5,
      onUsage: (usage) => usages.push(usage),
    });
    // 1 content token + (1 role + 3) per message + 3 reply priming.
    expect(result.usage).toEqual({ promptTokens: 8, completionTokens: 2 });
    expect(usages).toEqual([{ promptTokens: 8, completionTokens: 2 }]);
    expect(llm.calls).toEqual([
      {
        kind: "chat",
        messages: [{ role: "user", content: "hello" }],
        options: expect.objectContaining({ maxTokens: 5 }),
        stream: false,
        startedAt: 0,
        endedAt: 1,
      },
    ]);
    expect(llm.prompts).toEqual(["user: hello"]);
    await expect(new MockLLM({ response: "x", usage: false }).complete("p")).resolves.toEqual({ text: "x" });
  });

  it("cuts answers to maxTokens only when asked", async () => {
    const llm = new MockLLM({ response: "one two three four", truncateToMaxTokens: true });
    expect((await llm.complete("p", { maxTokens: 2 })).text).toBe("one two");
  });

  it("tracks in-flight calls and peak concurrency", async () => {
    const { sleep, release, waiting } = manualSleep();
    const llm = new MockLLM({ response: "ok", latencyMs: 10, _internal: { sleep } });
    const calls = [llm.complete("a"), llm.complete("b"), llm.complete("c")];
    await Promise.resolve();
    expect(waiting).toHaveLength(3);
    expect(llm.inFlight).toBe(3);
    release();
    await Promise.all(calls);
    expect(llm.inFlight).toBe(0);
    expect(llm.peakConcurrency).toBe(3);
  });

  it("rejects with an AbortError when aborted before, during latency and between deltas", async () => {
    const before = new AbortController();
    before.abort();
    await expect(
      new MockLLM({ response: "x" }).complete("p", { signal: before.signal }),
    ).rejects.toMatchObject({ name: "AbortError" });

    const { sleep, waiting } = manualSleep();
    const during = new AbortController();
    const slow = new MockLLM({ response: "x", latencyMs: 1000, _internal: { sleep } });
    const pending = slow.complete("p", { signal: during.signal });
    await Promise.resolve();
    expect(waiting).toHaveLength(1);
    during.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(slow.inFlight).toBe(0);

    const streaming = new AbortController();
    const llm = new MockLLM({ response: "abcdef" });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const delta of llm.streamComplete("p", { signal: streaming.signal })) {
          seen.push(delta);
          if (seen.length === 2) streaming.abort();
        }
      })(),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(seen).toEqual(["a", "b"]);
    expect(llm.inFlight).toBe(0);
    expect(llm.calls[0]?.endedAt).toBeDefined();
  });

  it("ends a stream's call when the consumer breaks early", async () => {
    const llm = new MockLLM({ response: "abc" });
    for await (const delta of llm.streamComplete("p")) if (delta === "a") break;
    expect(llm.inFlight).toBe(0);
    expect(llm.calls[0]).toMatchObject({ stream: true, endedAt: expect.any(Number) });
  });
});
