import { createHash, randomUUID } from "node:crypto";
import { getResponseSynthesizer, TextNode } from "ragsynth";
import { type BatchWorker, createQueueLLM, type QueueLLM, startBatchWorker } from "ragsynth/batch";
import { MockLLM } from "ragsynth/testing";
import { afterEach, describe, expect, it } from "vitest";
import { testRedisUrl } from "./redis-url.js";

const redisUrl = testRedisUrl();
const closers: Array<BatchWorker | QueueLLM> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((closer) => closer.close()));
});

// A deterministic "model": a short summary that depends on every character of the prompt.
function summarize(prompt: string): string {
  const digest = createHash("sha256").update(prompt).digest("hex");
  const facts = prompt.match(/Fact \d+/g) ?? [];
  return `Summary ${digest.slice(0, 8)} of ${facts.length} facts from ${facts[0] ?? "none"}.`;
}

const nodes = Array.from({ length: 2000 }, (_, index) => ({
  node: new TextNode({
    id: `chunk-${index}`,
    text: `Fact ${index}: the component numbered ${index} depends on component ${(index * 7) % 2000} and ships in release ${index % 13}.`,
  }),
  score: 1,
}));

describe.skipIf(!redisUrl)("distributed tree_summarize (real Redis)", () => {
  it("gives the same final text and number of calls as local tree_summarize on 2,000 chunks", async () => {
    const query = "Summarize the dependencies between the components.";
    const local = new MockLLM({ response: ({ prompt }) => summarize(prompt ?? ""), contextWindow: 1024 });
    const expected = await getResponseSynthesizer({ llm: local, responseMode: "tree_summarize" }).synthesize({
      query,
      nodes,
    });
    expect(local.calls.length).toBeGreaterThan(50);

    const queueName = `sum-${randomUUID()}`;
    const jobs: string[] = [];
    for (let index = 0; index < 2; index += 1) {
      const worker = await startBatchWorker({
        redisUrl: redisUrl as string,
        queueName,
        concurrency: 8,
        processors: {
          "llm-call": async (item) => {
            jobs.push(item.id);
            const text = summarize(String(item.prompt));
            return { value: text, usage: { llmCalls: 1, promptTokens: 0, completionTokens: 0, retries: 0 } };
          },
        },
      });
      await worker.ready;
      closers.push(worker);
    }
    const remote = await createQueueLLM({
      redisUrl: redisUrl as string,
      queueName,
      metadata: local.metadata,
      config: null,
    });
    closers.push(remote);
    const distributed = await getResponseSynthesizer({
      llm: remote,
      responseMode: "tree_summarize",
      concurrency: 32,
    }).synthesize({
      query,
      nodes,
    });
    expect(distributed.response).toBe(expected.response);
    expect(distributed.usage.llmCalls).toBe(local.calls.length);
    expect(jobs).toHaveLength(local.calls.length);
    expect(new Set(jobs).size).toBe(jobs.length);
  }, 180_000);
});
