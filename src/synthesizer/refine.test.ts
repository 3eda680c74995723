import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PromptHelper } from "../budget/index.js";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import {
  CHAT_REFINE_PROMPT_TMPL,
  DEFAULT_TEXT_QA_PROMPT_TMPL,
  TEXT_QA_SYSTEM_PROMPT,
} from "../prompt/default-prompts.js";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { MockLLM } from "../testing/mock-llm.js";
import { collect, MOCK_TOKENIZER, nodesOf, ptypeLLM, recordEvents, words } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

// LlamaIndex's upstream test templates.
const MOCK_TEXT_QA = new PromptTemplate({ template: "{context_str}\n{query_str}\n", promptType: "text_qa" });
const MOCK_REFINE = new PromptTemplate({
  template: "{query_str}\n{existing_answer}\n{context_msg}\n",
  promptType: "refine",
});
const QA0 = new PromptTemplate({ template: "{context_str}{query_str}", promptType: "text_qa" });
const REF0 = new PromptTemplate({
  template: "{query_str}{existing_answer}{context_msg}",
  promptType: "refine",
});

/** Five MOCK tokens per node: `a1 a2 a3 a4 a5`, `b1 …`. */
const letters = (...prefixes: string[]) =>
  prefixes.map((p) => [1, 2, 3, 4, 5].map((n) => `${p}${n}`).join(" "));

function mockHelper(contextWindow: number, numOutput: number, chunkSizeLimit?: number) {
  return new PromptHelper({ contextWindow, numOutput, tokenizer: MOCK_TOKENIZER, chunkSizeLimit });
}

function numbered() {
  return new MockLLM({ response: ({ callIndex }) => `A${callIndex + 1}` });
}

describe("compact: just-in-time packing", () => {
  it("packs as much remaining text as fits next to the real prompt, in order", async () => {
    // QA: 35 − 1 (query) − 4 (output) = 30 tokens; refine with a 1-token answer: 29. No padding: every piece
    // is checked inside its exact rendered prompt, so a safety margin would only waste room.
    const llm = numbered();
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "compact",
      promptHelper: mockHelper(35, 4),
      textQaTemplate: MOCK_TEXT_QA,
      refineTemplate: MOCK_REFINE,
    });
    const nodes = nodesOf(...letters("a", "b", "c", "d", "e", "f", "g", "h"));
    const result = await synthesizer.synthesize({ query: "q", nodes });
    const first = letters("a", "b", "c", "d", "e", "f").join("\n\n");
    expect(llm.prompts).toEqual([`${first}\nq\n`, `q\nA1\n${letters("g", "h").join("\n\n")}\n`]);
    expect(result.response).toBe("A2");
    expect(result.usage.llmCalls).toBe(2);
    expect(llm.calls.map((call) => call.options.maxTokens)).toEqual([4, 4]);
  });

  it("refines each piece against the latest answer (LlamaIndex reuses a stale one)", async () => {
    const llm = numbered();
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "refine",
      promptHelper: mockHelper(35, 4),
      textQaTemplate: MOCK_TEXT_QA,
      refineTemplate: MOCK_REFINE,
    });
    const words = Array.from({ length: 70 }, (_, index) => `w${index + 1}`);
    await synthesizer.synthesize({ query: "q", nodes: nodesOf(words.join(" ")) });
    expect(llm.prompts).toEqual([
      `${words.slice(0, 30).join(" ")}\nq\n`,
      `q\nA1\n${words.slice(30, 59).join(" ")}\n`,
      `q\nA2\n${words.slice(59).join(" ")}\n`,
    ]);
  });

  it("refine never merges nodes; compact does", async () => {
    const texts = letters("a", "b", "c");
    const refine = numbered();
    await getResponseSynthesizer({
      llm: refine,
      responseMode: "refine",
      promptHelper: mockHelper(35, 4),
      textQaTemplate: MOCK_TEXT_QA,
      refineTemplate: MOCK_REFINE,
    }).synthesize({ query: "q", nodes: nodesOf(...texts) });
    expect(refine.prompts).toEqual([`${texts[0]}\nq\n`, `q\nA1\n${texts[1]}\n`, `q\nA2\n${texts[2]}\n`]);
  });

  it("streams only the final call", async () => {
    const llm = numbered();
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "compact",
      promptHelper: mockHelper(35, 4),
      textQaTemplate: MOCK_TEXT_QA,
      refineTemplate: MOCK_REFINE,
    });
    const streaming = synthesizer.stream({
      query: "q",
      nodes: nodesOf(...letters("a", "b", "c", "d", "e", "f", "g")),
    });
    expect(await collect(streaming.textStream)).toEqual(["A", "2"]);
    expect((await streaming.response).response).toBe("A2");
    expect(llm.calls.map((call) => call.stream)).toEqual([false, true]);
  });

  it("starts when the first piece fits; a window with room for the whole text but < 5 spare tokens is not refused", async () => {
    const llm = numbered();
    // Window 30, numOutput 5, query 1 token: 24 context tokens; the text is 22 (2 spare, less than the padding).
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "compact",
      promptHelper: mockHelper(30, 5),
      textQaTemplate: MOCK_TEXT_QA,
      refineTemplate: MOCK_REFINE,
    });
    const texts = [...letters("a", "b", "c", "d"), "e1 e2"];
    const result = await synthesizer.synthesize({ query: "q", nodes: nodesOf(...texts) });
    expect(result.response).toBe("A1");
    expect(llm.calls).toHaveLength(1);
  });

  it("stops with ContextOverflowError at the step where the real answer leaves no room, giving its length", async () => {
    // Window 60, numOutput 20: the QA step takes 39 tokens; a 20-token answer then leaves 60 − 1 − 20 − 20 = 19,
    // a 39-token one (a model ignoring numOutput) leaves none.
    const longAnswer = Array.from({ length: 39 }, (_, index) => `x${index}`).join(" ");
    const llm = new MockLLM({ response: longAnswer });
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "compact",
      promptHelper: mockHelper(60, 20),
      textQaTemplate: MOCK_TEXT_QA,
      refineTemplate: MOCK_REFINE,
    });
    const error = await synthesizer
      .synthesize({
        query: "q",
        nodes: nodesOf(...letters("a", "b", "c", "d", "e", "f", "g", "h", "i", "j")),
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect((error as Error).message).toMatch(/existing answer \(39 tokens\)/);
    expect((error as Error).message).toMatch(/Lower numOutput/);
    expect(llm.calls).toHaveLength(1);
  });

  it("refines with short real answers where a worst-case answer would not fit", async () => {
    // A 20-token answer would leave 14 context tokens; the real answers are 1 token.
    const llm = numbered();
    const { events, onEvent } = recordEvents();
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "compact",
      promptHelper: mockHelper(60, 20),
      textQaTemplate: MOCK_TEXT_QA,
      refineTemplate: MOCK_REFINE,
      onEvent,
    });
    const result = await synthesizer.synthesize({
      query: "q",
      nodes: nodesOf(...letters("a", "b", "c", "d", "e", "f", "g", "h")),
    });
    expect(result.response).toBe("A2");
    expect(events.some((event) => event.type === "warning")).toBe(false);
  });

  it("warns up front (a warning event) when numOutput is over half the window", async () => {
    const { events, onEvent } = recordEvents();
    await getResponseSynthesizer({
      llm: numbered(),
      responseMode: "refine",
      promptHelper: mockHelper(60, 31),
      textQaTemplate: MOCK_TEXT_QA,
      refineTemplate: MOCK_REFINE,
      onEvent,
    }).synthesize({ query: "q", nodes: nodesOf("a b") });
    const warning = events.find((event) => event.type === "warning");
    expect(warning).toMatchObject({ type: "warning", code: "large_num_output" });
    expect(events.indexOf(warning as (typeof events)[number])).toBeLessThan(
      events.findIndex((event) => event.type === "llm-call-start"),
    );
  });

  for (const [mode, contextWindow, numOutput] of [
    ["compact", 2048, 1024],
    ["refine", 4096, 2048],
  ] as const) {
    it(`${mode} answers at window ${contextWindow} / numOutput ${numOutput} with five 300-token nodes (as LlamaIndex)`, async () => {
      const llm = new MockLLM({ response: "A short answer." });
      const synthesizer = getResponseSynthesizer({
        llm,
        responseMode: mode,
        promptHelper: new PromptHelper({ contextWindow, numOutput }),
      });
      const nodes = nodesOf(...Array.from({ length: 5 }, (_, index) => words(300, `n${index}w`)));
      const result = await synthesizer.synthesize({ query: "What do the nodes say?", nodes });
      expect(result.response).toBe("A short answer.");
      expect(llm.calls.length).toBeGreaterThan(1);
    });
  }

  it("counts the system prompt and sends it", async () => {
    const llm = numbered();
    await getResponseSynthesizer({
      llm,
      responseMode: "compact",
      promptHelper: mockHelper(40, 4),
      systemPrompt: "be brief now",
      textQaTemplate: MOCK_TEXT_QA,
      refineTemplate: MOCK_REFINE,
    }).synthesize({ query: "q", nodes: nodesOf(...letters("a", "b", "c", "d", "e", "f", "g")) });
    // 40 − 3 (system) − 1 − 4 = 32: six nodes (30 tokens) and two words of the seventh.
    const first = `${letters("a", "b", "c", "d", "e", "f").join("\n\n")}\n\ng1 g2`;
    expect(llm.prompts).toEqual([`be brief now\n\n${first}\nq\n`, "be brief now\n\nq\nA1\ng3 g4 g5\n"]);
  });

  it("emits a pack event per step with the tokens it took", async () => {
    const { events, onEvent } = recordEvents();
    await getResponseSynthesizer({
      llm: numbered(),
      responseMode: "compact",
      promptHelper: mockHelper(35, 4),
      textQaTemplate: MOCK_TEXT_QA,
      refineTemplate: MOCK_REFINE,
      onEvent,
    }).synthesize({ query: "q", nodes: nodesOf(...letters("a", "b", "c", "d", "e", "f", "g")) });
    expect(events.filter((event) => event.type === "pack")).toEqual([
      { type: "pack", mode: "compact", round: 0, chunkTokens: [30], availableChunkSize: 30 },
      { type: "pack", mode: "compact", round: 1, chunkTokens: [5], availableChunkSize: 29 },
    ]);
    expect(events.flatMap((event) => (event.type === "llm-call-start" ? [event.step] : []))).toEqual([
      { kind: "answer", index: 0 },
      { kind: "refine", index: 1 },
    ]);
  });

  it("returns a typed object with outputSchema, refining the JSON answer", async () => {
    const llm = new MockLLM({ response: ['{"name":"a"}', '{"name":"ab"}'] });
    const result = await getResponseSynthesizer({
      llm,
      responseMode: "compact",
      promptHelper: new PromptHelper({ contextWindow: 200, numOutput: 20, tokenizer: MOCK_TOKENIZER }),
      textQaTemplate: MOCK_TEXT_QA,
      refineTemplate: MOCK_REFINE,
      outputSchema: z.object({ name: z.string() }),
    }).synthesize({
      query: "q",
      nodes: nodesOf(...Array.from({ length: 60 }, (_, i) => `x${i} y${i} z${i}`)),
    });
    expect(llm.calls).toHaveLength(2);
    expect(result.object).toEqual({ name: "ab" });
    expect(result.response).toBe('{"name":"ab"}');
    expect(llm.calls[1]?.options.templateVariables?.existing_answer).toBe('{"name":"a"}');
    expect(llm.calls[0]?.options.responseFormat?.schema).toMatchObject({
      properties: { name: { type: "string" } },
    });
  });
});

describe("chat models", () => {
  it("get the chat templates as messages, with the system prompt first", async () => {
    const llm = new MockLLM({ response: ["first", "second"], isChatModel: true });
    const result = await getResponseSynthesizer({
      llm,
      responseMode: "refine",
      systemPrompt: "Be brief.",
    }).synthesize({ query: "Why?", nodes: nodesOf("one", "two") });
    expect(result.response).toBe("second");
    expect(llm.calls[0]?.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "system", content: TEXT_QA_SYSTEM_PROMPT },
      {
        role: "user",
        content: DEFAULT_TEXT_QA_PROMPT_TMPL.replace("{context_str}", "one").replace("{query_str}", "Why?"),
      },
    ]);
    expect(llm.calls[1]?.messages).toEqual([
      { role: "system", content: "Be brief." },
      {
        role: "user",
        content: CHAT_REFINE_PROMPT_TMPL.replace("{context_msg}", "two")
          .replace("{query_str}", "Why?")
          .replace("{existing_answer}", "first"),
      },
    ]);
  });
});

describe("LlamaIndex response-builder cases (RB-1, RB-2), as they hold for just-in-time packing", () => {
  it("RB-1: a multi-line document reaches the model whole, in one call (LlamaIndex's fake split it per line)", async () => {
    const llm = ptypeLLM();
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "refine",
      promptHelper: new PromptHelper({ contextWindow: 3900, numOutput: 256 }),
      textQaTemplate: MOCK_TEXT_QA,
      refineTemplate: MOCK_REFINE,
    });
    expect(
      String(await synthesizer.synthesize({ query: "What is?", nodes: nodesOf("This is a single line.") })),
    ).toBe("What is?:This is a single line.");
    const text = "Hello world.\nThis is a test.\nThis is another test.\nThis is a test v2.";
    const result = await synthesizer.synthesize({ query: "What is?", nodes: nodesOf(text) });
    expect(result.response).toBe(`What is?:${text}`);
    expect(llm.prompts.at(-1)).toBe(`${text}\nWhat is?\n`);
  });

  it("RB-2: compact sends every word once, in order, with exact prompts", async () => {
    // LlamaIndex: window 11 and a newline-splitting fake give 8 calls, "What is?:This:is:a:bar:This:is:a:test".
    // Ours counts the real answer, so the window is larger; the chunk-size limit of 4 is kept.
    const llm = ptypeLLM();
    const helper = mockHelper(60, 0, 4);
    expect(helper.getAvailableChunkSize(QA0, { variables: { query_str: "What is?" }, padding: 1 })).toBe(4);
    const result = await getResponseSynthesizer({
      llm,
      responseMode: "compact",
      promptHelper: helper,
      textQaTemplate: QA0,
      refineTemplate: REF0,
    }).synthesize({ query: "What is?", nodes: nodesOf("This\n\nis\n\na\n\nbar", "This\n\nis\n\na\n\ntest") });
    expect(llm.prompts).toEqual([
      "This\n\nis\n\na\n\nbarWhat is?",
      "What is?What is?:This\n\nis\n\na\n\nbarThis\n\nis\n\na\n\ntest",
    ]);
    expect(result.response).toBe("What is?:This\n\nis\n\na\n\nbar:This\n\nis\n\na\n\ntest");
  });
});
