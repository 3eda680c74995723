import type { LLMError } from "../errors/llm-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";

/**
 * True when trying the item again may succeed: transient model-server failures and errors we know nothing
 * about. ragsynth's own argument, budget and input errors fail the same way every time, so they are not retried.
 */
export function isRetryableItemError(error: unknown): boolean {
  if (isLLMError(error)) return error.retryable || error.code === "retries_exhausted";
  if (RagsynthError.isInstance(error)) return false;
  return !(error instanceof Error && error.name === "AbortError");
}

/** The delay the server asked for (Retry-After), when a failure carries one. */
export function retryAfterOf(error: unknown): number | undefined {
  if (!isLLMError(error)) return undefined;
  return error.retryAfterMs ?? error.lastError?.retryAfterMs;
}

/** Exponential backoff: `baseMs`, twice that, four times that … */
export function backoffDelay(attempt: number, baseMs: number): number {
  return baseMs * 2 ** Math.max(0, attempt - 1);
}

function isLLMError(error: unknown): error is LLMError {
  return RagsynthError.isInstance(error) && error.name === "LLMError";
}
