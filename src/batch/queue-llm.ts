import { optionsOf } from "../errors/check-options.js";
import { LLMError } from "../errors/llm-error.js";
import { LLM_ERROR_CODES, type LLMErrorCode, RagsynthError } from "../errors/ragsynth-error.js";
import type { ChatMessage, LLM, LLMCallOptions, LLMMetadata, LLMResult } from "../llm/types.js";
import { callCacheKey } from "./call-cache.js";
import { decodeItemError } from "./item-error-codec.js";
import {
  type BullMQConnectionOptions,
  callQueueOf,
  connectionOf,
  DEFAULT_QUEUE,
  type JobData,
} from "./job-data.js";
import { loadBullMQ } from "./load-bullmq.js";
import type { BatchItemResult, JsonValue } from "./types.js";
import { waitForJob } from "./wait-for-job.js";

/** Options of {@link createQueueLLM}. */
export interface QueueLLMOptions extends BullMQConnectionOptions {
  /** What the model says about itself: the budget packs against it exactly as it would locally. */
  metadata: LLMMetadata;
  /**
   * What the workers need to build the real model (its spec, context window): the `config` of every
   * `llm-call` job. Never put an API key here; workers read theirs from their own environment.
   */
  config: JsonValue;
  /** Part of each call's job id: the model's server, as in the call cache's key. */
  baseURL?: string | undefined;
  /** Attempts per call; transient failures are retried with exponential backoff. @default 3 */
  attempts?: number;
  /** @default 1000 */
  backoffMs?: number;
}

/** An {@link LLM} whose calls run as jobs; `close()` disconnects it. */
export type QueueLLM = LLM & { close(): Promise<void> };

/**
 * A model whose every call is an `llm-call` job on the call queue of `queueName` (`<queue>-calls`), run by
 * whichever {@link startBatchWorker} of that queue is free, under the call queue's shared rate limit. A call's job id is the hash of the call (model, server, prompt,
 * `maxTokens`), so the same call made again (a rerun, a retried parent) joins the job that already ran
 * instead of paying twice. Use it as the `llm` of any synthesizer: `tree_summarize` over it packs each round
 * locally, exactly as it does in one process, while its leaf calls spread over every worker.
 */
export async function createQueueLLM(given: QueueLLMOptions): Promise<QueueLLM> {
  const options = optionsOf("options", given, "{ redisUrl?, queueName?, … }");
  const { Queue, QueueEvents } = await loadBullMQ();
  const queueName = callQueueOf(options.queueName ?? DEFAULT_QUEUE);
  const connection = connectionOf(options);
  const queue = new Queue(queueName, { connection });
  const events = new QueueEvents(queueName, { connection });
  // Connection errors are retried by the client (a Redis restart); the listeners keep them quiet.
  queue.on("error", () => undefined);
  events.on("error", () => undefined);
  await events.waitUntilReady();
  const { metadata, config, attempts = 3, backoffMs = 1000 } = options;

  const call = async (
    input: { prompt: string } | { messages: ChatMessage[] },
    callOptions: LLMCallOptions = {},
  ): Promise<LLMResult> => {
    const key = callCacheKey({
      model: metadata.model,
      baseURL: options.baseURL,
      input,
      maxTokens: callOptions.maxTokens,
      responseFormat: callOptions.responseFormat,
    });
    const jobId = `call-${key}`;
    const item = {
      id: jobId,
      ...("prompt" in input
        ? { prompt: input.prompt }
        : { messages: input.messages as unknown as JsonValue }),
      ...(callOptions.maxTokens === undefined ? {} : { maxTokens: callOptions.maxTokens }),
    };
    const data: JobData = { runId: "call", kind: "llm-call", config, item };
    await queue.add("llm-call", data, {
      jobId,
      attempts,
      backoff: { type: "exponential", delay: backoffMs },
      removeOnComplete: { age: 604_800 },
      removeOnFail: { age: 604_800 },
    });
    const end = await waitForJob({ queue, events } as never, jobId, { signal: callOptions.signal });
    if (end.state === "failed") throw toError(decodeItemError(end.failedReason, end.attemptsMade));
    const result = end.returnvalue as BatchItemResult;
    const usage = result.usage
      ? { promptTokens: result.usage.promptTokens, completionTokens: result.usage.completionTokens }
      : undefined;
    if (usage) callOptions.onUsage?.(usage);
    return usage ? { text: String(result.value), usage } : { text: String(result.value) };
  };

  async function* once(result: Promise<LLMResult>): AsyncIterable<string> {
    const { text } = await result;
    if (text !== "") yield text;
  }

  return {
    metadata,
    complete: (prompt, callOptions) => call({ prompt }, callOptions),
    chat: (messages, callOptions) => call({ messages }, callOptions),
    streamComplete: (prompt, callOptions) => once(call({ prompt }, callOptions)),
    streamChat: (messages, callOptions) => once(call({ messages }, callOptions)),
    async close() {
      await Promise.allSettled([events.close(), queue.close()]);
    },
  };
}

const LLM_CODES = new Set<string>(LLM_ERROR_CODES);

function toError({ code, message, attempts }: ReturnType<typeof decodeItemError>): RagsynthError {
  if (LLM_CODES.has(code))
    return new LLMError({ code: code as LLMErrorCode, message, attempts: attempts ?? 1 });
  return new RagsynthError({ code: code === "unknown" ? "batch_job_failed" : code, message });
}
