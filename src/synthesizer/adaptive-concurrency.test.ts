import { describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { OpenAILike } from "../openai/openai-like.js";
import { fakeServersClosedAfterEach } from "../testing/fake-servers-closed-after-each.test.util.js";
import { nodesOf, words } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

const startServer = fakeServersClosedAfterEach();

// 48 nodes of ~200 tokens packed into a 700-token window: ~16 leaf calls, then 1–2 rounds of summaries.
const nodes = nodesOf(...Array.from({ length: 48 }, (_, index) => words(100, `n${index}w`)));
const query = "What do the words say?";

/**
 * A model on the fake server with a fixed retry jitter and short backoff, so counts do not depend on chance.
 * `backoffs` counts the retries that waited out OpenAILike's own backoff.
 */
function model(url: string, backoffs = { count: 0 }) {
  return new OpenAILike({
    model: "fake",
    baseURL: url,
    contextWindow: 700,
    maxRetries: 20,
    retry: { initialDelayMs: 4, maxDelayMs: 20 },
    _internal: {
      random: () => 0.5,
      sleep: (ms) => {
        backoffs.count++;
        return new Promise((resolve) => setTimeout(resolve, ms));
      },
    },
  });
}

function tree(llm: OpenAILike, concurrency?: number) {
  return getResponseSynthesizer({
    llm,
    responseMode: "tree_summarize",
    promptHelper: new PromptHelper({ contextWindow: 700, numOutput: 32 }),
    ...(concurrency === undefined ? {} : { concurrency }),
  });
}

// Counts only (429s, most requests accepted at once), never timings.
describe("adaptive concurrency against a server that accepts 4 requests at once", () => {
  it("the default settles at the server's limit with a handful of 429s; a fixed 16 meets a wall of them", async () => {
    const server = await startServer({ latencyMs: 80, maxConcurrent: 4, handler: () => "A short summary." });
    const backoffs = { count: 0 };
    const adaptive = await tree(model(server.url, backoffs)).synthesize({ query, nodes });
    expect(adaptive.usage.llmCalls).toBeGreaterThan(15);
    const adaptiveRejected = server.stats.rejected;
    expect(adaptiveRejected).toBeGreaterThan(0);
    // A first window of 8 meets about 4 rejections; the limit then settles at 4 (a probe above it is rare).
    expect(adaptiveRejected).toBeLessThanOrEqual(10);
    // Every 429 went back into the limiter's queue behind a running call instead of sleeping a backoff.
    expect(backoffs.count).toBe(0);

    const fixed = await startServer({ latencyMs: 80, maxConcurrent: 4, handler: () => "A short summary." });
    // Its first round alone sends 16 at once: 12 rejections, and more on every round; on a slow machine a call
    // can even run out of retries against that wall, which is the point of the comparison, so the outcome is not
    // what is checked here: the server's count is.
    await tree(model(fixed.url), 16)
      .synthesize({ query, nodes })
      .catch((error: unknown) => expect(error).toMatchObject({ code: "retries_exhausted" }));
    expect(fixed.stats.rejected).toBeGreaterThanOrEqual(8);
    expect(fixed.stats.maxAccepted).toBe(4);
  });

  it("against 16 at once, the default grows past its start of 8 with a handful of 429s", async () => {
    const server = await startServer({ latencyMs: 80, maxConcurrent: 16, handler: () => "A short summary." });
    const many = nodesOf(...Array.from({ length: 150 }, (_, index) => words(100, `m${index}w`)));
    await tree(model(server.url)).synthesize({ query, nodes: many });
    // 8 → 12 → 18 meets the limit once (2 rejections); a loaded machine may add a few (the server counts a
    // request until its socket closes). Where the cut lands is checked without HTTP in the limiter's tests.
    expect(server.stats.maxAccepted).toBeGreaterThan(8);
    expect(server.stats.rejected).toBeLessThanOrEqual(10);
  });

  it("two synthesizers on one model share its limiter: together they stay near the limit", async () => {
    const server = await startServer({ latencyMs: 80, maxConcurrent: 4, handler: () => "A short summary." });
    const llm = model(server.url);
    await Promise.all([tree(llm).synthesize({ query, nodes }), tree(llm).synthesize({ query, nodes })]);
    // Two independent limiters would each probe above 4 (at least 8 rejections at the start alone).
    expect(server.stats.rejected).toBeLessThanOrEqual(10);
  });
});
