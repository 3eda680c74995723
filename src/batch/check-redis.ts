import { optionsOf } from "../errors/check-options.js";
import { abortable } from "../util/abort.js";
import { connectionOf } from "./job-data.js";
import { loadIoredis } from "./load-bullmq.js";
import { RedisUnavailableError } from "./redis-unavailable-error.js";

/** Options of {@link checkRedis}. */
export interface CheckRedisOptions {
  /** `redis://[user:password@]host:port[/db]`. */
  redisUrl: string;
  /** How long to wait for the connection and a PING. @default 5000 */
  timeoutMs?: number;
  signal?: AbortSignal | undefined;
}

/**
 * Connects to Redis once, authenticates and sends a PING, without retrying: the check the CLI runs before a
 * batch, a worker or `--status` starts, so a Redis that is down or refuses the credentials is one clear error
 * within seconds instead of a client that reconnects forever.
 * @throws RedisUnavailableError naming the URL (password hidden) when Redis cannot be reached or refuses
 * @throws InvalidArgumentError when the URL is not a redis:// or rediss:// URL
 */
export async function checkRedis(options: CheckRedisOptions): Promise<void> {
  const {
    redisUrl,
    timeoutMs = 5000,
    signal,
  } = optionsOf("options", options, "{ redisUrl, timeoutMs?, signal? }");
  connectionOf({ redisUrl });
  const { Redis } = await loadIoredis();
  const client = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    reconnectOnError: () => false,
  });
  let lastError: unknown;
  client.on("error", (error) => {
    lastError = error;
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    await abortable(() => Promise.race([client.connect().then(() => client.ping()), deadline]), signal);
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new RedisUnavailableError({ redisUrl, cause: lastError ?? error, timeoutMs });
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}
