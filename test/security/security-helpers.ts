import { writeFile } from "node:fs/promises";
import { join } from "node:path";

/** A recognisable Redis password: if it shows up in any output or stored value, a test fails. */
export const TEST_REDIS_PASSWORD = "redis-PW-7c1e5a9d3b";

/** Writes a questions JSONL of the given items into `dir`. */
export async function writeQuestions(dir: string, name: string, items: object[]): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `${items.map((item) => JSON.stringify(item)).join("\n")}\n`);
  return path;
}

/**
 * Every value stored in a Redis (strings, hashes, lists, sets, sorted sets, streams), as text, for grepping: the
 * secrets must appear in none of it.
 */
export async function dumpRedis(redisUrl: string): Promise<string> {
  const { Redis } = await import("ioredis");
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  client.on("error", () => undefined);
  try {
    const keys = await client.keys("*");
    const parts: string[] = [];
    for (const key of keys) {
      const type = await client.type(key);
      let value: unknown;
      if (type === "string") value = await client.get(key);
      else if (type === "hash") value = await client.hgetall(key);
      else if (type === "list") value = await client.lrange(key, 0, -1);
      else if (type === "set") value = await client.smembers(key);
      else if (type === "zset") value = await client.zrange(key, "0", "-1");
      else if (type === "stream") value = await client.xrange(key, "-", "+");
      parts.push(`${key} ${JSON.stringify(value)}`);
    }
    return parts.join("\n");
  } finally {
    client.disconnect();
  }
}

/** How often `needle` occurs in `text`. */
export function hits(text: string, needle: string): number {
  return text.split(needle).length - 1;
}
