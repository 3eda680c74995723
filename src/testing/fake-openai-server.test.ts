import { afterEach, describe, expect, it } from "vitest";
import { fakeEmbedding } from "./fake-openai-replies.js";
import {
  type FakeOpenAIServer,
  type FakeOpenAIServerOptions,
  startFakeOpenAIServer,
} from "./fake-openai-server.js";

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options?: FakeOpenAIServerOptions) {
  server = await startFakeOpenAIServer(options);
  return server;
}

// biome-ignore lint/suspicious/noExplicitAny: test reads loosely shaped JSON answers
type Json = any;
const json = async (response: Response): Promise<Json> => response.json();

function post(url: string, body: unknown, init: RequestInit = {}) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-never-logged" },
    body: JSON.stringify(body),
    ...init,
  });
}

const chat = (content: string, extra: Record<string, unknown> = {}) => ({
  model: "fake",
  messages: [
    { role: "system", content: "be brief" },
    { role: "user", content },
  ],
  ...extra,
});

describe("startFakeOpenAIServer", () => {
  it("listens on 127.0.0.1 and echoes the last user message as a chat completion", async () => {
    const { url, requests } = await start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const response = await post(`${url}/chat/completions`, chat("hello there"));
    const body = await json(response);
    expect(body.choices[0].message).toEqual({ role: "assistant", content: "hello there" });
    expect(body.usage).toEqual({ prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      index: 0,
      method: "POST",
      path: "/v1/chat/completions",
      closedByClient: false,
    });
    expect(requests[0]?.body).toEqual(chat("hello there"));
    expect(requests[0]?.headers.authorization).toBeUndefined();
    expect(JSON.stringify(requests)).not.toContain("sk-never-logged");
  });

  it("streams SSE deltas, a finish chunk, the usage chunk when asked, and [DONE]", async () => {
    const { url } = await start({ handler: () => ({ deltas: ["Hel", "lo"] }) });
    const response = await post(
      `${url}/chat/completions`,
      chat("x", { stream: true, stream_options: { include_usage: true } }),
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = (await response.text()).split("\n\n").filter(Boolean);
    expect(events.every((event) => event.startsWith("data: "))).toBe(true);
    expect(events.at(-1)).toBe("data: [DONE]");
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.slice(6)));
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content)).toEqual([
      "Hel",
      "lo",
      undefined,
      undefined,
    ]);
    expect(chunks[2].choices[0].finish_reason).toBe("stop");
    expect(chunks[3]).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } });
  });

  it("omits the usage chunk without include_usage, and serves legacy completions", async () => {
    const { url } = await start({ handler: ({ prompt }) => `re: ${prompt}` });
    const streamed = await (await post(`${url}/chat/completions`, chat("x", { stream: true }))).text();
    expect(streamed).not.toContain('"usage"');
    const legacy = await json(await post(`${url}/completions`, { model: "fake", prompt: "Once" }));
    expect(legacy.choices[0].text).toBe("re: Once");
  });

  it("answers embeddings deterministically (floats or base64) and lists models", async () => {
    const { url } = await start();
    const body = await json(await post(`${url}/embeddings`, { model: "e", input: ["a cat", "a dog"] }));
    expect(body.data.map((item: { embedding: number[] }) => item.embedding)).toEqual([
      fakeEmbedding("a cat"),
      fakeEmbedding("a dog"),
    ]);
    const base64 = await json(
      await post(`${url}/embeddings`, { model: "e", input: "a cat", encoding_format: "base64" }),
    );
    const decoded = new Float32Array(Buffer.from(base64.data[0].embedding, "base64").buffer.slice(0));
    expect(Array.from(decoded)[0]).toBeCloseTo(fakeEmbedding("a cat")[0] ?? Number.NaN, 5);
    const models = await json(await fetch(`${url}/models`));
    expect(models.data[0].id).toBe("fake");
  });

  it("injects faults by request index", async () => {
    const { url, requests } = await start({
      faults: [
        { kind: "rate-limit", retryAfter: 2, requests: [0] },
        { kind: "status", status: 500, requests: [1] },
        { kind: "malformed-json", requests: [2] },
      ],
    });
    const first = await post(`${url}/chat/completions`, chat("a"));
    expect(first.status).toBe(429);
    expect(first.headers.get("retry-after")).toBe("2");
    expect((await post(`${url}/chat/completions`, chat("a"))).status).toBe(500);
    await expect((await post(`${url}/chat/completions`, chat("a"))).json()).rejects.toThrow();
    expect((await post(`${url}/chat/completions`, chat("a"))).status).toBe(200);
    expect(requests.map((request) => request.fault)).toEqual([
      "rate-limit",
      "status",
      "malformed-json",
      undefined,
    ]);
  });

  it("draws probabilistic faults from a seeded RNG, reproducibly", async () => {
    const pattern = async (seed: number) => {
      const { url, requests } = await start({
        seed,
        faults: [{ kind: "status", status: 503, probability: 0.5 }],
      });
      for (let i = 0; i < 12; i++) await (await post(`${url}/chat/completions`, chat("a"))).text();
      const faults = requests.map((request) => request.fault ?? "-");
      await server?.close();
      server = undefined;
      return faults.join(",");
    };
    const first = await pattern(7);
    expect(first).toContain("status");
    expect(first).toContain("-");
    expect(await pattern(7)).toBe(first);
  });

  it("drops the connection after N deltas without marking it a client close", async () => {
    const { url, requests } = await start({ faults: [{ kind: "drop", deltas: 1, requests: [0] }] });
    const response = await post(`${url}/chat/completions`, chat("one two three", { stream: true }));
    await expect(response.text()).rejects.toThrow();
    const record = await server?.waitForClose(0);
    expect(record?.closedByClient).toBe(false);
    expect(requests[0]?.fault).toBe("drop");
  });

  it("records when the client aborts a never-ending stream", async () => {
    const { url } = await start({ faults: [{ kind: "never-ending", intervalMs: 5, requests: [0] }] });
    const controller = new AbortController();
    const response = await post(`${url}/chat/completions`, chat("x", { stream: true }), {
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    await reader?.read();
    const abortedAt = Date.now();
    controller.abort();
    const record = await server?.waitForClose(0, 1000);
    expect(record?.closedByClient).toBe(true);
    expect((record?.closedAt ?? Number.POSITIVE_INFINITY) - abortedAt).toBeLessThan(200);
  });

  it("delays the first byte, and close() ends open streams", async () => {
    const { url } = await start({
      faults: [
        { kind: "slow-first-byte", delayMs: 80, requests: [0] },
        { kind: "never-ending", requests: [1] },
      ],
    });
    const started = Date.now();
    await (await post(`${url}/chat/completions`, chat("x"))).json();
    expect(Date.now() - started).toBeGreaterThanOrEqual(70);
    const response = await post(`${url}/chat/completions`, chat("x", { stream: true }));
    const reading = response.text();
    await server?.close();
    server = undefined;
    await expect(reading).rejects.toThrow();
  });

  it("tracks requests in flight", async () => {
    const { url, stats } = await start({ latencyMs: 40 });
    await Promise.all(
      [1, 2, 3].map(() => post(`${url}/embeddings`, { model: "e", input: "x" }).then((r) => r.json())),
    );
    expect(stats.maxInFlight).toBe(3);
    expect(stats.inFlight).toBe(0);
  });
});
