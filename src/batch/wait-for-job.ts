import { sleepOrWake } from "./sleep-or-wake.js";

/** The parts of BullMQ's Queue and QueueEvents that waiting for one job needs. */
export interface JobWatch {
  queue: {
    getJobState(jobId: string): Promise<string>;
    getJob(
      jobId: string,
    ): Promise<{ returnvalue: unknown; failedReason: string; attemptsMade: number } | undefined>;
  };
  events: {
    on(event: string, listener: () => void): unknown;
    removeListener(event: string, listener: () => void): unknown;
  };
}

/** How a job ended: its return value, or its failed reason and attempts. */
export type JobEnd =
  | { state: "completed"; returnvalue: unknown }
  | { state: "failed"; failedReason: string; attemptsMade: number };

/**
 * Waits until job `jobId` has completed or failed for good. The queue's events wake it at once; a state check
 * every `pollMs` covers events missed while Redis restarted (BullMQ's own `waitUntilFinished` would hang).
 */
export async function waitForJob(
  { queue, events }: JobWatch,
  jobId: string,
  { signal, pollMs = 2000 }: { signal?: AbortSignal | undefined; pollMs?: number } = {},
): Promise<JobEnd> {
  let wake: () => void = () => undefined;
  const onEvent = () => wake();
  events.on(`completed:${jobId}`, onEvent);
  events.on(`failed:${jobId}`, onEvent);
  try {
    for (;;) {
      signal?.throwIfAborted();
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
      });
      const state = await queue.getJobState(jobId);
      if (state === "completed" || state === "failed") {
        const job = await queue.getJob(jobId);
        if (job) {
          return state === "completed"
            ? { state, returnvalue: job.returnvalue }
            : { state, failedReason: job.failedReason, attemptsMade: job.attemptsMade };
        }
      }
      await sleepOrWake(pollMs, woken, signal);
    }
  } finally {
    events.removeListener(`completed:${jobId}`, onEvent);
    events.removeListener(`failed:${jobId}`, onEvent);
  }
}
