import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { LLMUsage } from "../llm/types.js";
import type { FakeOpenAIServer, FakeOpenAIServerOptions } from "../testing/fake-openai-server.js";
import { fakeServersClosedAfterEach } from "../testing/fake-servers-closed-after-each.test.util.js";
import { OpenAILike } from "./openai-like.js";
import type { OpenAILikeOptions } from "./openai-like-options.js";

const startServer = fakeServersClosedAfterEach();
let server: FakeOpenAIServer | undefined;

async function setup(serverOptions?: FakeOpenAIServerOptions, options: Partial<OpenAILikeOptions> = {}) {
  server = await startServer(serverOptions);
  const llm = new OpenAILike({ model: "fake-model", baseURL: server.url, apiKey: "sk-local", ...options });
  return { server, llm };
}

/** A fetch that sends requests for `from` to the fake server instead: OpenAI's own URL, over real HTTP. */
function redirectFetch(from: string, to: string) {
  return (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    return fetch(url.replace(from, to), init);
  };
}

const user = (content: string) => [{ role: "user" as const, content }];

async function collect(stream: AsyncIterable<string>): Promise<string[]> {
  const deltas: string[] = [];
  for await (const delta of stream) deltas.push(delta);
  return deltas;
}

describe("OpenAILike answers", () => {
  it("chats over HTTP and reports usage", async () => {
    const { server, llm } = await setup({ handler: ({ prompt }) => `You said: ${prompt}` });
    const usages: LLMUsage[] = [];
    const result = await llm.chat([{ role: "system", content: "sys" }, ...user("hi there")], {
      onUsage: (usage) => usages.push(usage),
    });
    expect(result).toEqual({
      text: "You said: hi there",
      // The completion's id and the answering model, as the server named them (gen_ai.response.*).
      usage: {
        promptTokens: 3,
        completionTokens: 4,
        finishReason: "stop",
        responseId: "fake-1",
        responseModel: "fake-model",
        retries: 0,
      },
    });
    expect(usages).toEqual([result.usage]);
    expect(server.requests[0]?.body).toEqual({
      model: "fake-model",
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: "hi there" },
      ],
    });
  });

  it("sends a completion prompt to a chat model as one user message", async () => {
    const { server, llm } = await setup();
    expect((await llm.complete("Summarize this")).text).toBe("Summarize this");
    expect(server.requests[0]?.path).toBe("/v1/chat/completions");
    expect(server.requests[0]?.body).toMatchObject({ messages: user("Summarize this") });
  });

  it("uses /v1/completions when isChatModel is false, flattening chats", async () => {
    const { server, llm } = await setup({ handler: ({ prompt }) => `[${prompt}]` }, { isChatModel: false });
    expect(llm.metadata.isChatModel).toBe(false);
    expect((await llm.complete("Once upon", { maxTokens: 7 })).text).toBe("[Once upon]");
    expect(server.requests[0]).toMatchObject({
      path: "/v1/completions",
      body: { prompt: "Once upon", max_tokens: 7 },
    });
    const deltas = await collect(llm.streamChat([{ role: "system", content: "S" }, ...user("Q")]));
    expect(deltas.join("")).toBe("[system: S\nuser: Q\nassistant: ]");
    expect(server.requests[1]?.body).toMatchObject({ prompt: "system: S\nuser: Q\nassistant: " });
  });

  it("streams deltas over SSE and reports usage after the last one", async () => {
    const { server, llm } = await setup({ handler: () => ({ deltas: ["The ", "answer ", "is 42."] }) });
    const events: string[] = [];
    const stream = llm.streamChat(user("q"), {
      onUsage: (usage) => events.push(`usage ${JSON.stringify(usage)}`),
    });
    for await (const delta of stream) events.push(delta);
    expect(events).toEqual([
      "The ",
      "answer ",
      "is 42.",
      'usage {"promptTokens":1,"completionTokens":3,"responseId":"fake-1","responseModel":"fake-model","finishReason":"stop","retries":0}',
    ]);
    expect(server.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("reports retries (without token counts) when the server sends no usage", async () => {
    const { llm } = await setup({ handler: () => ({ text: "ok", usage: null }) });
    const usages: LLMUsage[] = [];
    await collect(llm.streamComplete("q", { onUsage: (usage) => usages.push(usage) }));
    expect(usages).toEqual([
      { responseId: "fake-1", responseModel: "fake-model", finishReason: "stop", retries: 0 },
    ]);
  });

  it("aborts mid-stream with an AbortError and closes the connection", async () => {
    const { server, llm } = await setup({ faults: [{ kind: "never-ending", intervalMs: 5 }] });
    const controller = new AbortController();
    const received: string[] = [];
    const consuming = (async () => {
      for await (const delta of llm.streamChat(user("go"), { signal: controller.signal })) {
        received.push(delta);
        if (received.length === 2) controller.abort();
      }
    })();
    const error = (await consuming.catch((caught: unknown) => caught)) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("AbortError");
    expect(received).toEqual(["more ", "more "]);
    const record = await server.waitForClose(0, 200);
    expect(record.closedByClient).toBe(true);
  });

  it("aborts a non-streaming call waiting for a slow server and closes the connection", async () => {
    const { server, llm } = await setup({ faults: [{ kind: "slow-first-byte", delayMs: 5000 }] });
    const controller = new AbortController();
    const pending = llm.chat(user("q"), { signal: controller.signal });
    // Abort once the server holds the request (the SDK loads on first use, so a fixed delay could abort before it is sent).
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect((await server.waitForClose(0, 200)).closedByClient).toBe(true);
  });

  it("releases the connection when the consumer breaks early", async () => {
    const { server, llm } = await setup({ faults: [{ kind: "never-ending", intervalMs: 5 }] });
    for await (const delta of llm.streamChat(user("go"))) {
      expect(delta).toBe("more ");
      break;
    }
    expect((await server.waitForClose(0, 200)).closedByClient).toBe(true);
  });

  it("does not call the server when the signal is already aborted", async () => {
    const { server, llm } = await setup();
    const controller = new AbortController();
    controller.abort();
    await expect(llm.chat(user("q"), { signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    await expect(collect(llm.streamChat(user("q"), { signal: controller.signal }))).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(server.requests).toHaveLength(0);
  });
});

describe("OpenAILike request shape", () => {
  const schema = {
    type: "object",
    properties: { answer: { type: "string" } },
    required: ["answer"],
    additionalProperties: false,
  };

  it("sends json_schema and max_completion_tokens to api.openai.com by default", async () => {
    server = await startServer({ handler: () => '{"answer":"42"}' });
    const llm = new OpenAILike({
      model: "gpt-4o-mini",
      apiKey: "sk-test",
      baseURL: "https://api.openai.com/v1",
      fetch: redirectFetch("https://api.openai.com/v1", server.url),
    });
    expect(llm.metadata.structuredOutput).toBe("json_schema");
    const result = await llm.chat(user("q"), { maxTokens: 100, responseFormat: { name: "Answer", schema } });
    expect(result.text).toBe('{"answer":"42"}');
    expect(server.requests[0]?.body).toEqual({
      model: "gpt-4o-mini",
      messages: user("q"),
      max_completion_tokens: 100,
      response_format: { type: "json_schema", json_schema: { name: "Answer", schema, strict: true } },
    });
  });

  it("sends nothing extra for instructions mode, and max_tokens to other servers", async () => {
    const { server, llm } = await setup();
    expect(llm.metadata.structuredOutput).toBe("instructions");
    await llm.chat(user("q"), { maxTokens: 50, responseFormat: { name: "Answer", schema } });
    expect(server.requests[0]?.body).toEqual({ model: "fake-model", messages: user("q"), max_tokens: 50 });
  });

  it("honours structuredOutput, maxTokensParameter, temperature and headers overrides", async () => {
    const { server, llm } = await setup(undefined, {
      structuredOutput: "json_schema",
      maxTokensParameter: "max_completion_tokens",
      temperature: 0.2,
      headers: { "x-team": "rag" },
    });
    await collect(
      llm.streamChat(user("q"), { maxTokens: 5, responseFormat: { name: "My schema!", schema } }),
    );
    expect(server.requests[0]?.body).toMatchObject({
      max_completion_tokens: 5,
      temperature: 0.2,
      response_format: { json_schema: { name: "My_schema_" } },
    });
    expect(server.requests[0]?.headers["x-team"]).toBe("rag");
  });

  it("rejects maxTokens above maxOutputTokens before any request", async () => {
    const { server, llm } = await setup(undefined, { maxOutputTokens: 1000 });
    const error = await llm.chat(user("q"), { maxTokens: 1001 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toBe(
      "Expected `maxTokens` to be a positive integer no larger than fake-model's maxOutputTokens (1000), got `1001` (number). Lower numOutput, or pass maxOutputTokens if the model allows more.",
    );
    await expect(collect(llm.streamChat(user("q"), { maxTokens: 0 }))).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe("OpenAILike base URL with a query (Azure's shape)", () => {
  it("keeps the query after the request's path for chat and embeddings", async () => {
    const { OpenAILikeEmbedding } = await import("./openai-like-embedding.js");
    server = await startServer();
    const baseURL = `${server.url}?api-version=2024-10-21`;
    const llm = new OpenAILike({ model: "fake-model", baseURL, apiKey: "sk-local" });
    await llm.chat(user("hi"));
    const embedder = new OpenAILikeEmbedding({ model: "fake-embed", baseURL, apiKey: "sk-local" });
    await embedder.getTextEmbeddings(["hello"]);
    expect(server.requests.map(({ path, query }) => `${path}?${query}`)).toEqual([
      "/v1/chat/completions?api-version=2024-10-21",
      "/v1/embeddings?api-version=2024-10-21",
    ]);
  });
});
