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
   * Pass as the call's `onRetry`. The slot is given up while the call waits to retry; the promise resolves once
   * the retry may go, with `paced: true` (the limiter timed it, the caller adds no backoff). A 429/503 (or any
   * `Retry-After`) counts as congestion: the limit is cut, and unless the server asked for a delay the call
   * goes back to the front of the queue at once, to be sent as soon as a running call frees a slot; it then sets
   * `notice.delayMs` to 0 (synchronously), so a retry log does not report a backoff that is not taken.
   */
  onRetry(notice: RetryNotice): Promise<{ paced: boolean }>;
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
  /** Congestion episodes (each cut the limit at least once) and the most calls that ran at once. */
  readonly stats: { congestionEvents: number; peakInFlight: number };
}

/** Options of {@link AdaptiveConcurrencyLimiter}. */
export interface AdaptiveConcurrencyOptions {
  /** Calls allowed at once before any call has returned. @default 8 */
  initial?: number | undefined;
  /** The cap, never exceeded. @default 64 */
  max?: number | undefined;
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
  /** The congestion episode when the call started. */
  epoch: number;
  /** The limit when the call started: only calls sent at the current limit confirm it. */
  level: number;
}

interface Waiter {
  resolve: (slot: Slot) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

/** Successes at the estimated capacity before the first probe above it, per slot of the limit. */
const HOLD_PER_SLOT = 16;
/** Growth per confirmed window in slow start (TCP doubles; 1.5 keeps a step's overshoot to a third). */
const SLOW_START_FACTOR = 1.5;

/**
 * An adaptive limit on concurrent calls, driven by the server's "too many requests" answers.
 *
 * - **Slow start:** from `initial`, the limit grows 1.5× each time a full window of calls that ran at the current
 *   limit has succeeded (calls sent at the limit or at the one before the last step, which were still running
 *   when it grew), up to `max`: once per round trip. Waiting for that confirmation (rather than adding a slot per
 *   success) keeps a growth step from running ahead of 429s that are still on their way back.
 * - **Cut to what the server held:** a 429/503 sets the limit to the calls still in flight once the rejected
 *   one has left (each further rejection lowers it again), instead of a blind halving. That becomes the
 *   capacity estimate. The rejected call goes back to the front of the queue at once and is sent when a
 *   running call finishes: a 429 costs a slot's turn, not a backoff (a `Retry-After` is honoured, and with
 *   nothing else in flight the caller's backoff applies).
 * - **Probe, then grow multiplicatively:** at the estimate the limit holds for `16 × limit` successes, then
 *   tries one more slot; each further confirmed window without a 429 doubles the step (+1, +2, +4, …), so a
 *   server whose capacity grew is found in a few windows while a fixed one costs one 429 per probe.
 *
 * Latency is not a signal: an LLM call's time depends mostly on how much it writes, and on a busy client it
 * includes the client's own work. Like TCP BIC/CUBIC's probing around the last loss point, with an explicit
 * loss signal (the 429).
 */
export class AdaptiveConcurrencyLimiter implements ConcurrencyLimiter {
  readonly maxLimit: number;
  readonly stats = { congestionEvents: 0, peakInFlight: 0 };
  #window: number;
  #estimate = Number.POSITIVE_INFINITY;
  #inFlight = 0;
  #epoch = 0;
  /** Successes counted towards the next growth step. */
  #successes = 0;
  /** 0 while holding at the estimate; otherwise the last increase of a probe that has not met a 429. */
  #step = 0;
  readonly #queue: Waiter[] = [];

  constructor({ initial = 8, max = 64 }: AdaptiveConcurrencyOptions = {}) {
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
  }

  get limit(): number {
    return this.#window;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  async acquire(signal?: AbortSignal): Promise<LimiterLease> {
    let slot = await this.#take(signal, false);
    let done = false;
    return {
      onRetry: async (notice) => {
        const { delayMs, error } = notice;
        this.#inFlight -= 1;
        const congested = isCongestion(error);
        if (congested) this.#congestion(slot);
        const serverAskedDelay = LLMError.isInstance(error) && (error as LLMError).retryAfterMs !== undefined;
        // A plain 429 is paced by the calls still running: the retry takes the next slot one of them frees.
        // Otherwise (a Retry-After, a 5xx or dropped connection, or nothing else in flight) wait the backoff.
        const requeue = congested && !serverAskedDelay && this.#inFlight > 0;
        // Said before the first await, so the retry's observers hear the wait that will happen (none).
        if (requeue) notice.delayMs = 0;
        this.#pump();
        if (!requeue) await sleep(delayMs, signal);
        // A retry goes before calls that have not started yet.
        slot = await this.#take(signal, true);
        return { paced: true };
      },
      release: ({ error }) => {
        if (done) return;
        done = true;
        this.#inFlight -= 1;
        if (error === undefined) this.#success(slot);
        else if (isCongestion(error)) this.#congestion(slot);
        this.#pump();
      },
    };
  }

  #take(signal: AbortSignal | undefined, front: boolean): Promise<Slot> {
    if (signal?.aborted) return Promise.reject(createAbortError(signal));
    if ((front || this.#queue.length === 0) && this.#inFlight < this.#window) {
      return Promise.resolve(this.#grant());
    }
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
    this.#inFlight += 1;
    this.stats.peakInFlight = Math.max(this.stats.peakInFlight, this.#inFlight);
    return { epoch: this.#epoch, level: this.#window };
  }

  #pump(): void {
    while (this.#queue.length > 0 && this.#inFlight < this.#window) {
      const waiter = this.#queue.shift() as Waiter;
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      waiter.resolve(this.#grant());
    }
  }

  #success(slot: Slot): void {
    const slowStart = this.#window < this.#estimate;
    const holding = !slowStart && this.#step === 0;
    // Growing needs calls that ran at the current limit to succeed; holding counts every success. In slow start
    // that includes the calls sent at the limit before the last step: they were still running when it grew, so
    // the server held them beside the calls sent at the new limit. A probe above the estimate is confirmed only
    // by calls sent at its own limit.
    const ranAtLimit = slowStart
      ? Math.ceil(slot.level * SLOW_START_FACTOR) >= this.#window
      : slot.level >= this.#window;
    if (!holding && !ranAtLimit) return;
    this.#successes += 1;
    let next: number;
    if (slowStart) {
      if (this.#successes < this.#window) return;
      next = Math.min(Math.ceil(this.#window * SLOW_START_FACTOR), this.#estimate);
    } else if (holding) {
      if (this.#successes < HOLD_PER_SLOT * this.#window) return;
      this.#step = 1;
      next = this.#window + 1;
    } else {
      if (this.#successes < this.#window) return;
      this.#step *= 2;
      next = this.#window + this.#step;
    }
    this.#successes = 0;
    this.#window = Math.min(next, this.maxLimit);
  }

  /** Called with this call's slot already given up: what is still in flight is what the server held. */
  #congestion(slot: Slot): void {
    if (slot.epoch === this.#epoch) {
      // The first rejection of an episode; rejections of calls sent before it lower the limit further.
      this.#epoch += 1;
      this.stats.congestionEvents += 1;
    }
    this.#window = Math.max(1, Math.min(this.#window, this.#inFlight));
    this.#estimate = this.#window;
    this.#successes = 0;
    this.#step = 0;
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
