// Issue 25, row 2: a questions file or a queue job must not choose where the operator's API key goes.
// On main, the other server received `Authorization: Bearer <key>`, embedded and worker alike.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli, startCli, TEST_API_KEY, waitForOutput } from "../cli/run-cli.js";
import { waitUntil } from "../redis/batch-test-helpers.js";
import { testRedisUrl } from "../redis/redis-url.js";
import { writeQuestions } from "./security-helpers.js";

let operator: FakeOpenAIServer;
let other: FakeOpenAIServer;
let corpus: Awaited<ReturnType<typeof copyExampleDocs>>;
let env: Record<string, string>;

beforeAll(async () => {
  operator = await startFakeOpenAIServer({ handler: () => "The operator's model answered." });
  other = await startFakeOpenAIServer({ handler: () => "The other server answered." });
  corpus = await copyExampleDocs();
  env = { RAGSYNTH_LLM: `${operator.url}#fake`, OPENAI_API_KEY: TEST_API_KEY };
  expect((await runCli(["index", corpus.docs], { env })).code).toBe(0);
}, 120_000);

afterAll(async () => {
  await operator?.close();
  await other?.close();
  await corpus?.cleanup();
});

describe("batch (embedded): an item's llm is one the operator allowed", () => {
  it("refuses a line naming another server before any call, and the other server receives nothing", async () => {
    const questions = await writeQuestions(corpus.dir, "foreign-llm.jsonl", [
      { id: "q0", query: "What is the default response mode?" },
      { id: "q1", query: "What is compact mode?", llm: `${other.url}#x` },
    ]);
    const out = join(corpus.dir, "foreign-llm.out.jsonl");
    const result = await runCli(
      ["batch", questions, "--index", join(corpus.docs, ".ragsynth"), "--out", out],
      { env },
    );
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/Line 2: .*item "q1"\.llm.*allows.*--allow-llm/);
    expect(other.requests).toHaveLength(0);
    expect(operator.requests.filter((request) => request.prompt !== undefined)).toHaveLength(0);
    await expect(readFile(out, "utf8")).rejects.toThrow();
  });

  it("sends an item to another server only when the operator named it with --allow-llm", async () => {
    const questions = await writeQuestions(corpus.dir, "allowed-llm.jsonl", [
      { id: "q1", query: "What is compact mode?", llm: `${other.url}#x` },
    ]);
    const out = join(corpus.dir, "allowed-llm.out.jsonl");
    const result = await runCli(
      [
        "batch",
        questions,
        "--index",
        join(corpus.docs, ".ragsynth"),
        "--out",
        out,
        "--allow-llm",
        `${other.url}#x`,
      ],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(other.requests.length).toBeGreaterThan(0);
    expect(JSON.parse(await readFile(out, "utf8")).value.answer).toBe("The other server answered.");
  });
});

const redisUrl = testRedisUrl() ?? "";

describe.skipIf(!redisUrl)("ragsynth worker: queue jobs are untrusted (real Redis)", () => {
  let worker: ReturnType<typeof startCli> | undefined;
  let queue: Queue;
  let outside: string;
  const queueName = `security-jobs-${process.pid}`;

  beforeAll(async () => {
    outside = await mkdtemp(join(tmpdir(), "ragsynth-outside-"));
    worker = startCli(
      ["worker", "--redis", redisUrl, "--queue", queueName, "--index-root", corpus.dir, "--verbose"],
      { env },
    );
    await waitForOutput(worker.output, (output) => output.stderr.includes("taking jobs"), 60_000);
    queue = new Queue(queueName, { connection: { url: redisUrl } });
  }, 90_000);

  afterAll(async () => {
    worker?.child.kill("SIGKILL");
    await queue?.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    await rm(outside, { recursive: true, force: true });
  });

  const config = () => ({
    index: join(corpus.docs, ".ragsynth"),
    llm: `${operator.url}#fake`,
    embed: null,
    mode: "compact",
    topK: 2,
    contextWindow: null,
    numOutput: null,
    concurrency: 4,
  });

  async function settle(jobId: string, data: object) {
    await queue.add("question", data, { jobId, attempts: 3, backoff: { type: "fixed", delay: 10 } });
    await waitUntil(async () => ["completed", "failed"].includes(await queue.getJobState(jobId)), 30_000);
    const job = await queue.getJob(jobId);
    return {
      state: await queue.getJobState(jobId),
      reason: job?.failedReason ?? "",
      attempts: job?.attemptsMade,
    };
  }

  it.each([
    [
      "a run model naming another server",
      (c: object) => ({ config: { ...c, llm: `${other.url}#x` }, item: {} }),
      /config\.llm/,
    ],
    [
      "an item model naming another server",
      (c: object) => ({ config: c, item: { llm: `${other.url}#x` } }),
      /\.llm/,
    ],
    [
      "an index outside --index-root",
      (c: object) => ({ config: { ...c, index: outside }, item: {} }),
      /config\.index.*outside/,
    ],
    ["an unknown job field", (c: object) => ({ config: c, item: {}, apiKey: "x" }), /job\.data\.apiKey/],
    ["an unknown mode", (c: object) => ({ config: { ...c, mode: "telepathy" }, item: {} }), /config\.mode/],
  ])("fails a job with %s as invalid_argument, once, and no call leaves", async (name, shape, message) => {
    const { config: jobConfig, item, ...rest } = shape(config()) as { config: object; item: object };
    const before = other.requests.length;
    const result = await settle(`bad-${name.replace(/\W+/g, "-")}`, {
      runId: "security",
      kind: "question",
      config: jobConfig,
      item: { id: name, query: "What is compact mode?", ...item },
      ...rest,
    });
    expect(result.state).toBe("failed");
    expect(result.reason).toMatch(/^invalid_argument: /);
    expect(result.reason).toMatch(message);
    expect(result.attempts).toBe(1);
    expect(other.requests.length).toBe(before);
  });

  it("answers a job within the rules, through the operator's server only", async () => {
    const before = other.requests.length;
    const result = await settle("good", {
      runId: "security",
      kind: "question",
      config: config(),
      item: { id: "good", query: "What is compact mode?" },
    });
    expect(result.state, result.reason).toBe("completed");
    expect(other.requests.length).toBe(before);
    expect(worker?.output().stderr).not.toMatch(/MaxListenersExceededWarning/);
  });
});
