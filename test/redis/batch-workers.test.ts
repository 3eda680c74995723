import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { getBatchStatus } from "ragsynth/batch";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli, startCli, TEST_API_KEY } from "../cli/run-cli.js";
import { duplicatePrompts, maxPerWindow, startWorkers, waitUntil } from "./batch-test-helpers.js";
import { testRedisUrl } from "./redis-url.js";

const redisUrl = testRedisUrl() as string;
let server: FakeOpenAIServer;
let corpus: Awaited<ReturnType<typeof copyExampleDocs>>;
let env: Record<string, string>;
const children: Array<ReturnType<typeof startCli>> = [];

async function writeQuestions(name: string, count: number): Promise<string> {
  const path = join(corpus.dir, name);
  const lines = Array.from({ length: count }, (_, index) =>
    JSON.stringify({
      id: `q${index}`,
      query: `${name} question ${index}: what is the default response mode?`,
    }),
  );
  await writeFile(path, `${lines.join("\n")}\n`);
  return path;
}

function startTestWorkers(queue: string, count: number) {
  return startWorkers(count, {
    redisUrl: redisUrl as string,
    queue,
    indexRoot: corpus.dir,
    env,
    children,
    args: ["--concurrency", "4", "--lock-duration", "8000"],
  });
}

describe.skipIf(!redisUrl)("batch over BullMQ with worker processes (real Redis, fake OpenAI server)", () => {
  beforeAll(async () => {
    server = await startFakeOpenAIServer({ latencyMs: 25, handler: ({ index }) => `Answer ${index}.` });
    corpus = await copyExampleDocs();
    env = { RAGSYNTH_LLM: `${server.url}#fake`, OPENAI_API_KEY: TEST_API_KEY };
    const indexed = await runCli(["index", corpus.docs], { env });
    expect(indexed.code).toBe(0);
  }, 120_000);

  afterAll(async () => {
    for (const child of children) if (child.child.exitCode === null) child.child.kill("SIGKILL");
    await server?.close();
    await corpus?.cleanup();
  });

  it("answers 500 questions exactly once across 2 workers, one killed with SIGKILL mid-run", async () => {
    const queue = `w-${randomUUID()}`;
    const [victim] = await startTestWorkers(queue, 2);
    const questions = await writeQuestions("q500.jsonl", 500);
    const out = join(corpus.dir, "a500.jsonl");
    const submit = startCli(
      [
        "batch",
        questions,
        "--index",
        join(corpus.docs, ".ragsynth"),
        "--out",
        out,
        "--redis",
        redisUrl,
        "--queue",
        queue,
        "--json",
      ],
      { env },
    );
    children.push(submit);
    await waitUntil(() => server.requests.length >= 150, 120_000);
    const killedAt = Date.now();
    victim?.child.kill("SIGKILL");
    await victim?.done;
    // A request the worker sent in the moment before the signal landed still counts as in flight: it must have
    // started before the worker was gone (taken once it is), and closed no earlier than just before the kill.
    const goneAt = Date.now();
    const result = await submit.done;
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ backend: "bullmq", done: 500, failed: 0 });

    const lines = (await readFile(out, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(500);
    expect(lines.map((line) => line.id)).toEqual(Array.from({ length: 500 }, (_, index) => `q${index}`));
    expect(lines.every((line) => line.ok && /^Answer \d+\.$/.test(line.value.answer))).toBe(true);

    // No prompt was paid for twice, except calls in flight when the worker died (at most its concurrency).
    const duplicates = duplicatePrompts(server.requests);
    const described = JSON.stringify(
      duplicates.map((first) => ({
        startedAt: first.startedAt - killedAt,
        closedAt: (first.closedAt ?? 0) - killedAt,
      })),
    );
    expect(duplicates.length, described).toBeLessThanOrEqual(4);
    for (const first of duplicates) {
      expect(first.startedAt, described).toBeLessThanOrEqual(goneAt);
      expect(first.closedAt ?? Number.POSITIVE_INFINITY, described).toBeGreaterThanOrEqual(killedAt - 50);
    }
    const chatRequests = server.requests.filter((request) => request.prompt !== undefined);
    expect(chatRequests.length).toBe(500 + duplicates.length);
  }, 240_000);

  it("holds one requests-per-second limit across 2 workers", async () => {
    const queue = `rl-${randomUUID()}`;
    await startTestWorkers(queue, 2);
    const questions = await writeQuestions("q-rate.jsonl", 20);
    const before = server.requests.length;
    // Requests are spaced 500 ms apart; a window breaks R + 1 only if a worker stalls that long between
    // the queue's grant and the send (seen at load averages near 40 with R = 5).
    const perSecond = 2;
    const result = await runCli(
      [
        "batch",
        questions,
        "--index",
        join(corpus.docs, ".ragsynth"),
        "--out",
        join(corpus.dir, "a-rate.jsonl"),
        "--redis",
        redisUrl,
        "--queue",
        queue,
        "--requests-per-minute",
        String(perSecond * 60),
        "--json",
      ],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    const times = server.requests
      .slice(before)
      .filter((request) => request.prompt !== undefined)
      .map((request) => request.startedAt);
    expect(times).toHaveLength(20);
    expect(maxPerWindow(times, 1000)).toBeLessThanOrEqual(perSecond + 1);
  }, 240_000);

  it("Ctrl-C on the submitting CLI leaves the jobs queued, and --status shows them", async () => {
    const queue = `c-${randomUUID()}`;
    const questions = await writeQuestions("q-ctrl-c.jsonl", 20);
    const submit = startCli(
      [
        "batch",
        questions,
        "--index",
        join(corpus.docs, ".ragsynth"),
        "--out",
        join(corpus.dir, "a-c.jsonl"),
        "--redis",
        redisUrl,
        "--queue",
        queue,
      ],
      { env },
    );
    children.push(submit);
    await waitUntil(
      async () => (await getBatchStatus({ redisUrl, queueName: queue })).waiting === 20,
      60_000,
    );
    submit.child.kill("SIGINT");
    const result = await submit.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/keep running on the workers/);
    const status = await runCli(["batch", "--status", "--redis", redisUrl, "--queue", queue, "--json"], {
      env,
    });
    expect(JSON.parse(status.stdout)).toMatchObject({
      queueName: queue,
      waiting: 20,
      completed: 0,
      failed: 0,
    });
  }, 120_000);
});
