import { LLMError } from "../errors/llm-error.js";
import { mergeAbortSignals } from "./merge-abort-signals.js";

/** An error named `AbortError`: the signal's own reason when it is one, a `DOMException` otherwise. */
export function createAbortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === "AbortError") return reason;
  return new DOMException("This operation was aborted", "AbortError");
}

/** True for the errors an aborted signal produces (DOMException `AbortError`, or our own wrapping). */
export function isAbortError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const name = (error as { name?: unknown }).name;
  return name === "AbortError" || (error as { code?: unknown }).code === "ABORT_ERR";
}

/** Waits `ms` milliseconds; rejects with an `AbortError` the moment `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(createAbortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(createAbortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The one signal of a call: the caller's `signal` merged with a `timeoutMs` deadline (created once, at the
 * entry point). `fail` turns whatever ended the call into what the caller should see: an `AbortError` when
 * the caller aborted, an `llm_timeout` LLMError when the deadline passed, otherwise the error itself.
 */
export function createCallSignal({
  signal: userSignal,
  timeoutMs,
}: {
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
}): { signal: AbortSignal | undefined; fail: (error: unknown, url: string) => unknown } {
  const timeout = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
  const signal = userSignal || timeout ? mergeAbortSignals(userSignal, timeout) : undefined;
  const fail = (error: unknown, url: string): unknown => {
    if (userSignal?.aborted) return createAbortError(userSignal);
    if (timeout?.aborted) {
      return new LLMError({
        code: "llm_timeout",
        url,
        message: `No complete answer from ${url} within timeoutMs ${timeoutMs}. Raise timeoutMs, send less per call, or check the server's load.`,
      });
    }
    return error;
  };
  return { signal, fail };
}

/** Settles like `work()`, or rejects with an AbortError as soon as `signal` aborts (even if the work ignores it). */
export function abortable<T>(work: () => PromiseLike<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return Promise.resolve(work());
  if (signal.aborted) return Promise.reject(createAbortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(createAbortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(work())
      .then(resolve, reject)
      .finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * A signal of its own for one attempt of a call, aborting when `parent` does. Libraries that add an abort listener
 * per request and never remove it (the openai SDK) then leave it on this short-lived signal, not on the caller's:
 * 20 retries no longer stack 21 listeners (and a `MaxListenersExceededWarning`) on one signal. `dispose` takes
 * this attempt's one listener off `parent`; call it when the attempt (and any stream it opened) is over.
 */
export function createAttemptSignal(parent: AbortSignal | undefined): {
  signal: AbortSignal | undefined;
  dispose: () => void;
} {
  if (!parent) return { signal: undefined, dispose: () => {} };
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, dispose: () => {} };
  }
  const onAbort = () => controller.abort(parent.reason);
  parent.addEventListener("abort", onAbort, { once: true });
  return { signal: controller.signal, dispose: () => parent.removeEventListener("abort", onAbort) };
}
