import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { sleep } from "../util/abort.js";
import { sleepOrWake } from "./sleep-or-wake.js";

describe("sleepOrWake", () => {
  it("leaves no abort listener behind when the wake wins, unlike racing sleep()", async () => {
    const controller = new AbortController();
    for (let turn = 0; turn < 20; turn++) await sleepOrWake(60_000, Promise.resolve(), controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);

    // The pattern it replaces: each lost race keeps its sleep's listener (Node warns past 10).
    const naive = new AbortController();
    for (let turn = 0; turn < 3; turn++) await Promise.race([sleep(60_000, naive.signal), Promise.resolve()]);
    expect(getEventListeners(naive.signal, "abort")).toHaveLength(3);
    naive.abort();
  });

  it("resolves after the time when nothing wakes it, and rejects with an AbortError on abort", async () => {
    await expect(sleepOrWake(5, new Promise(() => undefined))).resolves.toBeUndefined();
    const controller = new AbortController();
    const waiting = sleepOrWake(60_000, new Promise(() => undefined), controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
