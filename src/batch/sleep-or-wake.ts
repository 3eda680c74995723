import { createAbortError } from "../util/abort.js";

/**
 * Waits `ms` milliseconds or until `wake` settles, whichever comes first; rejects with an `AbortError` when
 * `signal` aborts. Unlike `Promise.race([sleep(ms, signal), wake])`, the loser leaves nothing behind: the timer
 * is cleared and the abort listener removed, so a polling loop adds no listener per turn (Node's
 * `MaxListenersExceededWarning` after 10).
 */
export function sleepOrWake(ms: number, wake: Promise<unknown>, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(createAbortError(signal));
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve();
    };
    const onAbort = () => finish(createAbortError(signal));
    const timer = setTimeout(() => finish(), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
    wake.then(
      () => finish(),
      () => finish(),
    );
  });
}
