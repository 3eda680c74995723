import { randomUUID } from "node:crypto";
import { LLMError } from "ragsynth";
import type { BatchItem, BatchProcessor, BatchWorker } from "ragsynth/batch";
import { createBullMQRunner, startBatchWorker } from "ragsynth/batch";
import { afterEach, describe, expect, it } from "vitest";
import { testRedisUrl } from "./redis-url.js";

const redisUrl = testRedisUrl();
const workers: BatchWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.close(true)));
});

const items = (count: number): BatchItem[] =>
  Array.from({ length: count }, (_, index) => ({ id: `q:${index}`, query: `question ${index}` }));

async function startWorkers(queueName: string, processor: BatchProcessor, count = 2) {
  for (let index = 0; index < count; index += 1) {
    const worker = await startBatchWorker({
      redisUrl: redisUrl as string,
      queueName,
      processors: { question: processor },
      concurrency: 3,
    });
    await worker.ready;
    workers.push(worker);
  }
}

describe.skipIf(!redisUrl)("BullMQ backend (real Redis)", () => {
  it("runs every item as a job, collects results in input order, and a rerun pays for nothing", async () => {
    const queueName = `t-${randomUUID()}`;
    const seen: string[] = [];
    await startWorkers(queueName, async (item) => {
      seen.push(item.id);
      return {
        value: `answer ${item.query}`,
        usage: { llmCalls: 1, promptTokens: 3, completionTokens: 1, retries: 0 },
      };
    });
    const runner = createBullMQRunner({ redisUrl: redisUrl as string, queueName, pollMs: 200 });
    const outcome = await runner.run({ runId: "run1", kind: "question", items: items(40) });
    expect(outcome.results.map((result) => result.id)).toEqual(items(40).map((item) => item.id));
    expect(outcome.results.every((result) => result.ok)).toBe(true);
    expect(outcome.results[7]?.value).toBe("answer question 7");
    expect(outcome.progress).toMatchObject({ done: 40, failed: 0, promptTokens: 120 });
    expect(seen).toHaveLength(40);

    const again = await runner.run({ runId: "run1", kind: "question", items: items(40) });
    expect(seen).toHaveLength(40);
    expect(again.progress.skipped).toBe(40);
    expect(again.results[39]?.value).toBe("answer question 39");
  });

  it("retries a failing job with backoff, then records it failed with its typed error; the rest complete", async () => {
    const queueName = `t-${randomUUID()}`;
    const attempts = new Map<string, number>();
    await startWorkers(queueName, async (item) => {
      attempts.set(item.id, (attempts.get(item.id) ?? 0) + 1);
      if (item.id === "q:2")
        throw new LLMError({ code: "llm_server_error", message: "Fake 500", retryable: true });
      return { value: "fine" };
    });
    const runner = createBullMQRunner({
      redisUrl: redisUrl as string,
      queueName,
      attempts: 3,
      backoffMs: 50,
      pollMs: 200,
    });
    const outcome = await runner.run({ runId: "r", kind: "question", items: items(6) });
    expect(attempts.get("q:2")).toBe(3);
    expect(outcome.results[2]).toEqual({
      id: "q:2",
      ok: false,
      error: { code: "llm_server_error", message: "Fake 500", attempts: 3 },
    });
    expect(outcome.progress).toMatchObject({ done: 5, failed: 1 });
  });

  it("a 429 with Retry-After pauses the queue and puts the job back without using an attempt", async () => {
    const queueName = `t-${randomUUID()}`;
    let calls = 0;
    await startWorkers(
      queueName,
      async (item) => {
        calls += 1;
        if (calls === 1)
          throw new LLMError({
            code: "llm_rate_limit",
            message: "slow down",
            status: 429,
            retryAfterMs: 300,
            retryable: true,
          });
        return { value: item.id };
      },
      1,
    );
    const runner = createBullMQRunner({ redisUrl: redisUrl as string, queueName, attempts: 1, pollMs: 200 });
    const outcome = await runner.run({ runId: "r", kind: "question", items: items(3) });
    expect(outcome.results.every((result) => result.ok)).toBe(true);
    expect(calls).toBe(4);
  });
});
