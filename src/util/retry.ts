import { checkFunction, optionsOf } from "../errors/check-options.js";
import { LLMError } from "../errors/llm-error.js";
import { createAbortError, sleep } from "./abort.js";

/** Tuning of the one retry policy shared by every model and embedding call. */
export interface RetryOptions {
  /** The backoff ceiling of the first retry, in milliseconds. @default 500 */
  initialDelayMs?: number;
  /** How much the ceiling grows per retry. @default 2 */
  backoffFactor?: number;
  /** The largest backoff ceiling, in milliseconds. @default 20000 */
  maxDelayMs?: number;
  /**
   * The longest `Retry-After` honoured, in milliseconds. A server asking for longer fails the call at once
   * (with `retryAfterMs` on the error) instead of hammering it early or hanging for minutes.
   * @default 60000
   */
  maxRetryAfterMs?: number;
}

/** Test seams: a clock, a random source and a delay, so tests neither sleep nor depend on chance. */
export interface RetryInternals {
  /** Waits `ms`; must reject with an `AbortError` as soon as `signal` aborts. @default setTimeout */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for the jitter. @default Math.random */
  random?: () => number;
  /** Milliseconds since the epoch, for `Retry-After` dates. @default Date.now */
  now?: () => number;
}

/**
 * What a `beforeRetry` hook may answer: `paced: true` means it already waited as long as the retry should
 * (a concurrency limiter that re-queued the call behind a freed slot), so no backoff follows.
 */
export interface RetryPacing {
  paced: boolean;
}

/** What {@link retryWithBackoff} reports before each retry. */
export interface RetryEvent {
  /** The attempt that failed (1 = the first). */
  attempt: number;
  /**
   * The wait before the retry: the backoff (or the server's `Retry-After`); 0 when a concurrency limiter sends the
   * retry as soon as a running call frees a slot instead.
   */
  delayMs: number;
  error: LLMError;
}

const defaults = { initialDelayMs: 500, backoffFactor: 2, maxDelayMs: 20_000, maxRetryAfterMs: 60_000 };

/**
 * The delay a server asked for, from `retry-after-ms` (milliseconds) or `Retry-After` (seconds or an
 * HTTP date). Undefined when absent or unparsable.
 */
export function parseRetryAfter(
  headers: { get(name: string): string | null } | undefined,
  now: number = Date.now(),
): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers?.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number.parseFloat(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The delay before retry number `attempt` (1-based): the server's `retryAfterMs` when it sent one,
 * otherwise exponential backoff with full jitter, `random() × min(maxDelayMs, initialDelayMs × factor^(attempt−1))`.
 */
export function computeRetryDelay({
  attempt,
  retryAfterMs,
  retry = {},
  random = Math.random,
}: {
  attempt: number;
  retryAfterMs?: number | undefined;
  retry?: RetryOptions | undefined;
  random?: () => number;
}): number {
  if (retryAfterMs !== undefined) return Math.max(0, retryAfterMs);
  const { initialDelayMs, backoffFactor, maxDelayMs } = { ...defaults, ...retry };
  const ceiling = Math.min(maxDelayMs, initialDelayMs * backoffFactor ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Runs `run` until it succeeds, retrying {@link LLMError}s marked `retryable` (429, 408, 409, 5xx, dropped
 * connections) up to `maxRetries` times. The signal cancels waits at once. Other errors pass through.
 * @returns the value and how many retries it took
 * @throws LLMError `retries_exhausted` (with `lastError` and `attempts`) when every attempt failed retryably;
 *   a non-retryable LLMError as it is, with `attempts` set
 */
export async function retryWithBackoff<T>(options: {
  /** One attempt; receives the attempt number (1-based). */
  run: (attempt: number) => Promise<T>;
  /** Retries after the first attempt. @default 3 */
  maxRetries?: number | undefined;
  retry?: RetryOptions | undefined;
  signal?: AbortSignal | undefined;
  onRetry?: ((event: RetryEvent) => void) | undefined;
  /**
   * Called before `onRetry`; the retry also waits for the promise it returns (a limiter regaining its slot). When
   * it resolves to `{ paced: true }` the hook has timed the retry itself and the backoff is skipped; a hook that
   * will not wait the backoff sets `event.delayMs` to the wait it will impose before it first awaits.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook that returns nothing keeps the backoff
  beforeRetry?: ((event: RetryEvent) => Promise<RetryPacing | void> | RetryPacing | void) | undefined;
  _internal?: RetryInternals | undefined;
}): Promise<{ value: T; retries: number }> {
  const {
    run,
    maxRetries = 3,
    retry,
    signal,
    onRetry,
    beforeRetry,
    _internal = {},
  } = optionsOf("options", options, "{ run, maxRetries?, retry?, signal?, … }");
  checkFunction("run", run, "be a function (attempt) => Promise");
  const { sleep: wait = sleep, random = Math.random } = _internal;
  const maxRetryAfterMs = retry?.maxRetryAfterMs ?? defaults.maxRetryAfterMs;
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw createAbortError(signal);
    try {
      return { value: await run(attempt), retries: attempt - 1 };
    } catch (error) {
      if (signal?.aborted || !LLMError.isInstance(error)) throw error;
      const failure = error as LLMError;
      if (!failure.retryable) throw failure.withAttempts(attempt);
      if (failure.retryAfterMs !== undefined && failure.retryAfterMs > maxRetryAfterMs) {
        throw failure.withAttempts(attempt);
      }
      if (attempt > maxRetries) {
        if (attempt === 1) throw failure.withAttempts(1);
        const last = failure.withAttempts(attempt);
        throw new LLMError({
          code: "retries_exhausted",
          message: `Gave up after ${attempt} attempts. Last error: ${failure.message}`,
          status: failure.status,
          url: failure.url,
          attempts: attempt,
          retryAfterMs: failure.retryAfterMs,
          lastError: last,
        });
      }
      const delayMs = computeRetryDelay({ attempt, retryAfterMs: failure.retryAfterMs, retry, random });
      const event = { attempt, delayMs, error: failure };
      // The hook decides first (a limiter that re-queues the call sets `event.delayMs` to 0), so what `onRetry`
      // hears is the wait that will happen, not a backoff nobody takes.
      const pacing = beforeRetry?.(event);
      try {
        onRetry?.(event);
      } catch (error) {
        // The hook has already given up its slot and is taking one again: let it finish, so the caller's release
        // of that slot is not counted before the slot is held.
        await Promise.resolve(pacing).catch(() => undefined);
        throw error;
      }
      if ((await pacing)?.paced !== true) await wait(delayMs, signal);
    }
  }
}
