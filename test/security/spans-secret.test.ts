// Issue 25, What to build 3: the secret-grep matrix's OpenTelemetry channel (the CLI channels are in
// secret-grep.test.ts). Real SDK, in-memory exporter, message content captured, a local server that echoes the key.
import { OpenAILike, RetrieverQueryEngine, TextNode } from "ragsynth";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createInMemoryTracing,
  type InMemoryTracing,
} from "../../src/tracing/in-memory-tracing.test.util.js";
import { TEST_API_KEY } from "../cli/run-cli.js";
import { hits } from "./security-helpers.js";

let echo: FakeOpenAIServer;
let failing: FakeOpenAIServer;
let tracing: InMemoryTracing;

beforeAll(async () => {
  echo = await startFakeOpenAIServer({ handler: () => `Your key is ${TEST_API_KEY}.` });
  failing = await startFakeOpenAIServer({
    faults: [{ kind: "status", status: 401, message: `Incorrect API key provided: ${TEST_API_KEY}` }],
  });
});
afterAll(async () => {
  await Promise.all([echo?.close(), failing?.close()]);
});
beforeEach(() => {
  tracing = createInMemoryTracing();
});
afterEach(() => tracing.shutdown());

function engine(server: FakeOpenAIServer) {
  return new RetrieverQueryEngine({
    retriever: {
      retrieve: async () => [{ node: new TextNode({ text: `Config: OPENAI_API_KEY=${TEST_API_KEY}` }) }],
    },
    llm: new OpenAILike({ model: "fake", baseURL: server.url, apiKey: TEST_API_KEY, maxRetries: 0 }),
    tracer: tracing.tracer,
    captureContent: true,
  });
}

function spanText(): string {
  return JSON.stringify(
    tracing.spans().map((span) => ({
      name: span.name,
      attributes: span.attributes,
      events: span.events,
      status: span.status,
    })),
  );
}

describe("OpenTelemetry spans hold no API key", () => {
  it("with content capture on, a source and an answer that both hold the key", async () => {
    const response = await engine(echo).query({ query: "What is the key?" });
    expect(response.response).toContain(TEST_API_KEY); // the library answer is the caller's to print
    const text = spanText();
    expect(text).toContain("[REDACTED]");
    expect(hits(text, TEST_API_KEY)).toBe(0);
  });

  it("a 401 whose body echoes the key: the error span", async () => {
    await expect(engine(failing).query({ query: "What is the key?" })).rejects.toMatchObject({
      code: "llm_auth",
    });
    const text = spanText();
    expect(tracing.spans().length).toBeGreaterThan(0);
    expect(hits(text, TEST_API_KEY)).toBe(0);
  });
});
