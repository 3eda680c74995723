import { describe, expect, it } from "vitest";
import { createTextChannel } from "../synthesizer/text-channel.js";
import { mapConcurrent } from "./map-concurrent.js";

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("mapConcurrent", () => {
  it("keeps input order and never runs more than the limit", async () => {
    let running = 0;
    let peak = 0;
    const gates = [0, 1, 2, 3, 4].map(() => deferred<void>());
    const result = mapConcurrent([0, 1, 2, 3, 4], 2, new AbortController().signal, async (item) => {
      running += 1;
      peak = Math.max(peak, running);
      await gates[item]?.promise;
      running -= 1;
      return item * 10;
    });
    for (const index of [4, 3, 2, 1, 0]) gates[index]?.resolve();
    expect(await result).toEqual([0, 10, 20, 30, 40]);
    expect(peak).toBe(2);
  });

  it("aborts the others on the first failure, waits for them, and rethrows that failure", async () => {
    const started: number[] = [];
    const settled: number[] = [];
    const boom = new Error("boom");
    const failing = deferred<void>();
    const result = mapConcurrent(
      [0, 1, 2, 3],
      2,
      new AbortController().signal,
      async (item, _index, signal) => {
        started.push(item);
        try {
          if (item === 0) {
            await failing.promise;
            throw boom;
          }
          await new Promise((_resolve, reject) =>
            signal.addEventListener("abort", () => reject(signal.reason)),
          );
        } finally {
          settled.push(item);
        }
      },
    );
    await tick();
    failing.resolve();
    await expect(result).rejects.toBe(boom);
    expect(started).toEqual([0, 1]);
    expect(settled.sort()).toEqual([0, 1]);
  });

  it("starts nothing once the caller's signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    await expect(
      mapConcurrent([1, 2], 2, controller.signal, async () => {
        calls += 1;
      }),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(calls).toBe(0);
  });
});

describe("createTextChannel", () => {
  it("delivers queued deltas, then the end or the error", async () => {
    const channel = createTextChannel("textStream");
    channel.push("a");
    channel.push("");
    channel.push("b");
    channel.fail(new Error("late"));
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const delta of channel.iterable) seen.push(delta);
      })(),
    ).rejects.toThrow("late");
    expect(seen).toEqual(["a", "b"]);
  });

  it("can be consumed once, with an error that says so", async () => {
    const channel = createTextChannel("textStream");
    channel.close();
    for await (const _ of channel.iterable) {
      // drain
    }
    expect(() => channel.iterable[Symbol.asyncIterator]()).toThrow(/`textStream` to be iterated only once/);
  });

  it("calls onCancel when the consumer stops early, and not after the end", async () => {
    let cancelled = 0;
    const channel = createTextChannel("textStream", () => {
      cancelled += 1;
    });
    channel.push("a");
    channel.push("b");
    for await (const _ of channel.iterable) break;
    expect(cancelled).toBe(1);
    channel.push("c");
    const ended = createTextChannel("textStream", () => {
      cancelled += 1;
    });
    ended.push("a");
    ended.close();
    for await (const _ of ended.iterable) break;
    expect(cancelled).toBe(1);
  });
});
