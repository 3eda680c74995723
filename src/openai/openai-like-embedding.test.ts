import { inspect } from "node:util";
import { describe, expect, it, vi } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { LLMError } from "../errors/llm-error.js";
import { fakeEmbedding } from "../testing/fake-openai-replies.js";
import type { FakeOpenAIServer, FakeOpenAIServerOptions } from "../testing/fake-openai-server.js";
import { fakeServersClosedAfterEach } from "../testing/fake-servers-closed-after-each.test.util.js";
import { OpenAILikeEmbedding, type OpenAILikeEmbeddingOptions } from "./openai-like-embedding.js";

const startServer = fakeServersClosedAfterEach();
let server: FakeOpenAIServer | undefined;

async function setup(
  serverOptions?: FakeOpenAIServerOptions,
  options: Partial<OpenAILikeEmbeddingOptions> = {},
) {
  server = await startServer(serverOptions);
  const delays: number[] = [];
  const embedder = new OpenAILikeEmbedding({
    model: "embed-model",
    baseURL: server.url,
    apiKey: "sk-local",
    _internal: { sleep: async (ms) => void delays.push(ms), random: () => 0.5 },
    ...options,
  });
  return { server, embedder, delays };
}

const texts = (count: number) => Array.from({ length: count }, (_, i) => `text number ${i} word${i % 7}`);
const inputs = (server: FakeOpenAIServer) =>
  server.requests.map((request) => (request.body as { input: string[] }).input);

describe("OpenAILikeEmbedding", () => {
  it("batches 250 texts into requests of at most 100, preserving order", async () => {
    const { server, embedder } = await setup();
    const all = texts(250);
    const vectors = await embedder.getTextEmbeddings(all);
    expect(vectors).toEqual(all.map((text) => fakeEmbedding(text)));
    expect(inputs(server).map((input) => input.length)).toEqual([100, 100, 50]);
    expect(inputs(server).flat()).toEqual(all);
    expect(server.requests[0]?.body).toMatchObject({ model: "embed-model", encoding_format: "float" });
  });

  it("keeps order even when batches finish out of order", async () => {
    const { embedder } = await setup(
      {
        faults: [{ kind: "slow-first-byte", delayMs: 60, requests: [0] }],
      },
      { batchSize: 2, concurrency: 3 },
    );
    const all = texts(6);
    expect(await embedder.getTextEmbeddings(all)).toEqual(all.map((text) => fakeEmbedding(text)));
  });

  it("bounds the requests in flight by concurrency", async () => {
    const { server, embedder } = await setup({ latencyMs: 30 }, { batchSize: 10, concurrency: 2 });
    await embedder.getTextEmbeddings(texts(100));
    expect(server.requests).toHaveLength(10);
    expect(server.stats.maxInFlight).toBe(2);
  });

  it("sends dimensions, embeds a query, and returns [] for no texts without a request", async () => {
    const { server, embedder } = await setup(undefined, { dimensions: 8 });
    expect(await embedder.getTextEmbeddings([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
    expect(await embedder.getQueryEmbedding("a cat")).toEqual(fakeEmbedding("a cat"));
    expect(server.requests[0]?.body).toMatchObject({ input: ["a cat"], dimensions: 8 });
  });

  it("retries a failing batch under the shared policy", async () => {
    const { server, embedder, delays } = await setup(
      { faults: [{ kind: "rate-limit", retryAfter: 1, requests: [1] }] },
      { batchSize: 2, concurrency: 1 },
    );
    const all = texts(4);
    expect(await embedder.getTextEmbeddings(all)).toEqual(all.map((text) => fakeEmbedding(text)));
    expect(delays).toEqual([1000]);
    expect(server.requests).toHaveLength(3);
  });

  it("fails with a typed error and stops the other batches", async () => {
    const { server, embedder } = await setup(
      { latencyMs: 20, faults: [{ kind: "status", status: 400, message: "input too long", requests: [0] }] },
      { batchSize: 1, concurrency: 2 },
    );
    const error = (await embedder
      .getTextEmbeddings(texts(20))
      .catch((caught: unknown) => caught)) as LLMError;
    expect(error).toMatchObject({ code: "llm_bad_request", status: 400, url: `${server.url}/embeddings` });
    expect(server.requests.length).toBeLessThan(5);
  });

  it("carries the signal to every batch: abort stops them and closes connections", async () => {
    const { server, embedder } = await setup(
      { faults: [{ kind: "slow-first-byte", delayMs: 5000 }] },
      { batchSize: 1, concurrency: 3 },
    );
    const controller = new AbortController();
    const pending = embedder.getTextEmbeddings(texts(9), { signal: controller.signal });
    while (server.requests.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    const closed = await Promise.all([0, 1, 2].map((index) => server.waitForClose(index, 300)));
    expect(closed.every((record) => record.closedByClient)).toBe(true);
    expect(server.requests).toHaveLength(3);
  });

  it("times out at timeoutMs", async () => {
    const { embedder } = await setup(
      { faults: [{ kind: "slow-first-byte", delayMs: 3000 }] },
      { timeoutMs: 50 },
    );
    const error = (await embedder.getTextEmbeddings(["x"]).catch((caught: unknown) => caught)) as LLMError;
    expect(error.code).toBe("llm_timeout");
  });

  it("names itself openai:<model> on OpenAI and <baseURL>#<model> elsewhere", () => {
    expect(
      new OpenAILikeEmbedding({
        model: "text-embedding-3-small",
        apiKey: "k",
        baseURL: "https://api.openai.com/v1",
      }).id,
    ).toBe("openai:text-embedding-3-small");
    expect(
      new OpenAILikeEmbedding({ model: "nomic-embed-text", baseURL: "http://localhost:11434/v1/" }).id,
    ).toBe("http://localhost:11434/v1#nomic-embed-text");
    expect(
      new OpenAILikeEmbedding({
        model: "m",
        apiKey: "k",
        baseURL: "https://api.openai.com/v1",
        dimensions: 256,
      }).id,
    ).toBe("openai:m@256");
  });

  it("validates options and requires a key for OpenAI", () => {
    expect(() => new OpenAILikeEmbedding({ model: "m", baseURL: "http://x/v1", batchSize: 0 })).toThrow(
      InvalidArgumentError,
    );
    expect(() => new OpenAILikeEmbedding({ model: "", baseURL: "http://x/v1" })).toThrow("Expected `model`");
    vi.stubEnv("OPENAI_API_KEY", "");
    vi.stubEnv("OPENAI_BASE_URL", "");
    expect(() => new OpenAILikeEmbedding({ model: "text-embedding-3-small" })).toThrow(
      expect.objectContaining({ code: "missing_api_key" }),
    );
  });

  it("never puts the key in errors", async () => {
    const key = "sk-test-SECRET-123456";
    const { embedder } = await setup(
      { faults: [{ kind: "status", status: 401, message: `bad key ${key}` }] },
      { apiKey: key },
    );
    const error = (await embedder.getTextEmbeddings(["x"]).catch((caught: unknown) => caught)) as LLMError;
    expect(error.code).toBe("llm_auth");
    const captured = [error.message, error.stack, JSON.stringify(error), inspect(error, { depth: 20 })].join(
      "\n",
    );
    expect(captured).toContain("bad key [REDACTED]");
    expect(captured).not.toContain("SECRET-123456");
  });
});
