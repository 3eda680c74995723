import { describe, expect, it } from "vitest";
import { eventLoopTurns } from "./event-loop-turns.js";

describe("eventLoopTurns", () => {
  it("is due only after its interval, and a turn lets a pending abort through as the signal's error", async () => {
    const controller = new AbortController();
    const turns = eventLoopTurns(20, controller.signal);
    expect(turns.due()).toBe(false);
    const until = performance.now() + 30;
    while (performance.now() < until) {
      // a synchronous loop's work
    }
    expect(turns.due()).toBe(true);
    await expect(turns.take()).resolves.toBeUndefined();
    expect(turns.due()).toBe(false);
    // What a SIGINT handler does: it runs only once the loop gets a turn, and the turn ends with its abort.
    setImmediate(() => controller.abort());
    await expect(turns.take()).rejects.toMatchObject({ name: "AbortError" });
  });
});
