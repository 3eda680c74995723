import type { CachedCall, CallCacheStore } from "./call-cache.js";

/** The two Redis commands the cache needs; an ioredis or node-redis client has them. */
export interface RedisKeyValueClient {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<unknown>;
}

/**
 * A call cache in Redis, shared by every worker of the BullMQ backend: one string key per call,
 * `<prefix><sha256>`, holding `{ text, usage }`. Entries do not expire; delete the prefix to empty it.
 */
export class RedisCallCache implements CallCacheStore {
  readonly #client: RedisKeyValueClient;
  readonly #prefix: string;

  /** @param prefix @default "ragsynth:call:" */
  constructor({ client, prefix = "ragsynth:call:" }: { client: RedisKeyValueClient; prefix?: string }) {
    this.#client = client;
    this.#prefix = prefix;
  }

  async get(key: string): Promise<CachedCall | undefined> {
    const stored = await this.#client.get(this.#prefix + key);
    if (stored === null) return undefined;
    try {
      return JSON.parse(stored) as CachedCall;
    } catch {
      return undefined;
    }
  }

  async set(key: string, entry: CachedCall): Promise<void> {
    await this.#client.set(this.#prefix + key, JSON.stringify(entry));
  }
}
