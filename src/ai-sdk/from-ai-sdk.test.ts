import { describe, expect, it } from "vitest";
import type { LLMError } from "../errors/llm-error.js";
import type { LLMUsage } from "../llm/types.js";
import { type AiSdkCallArguments, type AiSdkCallExtras, fromAiSdk } from "./from-ai-sdk.js";

type FakeModel = { modelId: string };
const model: FakeModel = { modelId: "gpt-4o-mini" };

async function* fromArray(values: string[], onError?: () => void, failAfter?: number) {
  for (const [index, value] of values.entries()) {
    if (failAfter === index) {
      onError?.();
      return;
    }
    yield value;
  }
}

/** An APICallError look-alike, as the AI SDK throws. */
const apiCallError = (
  statusCode: number,
  isRetryable: boolean,
  responseHeaders: Record<string, string> = {},
) =>
  Object.assign(new Error(`HTTP ${statusCode}`), {
    statusCode,
    isRetryable,
    responseHeaders,
    url: "https://api.example/v1",
  });

function fakes() {
  const calls: AiSdkCallArguments<FakeModel>[] = [];
  return {
    calls,
    generateText: async (args: AiSdkCallArguments<FakeModel>) => {
      calls.push(args);
      return {
        text: `answer to ${args.prompt ?? args.messages?.at(-1)?.content}`,
        usage: { inputTokens: 5, outputTokens: 3 },
      };
    },
    streamText: (args: AiSdkCallArguments<FakeModel>) => {
      calls.push(args);
      return {
        textStream: fromArray(["a", "b"]),
        usage: Promise.resolve({ inputTokens: 2, outputTokens: 2 }),
      };
    },
  };
}

describe("fromAiSdk", () => {
  it("describes the model from its id and the table", () => {
    const llm = fromAiSdk(model, fakes());
    expect(llm.metadata).toMatchObject({
      model: "gpt-4o-mini",
      contextWindow: 128_000,
      structuredOutput: "instructions",
    });
    const unknown = fromAiSdk({ modelId: "mystery" }, fakes());
    expect(unknown.metadata.contextWindow).toBe(3900);
    expect(unknown.metadata.assumptions?.[0]).toContain("pass contextWindow");
    expect(fromAiSdk(model, { ...fakes(), contextWindow: 9000 }).metadata.contextWindow).toBe(9000);
  });

  it("calls generateText with messages, maxOutputTokens, the signal and maxRetries 0", async () => {
    const functions = fakes();
    const llm = fromAiSdk(model, { ...functions, temperature: 0 });
    const usages: LLMUsage[] = [];
    const controller = new AbortController();
    const result = await llm.chat([{ role: "user", content: "q" }], {
      maxTokens: 64,
      signal: controller.signal,
      onUsage: (usage) => usages.push(usage),
    });
    expect(result).toEqual({
      text: "answer to q",
      usage: { promptTokens: 5, completionTokens: 3, retries: 0 },
    });
    expect(usages).toEqual([result.usage]);
    expect(functions.calls[0]).toMatchObject({
      model,
      messages: [{ role: "user", content: "q" }],
      maxOutputTokens: 64,
      temperature: 0,
      maxRetries: 0,
    });
    expect(functions.calls[0]?.abortSignal).toBe(controller.signal);
    expect((await llm.complete("p")).text).toBe("answer to p");
  });

  it("sends system text as instructions/system by the model's specification, never inside messages", async () => {
    const conversation = [
      { role: "system" as const, content: "Be brief." },
      { role: "user" as const, content: "q" },
    ];
    const cases = [
      [{ modelId: "gpt-4o-mini", specificationVersion: "v4" }, { instructions: "Be brief." }, ["system"]],
      [{ modelId: "gpt-4o-mini", specificationVersion: "v3" }, { system: "Be brief." }, ["instructions"]],
      [{ modelId: "gpt-4o-mini" }, { instructions: "Be brief.", system: "Be brief." }, []],
    ] as const;
    for (const [caseModel, expected, absent] of cases) {
      const functions = fakes();
      const llm = fromAiSdk(caseModel as FakeModel, functions as never);
      await llm.chat(conversation);
      for await (const _ of llm.streamChat(conversation)) {
        // drain
      }
      for (const call of functions.calls) {
        expect(call).toMatchObject({ ...expected, messages: [{ role: "user", content: "q" }] });
        for (const field of absent) expect(call).not.toHaveProperty(field);
        expect(call).not.toHaveProperty("prompt");
      }
    }
    const forced = fakes();
    await fromAiSdk(model, { ...forced, systemField: "system" }).chat(conversation);
    expect(forced.calls[0]).toMatchObject({ system: "Be brief." });
    expect(forced.calls[0]).not.toHaveProperty("instructions");
  });

  it("streams text and reports usage at the end", async () => {
    const llm = fromAiSdk(model, fakes());
    const events: string[] = [];
    for await (const delta of llm.streamChat([{ role: "user", content: "q" }], {
      onUsage: (usage) => events.push(JSON.stringify(usage)),
    })) {
      events.push(delta);
    }
    expect(events).toEqual(["a", "b", '{"promptTokens":2,"completionTokens":2,"retries":0}']);
  });

  it("retries retryable AI SDK errors under ragsynth's policy, honouring retry-after", async () => {
    const delays: number[] = [];
    let calls = 0;
    const llm = fromAiSdk(model, {
      ...fakes(),
      generateText: async () => {
        calls++;
        if (calls === 1) throw apiCallError(429, true, { "retry-after": "2" });
        return { text: "ok" };
      },
      _internal: { sleep: async (ms) => void delays.push(ms) },
    });
    expect(await llm.complete("x")).toEqual({ text: "ok", usage: { retries: 1 } });
    expect(delays).toEqual([2000]);
    const auth = fromAiSdk(model, {
      ...fakes(),
      generateText: async () => Promise.reject(apiCallError(401, false)),
    });
    await expect(auth.complete("x")).rejects.toMatchObject({ code: "llm_auth", status: 401, attempts: 1 });
  });

  it("surfaces stream errors the AI SDK reports through onError", async () => {
    let attempts = 0;
    const llm = fromAiSdk(model, {
      ...fakes(),
      streamText: (args) => {
        attempts++;
        const failAfter = attempts === 1 ? 0 : 1;
        const report = () => args.onError?.({ error: apiCallError(500, true) });
        return { textStream: fromArray(["a", "b"], report, failAfter) };
      },
      _internal: { sleep: async () => {} },
    });
    const received: string[] = [];
    const error = (await (async () => {
      for await (const delta of llm.streamComplete("x")) received.push(delta);
    })().catch((caught: unknown) => caught)) as LLMError;
    expect(attempts).toBe(2);
    expect(received).toEqual(["a"]);
    expect(error).toMatchObject({ code: "llm_stream_interrupted", attempts: 2 });
  });

  it("throws an AbortError when aborted mid-stream", async () => {
    const llm = fromAiSdk(model, {
      ...fakes(),
      streamText: (args) => ({
        textStream: (async function* () {
          yield "a";
          await new Promise((resolve) => args.abortSignal?.addEventListener("abort", resolve));
        })(),
      }),
    });
    const controller = new AbortController();
    const pending = (async () => {
      for await (const _ of llm.streamChat([{ role: "user", content: "q" }], { signal: controller.signal }))
        controller.abort();
    })();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  it("stops waiting for a generateText that ignores the signal, and times out at timeoutMs", async () => {
    const never = () => new Promise<{ text: string }>(() => {});
    const llm = fromAiSdk(model, { ...fakes(), generateText: never });
    const controller = new AbortController();
    const pending = llm.complete("x", { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    const slow = fromAiSdk(model, { ...fakes(), generateText: never, timeoutMs: 20 });
    await expect(slow.complete("x")).rejects.toMatchObject({ code: "llm_timeout" });
  });
});

describe("fromAiSdk call settings, structured output and a 404", () => {
  it("passes callSettings (providerOptions, headers, telemetry) to every call, and refuses what ragsynth sets", async () => {
    const fake = fakes();
    const callSettings = {
      providerOptions: { openai: { parallelToolCalls: false } },
      headers: { "x-team": "docs" },
      experimental_telemetry: { isEnabled: true, functionId: "rag" },
      seed: 7,
    };
    const llm = fromAiSdk(model, { ...fake, callSettings });
    await llm.complete("hi");
    for await (const _ of llm.streamComplete("hi")) void _;
    expect(fake.calls).toHaveLength(2);
    for (const call of fake.calls) expect(call).toMatchObject({ ...callSettings, model, maxRetries: 0 });
    expect(() => fromAiSdk(model, { ...fake, callSettings: { maxRetries: 5, model } })).toThrow(
      /Expected `callSettings` to leave out what ragsynth sets on each call \(.*\), got `"model, maxRetries"`/,
    );
  });

  it("uses the AI SDK's own structured output when given Output and jsonSchema, prompt instructions otherwise", async () => {
    const fake = fakes();
    const made: unknown[] = [];
    const output = {
      Output: {
        object: (options: { schema: unknown; name?: string }) => ({ kind: "object-output", ...options }),
      },
      jsonSchema: (schema: Record<string, unknown>) => {
        made.push(schema);
        return { wrapped: schema };
      },
    };
    const native = fromAiSdk(model, { ...fake, output });
    expect(native.metadata.structuredOutput).toBe("json_schema");
    const schema = { type: "object", properties: { answer: { type: "string" } } };
    await native.complete("q", { responseFormat: { name: "Answer", schema } });
    expect((fake.calls[0] as AiSdkCallExtras | undefined)?.output).toEqual({
      kind: "object-output",
      schema: { wrapped: schema },
      name: "Answer",
    });
    await native.complete("plain");
    expect((fake.calls[1] as AiSdkCallExtras | undefined)?.output).toBeUndefined();
    expect(fromAiSdk(model, fakes()).metadata.structuredOutput).toBe("instructions");
    expect(() => fromAiSdk(model, { ...fake, output: { Output: {} } as never })).toThrow(
      /Expected `output` to be \{ Output, jsonSchema \}/,
    );
  });

  it("a 404 names the URL and suggests .chat() for an OpenAI-compatible server", async () => {
    const llm = fromAiSdk(model, {
      ...fakes(),
      generateText: async () => {
        throw Object.assign(new Error("Not Found"), {
          statusCode: 404,
          isRetryable: false,
          url: "http://127.0.0.1:11434/v1/responses?key=secret",
        });
      },
    });
    const error = (await llm.complete("q").catch((caught: unknown) => caught)) as LLMError;
    expect(error.message).toContain("No such endpoint at http://127.0.0.1:11434/v1/responses");
    expect(error.message).toContain('createOpenAI({ baseURL }).chat("gpt-4o-mini")');
    expect(error.message).not.toContain("secret");
  });
});
