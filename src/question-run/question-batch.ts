import type { CallCacheStore } from "../batch/call-cache.js";
import {
  type BatchItem,
  type BatchProcessor,
  type BatchRunner,
  checkRedis,
  createBullMQRunner,
  createEmbeddedRunner,
  decodeBatchInput,
  parseBatchItems,
} from "../batch/index.js";
import { allowedLLM, type BatchTrust, checkQuestionItem } from "./batch-trust.js";
import { openCallCacheFile } from "./open-call-cache.js";

/**
 * The questions of a batch file (JSONL of `{ id, query, … }`), each checked as untrusted input: its fields, and
 * a model it chooses only among those `trust` allows.
 * @throws BatchInputError naming the line
 */
export function readQuestionItems(bytes: Uint8Array, trust: BatchTrust): BatchItem[] {
  return parseBatchItems(decodeBatchInput(bytes), {
    require: ["query"],
    check: (item) => {
      checkQuestionItem(item);
      allowedLLM(item.llm, trust, `item "${item.id}"`);
    },
  });
}

/** Options of {@link createQuestionRunner}. */
export interface QuestionRunnerOptions {
  /** BullMQ jobs on this Redis (checked first) for `ragsynth worker`s; without it, the run is in this process. */
  redis?:
    | {
        url: string;
        queueName?: string | undefined;
        requestsPerMinute?: number | undefined;
        tokensPerMinute?: number | undefined;
      }
    | undefined;
  /** In this process: the results JSONL it resumes from, the call-cache file and its HMAC key, the processors. */
  embedded: {
    out: string;
    callCache: string;
    hmacKey: string | undefined;
    processors: (store: CallCacheStore) => Record<string, BatchProcessor>;
    concurrency: number;
  };
  /** Tries per item before it is recorded failed. */
  attempts: number;
  signal: AbortSignal;
  /** Where a warning goes: call-cache entries refused (edited, or sealed with another key), paid again. */
  warn: (text: string) => void;
}

/** The runner of a questions batch: BullMQ jobs with `redis`, otherwise in this process through the call cache. */
export async function createQuestionRunner({
  redis,
  embedded,
  attempts,
  signal,
  warn,
}: QuestionRunnerOptions): Promise<BatchRunner> {
  if (redis) {
    await checkRedis({ redisUrl: redis.url, signal });
    return createBullMQRunner({
      redisUrl: redis.url,
      ...(redis.queueName ? { queueName: redis.queueName } : {}),
      attempts,
      ...(redis.requestsPerMinute ? { requestsPerMinute: redis.requestsPerMinute } : {}),
      ...(redis.tokensPerMinute ? { tokensPerMinute: redis.tokensPerMinute } : {}),
    });
  }
  const cache = await openCallCacheFile(embedded.callCache, embedded.hmacKey, warn);
  return createEmbeddedRunner({
    processors: embedded.processors(cache),
    out: embedded.out,
    concurrency: embedded.concurrency,
    attempts,
  });
}
