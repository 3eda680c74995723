import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { createAbortError } from "../util/abort.js";
import { decodeItemError } from "./item-error-codec.js";
import {
  type BullMQConnectionOptions,
  callQueueOf,
  connectionOf,
  DEFAULT_QUEUE,
  type JobData,
  jobIdOf,
} from "./job-data.js";
import { loadBullMQ } from "./load-bullmq.js";
import { sleepOrWake } from "./sleep-or-wake.js";
import {
  type BatchItemResult,
  type BatchOutcome,
  type BatchRunner,
  type BatchRunOptions,
  countResult,
  emptyProgress,
  type JsonValue,
} from "./types.js";

/** Options of {@link createBullMQRunner}. */
export interface BullMQRunnerOptions extends BullMQConnectionOptions {
  /** Attempts per item; retryable failures are retried with exponential backoff. @default 3 */
  attempts?: number;
  /** Delay before the first retry, doubled for each next one. @default 1000 */
  backoffMs?: number;
  /**
   * One limit on model calls across every worker: each call of an item runs as a job on the call queue
   * (`<queue>-calls`), whose BullMQ global rate limit starts them evenly spaced, at most this many a minute.
   */
  requestsPerMinute?: number;
  /** Tokens (prompt + completion) a minute across all workers; over it, the queue pauses until the minute ends. */
  tokensPerMinute?: number;
  /** Seconds finished jobs (and so their results) are kept in Redis. @default 604800 (7 days) */
  keepSeconds?: number;
  /** How often the state of unfinished jobs is checked, besides the queue's events. @default 1000 */
  pollMs?: number;
}

/**
 * The BullMQ batch backend: every item becomes a job (id `<runId>-<item id>`) on a Redis queue, which any
 * number of {@link startBatchWorker} processes, on any machines, take from. Results are the jobs' return
 * values, collected in input order. Resubmitting the same `runId` adds only the items that have no job yet
 * (finished ones are collected, failed ones are retried), and aborting the submitter leaves the jobs running.
 * Loads the optional `bullmq` peer on first use.
 */
export function createBullMQRunner(given: BullMQRunnerOptions): BatchRunner {
  const options = optionsOf("options", given, "{ redisUrl?, queueName?, … }");
  const {
    queueName = DEFAULT_QUEUE,
    attempts = 3,
    backoffMs = 1000,
    keepSeconds = 604_800,
    pollMs = 1000,
  } = options;
  for (const [name, value] of Object.entries({
    requestsPerMinute: options.requestsPerMinute,
    tokensPerMinute: options.tokensPerMinute,
  })) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw new InvalidArgumentError({ parameter: name, value, expected: "be a positive number" });
    }
  }
  return {
    backend: "bullmq",
    async run<R extends JsonValue = JsonValue>({
      runId,
      kind,
      config = null,
      items,
      signal = new AbortController().signal,
      onProgress,
    }: BatchRunOptions): Promise<BatchOutcome<R>> {
      const { Queue, QueueEvents } = await loadBullMQ();
      const connection = connectionOf(options);
      const queue = new Queue(queueName, { connection });
      const events = new QueueEvents(queueName, { connection });
      const started = performance.now();
      const progress = emptyProgress(items.length);
      const report = () => onProgress?.({ ...progress, elapsedMs: performance.now() - started });
      // Connection errors are retried by the client (a Redis restart): the listeners keep them off stderr (their
      // text may quote the password) and tell the progress line, until a command succeeds again.
      const onConnectionError = () => {
        if (progress.connectionLost) return;
        progress.connectionLost = true;
        report();
      };
      queue.on("error", onConnectionError);
      events.on("error", onConnectionError);
      try {
        await events.waitUntilReady();
        if (options.requestsPerMinute !== undefined) {
          // The limit counts model calls: they run as jobs on the call queue, spaced evenly.
          const calls = new Queue(callQueueOf(queueName), { connection });
          calls.on("error", onConnectionError);
          await calls.setGlobalRateLimit(1, Math.ceil(60_000 / options.requestsPerMinute));
          await calls.close();
        }
        const ids = items.map((item) => jobIdOf(runId, item.id));
        const ours = new Set(ids);
        const results = new Map<string, BatchItemResult>();
        const active = new Set<string>();

        let closing = false;
        const settle = async (jobId: string, known?: string): Promise<void> => {
          if (results.has(jobId) || closing) return;
          const state = known ?? (await queue.getJobState(jobId));
          if (state === "active") active.add(jobId);
          else active.delete(jobId);
          if (state !== "completed" && state !== "failed") return;
          // Read after the state: a job read before it completed would carry no return value yet.
          const job = await queue.getJob(jobId);
          if (!job || results.has(jobId)) return;
          const itemId = (job.data as JobData).item.id;
          const result: BatchItemResult =
            state === "completed"
              ? (job.returnvalue as BatchItemResult)
              : { id: itemId, ok: false, error: decodeItemError(job.failedReason, job.attemptsMade) };
          results.set(jobId, result);
          countResult(progress, result);
        };

        // What earlier runs of this runId left: finished jobs are kept, failed ones retried, the rest added.
        const missing: number[] = [];
        for (let start = 0; start < ids.length; start += 200) {
          signal.throwIfAborted();
          const slice = ids.slice(start, start + 200);
          const states = await Promise.all(slice.map((id) => queue.getJobState(id)));
          for (const [offset, state] of states.entries()) {
            const id = slice[offset] as string;
            if (state === "unknown") missing.push(start + offset);
            else if (state === "failed") await (await queue.getJob(id))?.retry("failed");
            else if (state === "completed") {
              await settle(id, state);
              progress.skipped += 1;
            }
          }
        }
        for (let start = 0; start < missing.length; start += 500) {
          signal.throwIfAborted();
          await queue.addBulk(
            missing.slice(start, start + 500).map((index) => {
              const item = items[index] as BatchRunOptions["items"][number];
              const data: JobData = {
                runId,
                kind,
                config,
                item,
                ...(options.tokensPerMinute ? { tokensPerMinute: options.tokensPerMinute } : {}),
                ...(options.requestsPerMinute ? { routeCalls: true } : {}),
              };
              return {
                name: kind,
                data,
                opts: {
                  jobId: ids[index] as string,
                  attempts,
                  backoff: { type: "exponential", delay: backoffMs },
                  removeOnComplete: { age: keepSeconds },
                  removeOnFail: { age: keepSeconds },
                },
              };
            }),
          );
        }
        report();

        const pending = () => ids.filter((id) => !results.has(id));
        const wake = new Set<() => void>();
        const onEvent = ({ jobId }: { jobId: string }) => {
          if (!ours.has(jobId)) return;
          settle(jobId).then(
            () => {
              progress.inFlight = active.size;
              report();
              for (const resolve of wake) resolve();
            },
            () => undefined, // the sweep below tries again
          );
        };
        events.on("completed", onEvent);
        events.on("failed", onEvent);
        events.on("active", onEvent);
        while (results.size < ids.length) {
          signal.throwIfAborted();
          // The events are the fast path; this sweep catches any event missed (a Redis restart, say).
          for (const id of pending().slice(0, 500)) await settle(id);
          progress.connectionLost = false;
          progress.inFlight = active.size;
          report();
          if (results.size >= ids.length) break;
          await sleepOrWake(pollMs, new Promise<void>((resolve) => wake.add(resolve)), signal).catch(
            () => undefined,
          );
          wake.clear();
        }
        closing = true;
        events.removeAllListeners();
        events.on("error", () => undefined);
        progress.inFlight = 0;
        return {
          results: ids.map((id) => results.get(id) as BatchItemResult<R>),
          progress: { ...progress, elapsedMs: performance.now() - started },
        };
      } catch (error) {
        events.removeAllListeners();
        events.on("error", () => undefined);
        throw signal.aborted ? createAbortError(signal) : error;
      } finally {
        await Promise.allSettled([events.close(), queue.close()]);
      }
    },
    async close() {},
  };
}
