import { loadBullMQ } from "./load-bullmq.js";

/** The Redis commands ragsynth uses besides BullMQ's (the call cache and the shared token count). */
export interface BatchRedisClient {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<unknown>;
  incrby(key: string, by: number): Promise<number>;
  pexpire(key: string, ms: number): Promise<number>;
  disconnect(): void;
}

/**
 * A Redis client of its own (ioredis, the optional peer BullMQ connects through) for what BullMQ does not
 * do: the call cache ({@link RedisCallCache}) and the shared token count. Commands wait for a reconnect.
 * @throws MissingPeerDependencyError naming `npm i bullmq ioredis` when they are not installed
 */
export async function openRedis(redisUrl: string): Promise<BatchRedisClient> {
  await loadBullMQ();
  const { Redis } = await import("ioredis");
  const client = new Redis(redisUrl, { maxRetriesPerRequest: null });
  // Connection errors are retried by the client; the listener keeps them from crashing the process.
  client.on("error", () => undefined);
  return client;
}
