import { LLMError } from "../errors/llm-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { computeRetryDelay } from "../util/retry.js";

/**
 * True when trying the item again may succeed: transient model-server failures and errors we know nothing
 * about. ragsynth's own argument, budget and input errors fail the same way every time, so they are not retried.
 */
export function isRetryableItemError(error: unknown): boolean {
  if (LLMError.isInstance(error)) return error.retryable || error.code === "retries_exhausted";
  if (RagsynthError.isInstance(error)) return false;
  return !(error instanceof Error && error.name === "AbortError");
}

/** The delay the server asked for (Retry-After), when a failure carries one. */
export function retryAfterOf(error: unknown): number | undefined {
  if (!LLMError.isInstance(error)) return undefined;
  return error.retryAfterMs ?? error.lastError?.retryAfterMs;
}

/**
 * The wait before trying an item again: `baseMs`, twice that, four times that … — the shared retry delay
 * (`computeRetryDelay`, the model calls' policy) without its jitter and its 20 s ceiling, because the BullMQ
 * backend retries with BullMQ's `exponential` backoff (`baseMs × 2^(attempt−1)`, no jitter, no ceiling) and the
 * two backends wait the same for the same `--attempts` and `--backoff`.
 */
export function backoffDelay(attempt: number, baseMs: number): number {
  return computeRetryDelay({
    attempt,
    retry: { initialDelayMs: baseMs, backoffFactor: 2, maxDelayMs: Number.POSITIVE_INFINITY },
    random: () => 1,
  });
}
