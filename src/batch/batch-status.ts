import { type BullMQConnectionOptions, connectionOf, DEFAULT_QUEUE } from "./job-data.js";
import { loadBullMQ } from "./load-bullmq.js";

/** The jobs of a batch queue by state, and the workers connected to it. */
export interface BatchQueueStatus {
  queueName: string;
  waiting: number;
  active: number;
  delayed: number;
  completed: number;
  failed: number;
  /** Worker connections registered on the queue right now. */
  workers: number;
}

/**
 * Reads a batch queue's job counts, for `ragsynth batch --status`: what is waiting, running, done and failed,
 * whether or not the submitter is still running.
 */
export async function getBatchStatus(options: BullMQConnectionOptions): Promise<BatchQueueStatus> {
  const { Queue } = await loadBullMQ();
  const queueName = options.queueName ?? DEFAULT_QUEUE;
  const queue = new Queue(queueName, { connection: connectionOf(options) });
  try {
    const counts = await queue.getJobCounts(
      "waiting",
      "active",
      "delayed",
      "completed",
      "failed",
      "prioritized",
    );
    const workers = await queue.getWorkers();
    return {
      queueName,
      waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      completed: counts.completed ?? 0,
      failed: counts.failed ?? 0,
      workers: workers.length,
    };
  } finally {
    await queue.close();
  }
}
