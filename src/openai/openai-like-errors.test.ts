import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, vi } from "vitest";
import type { LLMError } from "../errors/llm-error.js";
import type { LLMUsage } from "../llm/types.js";
import type { FakeOpenAIServer, FakeOpenAIServerOptions } from "../testing/fake-openai-server.js";
import { fakeServersClosedAfterEach } from "../testing/fake-servers-closed-after-each.test.util.js";
import { OpenAILike } from "./openai-like.js";
import type { OpenAILikeOptions } from "./openai-like-options.js";

const startServer = fakeServersClosedAfterEach();
let server: FakeOpenAIServer | undefined;

/** Records the delays asked of the retry policy instead of sleeping. */
function fakeClock() {
  const delays: number[] = [];
  return { delays, _internal: { sleep: async (ms: number) => void delays.push(ms), random: () => 0.5 } };
}

async function setup(serverOptions?: FakeOpenAIServerOptions, options: Partial<OpenAILikeOptions> = {}) {
  server = await startServer(serverOptions);
  const clock = fakeClock();
  const llm = new OpenAILike({
    model: "fake-model",
    baseURL: server.url,
    apiKey: "sk-local",
    _internal: clock._internal,
    ...options,
  });
  return { server, llm, delays: clock.delays };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const user = (content: string) => [{ role: "user" as const, content }];
const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail("expected a rejection"),
    (error: unknown) => error as LLMError,
  );

async function collect(stream: AsyncIterable<string>, into: string[] = []): Promise<string[]> {
  for await (const delta of stream) into.push(delta);
  return into;
}

describe("OpenAILike retries", () => {
  it("retries a 429 after the Retry-After seconds, and counts the retry", async () => {
    const { server, llm, delays } = await setup({
      faults: [{ kind: "rate-limit", retryAfter: 2, requests: [0] }],
    });
    const usages: LLMUsage[] = [];
    const result = await llm.chat(user("hi"), { onUsage: (usage) => usages.push(usage) });
    expect(result.text).toBe("hi");
    expect(delays).toEqual([2000]);
    expect(usages[0]?.retries).toBe(1);
    expect(server.requests).toHaveLength(2);
  });

  it("honours retry-after-ms and HTTP-date Retry-After against the injected clock", async () => {
    const now = Date.parse("2030-01-01T00:00:00Z");
    const { llm, delays } = await setup(
      {
        faults: [
          { kind: "rate-limit", retryAfterMs: 150, requests: [0] },
          { kind: "rate-limit", retryAfter: new Date(now + 3000).toUTCString(), requests: [1] },
        ],
      },
      { _internal: { sleep: async (ms: number) => void delays.push(ms), now: () => now } },
    );
    const delays2 = delays;
    expect((await llm.chat(user("x"))).usage?.retries).toBe(2);
    expect(delays2).toEqual([150, 3000]);
  });

  it("retries a 500 with jittered backoff, then succeeds", async () => {
    const { llm, delays } = await setup({ faults: [{ kind: "status", status: 500, requests: [0, 1] }] });
    const result = await llm.chat(user("x"));
    expect(result.usage?.retries).toBe(2);
    expect(delays).toEqual([250, 500]);
  });

  it("gives up on a persistent 500 after maxRetries with a typed error", async () => {
    const { server, llm, delays } = await setup(
      { faults: [{ kind: "status", status: 500 }] },
      { maxRetries: 2 },
    );
    const error = await caught(llm.chat(user("x")));
    expect(error.code).toBe("retries_exhausted");
    expect(error.attempts).toBe(3);
    expect(error.status).toBe(500);
    expect(error.url).toBe(`${server.url}/chat/completions`);
    expect(error.lastError).toMatchObject({ code: "llm_server_error", status: 500, attempts: 3 });
    expect(error.message).toBe(
      `Gave up after 3 attempts. Last error: ${server.url}/chat/completions failed with 500: Fake failure 500.`,
    );
    expect(server.requests).toHaveLength(3);
    expect(delays).toHaveLength(2);
  });

  it("retries a stream that dropped before its first delta", async () => {
    const { server, llm } = await setup({
      handler: () => ({ deltas: ["a", "b"] }),
      faults: [{ kind: "drop", deltas: 0, requests: [0] }],
    });
    const usages: LLMUsage[] = [];
    expect(await collect(llm.streamChat(user("x"), { onUsage: (usage) => usages.push(usage) }))).toEqual([
      "a",
      "b",
    ]);
    expect(usages[0]?.retries).toBe(1);
    expect(server.requests).toHaveLength(2);
  });

  it("does not retry a stream that dropped after deltas: llm_stream_interrupted", async () => {
    const { server, llm } = await setup({
      handler: () => ({ deltas: ["one ", "two ", "three"] }),
      faults: [{ kind: "drop", deltas: 2 }],
    });
    const received: string[] = [];
    const error = await caught(collect(llm.streamChat(user("x")), received));
    expect(received).toEqual(["one ", "two "]);
    expect(error.code).toBe("llm_stream_interrupted");
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("broke after 2 text deltas");
    expect(server.requests).toHaveLength(1);
  });

  it("does not retry auth failures or exhausted quotas", async () => {
    const { server, llm } = await setup({
      faults: [
        { kind: "status", status: 401, message: "Invalid key", requests: [0] },
        { kind: "status", status: 429, code: "insufficient_quota", message: "Quota exceeded", requests: [1] },
      ],
    });
    const auth = await caught(llm.chat(user("x")));
    expect(auth).toMatchObject({ code: "llm_auth", status: 401, attempts: 1 });
    expect(auth.message).toBe(
      `${server.url}/chat/completions rejected the credentials (401): Invalid key. Check OPENAI_API_KEY or the apiKey option.`,
    );
    const quota = await caught(llm.chat(user("x")));
    expect(quota).toMatchObject({ code: "llm_rate_limit", retryable: false });
    expect(quota.message).toContain("quota is used up");
    expect(server.requests).toHaveLength(2);
  });
});

describe("OpenAILike typed errors", () => {
  it("names the URL and suggests a fix when the server is unreachable", async () => {
    const port = await closedPort();
    const llm = new OpenAILike({ model: "m", baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    const error = await caught(llm.chat(user("x")));
    expect(error.code).toBe("llm_unreachable");
    expect(error.message).toBe(
      `Could not connect to http://127.0.0.1:${port}/v1/chat/completions (connection refused). Check that the server is running and that the base URL points at it.`,
    );
  });

  it("suggests `ollama serve` for Ollama's port, after retrying", async () => {
    const port = await closedPort();
    const llm = new OpenAILike({
      model: "llama3.1",
      baseURL: "http://localhost:11434/v1",
      maxRetries: 1,
      fetch: (input, init) =>
        fetch(
          String(input instanceof Request ? input.url : input).replace(
            "localhost:11434",
            `127.0.0.1:${port}`,
          ),
          init,
        ),
      _internal: { sleep: async () => {} },
    });
    const error = await caught(collect(llm.streamChat(user("x"))));
    expect(error).toMatchObject({
      code: "retries_exhausted",
      attempts: 2,
      lastError: { code: "llm_unreachable" },
    });
    expect(error.message).toContain(
      "Could not connect to http://localhost:11434/v1/chat/completions (connection refused). Is Ollama running? Start it with `ollama serve`.",
    );
  });

  it("times out a slow first byte at timeoutMs, without retrying", async () => {
    const { server, llm } = await setup(
      { faults: [{ kind: "slow-first-byte", delayMs: 2000 }] },
      { timeoutMs: 60 },
    );
    const error = await caught(llm.chat(user("x")));
    // The server holds its first byte for 2 s: a timeout error means the client gave up first.
    expect(error.code).toBe("llm_timeout");
    expect(error.message).toBe(
      `No complete answer from ${server.url}/chat/completions within timeoutMs 60. Raise timeoutMs, send less per call, or check the server's load.`,
    );
    expect(server.requests).toHaveLength(1);
    expect((await server.waitForClose(0, 500)).closedByClient).toBe(true);
  });

  it("times out a stream that never ends, after its deltas", async () => {
    // 500 ms, not less: the whole call is timed, and on a loaded machine (the suite beside two busy processes) the
    // first delta once came after 80 ms, and the test saw the timeout before any delta.
    const { llm } = await setup({ faults: [{ kind: "never-ending", intervalMs: 5 }] }, { timeoutMs: 500 });
    const received: string[] = [];
    const error = await caught(collect(llm.streamChat(user("x")), received));
    expect(error.code).toBe("llm_timeout");
    expect(received.length).toBeGreaterThan(0);
  });

  it("maps context-length, bad-request and malformed answers", async () => {
    const { llm } = await setup({
      faults: [
        {
          kind: "status",
          status: 400,
          code: "context_length_exceeded",
          message: "This model's maximum context length is 8192 tokens.",
          requests: [0],
        },
        { kind: "status", status: 422, message: "Unknown field foo", requests: [1] },
        { kind: "malformed-json", requests: [2, 3] },
      ],
    });
    const context = await caught(llm.chat(user("x")));
    expect(context).toMatchObject({ code: "llm_context_length", status: 400 });
    expect(context.message).toContain("Pass the model's real contextWindow");
    expect(await caught(llm.chat(user("x")))).toMatchObject({
      code: "llm_bad_request",
      status: 422,
      retryable: false,
    });
    expect(await caught(llm.chat(user("x")))).toMatchObject({ code: "llm_bad_response", retryable: false });
    expect(await caught(collect(llm.streamChat(user("x"))))).toMatchObject({ code: "llm_bad_response" });
  });

  it("requires an API key for api.openai.com only, before any request", () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    vi.stubEnv("OPENAI_BASE_URL", "");
    const error = (() => {
      try {
        new OpenAILike({ model: "gpt-4o" });
      } catch (thrown) {
        return thrown as LLMError;
      }
    })();
    expect(error).toMatchObject({ code: "missing_api_key", url: "https://api.openai.com/v1" });
    expect(error?.message).toContain("Set OPENAI_API_KEY or pass apiKey");
    expect(new OpenAILike({ model: "llama3.1", baseURL: "http://localhost:11434/v1" }).metadata.model).toBe(
      "llama3.1",
    );
  });
});

describe("OpenAILike never leaks the API key", () => {
  const key = "sk-test-SECRET-123456";

  it("keeps the key out of every error message, stack, JSON, inspection, log and server record", async () => {
    vi.stubEnv("OPENAI_LOG", "debug");
    const logged: string[] = [];
    for (const method of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, method).mockImplementation(
        (...args: unknown[]) => void logged.push(args.map(String).join(" ")),
      );
    }
    const echo = `Incorrect API key provided: ${key}. Bearer ${key}`;
    server = await startServer({
      faults: [
        { kind: "status", status: 401, message: echo, requests: [0] },
        { kind: "status", status: 500, message: echo, requests: [1, 2] },
        { kind: "rate-limit", retryAfter: 999, requests: [3] },
        { kind: "drop", deltas: 1, requests: [4] },
        { kind: "status", status: 400, message: `context length exceeded for ${key}`, requests: [5] },
        { kind: "malformed-json", body: `{"note": bad key ${key}`, requests: [6, 7] },
      ],
    });
    const llm = new OpenAILike({
      model: "m",
      baseURL: server.url,
      apiKey: key,
      maxRetries: 1,
      _internal: { sleep: async () => {} },
    });
    const port = await closedPort();
    const unreachable = new OpenAILike({
      model: "m",
      baseURL: `http://127.0.0.1:${port}/v1`,
      apiKey: key,
      maxRetries: 0,
    });
    const errors = [
      await caught(llm.chat(user("x"))),
      await caught(llm.chat(user("x"))),
      await caught(llm.chat(user("x"))),
      await caught(collect(llm.streamChat(user("a b c")))),
      await caught(llm.chat(user("x"))),
      await caught(collect(llm.streamChat(user("x")))),
      await caught(llm.chat(user("x"))),
      await caught(unreachable.chat(user("x"))),
    ];
    expect(errors.map((error) => error.code)).toEqual([
      "llm_auth",
      "retries_exhausted",
      "llm_rate_limit",
      "llm_stream_interrupted",
      "llm_context_length",
      "llm_bad_response",
      "llm_bad_response",
      "llm_unreachable",
    ]);
    expect(logged.some((line) => line.includes("sending request"))).toBe(true);
    expect(logged.some((line) => line.includes("Could not parse message into JSON"))).toBe(true);
    expect(errors[0]?.message).toContain("Incorrect API key provided: [REDACTED]");
    const { inspect } = await import("node:util");
    const captured = [
      ...errors.flatMap((error) => [
        error.message,
        error.stack,
        JSON.stringify(error),
        inspect(error, { depth: 20 }),
      ]),
      ...logged,
      JSON.stringify(server.requests),
    ].join("\n");
    expect(captured.length).toBeGreaterThan(1000);
    expect(captured).not.toContain("SECRET-123456");
  });
});
