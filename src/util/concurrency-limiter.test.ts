import { describe, expect, it } from "vitest";
import { LLMError } from "../errors/llm-error.js";
import { AdaptiveConcurrencyLimiter, isCongestion, limiterForModel } from "./concurrency-limiter.js";

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const rateLimited = () =>
  new LLMError({ code: "llm_rate_limit", message: "429", status: 429, retryable: true });

/**
 * Runs `calls` tasks through the limiter against a simulated server that accepts `capacity` calls at once:
 * a call over capacity is rejected (reported through `onRetry`, then retried after 0 ms). Each call takes one
 * tick. Returns the rejections and the most calls the server ever held.
 */
async function drive(
  limiter: AdaptiveConcurrencyLimiter,
  calls: number,
  capacity = Number.POSITIVE_INFINITY,
) {
  let atServer = 0;
  let peak = 0;
  let rejected = 0;
  const call = async () => {
    const lease = await limiter.acquire();
    for (let attempt = 1; ; attempt++) {
      if (atServer >= capacity) {
        rejected++;
        await lease.onRetry({ attempt, delayMs: 0, error: rateLimited() });
        continue;
      }
      atServer++;
      peak = Math.max(peak, atServer);
      await tick();
      atServer--;
      lease.release({});
      return;
    }
  };
  await Promise.all(Array.from({ length: calls }, call));
  return { rejected, peak };
}

/**
 * Runs `calls` tasks in lockstep round trips, as against a server whose calls all take the same time: every call
 * in flight finishes together, then the calls the limiter lets start make up the next round trip. Returns how
 * many ran in each round trip.
 */
async function roundTrips(limiter: AdaptiveConcurrencyLimiter, calls: number): Promise<number[]> {
  let running: Array<() => void> = [];
  let done = 0;
  const call = async () => {
    const lease = await limiter.acquire();
    await new Promise<void>((resolve) => running.push(resolve));
    lease.release({});
    done++;
  };
  const all = Promise.all(Array.from({ length: calls }, call));
  const perRoundTrip: number[] = [];
  while (done < calls) {
    // Let every call the limiter admits start before the round trip ends.
    for (let turn = 0; turn < 5; turn++) await tick();
    if (running.length === 0) break;
    perRoundTrip.push(running.length);
    const finishing = running;
    running = [];
    for (const finish of finishing) finish();
  }
  await all;
  return perRoundTrip;
}

describe("AdaptiveConcurrencyLimiter", () => {
  it("starts at `initial`, grows 1.5× per confirmed window (slow start) and never passes the cap", async () => {
    const limiter = new AdaptiveConcurrencyLimiter({ initial: 4, max: 32 });
    expect(limiter.limit).toBe(4);
    const { peak, rejected } = await drive(limiter, 200);
    expect(rejected).toBe(0);
    expect(limiter.limit).toBe(32);
    expect(limiter.stats.peakInFlight).toBe(32);
    expect(peak).toBe(32);
  });

  it("grows 1.5× every round trip in slow start: the calls sent before a step confirm it too", async () => {
    // After a step from 8 to 12, the 12 in flight are 8 sent at the old limit and 4 at the new one; all 12 ran
    // at once, so their successes confirm 12. Counting only the 4 took two round trips per step (nine round
    // trips for 165 calls at 64 where six are enough).
    const trips = await roundTrips(new AdaptiveConcurrencyLimiter({ initial: 8, max: 64 }), 165);
    expect(trips).toEqual([8, 12, 18, 27, 41, 59]);
  });

  it("cuts to what the server held (not a halving) and settles there with a handful of rejections", async () => {
    const limiter = new AdaptiveConcurrencyLimiter({ initial: 8, max: 64 });
    const { peak, rejected } = await drive(limiter, 400, 4);
    expect(peak).toBe(4);
    // The first window of 8 meets 4 rejections; then one probe above 4 per 64 successes, each turned away once.
    expect(rejected).toBeLessThanOrEqual(10);
    expect(limiter.limit).toBe(4);
    const wider = new AdaptiveConcurrencyLimiter({ initial: 8, max: 64 });
    // 8 → 12 → 18 meets a server of 16: two rejections, and the limit lands on 16, where halving would give 9.
    expect((await drive(wider, 400, 16)).rejected).toBeLessThanOrEqual(4);
    expect(wider.limit).toBe(16);
  });

  it("re-queues a plain 429 at once while other calls run (no backoff); honours Retry-After", async () => {
    const limiter = new AdaptiveConcurrencyLimiter({ initial: 3, max: 8 });
    const controller = new AbortController();
    const first = await limiter.acquire();
    const second = await limiter.acquire();
    const third = await limiter.acquire(controller.signal);
    // A backoff of an hour would hang the test: the retry must wait only for a freed slot.
    const notice = { attempt: 1, delayMs: 3_600_000, error: rateLimited() };
    const retried = first.onRetry(notice);
    // Said at once, before any wait: a retry log hears that no backoff is taken.
    expect(notice.delayMs).toBe(0);
    expect(limiter.limit).toBe(2);
    expect(limiter.inFlight).toBe(2);
    second.release({});
    await expect(retried).resolves.toEqual({ paced: true });
    expect(limiter.inFlight).toBe(2);
    // A server that names a delay is obeyed: the retry does not go before it, though a slot is free.
    const told = new LLMError({
      code: "llm_rate_limit",
      message: "429",
      status: 429,
      retryAfterMs: 3_600_000,
    });
    let settled = false;
    const toldNotice = { attempt: 1, delayMs: 3_600_000, error: told };
    const waiting = third.onRetry(toldNotice).finally(() => {
      settled = true;
    });
    expect(toldNotice.delayMs).toBe(3_600_000);
    first.release({});
    await tick();
    expect(limiter.inFlight).toBe(0);
    expect(settled).toBe(false);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
  });

  it("probes above the estimate after holding, and grows multiplicatively while no 429 comes", async () => {
    const limiter = new AdaptiveConcurrencyLimiter({ initial: 8, max: 64 });
    await drive(limiter, 200, 4);
    expect(limiter.limit).toBe(4);
    // The server's capacity grows: after the hold (64 successes) the probes go +1, +2, +4, +8, … up to the cap.
    const { rejected } = await drive(limiter, 600);
    expect(rejected).toBe(0);
    expect(limiter.limit).toBe(64);
  });

  it("gives up the slot while a call waits to retry, and the retry goes before calls not started", async () => {
    const limiter = new AdaptiveConcurrencyLimiter({ initial: 1, max: 1 });
    const first = await limiter.acquire();
    const order: string[] = [];
    const second = limiter.acquire().then((lease) => {
      order.push("second");
      lease.release({});
    });
    const retried = first.onRetry({ attempt: 1, delayMs: 5, error: new Error("dropped") }).then(() => {
      order.push("retry");
      first.release({});
    });
    await Promise.all([second, retried]);
    // The slot went to the waiting call during the backoff, then to the retry.
    expect(order).toEqual(["second", "retry"]);
    expect(limiter.inFlight).toBe(0);
  });

  it("rejects a queued acquire when its signal aborts, and validates its options", async () => {
    const limiter = new AdaptiveConcurrencyLimiter({ initial: 1 });
    const held = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    held.release({});
    expect(limiter.inFlight).toBe(0);
    expect(() => new AdaptiveConcurrencyLimiter({ max: 0 })).toThrow(/max/);
  });

  it("counts 429, 503 and Retry-After as congestion, other errors not; one limiter per model object", () => {
    expect(isCongestion(rateLimited())).toBe(true);
    expect(isCongestion(new LLMError({ code: "llm_server_error", message: "x", status: 503 }))).toBe(true);
    expect(isCongestion(new LLMError({ code: "llm_server_error", message: "x", status: 500 }))).toBe(false);
    expect(isCongestion(new Error("429"))).toBe(false);
    const model = {};
    expect(limiterForModel(model)).toBe(limiterForModel(model));
    expect(limiterForModel(model)).not.toBe(limiterForModel({}));
  });
});
