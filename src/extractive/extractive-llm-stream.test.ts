import { describe, expect, it } from "vitest";
import type { Embedder } from "../embedding/types.js";
import type { LLMUsage } from "../llm/types.js";
import { DEFAULT_TEXT_QA_PROMPT } from "../prompt/default-prompts.js";
import { MockEmbedding } from "../testing/mock-embedding.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { CONTEXT, FRANCE, QUERY, qa, structured } from "./extractive-fixtures.test.util.js";
import { closeOpenFence, ExtractiveLLM } from "./extractive-llm.js";

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

  it("closes a quoted code block it cuts, within maxTokens, so the rest of a Markdown view is not code", async () => {
    const tokenizer = resolveTokenizer("cl100k_base");
    const context = [
      "file_path: docs/readline.md",
      "",
      "Read a file line by line with a stream and readline:",
      "",
      "```js",
      "import { createReadStream } from 'node:fs';",
      "import { createInterface } from 'node:readline';",
      "const lines = createInterface({ input: createReadStream('input.txt'), crlfDelay: Infinity });",
      "for await (const line of lines) console.log(line);",
      "```",
    ].join("\n");
    const query = "How do I read a file line by line with a stream?";
    const whole = (await llm.complete("", qa(query, context, { maxTokens: 1000 }))).text;
    expect(whole).toContain("```js\nimport { createReadStream }");
    const wholeTokens = tokenizer.count(whole);
    let closed = 0;
    for (let maxTokens = 0; maxTokens <= wholeTokens; maxTokens++) {
      const { text } = await llm.complete("", qa(query, context, { maxTokens }));
      expect(tokenizer.count(text), `maxTokens ${maxTokens}`).toBeLessThanOrEqual(maxTokens);
      // Fences in pairs: every cut inside the block ends with the closing fence, none ends on a bare opening one.
      expect(text.match(/^```/gm)?.length ?? 0, text).toSatisfy((fences: number) => fences % 2 === 0);
      if (text.endsWith("\n```") && !whole.startsWith(text)) closed++;
    }
    expect(closed).toBeGreaterThan(10);
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

describe("closeOpenFence", () => {
  it("closes the block a text leaves open with a fence like the opening one, and leaves closed blocks alone", () => {
    expect(closeOpenFence("Run:\n\n```js\nmain();")).toBe("Run:\n\n```js\nmain();\n```");
    expect(closeOpenFence("~~~~\na\n~~~\nb")).toBe("~~~~\na\n~~~\nb\n~~~~");
    expect(closeOpenFence("```\na\n```\ntext")).toBe("```\na\n```\ntext");
    // A closing fence has no info string; a backtick "fence" whose info holds a backtick is inline code.
    expect(closeOpenFence("```sh\nls\n```sh\nmore")).toBe("```sh\nls\n```sh\nmore\n```");
    expect(closeOpenFence("``` a ` b\ntext")).toBe("``` a ` b\ntext");
    // Cut right after the opening fence line: the bare fence goes.
    expect(closeOpenFence("Intro.\n\n```js")).toBe("Intro.");
    expect(closeOpenFence("")).toBe("");
  });
});
