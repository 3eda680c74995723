import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli, startCli, TEST_API_KEY, waitForOutput } from "../cli/run-cli.js";
import { testRedisUrl } from "./redis-url.js";

// `batch --citations` over BullMQ: the setting travels in the job, and a worker process answers through the
// citation engine, so each result line carries its checked citations.
const redisUrl = testRedisUrl() as string;
const ANSWER = "The default response mode is compact [1]. It was chosen by moon penguins [1]. See also [99].";
let server: FakeOpenAIServer;
let corpus: Awaited<ReturnType<typeof copyExampleDocs>>;
let worker: ReturnType<typeof startCli> | undefined;

describe.skipIf(!redisUrl)("batch --citations with a worker process (real Redis, fake OpenAI server)", () => {
  beforeAll(async () => {
    server = await startFakeOpenAIServer({ handler: () => ANSWER });
    corpus = await copyExampleDocs();
    expect((await runCli(["index", corpus.docs])).code).toBe(0);
  }, 120_000);

  afterAll(async () => {
    if (worker && worker.child.exitCode === null) worker.child.kill("SIGKILL");
    await server?.close();
    await corpus?.cleanup();
  });

  it("every result line carries citations: the invalid marker removed and reported, the unsupported one flagged", async () => {
    const env = { RAGSYNTH_LLM: `${server.url}#fake`, OPENAI_API_KEY: TEST_API_KEY };
    const queue = `c-${randomUUID()}`;
    worker = startCli(["worker", "--redis", redisUrl, "--queue", queue, "--index-root", corpus.dir], { env });
    await waitForOutput(worker.output, (out) => out.stderr.includes("taking jobs"), 60_000);
    const questions = join(corpus.dir, "cited.jsonl");
    const queries = ["What is the default response mode?", "How does refine work?"];
    await writeFile(
      questions,
      `${queries.map((query, index) => JSON.stringify({ id: `q${index}`, query })).join("\n")}\n`,
    );
    const out = join(corpus.dir, "cited-answers.jsonl");
    const index = join(corpus.docs, ".ragsynth");
    const args = ["batch", questions, "--index", index, "--out", out, "--redis", redisUrl, "--queue", queue];
    const submitted = await runCli([...args, "--citations", "--json"], { env });
    expect(submitted.code, submitted.stderr).toBe(0);
    expect(JSON.parse(submitted.stdout)).toMatchObject({ backend: "bullmq", done: 2, failed: 0 });
    const lines = (await readFile(out, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line.value.answer).toBe(
        "The default response mode is compact [1]. It was chosen by moon penguins [1]. See also.",
      );
      expect(line.value.citations.invalid).toEqual([expect.objectContaining({ marker: "[99]" })]);
      expect(line.value.citations.unsupported).toEqual([
        { source: 1, sentence: "It was chosen by moon penguins [1]." },
      ]);
    }
    // The worker was asked with the citation prompt and its numbered pieces.
    expect(server.requests.every((request) => request.prompt?.includes("Source 1:"))).toBe(true);
  });
});
