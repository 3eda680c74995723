import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { LLMError } from "../errors/llm-error.js";
import type { RagsynthEvent } from "../events/events.js";
import type { LLMUsage } from "../llm/types.js";
import { TextNode } from "../schema/text-node.js";
import { getResponseSynthesizer } from "../synthesizer/get-response-synthesizer.js";
import type { FakeOpenAIResponder } from "../testing/fake-openai-replies.js";
import type { FakeOpenAIFaultRule } from "../testing/fake-openai-server.js";
import { fakeServersClosedAfterEach } from "../testing/fake-servers-closed-after-each.test.util.js";
import { OpenAILike } from "./openai-like.js";

const startServer = fakeServersClosedAfterEach();
const noSleep = { sleep: async () => {}, random: () => 0.5 };

async function ask(
  stream: boolean,
  { fault, handler }: { fault?: FakeOpenAIFaultRule; handler?: FakeOpenAIResponder },
) {
  const server = await startServer({
    ...(fault ? { faults: [fault] } : {}),
    ...(handler ? { handler } : {}),
  });
  const llm = new OpenAILike({ model: "m", baseURL: server.url, apiKey: "sk-local", _internal: noSleep });
  let usage: LLMUsage | undefined;
  const onUsage = (reported: LLMUsage) => {
    usage = reported;
  };
  try {
    let text = "";
    if (stream) {
      for await (const delta of llm.streamChat([{ role: "user", content: "q" }], { onUsage })) text += delta;
    } else {
      text = (await llm.chat([{ role: "user", content: "q" }], { onUsage })).text;
    }
    return { text, usage, error: undefined, requests: server.requests.length };
  } catch (error) {
    return { text: undefined, usage, error, requests: server.requests.length };
  }
}

const WRONG_REPLIES: Array<[string, FakeOpenAIFaultRule, RegExp]> = [
  [
    "an HTML page",
    { kind: "raw", contentType: "text/html", body: "<html><body>Welcome to nginx!</body></html>" },
    /text\/html/,
  ],
  ["invalid JSON", { kind: "malformed-json" }, /not valid JSON/],
  [
    "JSON without choices",
    { kind: "raw", contentType: "application/json", body: '{"id":"x","object":"chat.completion"}' },
    /without choices|not an SSE stream/,
  ],
  [
    "SSE events that are not completion chunks",
    { kind: "raw", contentType: "text/event-stream", body: 'data: {"id":"x"}\n\ndata: [DONE]\n\n' },
    /not a completion/,
  ],
  [
    "an SSE stream with no chunks",
    { kind: "raw", contentType: "text/event-stream", body: "data: [DONE]\n\n" },
    /no completion chunks|not a completion/,
  ],
];

describe("OpenAILike: a server that answers wrongly", () => {
  for (const stream of [false, true]) {
    for (const [what, fault, detail] of WRONG_REPLIES) {
      it(`${what} is a typed llm_bad_response, not retried (${stream ? "streamed" : "not streamed"})`, async () => {
        const { error, requests } = await ask(stream, { fault });
        expect(LLMError.isInstance(error, "llm_bad_response"), String(error)).toBe(true);
        expect((error as Error).message).toMatch(/OpenAI-compatible \/v1 endpoint/);
        expect((error as Error).message).toMatch(detail);
        expect(requests).toBe(1);
      });
    }

    it(`an empty completion with finish reason "stop" is an answer (${stream ? "streamed" : "not streamed"})`, async () => {
      const { text, error, usage } = await ask(stream, {
        handler: () => ({ text: "", finishReason: "stop" }),
      });
      expect(error).toBeUndefined();
      expect(text).toBe("");
      expect(usage?.finishReason).toBe("stop");
    });

    it(`absurd usage is ignored and named, never counted (${stream ? "streamed" : "not streamed"})`, async () => {
      const { usage, error } = await ask(stream, {
        handler: () => ({ text: "hi", usage: { promptTokens: 9_007_199_254_740_992, completionTokens: -3 } }),
      });
      expect(error).toBeUndefined();
      expect(usage?.promptTokens).toBeUndefined();
      expect(usage?.completionTokens).toBeUndefined();
      expect(usage?.ignoredUsage).toEqual(["prompt_tokens: 9007199254740992", "completion_tokens: -3"]);
    });
  }

  it("a synthesis counts absurd usage with the tokenizer and warns (an event)", async () => {
    const server = await startServer({
      handler: () => ({ text: "answer", usage: { promptTokens: 1.5, completionTokens: 2_000_000_000 } }),
    });
    const llm = new OpenAILike({ model: "m", baseURL: server.url, apiKey: "sk-local", contextWindow: 4096 });
    const events: RagsynthEvent[] = [];
    const response = await getResponseSynthesizer({
      llm,
      onEvent: (event) => void events.push(event),
    }).synthesize({ query: "q", nodes: [{ node: new TextNode({ text: "some text" }) }] });
    expect(response.usage.promptTokens).toBeGreaterThan(0);
    expect(response.usage.promptTokens).toBeLessThan(1000);
    expect(response.usage.completionTokens).toBe(1);
    expect(events.find((event) => event.type === "warning")).toMatchObject({ code: "implausible_usage" });
  });
});

describe("OpenAILike: credentials in the base URL", () => {
  it("are refused with a clear message that never contains them", () => {
    let caught: unknown;
    try {
      new OpenAILike({ model: "m", baseURL: "http://user:hunter2@127.0.0.1:9/v1" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidArgumentError);
    expect((caught as Error).message).toMatch(/no user name or password/);
    expect((caught as Error).message).toMatch(/apiKey/);
    expect(JSON.stringify(caught) + String(caught) + (caught as Error).stack).not.toMatch(/hunter2/);
  });
});
