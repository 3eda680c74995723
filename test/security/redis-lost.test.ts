// Issue 25, row 4: while a running batch loses Redis, the progress says so (on main it said nothing: the counts
// just stopped). The CLI draws `progress.connectionLost` as "Redis unreachable, waiting to reconnect".
import { randomUUID } from "node:crypto";
import { type BatchProgress, createBullMQRunner, startBatchWorker } from "ragsynth/batch";
import { describe, expect, it } from "vitest";
import { waitUntil } from "../redis/batch-test-helpers.js";
import { redisServerBinary, startRedisServer } from "../redis/redis-server.js";

describe.skipIf(!redisServerBinary())("a running batch that loses Redis (own redis-server)", () => {
  it("reports connectionLost while Redis is down, and clears it once the run goes on", async () => {
    let redis = await startRedisServer();
    const queueName = `lost-${randomUUID()}`;
    const snapshots: BatchProgress[] = [];
    const runner = createBullMQRunner({ redisUrl: redis.url, queueName, pollMs: 100 });
    const items = Array.from({ length: 5 }, (_, index) => ({ id: `i${index}` }));
    // No worker yet: the jobs wait while Redis goes away.
    const running = runner.run({
      runId: "lost",
      kind: "question",
      items,
      onProgress: (p) => snapshots.push(p),
    });
    try {
      await waitUntil(() => snapshots.length > 0, 30_000);
      await redis.stop();
      await waitUntil(() => snapshots.some((snapshot) => snapshot.connectionLost === true), 30_000);
      redis = await redis.restart();
      const worker = await startBatchWorker({
        redisUrl: redis.url,
        queueName,
        processors: { question: async (item) => ({ value: `done ${item.id}` }) },
      });
      try {
        const outcome = await running;
        expect(outcome.progress.done).toBe(5);
        const lost = snapshots.findIndex((snapshot) => snapshot.connectionLost === true);
        expect(snapshots.slice(lost).some((snapshot) => snapshot.connectionLost === false)).toBe(true);
        expect(snapshots.at(-1)?.connectionLost).not.toBe(true);
      } finally {
        await worker.close(true);
      }
    } finally {
      await redis.dispose();
    }
  }, 120_000);
});
