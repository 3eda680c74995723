import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { BatchItem, JsonValue } from "./types.js";

/** The queue batch jobs go to unless another is named. */
export const DEFAULT_QUEUE = "ragsynth";

/** Where the BullMQ backend finds Redis and its queue. */
export interface BullMQConnectionOptions {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS). */
  redisUrl: string;
  /** The queue's name; workers must name the same one. Use one queue per model for per-model limits. @default "ragsynth" */
  queueName?: string;
}

/** What a job carries: the run it belongs to, its work kind and settings, and the item. */
export interface JobData {
  runId: string;
  kind: string;
  config: JsonValue;
  item: BatchItem;
  tokensPerMinute?: number;
  /** Send the item's model calls as jobs on the call queue, so the queue's rate limit counts each call. */
  routeCalls?: boolean;
}

/** The queue the model calls of a run go to (`<queue>-calls`); its rate limit is the per-request limit. */
export function callQueueOf(queueName: string): string {
  return `${queueName}-calls`;
}

/** A job's id: the run and the item's id (BullMQ ids may not contain `:` nor be integers). */
export function jobIdOf(runId: string, itemId: string): string {
  return `${runId}-${encodeURIComponent(itemId).replaceAll("%3A", "%3a")}`.replaceAll(":", "%3a");
}

/**
 * BullMQ's connection options for a URL: `maxRetriesPerRequest: null`, as BullMQ requires for workers, so
 * commands wait for a reconnect instead of failing while Redis restarts.
 * @throws InvalidArgumentError when the URL is not a redis:// or rediss:// URL
 */
export function connectionOf({ redisUrl }: BullMQConnectionOptions): {
  url: string;
  maxRetriesPerRequest: null;
} {
  let protocol = "";
  try {
    protocol = new URL(redisUrl).protocol;
  } catch {
    // reported below
  }
  if (protocol !== "redis:" && protocol !== "rediss:") {
    throw new InvalidArgumentError({
      parameter: "redisUrl",
      value: typeof redisUrl === "string" ? redisUrl.replace(/\/\/[^@/]*@/, "//") : redisUrl,
      expected: "be a redis:// or rediss:// URL",
      hint: "For example redis://127.0.0.1:6379.",
    });
  }
  return { url: redisUrl, maxRetriesPerRequest: null };
}
