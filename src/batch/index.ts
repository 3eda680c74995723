export { BatchInputError } from "./batch-input-error.js";
export { type BatchQueueStatus, type BatchStatusOptions, getBatchStatus } from "./batch-status.js";
export { type BullMQRunnerOptions, createBullMQRunner } from "./bullmq-runner.js";
export { type BatchWorker, type BatchWorkerOptions, startBatchWorker } from "./bullmq-worker.js";
export {
  type CachedCall,
  type CachedLLM,
  type CallCacheKeyParts,
  type CallCacheStore,
  type WithCallCacheOptions,
  withCallCache,
} from "./call-cache.js";
export { type CheckRedisOptions, checkRedis } from "./check-redis.js";
export { createEmbeddedRunner, type EmbeddedRunnerOptions } from "./embedded-runner.js";
export { FileCallCache } from "./file-call-cache.js";
export type { BullMQConnectionOptions } from "./job-data.js";
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
