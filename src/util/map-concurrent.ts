import { createAbortError } from "./abort.js";
import { mergeAbortSignals } from "./merge-abort-signals.js";

/**
 * Maps `items` with at most `concurrency` calls of `task` at once, keeping the results in input order.
 * The first failure aborts the signal given to the other tasks, waits for them to settle (so nothing is
 * left running) and is then rethrown. No task starts once `signal` is aborted.
 */
export async function mapConcurrent<I, O>(
  items: readonly I[],
  concurrency: number,
  signal: AbortSignal,
  task: (item: I, index: number, signal: AbortSignal) => Promise<O>,
): Promise<O[]> {
  const controller = new AbortController();
  const taskSignal = mergeAbortSignals(signal, controller.signal);
  const results = new Array<O>(items.length);
  let next = 0;
  let failed = false;
  let firstError: unknown;

  const worker = async () => {
    while (!failed && next < items.length) {
      if (taskSignal.aborted) throw createAbortError(signal.aborted ? signal : taskSignal);
      const index = next++;
      try {
        results[index] = await task(items[index] as I, index, taskSignal);
      } catch (error) {
        if (!failed) {
          failed = true;
          firstError = error;
          controller.abort(createAbortError());
        }
        return;
      }
    }
  };

  const workers = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker);
  const settled = await Promise.allSettled(workers);
  if (failed) throw signal.aborted ? createAbortError(signal) : firstError;
  for (const outcome of settled) if (outcome.status === "rejected") throw outcome.reason;
  return results;
}
