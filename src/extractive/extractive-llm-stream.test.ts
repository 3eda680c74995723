import { describe, expect, it } from "vitest";
import type { Embedder } from "../embedding/types.js";
import type { LLMUsage } from "../llm/types.js";
import { DEFAULT_TEXT_QA_PROMPT } from "../prompt/default-prompts.js";
import { MockEmbedding } from "../testing/mock-embedding.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { CONTEXT, FRANCE, QUERY, qa, structured } from "./extractive-fixtures.test.util.js";
import { ExtractiveLLM } from "./extractive-llm.js";

async function collect(stream: AsyncIterable<string>): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe("ExtractiveLLM streaming, budgets and abort", () => {
  const llm = new ExtractiveLLM();
  const prompt = DEFAULT_TEXT_QA_PROMPT.format({ query_str: QUERY, context_str: CONTEXT });

  it("streams exactly the text it completes, in word-sized chunks", async () => {
    const options = qa(QUERY, `${CONTEXT} The capital of France is large.`);
    const { text } = await llm.complete(prompt, options);
    const chunks = await collect(llm.streamComplete(prompt, options));
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.join("")).toBe(text);
    expect(chunks.slice(0, 3)).toEqual(["Paris ", "is ", "the "]);
    const structuredOptions = { ...options, responseFormat: structured };
    const json = (await llm.complete(prompt, structuredOptions)).text;
    expect((await collect(llm.streamComplete(prompt, structuredOptions))).join("")).toBe(json);
    const messages = [{ role: "user" as const, content: prompt }];
    expect((await collect(llm.streamChat(messages, options))).join("")).toBe(
      (await llm.chat(messages, options)).text,
    );
  });

  it("cuts the answer to maxTokens at a word boundary", async () => {
    const tokenizer = resolveTokenizer("cl100k_base");
    const { text } = await llm.complete("", qa(QUERY, CONTEXT, { maxTokens: 3 }));
    expect(text).toBe("Paris is the");
    expect(tokenizer.count(text)).toBeLessThanOrEqual(3);
    expect((await llm.complete("", qa(QUERY, CONTEXT, { maxTokens: 0 }))).text).toBe("");
    const small = new ExtractiveLLM({ maxOutputTokens: 2 });
    expect((await small.complete("", qa(QUERY, CONTEXT))).text).toBe("Paris is");
  });

  it("keeps truncated JSON valid and within maxTokens", async () => {
    const tokenizer = resolveTokenizer("cl100k_base");
    const { text } = await llm.complete(
      "",
      qa(QUERY, CONTEXT, { responseFormat: structured, maxTokens: 14 }),
    );
    expect(tokenizer.count(text)).toBeLessThanOrEqual(14);
    const parsed = JSON.parse(text) as { query_satisfied: boolean; answer: string };
    expect(parsed.query_satisfied).toBe(true);
    expect(FRANCE.startsWith(parsed.answer)).toBe(true);
    expect(parsed.answer.length).toBeGreaterThan(0);
  });

  it("counts tokens with the configured tokenizer", async () => {
    const words = (text: string) => text.split(" ").filter(Boolean);
    const custom = new ExtractiveLLM({ tokenizer: words });
    expect(custom.metadata.tokenizer).toBeUndefined();
    expect((await custom.complete("", qa(QUERY, CONTEXT, { maxTokens: 4 }))).text).toBe(
      "Paris is the capital",
    );
  });

  it("reports usage once per call, after a stream's last delta", async () => {
    const usages: LLMUsage[] = [];
    const options = qa(QUERY, CONTEXT, { onUsage: (usage) => usages.push(usage) });
    const result = await llm.complete(prompt, options);
    expect(result.usage).toEqual({ promptTokens: resolveTokenizer().count(prompt), completionTokens: 7 });
    const stream = llm.streamComplete(prompt, options)[Symbol.asyncIterator]();
    await stream.next();
    expect(usages).toHaveLength(1);
    while (!(await stream.next()).done) {}
    expect(usages).toEqual([result.usage, result.usage]);
  });

  describe("abort", () => {
    it("rejects at once for an aborted signal", async () => {
      const controller = new AbortController();
      controller.abort();
      const options = qa(QUERY, CONTEXT, { signal: controller.signal });
      await expect(llm.complete(prompt, options)).rejects.toMatchObject({ name: "AbortError" });
      await expect(llm.chat([{ role: "user", content: prompt }], options)).rejects.toMatchObject({
        name: "AbortError",
      });
      await expect(collect(llm.streamComplete(prompt, options))).rejects.toMatchObject({
        name: "AbortError",
      });
    });

    it("stops a stream aborted between chunks", async () => {
      const controller = new AbortController();
      const seen: string[] = [];
      const run = async () => {
        for await (const chunk of llm.streamComplete(
          prompt,
          qa(QUERY, CONTEXT, { signal: controller.signal }),
        )) {
          seen.push(chunk);
          controller.abort();
        }
      };
      await expect(run()).rejects.toMatchObject({ name: "AbortError" });
      expect(seen).toEqual(["Paris "]);
    });

    it("passes the signal to a pluggable embedModel", async () => {
      const controller = new AbortController();
      const mock = new MockEmbedding({ fallback: "derived" });
      const seen: (AbortSignal | undefined)[] = [];
      const embedModel: Embedder = {
        id: "aborting",
        getTextEmbeddings: (texts, options) => {
          seen.push(options?.signal);
          controller.abort(new Error("stop"));
          return mock.getTextEmbeddings(texts, options);
        },
        getQueryEmbedding: (query, options) => mock.getQueryEmbedding(query, options),
      };
      const custom = new ExtractiveLLM({ embedModel });
      await expect(custom.complete("", qa("q", "A b.", { signal: controller.signal }))).rejects.toThrowError(
        "stop",
      );
      expect(seen).toEqual([controller.signal]);
    });
  });
});
