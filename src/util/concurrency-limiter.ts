import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { LLMError } from "../errors/llm-error.js";
import { createAbortError, sleep } from "./abort.js";

/** What a model call tells its limiter before a retry (the shape of `LLMCallOptions.onRetry`'s event). */
export interface RetryNotice {
  attempt: number;
  delayMs: number;
  error: unknown;
}

/** One call's hold on a {@link ConcurrencyLimiter}. */
export interface LimiterLease {
  /**
   * Pass as the call's `onRetry`: a 429/503 (or any `Retry-After`) counts as congestion, and the slot is given
   * up while the call waits to retry; the promise resolves once the retry may go (backoff over, slot regained).
   */
  onRetry(notice: RetryNotice): Promise<void>;
  /** Frees the slot. A failure that is a 429/503 counts as congestion; a success reports its latency. */
  release(outcome: { error?: unknown }): void;
}

/** Bounds how many model calls run at once; shared by every caller of one model. */
export interface ConcurrencyLimiter {
  /** Waits for a free slot (rejects with an `AbortError` when `signal` aborts first). */
  acquire(signal?: AbortSignal): Promise<LimiterLease>;
  /** The most calls allowed at once right now. */
  readonly limit: number;
  /** The most calls it will ever allow at once. */
  readonly maxLimit: number;
  /** Calls holding a slot now. */
  readonly inFlight: number;
  /** Congestion signals acted on (each halved the limit) and the most calls that ran at once. */
  readonly stats: { congestionEvents: number; peakInFlight: number };
}

/** Options of {@link AdaptiveConcurrencyLimiter}. */
export interface AdaptiveConcurrencyOptions {
  /** Calls allowed at once before any call has returned. @default 8 */
  initial?: number | undefined;
  /** The cap, never exceeded. @default 64 */
  max?: number | undefined;
  /** Test seam: the clock for latencies. */
  _internal?: { now?: () => number } | undefined;
}

/** True for errors that mean "too many requests": 429, 503, or any answer that carried `Retry-After`. */
export function isCongestion(error: unknown): boolean {
  if (!LLMError.isInstance(error)) return false;
  const failure = error as LLMError;
  const last = failure.lastError as LLMError | undefined;
  return (
    failure.status === 429 ||
    failure.status === 503 ||
    failure.retryAfterMs !== undefined ||
    (last !== undefined && isCongestion(last))
  );
}

interface Slot {
  epoch: number;
  /** Calls in flight when this one started: the server accepted at least that many at once. */
  startedWith: number;
  startedAt: number;
}

interface Waiter {
  resolve: (slot: Slot) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

/**
 * An adaptive limit on concurrent calls, in the style of TCP slow start: it starts at `initial`, grows by one per
 * call that succeeds (doubling each round trip) while latency holds (a call slower than twice the fastest seen
 * does not grow it), and halves on congestion (429/503/`Retry-After`), once per window. The number of calls in
 * flight when the rejected call started is remembered as the server's capacity: below it the limit regrows by
 * slow start; above it it probes by one only after `16 × limit` successes. Never above `max`.
 */
export class AdaptiveConcurrencyLimiter implements ConcurrencyLimiter {
  readonly maxLimit: number;
  readonly stats = { congestionEvents: 0, peakInFlight: 0 };
  #window: number;
  #threshold: number;
  #inFlight = 0;
  #epoch = 0;
  #fastest = Number.POSITIVE_INFINITY;
  #sinceProbe = 0;
  readonly #queue: Waiter[] = [];
  readonly #now: () => number;

  constructor({ initial = 8, max = 64, _internal }: AdaptiveConcurrencyOptions = {}) {
    for (const [parameter, value] of [
      ["initial", initial],
      ["max", max],
    ] as const) {
      if (!Number.isInteger(value) || value < 1) {
        throw new InvalidArgumentError({ parameter, value, expected: "be a positive integer" });
      }
    }
    this.maxLimit = max;
    this.#window = Math.min(initial, max);
    this.#threshold = max;
    this.#now = _internal?.now ?? (() => performance.now());
  }

  get limit(): number {
    return Math.max(1, Math.floor(this.#window));
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  async acquire(signal?: AbortSignal): Promise<LimiterLease> {
    let slot = await this.#take(signal, false);
    let done = false;
    return {
      onRetry: async ({ delayMs, error }) => {
        if (isCongestion(error)) this.#congestion(slot);
        this.#free();
        await sleep(delayMs, signal);
        // A retry goes before calls that have not started yet.
        slot = await this.#take(signal, true);
      },
      release: ({ error }) => {
        if (done) return;
        done = true;
        this.#free();
        if (error === undefined) this.#success(this.#now() - slot.startedAt);
        else if (isCongestion(error)) this.#congestion(slot);
      },
    };
  }

  #take(signal: AbortSignal | undefined, front: boolean): Promise<Slot> {
    if (signal?.aborted) return Promise.reject(createAbortError(signal));
    if (this.#queue.length === 0 && this.#inFlight < this.limit) return Promise.resolve(this.#grant());
    return new Promise<Slot>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const index = this.#queue.indexOf(waiter);
          if (index >= 0) this.#queue.splice(index, 1);
          reject(createAbortError(signal));
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      if (front) this.#queue.unshift(waiter);
      else this.#queue.push(waiter);
    });
  }

  #grant(): Slot {
    const slot = { epoch: this.#epoch, startedWith: this.#inFlight, startedAt: this.#now() };
    this.#inFlight += 1;
    this.stats.peakInFlight = Math.max(this.stats.peakInFlight, this.#inFlight);
    return slot;
  }

  #free(): void {
    this.#inFlight -= 1;
    this.#pump();
  }

  #pump(): void {
    while (this.#queue.length > 0 && this.#inFlight < this.limit) {
      const waiter = this.#queue.shift() as Waiter;
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      waiter.resolve(this.#grant());
    }
  }

  #success(latencyMs: number): void {
    this.#fastest = Math.min(this.#fastest, latencyMs);
    // Latency that no longer holds (queueing at the server) is a reason not to grow.
    if (latencyMs > 2 * this.#fastest + 5) return;
    if (this.#window < this.#threshold) {
      this.#window = Math.min(this.#threshold, this.#window + 1);
    } else if (++this.#sinceProbe >= 16 * this.limit) {
      this.#sinceProbe = 0;
      this.#window += 1;
    }
    this.#window = Math.min(this.#window, this.maxLimit);
    this.#pump();
  }

  #congestion(slot: Slot): void {
    // Calls started before the last reduction report the same congestion again: act once per window.
    if (slot.epoch !== this.#epoch) return;
    this.#epoch += 1;
    this.stats.congestionEvents += 1;
    this.#threshold = Math.max(1, Math.min(this.maxLimit, slot.startedWith));
    this.#window = Math.max(1, Math.floor(this.#window / 2));
    this.#sinceProbe = 0;
  }
}

const limiters = new WeakMap<object, ConcurrencyLimiter>();

/**
 * The one adaptive limiter of a model object, created on first use: every synthesizer, postprocessor and CLI
 * mode that calls the same model shares it, so together they never exceed what the server accepts.
 */
export function limiterForModel(model: object): ConcurrencyLimiter {
  let limiter = limiters.get(model);
  if (!limiter) {
    limiter = new AdaptiveConcurrencyLimiter();
    limiters.set(model, limiter);
  }
  return limiter;
}
