// fromAiSdk against the real `ai` packages, one per supported major, installed side by side in this folder
// (its own package.json and lock: `npm ci --prefix test/ai-sdk`). The model is the AI SDK's own mock model.
import { existsSync } from "node:fs";
import { type AiSdkFunctions, fromAiSdk, getResponseSynthesizer, TextNode } from "ragsynth";
import { afterEach, describe, expect, it, vi } from "vitest";

const MAJORS = [
  { name: "ai@6", package: "ai6", mock: "MockLanguageModelV3" },
  { name: "ai@7", package: "ai7", mock: "MockLanguageModelV4" },
] as const;
const installed = MAJORS.every(({ package: name }) =>
  existsSync(new URL(`./node_modules/${name}/package.json`, import.meta.url)),
);
if (!installed && process.env.CI === "true") {
  throw new Error("CI=true but test/ai-sdk is not installed: run `npm ci --prefix test/ai-sdk` first.");
}
if (!installed)
  console.info("[ai-sdk] skipped: run `npm ci --prefix test/ai-sdk` to test fromAiSdk against ai@6/ai@7");

const SYSTEM = "You answer from the documents only.";
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 2, text: 2, reasoning: undefined },
};
const finishReason = { unified: "stop", raw: "stop" };

/** The AI SDK's mock model, answering `answer N` and recording each prompt it received. */
async function mockModel(major: (typeof MAJORS)[number]) {
  const testing = (await import(`${major.package}/test`)) as Record<
    string,
    new (
      options: unknown,
    ) => unknown
  >;
  const prompts: Array<Array<{ role: string; content: unknown }>> = [];
  const Mock = testing[major.mock] as new (options: unknown) => unknown;
  const model = new Mock({
    modelId: "gpt-4o-mini",
    doGenerate: async ({ prompt }: { prompt: Array<{ role: string; content: unknown }> }) => {
      prompts.push(prompt);
      return {
        content: [{ type: "text", text: `answer ${prompts.length}` }],
        finishReason,
        usage,
        warnings: [],
      };
    },
    doStream: async ({ prompt }: { prompt: Array<{ role: string; content: unknown }> }) => {
      prompts.push(prompt);
      const parts = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "answer " },
        { type: "text-delta", id: "t", delta: String(prompts.length) },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason, usage },
      ];
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
  return { model, prompts };
}

const nodes = Array.from({ length: 6 }, (_, index) => ({
  node: new TextNode({
    text: `Document ${index}: ${Array.from({ length: 120 }, (_, word) => `fact${word}`).join(" ")}`,
  }),
  score: 1,
}));

afterEach(() => {
  vi.restoreAllMocks();
});

describe.skipIf(!installed).each(MAJORS)("fromAiSdk with $name", (major) => {
  it.each(["compact", "tree_summarize"] as const)(
    "%s answers with a system prompt: system text outside messages, no AI SDK warning",
    async (mode) => {
      const warnings: string[] = [];
      for (const method of ["warn", "log", "info"] as const) {
        vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
          warnings.push(args.map(String).join(" "));
        });
      }
      const ai = (await import(major.package)) as AiSdkFunctions<unknown>;
      const { model, prompts } = await mockModel(major);
      const llm = fromAiSdk(model, {
        generateText: ai.generateText,
        streamText: ai.streamText,
        contextWindow: 1200,
        maxOutputTokens: 100,
      });
      const synthesizer = getResponseSynthesizer({ llm, responseMode: mode, systemPrompt: SYSTEM });
      const streaming = synthesizer.stream({ query: "What do the documents say?", nodes });
      let streamed = "";
      for await (const delta of streaming.textStream) streamed += delta;
      const response = await streaming.response;
      expect(response.response).toBe(`answer ${prompts.length}`);
      expect(streamed).toBe(response.response);
      expect(prompts.length).toBeGreaterThan(1);
      for (const prompt of prompts) {
        expect(prompt[0]).toMatchObject({ role: "system" });
        expect(String(prompt[0]?.content)).toContain(SYSTEM);
        expect(prompt.slice(1).every((message) => message.role !== "system")).toBe(true);
      }
      expect(warnings.filter((line) => /AI SDK Warning|System messages/.test(line))).toEqual([]);
    },
  );
});
