import { describe, expect, it } from "vitest";
import { mergeAbortSignals } from "./merge-abort-signals.js";

describe("mergeAbortSignals", () => {
  it("returns the one signal given, skipping undefined", () => {
    const controller = new AbortController();
    expect(mergeAbortSignals(undefined, controller.signal, undefined)).toBe(controller.signal);
  });

  it("aborts when any of several aborts, with that one's reason", () => {
    const first = new AbortController();
    const second = new AbortController();
    const merged = mergeAbortSignals(first.signal, second.signal);
    expect(merged.aborted).toBe(false);
    const reason = new Error("second");
    second.abort(reason);
    expect(merged.aborted).toBe(true);
    expect(merged.reason).toBe(reason);
  });

  it("gives a signal that never aborts for none", () => {
    const merged = mergeAbortSignals(undefined);
    expect(merged).toBeInstanceOf(AbortSignal);
    expect(merged.aborted).toBe(false);
  });
});
