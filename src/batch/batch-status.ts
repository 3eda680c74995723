import { optionsOf } from "../errors/check-options.js";
import { type BullMQConnectionOptions, connectionOf, DEFAULT_QUEUE, jobIdOf } from "./job-data.js";
import { loadBullMQ } from "./load-bullmq.js";

/** Options of {@link getBatchStatus}. */
export interface BatchStatusOptions extends BullMQConnectionOptions {
  /** Count only this run's jobs (ids `<runId>-…`); without it, every job in the queue. */
  runId?: string | undefined;
}

/** The jobs of a batch queue (or of one run in it) by state, and the workers connected to it. */
export interface BatchQueueStatus {
  queueName: string;
  /** The run counted, or null when the counts are over every run in the queue. */
  runId: string | null;
  waiting: number;
  active: number;
  delayed: number;
  completed: number;
  failed: number;
  /** Worker connections registered on the queue right now. */
  workers: number;
}

const STATES = ["waiting", "prioritized", "active", "delayed", "completed", "failed"] as const;

/**
 * Reads a batch queue's job counts, for `ragsynth batch --status`: what is waiting, running, done and failed,
 * whether or not the submitter is still running. With `runId`, only that run's jobs are counted (their ids are
 * listed per state, so this reads one id per job); without, BullMQ's counters for the whole queue.
 */
export async function getBatchStatus(given: BatchStatusOptions): Promise<BatchQueueStatus> {
  const options = optionsOf("options", given, "{ redisUrl?, queueName?, … }");
  const { Queue } = await loadBullMQ();
  const queueName = options.queueName ?? DEFAULT_QUEUE;
  const queue = new Queue(queueName, { connection: connectionOf(options) });
  // Connection errors are reported by the command that fails; the listener keeps ioredis from printing them.
  queue.on("error", () => undefined);
  try {
    const counts: Record<(typeof STATES)[number], number> = {
      waiting: 0,
      prioritized: 0,
      active: 0,
      delayed: 0,
      completed: 0,
      failed: 0,
    };
    if (options.runId === undefined) {
      const all = await queue.getJobCounts(...STATES);
      for (const state of STATES) counts[state] = all[state] ?? 0;
    } else {
      const prefix = jobIdOf(options.runId, "");
      for (const state of STATES) {
        const ids = await queue.getRanges([state], 0, -1);
        counts[state] = ids.filter((id) => id.startsWith(prefix)).length;
      }
    }
    const workers = await queue.getWorkers();
    return {
      queueName,
      runId: options.runId ?? null,
      waiting: counts.waiting + counts.prioritized,
      active: counts.active,
      delayed: counts.delayed,
      completed: counts.completed,
      failed: counts.failed,
      workers: workers.length,
    };
  } finally {
    await queue.close();
  }
}

/** The status in one line: `queue q, run r: 2 waiting, 1 active, 0 delayed, 5 done, 0 failed · 2 worker connections`. */
export function formatBatchStatus(status: BatchQueueStatus): string {
  return (
    `queue ${status.queueName}, ${status.runId === null ? "all runs" : `run ${status.runId}`}: ` +
    `${status.waiting} waiting, ${status.active} active, ${status.delayed} delayed, ` +
    `${status.completed} done, ${status.failed} failed · ${status.workers} worker connection${status.workers === 1 ? "" : "s"}`
  );
}
