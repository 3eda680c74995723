import { describe, expect, it, vi } from "vitest";
import { LLMError } from "../errors/llm-error.js";
import { createCallSignal, sleep } from "./abort.js";
import { computeRetryDelay, parseRetryAfter, retryWithBackoff } from "./retry.js";

const headers = (values: Record<string, string>) => new Headers(values);
const retryable = (extra: Partial<ConstructorParameters<typeof LLMError>[0]> = {}) =>
  new LLMError({
    code: "llm_server_error",
    message: "boom",
    status: 500,
    url: "http://x/v1",
    retryable: true,
    ...extra,
  });

/** A sleep that records the requested delays and returns at once. */
function recordingSleep() {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
}

describe("parseRetryAfter", () => {
  it("reads retry-after-ms, seconds and HTTP dates", () => {
    expect(parseRetryAfter(headers({ "retry-after-ms": "250" }))).toBe(250);
    expect(parseRetryAfter(headers({ "retry-after": "2" }))).toBe(2000);
    expect(parseRetryAfter(headers({ "retry-after": "1.5" }))).toBe(1500);
    const now = Date.parse("Wed, 21 Oct 2015 07:28:00 GMT");
    expect(parseRetryAfter(headers({ "retry-after": "Wed, 21 Oct 2015 07:28:03 GMT" }), now)).toBe(3000);
    expect(parseRetryAfter(headers({ "retry-after": "Wed, 21 Oct 2015 07:27:00 GMT" }), now)).toBe(0);
  });

  it("prefers retry-after-ms and ignores garbage", () => {
    expect(parseRetryAfter(headers({ "retry-after-ms": "10", "retry-after": "5" }))).toBe(10);
    expect(parseRetryAfter(headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(parseRetryAfter(headers({}))).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe("computeRetryDelay", () => {
  it("uses full jitter under an exponential ceiling capped at maxDelayMs", () => {
    const top = () => 0.999999;
    expect(computeRetryDelay({ attempt: 1, random: top })).toBe(499);
    expect(computeRetryDelay({ attempt: 3, random: top })).toBe(1999);
    expect(computeRetryDelay({ attempt: 20, random: top })).toBe(19_999);
    expect(
      computeRetryDelay({ attempt: 3, random: () => 0.5, retry: { initialDelayMs: 100, backoffFactor: 3 } }),
    ).toBe(450);
    expect(computeRetryDelay({ attempt: 2, random: () => 0 })).toBe(0);
  });

  it("uses the server's delay when it sent one", () => {
    expect(computeRetryDelay({ attempt: 5, retryAfterMs: 1234, random: () => 0.1 })).toBe(1234);
  });
});

describe("retryWithBackoff", () => {
  it("retries retryable errors and reports the retry count", async () => {
    const { delays, sleep: fakeSleep } = recordingSleep();
    let calls = 0;
    const result = await retryWithBackoff({
      run: async (attempt) => {
        calls++;
        if (attempt < 3) throw retryable({ retryAfterMs: attempt * 100 });
        return "ok";
      },
      _internal: { sleep: fakeSleep },
    });
    expect(result).toEqual({ value: "ok", retries: 2 });
    expect(calls).toBe(3);
    expect(delays).toEqual([100, 200]);
  });

  it("skips its backoff when beforeRetry paced the retry itself, and waits for the hook first", async () => {
    const { delays, sleep: fakeSleep } = recordingSleep();
    const order: string[] = [];
    const result = await retryWithBackoff({
      run: async (attempt) => {
        if (attempt < 4) throw retryable({ retryAfterMs: attempt * 100 });
        return "ok";
      },
      // A limiter re-queues the first retry (paced), not the second; a hook answering nothing keeps the backoff.
      beforeRetry: async ({ attempt }) => {
        order.push(`hook ${attempt}`);
        return attempt === 1 ? { paced: true } : attempt === 2 ? { paced: false } : undefined;
      },
      _internal: { sleep: fakeSleep },
    });
    expect(result).toEqual({ value: "ok", retries: 3 });
    expect(delays).toEqual([200, 300]);
    expect(order).toEqual(["hook 1", "hook 2", "hook 3"]);
  });

  it("lets the hook finish before an onRetry that throws ends the call", async () => {
    let hookDone = false;
    const error = await retryWithBackoff({
      run: async () => {
        throw retryable();
      },
      beforeRetry: async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        hookDone = true;
        return { paced: true };
      },
      onRetry: () => {
        throw new Error("logger failed");
      },
    }).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe("logger failed");
    expect(hookDone).toBe(true);
  });

  it("tells onRetry the wait that follows: 0 when the hook re-sends the call without a backoff", async () => {
    const { delays, sleep: fakeSleep } = recordingSleep();
    const heard: number[] = [];
    await retryWithBackoff({
      run: async (attempt) => {
        if (attempt < 3) throw retryable({ retryAfterMs: attempt * 100 });
        return "ok";
      },
      // Like the concurrency limiter: the first retry is re-queued (no backoff), the second waits the backoff.
      beforeRetry: async (event) => {
        if (event.attempt === 1) {
          event.delayMs = 0;
          return { paced: true };
        }
        return undefined;
      },
      onRetry: (event) => heard.push(event.delayMs),
      _internal: { sleep: fakeSleep },
    });
    expect(heard).toEqual([0, 200]);
    expect(delays).toEqual([200]);
  });

  it("wraps the last failure in retries_exhausted after maxRetries", async () => {
    const { delays, sleep: fakeSleep } = recordingSleep();
    const events: number[] = [];
    const error = await retryWithBackoff({
      run: async () => {
        throw retryable();
      },
      maxRetries: 2,
      onRetry: (event) => events.push(event.attempt),
      _internal: { sleep: fakeSleep, random: () => 0.5 },
    }).catch((caught: unknown) => caught);
    expect(LLMError.isInstance(error, "retries_exhausted")).toBe(true);
    const exhausted = error as LLMError;
    expect(exhausted.attempts).toBe(3);
    expect(exhausted.lastError?.code).toBe("llm_server_error");
    expect(exhausted.lastError?.attempts).toBe(3);
    expect(exhausted.cause).toBe(exhausted.lastError);
    expect(exhausted.message).toBe("Gave up after 3 attempts. Last error: boom");
    expect(delays).toEqual([250, 500]);
    expect(events).toEqual([1, 2]);
  });

  it("throws non-retryable errors at once, with the attempt count", async () => {
    let calls = 0;
    const error = (await retryWithBackoff({
      run: async (attempt) => {
        calls++;
        if (attempt === 1) throw retryable();
        throw new LLMError({ code: "llm_auth", message: "no" });
      },
      _internal: { sleep: async () => {} },
    }).catch((caught: unknown) => caught as LLMError)) as LLMError;
    expect(calls).toBe(2);
    expect(error.code).toBe("llm_auth");
    expect(error.attempts).toBe(2);
  });

  it("passes other errors through and does not wrap a single attempt", async () => {
    const plain = new TypeError("bug");
    await expect(retryWithBackoff({ run: async () => Promise.reject(plain) })).rejects.toBe(plain);
    const error = (await retryWithBackoff({
      run: async () => Promise.reject(retryable()),
      maxRetries: 0,
    }).catch((caught: unknown) => caught)) as LLMError;
    expect(error.code).toBe("llm_server_error");
    expect(error.attempts).toBe(1);
  });

  it("fails at once when the server asks to wait longer than maxRetryAfterMs", async () => {
    let calls = 0;
    const error = (await retryWithBackoff({
      run: async () => {
        calls++;
        throw retryable({ code: "llm_rate_limit", status: 429, retryAfterMs: 120_000 });
      },
      retry: { maxRetryAfterMs: 60_000 },
      _internal: { sleep: async () => expect.fail("must not wait") },
    }).catch((caught: unknown) => caught as LLMError)) as LLMError;
    expect(calls).toBe(1);
    expect(error.code).toBe("llm_rate_limit");
    expect(error.retryAfterMs).toBe(120_000);
  });

  it("cancels a backoff wait as soon as the signal aborts (its timer cleared, no time passed)", async () => {
    vi.useFakeTimers();
    try {
      const controller = new AbortController();
      let calls = 0;
      const outcome = retryWithBackoff({
        run: async () => {
          calls += 1;
          throw retryable({ retryAfterMs: 10_000 });
        },
        signal: controller.signal,
      }).then(
        () => "resolved",
        (error: unknown) => error,
      );
      // The first attempt fails and the 10 s backoff starts; the fake clock never moves.
      await vi.advanceTimersByTimeAsync(0);
      expect(vi.getTimerCount()).toBe(1);
      controller.abort();
      expect(await outcome).toMatchObject({ name: "AbortError" });
      expect(calls).toBe(1);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("does not start when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    await expect(
      retryWithBackoff({ run: async () => ++calls, signal: controller.signal }),
    ).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(calls).toBe(0);
  });
});

describe("sleep and createCallSignal", () => {
  it("sleep resolves after the delay and rejects with AbortError on abort", async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
    const controller = new AbortController();
    const pending = sleep(10_000, controller.signal);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  it("maps a caller abort to AbortError and a deadline to llm_timeout", async () => {
    const controller = new AbortController();
    const aborted = createCallSignal({ signal: controller.signal, timeoutMs: 10_000 });
    controller.abort();
    expect(aborted.signal?.aborted).toBe(true);
    expect(aborted.fail(new Error("x"), "http://u")).toMatchObject({ name: "AbortError" });

    const timed = createCallSignal({ timeoutMs: 5 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(timed.signal?.aborted).toBe(true);
    const error = timed.fail(new Error("x"), "http://u/v1/chat/completions") as LLMError;
    expect(error.code).toBe("llm_timeout");
    expect(error.message).toContain("within timeoutMs 5");

    const plain = createCallSignal({});
    expect(plain.signal).toBeUndefined();
    const passthrough = new Error("kept");
    expect(plain.fail(passthrough, "http://u")).toBe(passthrough);
  });
});
