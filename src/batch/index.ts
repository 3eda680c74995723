/**
 * `ragsynth/batch`: running many questions and sharing model calls — the embedded runner, the BullMQ runner and
 * worker on Redis, the queue-backed LLM, the call caches (file and Redis) and the batch's errors. `bullmq` and
 * `ioredis` are optional peers, loaded on first use; `getBatchStatus`, `checkRedis` and `openRedis` are what the
 * `ragsynth batch`/`worker` commands use too.
 * @packageDocumentation
 */

export { BatchInputError } from "./batch-input-error.js";
export { type BatchQueueStatus, type BatchStatusOptions, getBatchStatus } from "./batch-status.js";
export { type BullMQRunnerOptions, createBullMQRunner } from "./bullmq-runner.js";
export { type BatchWorker, type BatchWorkerOptions, startBatchWorker } from "./bullmq-worker.js";
export {
  type CachedCall,
  type CachedLLM,
  type CallCacheKeyParts,
  type CallCacheStore,
  callCacheKey,
  type WithCallCacheOptions,
  withCallCache,
} from "./call-cache.js";
export { type CheckRedisOptions, checkRedis } from "./check-redis.js";
export { createEmbeddedRunner, type EmbeddedRunnerOptions } from "./embedded-runner.js";
export { FileCallCache } from "./file-call-cache.js";
export { type BullMQConnectionOptions, DEFAULT_QUEUE } from "./job-data.js";
export { MissingPeerDependencyError } from "./missing-peer-dependency-error.js";
export { type BatchRedisClient, openRedis } from "./open-redis.js";
export {
  type BatchSource,
  createQuestionProcessor,
  type QuestionAnswer,
  type QuestionProcessorOptions,
} from "./question-processor.js";
export { createQueueLLM, type QueueLLM, type QueueLLMOptions } from "./queue-llm.js";
export { decodeBatchInput, parseBatchItems } from "./read-batch-items.js";
export { RedisCallCache, type RedisKeyValueClient } from "./redis-call-cache.js";
export { RedisUnavailableError } from "./redis-unavailable-error.js";
export type {
  BatchItem,
  BatchItemError,
  BatchItemResult,
  BatchOutcome,
  BatchProcessor,
  BatchProcessorContext,
  BatchProgress,
  BatchRunner,
  BatchRunOptions,
  JsonValue,
} from "./types.js";
