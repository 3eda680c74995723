import { randomUUID } from "node:crypto";
import { createBullMQRunner, startBatchWorker } from "ragsynth/batch";
import { describe, expect, it } from "vitest";
import { waitUntil } from "./batch-test-helpers.js";
import { redisServerBinary, startRedisServer } from "./redis-server.js";

// Needs its own redis-server to restart; CI installs it, so there a missing binary fails instead of skipping.
const runnable = redisServerBinary() !== undefined || process.env.CI === "true";

describe.skipIf(!runnable)("Redis restarted mid-run (append-only file on)", () => {
  it("workers and the submitter reconnect, and the run finishes with every item exactly once", async () => {
    let redis = await startRedisServer();
    const queueName = `restart-${randomUUID()}`;
    const processed: string[] = [];
    const workers = await Promise.all(
      [0, 1].map(() =>
        startBatchWorker({
          redisUrl: redis.url,
          queueName,
          concurrency: 4,
          // Jobs whose completion was lost while Redis was down are retaken as stalled; soon, in a test.
          lockDurationMs: 3000,
          stalledIntervalMs: 3000,
          processors: {
            question: async (item) => {
              await new Promise((resolve) => setTimeout(resolve, 20));
              processed.push(item.id);
              return { value: `done ${item.id}` };
            },
          },
        }),
      ),
    );
    try {
      await Promise.all(workers.map((worker) => worker.ready));
      const items = Array.from({ length: 200 }, (_, index) => ({ id: `i${index}` }));
      const runner = createBullMQRunner({ redisUrl: redis.url, queueName, pollMs: 300 });
      const running = runner.run({ runId: "restart", kind: "question", items });
      await waitUntil(() => processed.length >= 40, 60_000);
      redis = await redis.restart();
      const outcome = await running;
      expect(outcome.results.map((result) => result.id)).toEqual(items.map((item) => item.id));
      expect(outcome.results.every((result) => result.ok && result.value === `done ${result.id}`)).toBe(true);
      expect(new Set(processed).size).toBe(200);
    } finally {
      await Promise.all(workers.map((worker) => worker.close(true)));
      await redis.dispose();
    }
  }, 180_000);
});
