import type { CallCacheStore } from "../batch/call-cache.js";
import {
  type BatchProcessor,
  type BatchWorkerOptions,
  checkRedis,
  openRedis,
  RedisCallCache,
  startBatchWorker,
} from "../batch/index.js";
import { loadOpenAISdk } from "../openai/load-openai-sdk.js";

/** Options of {@link startQuestionWorker}. */
export interface QuestionWorkerOptions {
  redisUrl: string;
  queueName?: string | undefined;
  concurrency: number;
  /** How soon a dead worker's jobs go to another worker (and how often stalled jobs are looked for). */
  lockDurationMs?: number | undefined;
  /** The processors, over the call cache kept in the same Redis, and how to close them. */
  processors: (store: CallCacheStore) => {
    processors: Record<string, BatchProcessor>;
    close(): Promise<void>;
  };
  onJob?: BatchWorkerOptions["onJob"] | undefined;
  signal: AbortSignal;
}

/**
 * A worker taking questions-batch jobs from the Redis queue (a Redis that is down or refuses the credentials is
 * one error, at once). Model calls are cached in the same Redis, so a job retried anywhere pays only for what no
 * worker finished. `close` finishes the jobs in hand, then closes the processors and the connection.
 */
export async function startQuestionWorker({
  redisUrl,
  queueName,
  lockDurationMs,
  processors,
  onJob,
  signal,
  concurrency,
}: QuestionWorkerOptions): Promise<{ ready: Promise<void>; close(): Promise<void> }> {
  await checkRedis({ redisUrl, signal });
  // Loaded before the first job: a first call that waited for the SDK would reach the server late, bunched
  // with the calls the rate limit had spaced after it.
  await loadOpenAISdk();
  const client = await openRedis(redisUrl);
  const working = processors(new RedisCallCache({ client }));
  const worker = await startBatchWorker({
    redisUrl,
    concurrency,
    ...(queueName ? { queueName } : {}),
    processors: working.processors,
    ...(lockDurationMs ? { lockDurationMs, stalledIntervalMs: lockDurationMs } : {}),
    ...(onJob ? { onJob } : {}),
  });
  return {
    ready: worker.ready,
    close: async () => {
      await worker.close();
      await working.close();
      client.disconnect();
    },
  };
}
