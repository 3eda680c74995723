import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Turns for the event loop in a long synchronous loop (a walk of 100,000 files): `due()` once `everyMs` have passed
 * since the last turn, then `take()` lets the loop run (Ctrl-C's abort, a progress line) and throws the signal's
 * abort when it came meanwhile. Checking `due()` costs a clock read, not an `await` per step.
 */
export function eventLoopTurns(everyMs: number, signal?: AbortSignal | undefined) {
  let last = performance.now();
  return {
    due: (): boolean => performance.now() - last > everyMs,
    take: async (): Promise<void> => {
      await nextTurn();
      last = performance.now();
      signal?.throwIfAborted();
    },
  };
}
