// Issue 30, items 9 and 10: a polling run leaked one abort listener per turn (MaxListenersExceededWarning
// … 11 abort listeners on every Redis batch); --status summed every run in the queue; jobs reported no progress.
import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import type { BatchItem, BatchWorker } from "ragsynth/batch";
import { createBullMQRunner, getBatchStatus, startBatchWorker } from "ragsynth/batch";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";
import { testRedisUrl } from "./redis-url.js";

const redisUrl = testRedisUrl();
const workers: BatchWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.close(true)));
});

const items = (count: number): BatchItem[] =>
  Array.from({ length: count }, (_, index) => ({ id: `q${index}`, query: `question ${index}` }));

describe.skipIf(!redisUrl)("batch status and progress (real Redis)", () => {
  it("a run that polls many times with one signal emits no MaxListenersExceededWarning", async () => {
    const queueName = `t-${randomUUID()}`;
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const worker = await startBatchWorker({
        redisUrl: redisUrl as string,
        queueName,
        processors: {
          question: async (item) => {
            await new Promise((resolve) => setTimeout(resolve, 30));
            return { value: String(item.query) };
          },
        },
        concurrency: 1,
      });
      await worker.ready;
      workers.push(worker);
      const controller = new AbortController();
      // A long poll: every job event wakes the loop long before its sleep would end, as in a real run.
      const outcome = await createBullMQRunner({
        redisUrl: redisUrl as string,
        queueName,
        pollMs: 60_000,
      }).run({
        runId: "poll",
        kind: "question",
        items: items(40),
        signal: controller.signal,
      });
      expect(outcome.progress.done).toBe(40);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("counts one run's jobs with --run-id, every run's without; a job's progress ends at 100", async () => {
    const queueName = `t-${randomUUID()}`;
    const queue = new Queue(queueName, { connection: { url: redisUrl as string } });
    try {
      await queue.addBulk([
        ...["q1", "q2", "q3"].map((id) => ({ name: "question", data: {}, opts: { jobId: `runA-${id}` } })),
        ...["q1", "q2"].map((id) => ({ name: "question", data: {}, opts: { jobId: `runB-${id}` } })),
      ]);
      const base = { redisUrl: redisUrl as string, queueName };
      expect(await getBatchStatus({ ...base, runId: "runA" })).toMatchObject({ runId: "runA", waiting: 3 });
      expect(await getBatchStatus({ ...base, runId: "runB" })).toMatchObject({ runId: "runB", waiting: 2 });
      expect(await getBatchStatus(base)).toMatchObject({ runId: null, waiting: 5 });
      const cli = await runCli([
        "batch",
        "--status",
        "--redis",
        redisUrl as string,
        "--queue",
        queueName,
        "--run-id",
        "runB",
        "--json",
      ]);
      expect(JSON.parse(cli.stdout)).toMatchObject({ runId: "runB", waiting: 2, completed: 0 });
      await queue.obliterate({ force: true });

      const worker = await startBatchWorker({
        redisUrl: redisUrl as string,
        queueName,
        processors: { question: async (item) => ({ value: String(item.query) }) },
      });
      await worker.ready;
      workers.push(worker);
      await createBullMQRunner({ redisUrl: redisUrl as string, queueName, pollMs: 50 }).run({
        runId: "p",
        kind: "question",
        items: items(2),
      });
      const job = await queue.getJob("p-q0");
      expect(job?.progress).toBe(100);
    } finally {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
  });
});
