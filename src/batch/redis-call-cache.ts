import { checkMethod, optionsOf } from "../errors/check-options.js";
import type { CachedCall, CallCacheStore } from "./call-cache.js";
import { type CallCacheRejections, openCachedCall, sealCachedCall } from "./call-cache-seal.js";

/** The two Redis commands the cache needs; an ioredis or node-redis client has them. */
export interface RedisKeyValueClient {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<unknown>;
}

/**
 * A call cache in Redis, shared by every worker of the BullMQ backend: one string key per call,
 * `<prefix><sha256>`, holding `{ text, usage, sum }`. The checksum covers the key and the content (an HMAC
 * with `hmacKey`), so an entry edited in Redis is not replayed (counted in `rejected`, and paid again).
 * Entries do not expire; delete the prefix to empty it.
 */
export class RedisCallCache implements CallCacheStore {
  /** Entries refused so far: a checksum that does not match (edited), or not an entry at all. */
  readonly rejected: CallCacheRejections = { checksum: 0, shape: 0 };
  readonly #client: RedisKeyValueClient;
  readonly #prefix: string;
  readonly #hmacKey: string | undefined;
  readonly #onReject: ((key: string, reason: keyof CallCacheRejections) => void) | undefined;

  /**
   * @param prefix @default "ragsynth:call:"
   * @param hmacKey signs and checks entries with HMAC-SHA256 (the CLI reads `RAGSYNTH_CACHE_HMAC_KEY`)
   * @param onReject hears each entry refused
   */
  constructor(options: {
    client: RedisKeyValueClient;
    prefix?: string;
    hmacKey?: string | undefined;
    onReject?: (key: string, reason: keyof CallCacheRejections) => void;
  }) {
    const {
      client,
      prefix = "ragsynth:call:",
      hmacKey,
      onReject,
    } = optionsOf("options", options, "{ client, prefix?, hmacKey?, onReject? }");
    checkMethod(
      "client",
      client,
      "get",
      "be a Redis client (an ioredis instance)",
      'new Redis("redis://127.0.0.1:6379") from ioredis is one.',
    );
    this.#client = client;
    this.#prefix = prefix;
    this.#hmacKey = hmacKey;
    this.#onReject = onReject;
  }

  async get(key: string): Promise<CachedCall | undefined> {
    const stored = await this.#client.get(this.#prefix + key);
    if (stored === null) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(stored);
    } catch {
      parsed = undefined;
    }
    const opened = openCachedCall(key, parsed, this.#hmacKey);
    if ("entry" in opened) return opened.entry;
    this.rejected[opened.rejected] += 1;
    this.#onReject?.(key, opened.rejected);
    return undefined;
  }

  async set(key: string, entry: CachedCall): Promise<void> {
    await this.#client.set(this.#prefix + key, JSON.stringify(sealCachedCall(key, entry, this.#hmacKey)));
  }
}
