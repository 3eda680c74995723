import { getResponseSynthesizer, LLMError, NoObjectGeneratedError } from "ragsynth";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  collectUnhandledRejections,
  expectTyped,
  fakeLLM,
  LLM_MODES,
  mockLLM,
  rejectionOf,
  textNode,
} from "./helpers.js";

// The bad-input catalogue, part 3: what the model answers (schema violations, empty answers, endless streams).

collectUnhandledRejections();

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const node = textNode;
const mock = mockLLM;

describe("bad-input catalogue: model answers", () => {
  const schema = z.object({ answer: z.string(), confidence: z.number() });

  it.each(["compact", "tree_summarize", "simple_summarize", "generation"] as const)(
    "%s: an answer that violates the schema is no_object_generated with the raw text and the issues",
    async (mode) => {
      const raw = '{"answer": 42}';
      const error = await rejectionOf(
        getResponseSynthesizer({
          llm: mock({ response: raw }),
          responseMode: mode,
          outputSchema: schema,
        }).synthesize({ query: "q", nodes: [node("c")] }),
      );
      expectTyped(
        error,
        "no_object_generated",
        /did not match the schema/,
        /answer: /,
        /simplify the schema|JSON-schema support/,
      );
      const failure = error as NoObjectGeneratedError;
      expect(failure).toBeInstanceOf(NoObjectGeneratedError);
      expect(failure.text).toBe(raw);
      expect(failure.issues.map((issue) => issue.path.join("."))).toEqual(
        expect.arrayContaining(["answer", "confidence"]),
      );
      expect(failure.cause).toBeDefined();
    },
  );

  it("an answer that is not JSON at all is no_object_generated carrying the text", async () => {
    const error = await rejectionOf(
      getResponseSynthesizer({
        llm: mock({ response: "I cannot answer that." }),
        outputSchema: schema,
      }).synthesize({ query: "q", nodes: [node("c")] }),
    );
    expectTyped(error, "no_object_generated", /was not valid JSON/, /"I cannot answer that\."/);
    expect((error as NoObjectGeneratedError).text).toBe("I cannot answer that.");
  });

  it.each(LLM_MODES)(
    '%s: a model that answers an empty string gives emptyResponse (documented default "Empty Response")',
    async (mode) => {
      server = await startFakeOpenAIServer({ handler: () => "" });
      const { llm } = fakeLLM(server.url);
      const response = await getResponseSynthesizer({ llm, responseMode: mode }).synthesize({
        query: "q",
        nodes: [node("c"), node("d")],
      });
      if (mode === "accumulate")
        expect(response.response).toBe(
          "Response 1: Empty Response\n---------------------\nResponse 2: Empty Response",
        );
      else if (mode === "compact_accumulate") expect(response.response).toBe("Response 1: Empty Response");
      else expect(response.response).toBe("Empty Response");
      const custom = await getResponseSynthesizer({
        llm,
        responseMode: mode,
        emptyResponse: "(no answer)",
      }).synthesize({ query: "q", nodes: [node("c")] });
      expect(custom.response).toContain("(no answer)");
    },
  );

  it("a model that never ends its stream is stopped by timeoutMs: an llm_timeout error, and the request is closed", {
    timeout: 10_000,
  }, async () => {
    server = await startFakeOpenAIServer({ faults: [{ kind: "never-ending", intervalMs: 10 }] });
    const { llm } = fakeLLM(server.url, { timeoutMs: 300 });
    const streaming = getResponseSynthesizer({ llm, responseMode: "compact" }).stream({
      query: "q",
      nodes: [node("c")],
    });
    let deltas = 0;
    const error = await rejectionOf(
      (async () => {
        for await (const _delta of streaming.textStream) deltas += 1;
      })(),
    );
    // The stream never ends on its own: only the timeout can have ended it.
    expect(deltas).toBeGreaterThan(3);
    expectTyped(error, "llm_timeout", /within timeoutMs 300/, /Raise timeoutMs/);
    expect(LLMError.isInstance(error)).toBe(true);
    const request = await server.waitForClose(0, 1000);
    expect(request.closedByClient).toBe(true);
    await expect(streaming.response).rejects.toBe(error);
  });

  it("a server that never sends its first byte is stopped by timeoutMs too (non-streaming)", {
    timeout: 10_000,
  }, async () => {
    server = await startFakeOpenAIServer({ faults: [{ kind: "slow-first-byte", delayMs: 60_000 }] });
    const { llm } = fakeLLM(server.url, { timeoutMs: 200 });
    const error = await rejectionOf(
      getResponseSynthesizer({ llm }).synthesize({ query: "q", nodes: [node("c")] }),
    );
    expectTyped(error, "llm_timeout", /within timeoutMs 200/);
    expect((await server.waitForClose(0, 1000)).closedByClient).toBe(true);
  });
});
