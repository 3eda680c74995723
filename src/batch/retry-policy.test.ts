import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { LLMError } from "../errors/llm-error.js";
import { createAbortError } from "../util/abort.js";
import { backoffDelay, isRetryableItemError, retryAfterOf } from "./retry-policy.js";

// A provider's own subclass: its name is its own, but it is an LLMError (isInstance, not error.name, decides).
class GatewayError extends LLMError {
  constructor(retryable: boolean) {
    super({ code: "llm_server_error", message: "gateway", status: 502, retryable, retryAfterMs: 250 });
    this.name = "GatewayError";
  }
}

describe("isRetryableItemError", () => {
  it("retries retryable LLMErrors and exhausted retries, also from a subclass with its own name", () => {
    expect(
      isRetryableItemError(new LLMError({ code: "llm_rate_limit", message: "slow", retryable: true })),
    ).toBe(true);
    expect(isRetryableItemError(new LLMError({ code: "retries_exhausted", message: "gave up" }))).toBe(true);
    expect(isRetryableItemError(new GatewayError(true))).toBe(true);
    expect(isRetryableItemError(new GatewayError(false))).toBe(false);
  });

  it("does not retry ragsynth's own errors or an abort; retries an unknown error", () => {
    const invalid = new InvalidArgumentError({ parameter: "query", value: 1, expected: "be a string" });
    expect(isRetryableItemError(invalid)).toBe(false);
    expect(isRetryableItemError(createAbortError())).toBe(false);
    expect(isRetryableItemError(new Error("ECONNRESET"))).toBe(true);
  });
});

describe("retryAfterOf", () => {
  it("reads the server's delay from an LLMError (or its last attempt), whatever the subclass's name", () => {
    expect(retryAfterOf(new GatewayError(true))).toBe(250);
    const last = new LLMError({
      code: "llm_rate_limit",
      message: "slow",
      retryable: true,
      retryAfterMs: 900,
    });
    expect(
      retryAfterOf(new LLMError({ code: "retries_exhausted", message: "gave up", lastError: last })),
    ).toBe(900);
    expect(retryAfterOf(new Error("x"))).toBeUndefined();
  });
});

describe("backoffDelay", () => {
  it("doubles from the base without jitter or ceiling, as BullMQ's exponential backoff does", () => {
    expect([1, 2, 3, 4].map((attempt) => backoffDelay(attempt, 1000))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffDelay(10, 100)).toBe(51_200);
  });
});
