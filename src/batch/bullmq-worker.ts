import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { encodeItemError } from "./item-error-codec.js";
import {
  type BullMQConnectionOptions,
  callQueueOf,
  connectionOf,
  DEFAULT_QUEUE,
  type JobData,
} from "./job-data.js";
import { validateJobData } from "./job-schema.js";
import { loadBullMQ } from "./load-bullmq.js";
import { openRedis } from "./open-redis.js";
import { isRetryableItemError, retryAfterOf } from "./retry-policy.js";
import type { BatchItemResult, BatchProcessor } from "./types.js";

/** Options of {@link startBatchWorker}. */
export interface BatchWorkerOptions extends BullMQConnectionOptions {
  /** The processor of each work kind the worker takes (`question`, `llm-call`). */
  processors: Readonly<Record<string, BatchProcessor>>;
  /** Jobs this process runs at once, and model-call jobs at once besides. @default 4 */
  concurrency?: number;
  /**
   * How long a job's lock lasts without renewal; a worker killed mid-job is noticed (its job "stalled" and
   * handed to another worker) within about twice this. @default 30000
   */
  lockDurationMs?: number;
  /** How often stalled jobs are looked for. @default 30000 */
  stalledIntervalMs?: number;
  /** Called when a job finishes or fails, for logs. */
  onJob?: (event: { jobId: string; ok: boolean; error?: string }) => void;
}

/** A running worker. */
export interface BatchWorker {
  /** Resolves once the worker is connected and taking jobs. */
  ready: Promise<void>;
  /** Finishes the jobs in hand (or, with `force`, abandons them to be picked up as stalled) and disconnects. */
  close(force?: boolean): Promise<void>;
}

/**
 * Starts a BullMQ worker that takes batch jobs from the queue, and model-call jobs from its call queue
 * (`<queue>-calls`), and runs them with `processors`. Start as many as you like, in any processes on any
 * machines: they share the queues, their rate limits and (through the processors' {@link RedisCallCache})
 * the calls already paid for. A job whose worker dies is taken over by another once its lock expires.
 * A failure with `Retry-After` pauses the queue for that long (BullMQ's manual rate limit) and puts the job
 * back without counting an attempt; other retryable failures are retried with backoff, and the rest fail at
 * once with their typed error's code. Loads the optional `bullmq` peer on first use.
 */
export async function startBatchWorker(given: BatchWorkerOptions): Promise<BatchWorker> {
  const options = optionsOf("options", given, "{ redisUrl?, queueName?, … }");
  const { queueName = DEFAULT_QUEUE, concurrency = 4 } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new InvalidArgumentError({
      parameter: "concurrency",
      value: concurrency,
      expected: "be a positive integer",
    });
  }
  const bullmq = await loadBullMQ();
  const counter = await openRedis(options.redisUrl);
  const workers = [queueName, callQueueOf(queueName)].map((name) =>
    startQueueWorker(bullmq, counter, name, options),
  );
  return {
    ready: Promise.all(workers.map((worker) => worker.ready)).then(() => undefined),
    async close(force = false) {
      await Promise.all(workers.map((worker) => worker.close(force)));
      counter.disconnect();
    },
  };
}

function startQueueWorker(
  { Queue, Worker, UnrecoverableError, RateLimitError }: Awaited<ReturnType<typeof loadBullMQ>>,
  counter: Awaited<ReturnType<typeof openRedis>>,
  queueName: string,
  options: BatchWorkerOptions,
): BatchWorker {
  const { processors, concurrency = 4, onJob } = options;
  const connection = connectionOf(options);
  const queue = new Queue(queueName, { connection });
  queue.on("error", () => undefined);
  const callQueue = {
    redisUrl: options.redisUrl,
    queueName: options.queueName ?? DEFAULT_QUEUE,
  };
  const worker = new Worker<JobData, BatchItemResult>(
    queueName,
    async (job, _token, signal) => {
      let data: JobData;
      try {
        data = validateJobData(job.data);
      } catch (error) {
        throw new UnrecoverableError(encodeItemError(error));
      }
      const { kind, config, item } = data;
      const processor = Object.hasOwn(processors, kind) ? processors[kind] : undefined;
      if (!processor) {
        throw new UnrecoverableError(
          `invalid_argument: This worker has no processor for work kind "${kind}" (it has ${Object.keys(processors).join(", ")}).`,
        );
      }
      try {
        const { value, usage } = await processor(item, {
          config,
          signal: signal ?? new AbortController().signal,
          attempt: job.attemptsMade + 1,
          ...(data.routeCalls ? { callQueue } : {}),
        });
        if (data.tokensPerMinute && usage) {
          await chargeTokens(
            counter,
            queue,
            data.tokensPerMinute,
            usage.promptTokens + usage.completionTokens,
          );
        }
        // Progress for BullMQ dashboards (a job starts at 0): 100 once answered. Nothing is written before the
        // processor runs, so a rate-limited call starts when BullMQ spaced it, without a Redis round trip between.
        await job.updateProgress(100);
        return { id: item.id, ok: true, value, ...(usage ? { usage } : {}) };
      } catch (error) {
        const retryAfterMs = retryAfterOf(error);
        if (retryAfterMs !== undefined && retryAfterMs > 0) {
          await queue.rateLimit(retryAfterMs);
          throw new RateLimitError();
        }
        const reason = encodeItemError(error);
        throw isRetryableItemError(error) ? new Error(reason) : new UnrecoverableError(reason);
      }
    },
    {
      connection,
      concurrency,
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      maxStalledCount: 2,
    },
  );
  worker.on("completed", (job) => onJob?.({ jobId: String(job.id), ok: true }));
  worker.on("failed", (job, error) => onJob?.({ jobId: String(job?.id), ok: false, error: error.message }));
  // Connection errors are retried by the client; the listener keeps them from crashing the process.
  worker.on("error", () => undefined);
  return {
    ready: worker.waitUntilReady().then(() => undefined),
    async close(force = false) {
      await worker.close(force);
      await queue.close();
    },
  };
}

/**
 * Adds `tokens` to this minute's shared count; past `limit`, pauses the queue until the minute ends
 * (BullMQ's manual rate limit, seen by every worker).
 */
async function chargeTokens(
  client: {
    incrby(key: string, by: number): Promise<number>;
    pexpire(key: string, ms: number): Promise<number>;
  },
  queue: { name: string; rateLimit(ms: number): Promise<void> },
  limit: number,
  tokens: number,
): Promise<void> {
  const now = Date.now();
  const minute = Math.floor(now / 60_000);
  const key = `ragsynth:tokens:${queue.name}:${minute}`;
  const total = await client.incrby(key, tokens);
  if (total === tokens) await client.pexpire(key, 120_000);
  if (total >= limit) await queue.rateLimit((minute + 1) * 60_000 - now);
}
