import { describe, expect, it } from "vitest";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import type { RagsynthEvent } from "../events/events.js";
import type { LLM, LLMCallOptions } from "../llm/types.js";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { type NodeWithScore, TextNode } from "../schema/text-node.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import {
  DEFAULT_CHOICE_SELECT_PROMPT,
  DEFAULT_CHOICE_SELECT_PROMPT_TMPL,
  formatNodeBatch,
} from "./choice-select-prompt.js";
import { LLMRerank } from "./llm-rerank.js";
import { RerankParseError } from "./rerank-parse-error.js";

const _whitespace = (text: string) => text.split(/\s+/).filter(Boolean);

/** A completion model that answers from a list, one per call, and records what it received. */
function scriptedLLM(answers: string[]) {
  const calls: { prompt: string; options: LLMCallOptions | undefined }[] = [];
  const llm: LLM = {
    metadata: { model: "scripted", contextWindow: 4096, isChatModel: false },
    async complete(prompt, options) {
      options?.signal?.throwIfAborted();
      calls.push({ prompt, options });
      const text = answers[calls.length - 1];
      if (text === undefined) throw new Error(`unexpected call ${calls.length}`);
      return { text };
    },
    streamComplete: () => {
      throw new Error("not used");
    },
    chat: async () => {
      throw new Error("not used");
    },
    streamChat: () => {
      throw new Error("not used");
    },
  };
  return { llm, calls };
}

function nodes(count: number): NodeWithScore[] {
  return Array.from({ length: count }, (_, index) => ({
    node: new TextNode({ id: `n${index + 1}`, text: `text ${index + 1}` }),
    score: 0.5,
  }));
}

const idsAndScores = (result: NodeWithScore[]) => result.map((item) => [item.node.id, item.score]);

describe("LLMRerank", () => {
  it("sends numbered documents in LlamaIndex's choice-select prompt and scores by relevance", async () => {
    const { llm, calls } = scriptedLLM(["Doc: 2, Relevance: 9\nDoc: 1, Relevance: 3"]);
    const input = [
      { node: new TextNode({ id: "a", text: "Alpha.", metadata: { file: "a.md" } }), score: 0.9 },
      { node: new TextNode({ id: "b", text: "Beta." }), score: 0.8 },
      { node: new TextNode({ id: "c", text: "Gamma." }), score: 0.7 },
    ];
    const result = await new LLMRerank({ llm }).postprocessNodes(input, { query: "What is beta?" });
    expect(idsAndScores(result)).toEqual([
      ["b", 9],
      ["a", 3],
    ]);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.prompt).toBe(
      DEFAULT_CHOICE_SELECT_PROMPT_TMPL.replace(
        "{context_str}",
        "Document 1:\nfile: a.md\n\nAlpha.\n\nDocument 2:\nBeta.\n\nDocument 3:\nGamma.",
      ).replace("{query_str}", "What is beta?"),
    );
    expect(calls[0]?.options?.maxTokens).toBe(256);
    expect(input[0]?.score).toBe(0.9);
  });

  it("numbers each batch from 1, sorts across batches and keeps topN", async () => {
    const { llm, calls } = scriptedLLM([
      "Doc: 1, Relevance: 4\nDoc: 2, Relevance: 8",
      "Doc: 1, Relevance: 10\nDoc: 2, Relevance: 4",
    ]);
    const result = await new LLMRerank({ llm, choiceBatchSize: 2, topN: 3 }).postprocessNodes(nodes(4), {
      query: "q",
    });
    expect(idsAndScores(result)).toEqual([
      ["n3", 10],
      ["n2", 8],
      ["n1", 4],
    ]);
    expect(calls[1]?.prompt).toContain("Document 1:\ntext 3\n\nDocument 2:\ntext 4\nQuestion: q");
  });

  it("makes no call for no nodes", async () => {
    const { llm, calls } = scriptedLLM([]);
    expect(await new LLMRerank({ llm }).postprocessNodes([], { query: "q" })).toEqual([]);
    expect(calls).toHaveLength(0);
  });

  it("treats an empty answer as 'no document is relevant'", async () => {
    const { llm } = scriptedLLM(["  \n"]);
    expect(await new LLMRerank({ llm }).postprocessNodes(nodes(2), { query: "q" })).toEqual([]);
  });

  it("throws a RerankParseError with the raw text for an unreadable answer", async () => {
    const { llm } = scriptedLLM(["Doc: 1, Relevance: 5", "I think the second one is best."]);
    const error = await new LLMRerank({ llm, choiceBatchSize: 2 })
      .postprocessNodes(nodes(4), { query: "q" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RerankParseError);
    expect(RagsynthError.isInstance(error, "rerank_parse")).toBe(true);
    expect((error as RerankParseError).text).toBe("I think the second one is best.");
    expect((error as RerankParseError).batchIndex).toBe(1);
    expect((error as Error).message).toMatch(/Expected lines like "Doc: 9, Relevance: 7"/);
    expect((error as Error).message).toMatch(/onParseError: "keep_order"/);
  });

  it("throws for a line that names a document without a score, even next to good lines", async () => {
    const { llm } = scriptedLLM(["Doc: 1, Relevance: 5\nDoc: 2, Relevance: very high"]);
    await expect(new LLMRerank({ llm }).postprocessNodes(nodes(2), { query: "q" })).rejects.toMatchObject({
      code: "rerank_parse",
      malformedLines: ["Doc: 2, Relevance: very high"],
    });
  });

  it('with onParseError "keep_order", keeps an unreadable batch in order after the scored nodes', async () => {
    const { llm } = scriptedLLM(["garbage", "Doc: 2, Relevance: 6"]);
    const events: RagsynthEvent[] = [];
    const result = await new LLMRerank({
      llm,
      choiceBatchSize: 2,
      onParseError: "keep_order",
    }).postprocessNodes(nodes(4), { query: "q", onEvent: (event) => events.push(event) });
    expect(idsAndScores(result)).toEqual([
      ["n4", 6],
      ["n1", 0.5],
      ["n2", 0.5],
    ]);
    const end = events.find((event) => event.type === "postprocess-end");
    expect(end).toMatchObject({
      name: "LLMRerank",
      nodesBefore: 4,
      nodesAfter: 3,
      detail: { fallbackBatches: [0] },
    });
  });

  it("emits llm-call events per batch and forwards the signal", async () => {
    const { llm, calls } = scriptedLLM(["Doc: 1, Relevance: 5"]);
    const controller = new AbortController();
    const events: RagsynthEvent[] = [];
    await new LLMRerank({ llm }).postprocessNodes(nodes(1), {
      query: "q",
      signal: controller.signal,
      onEvent: (event) => events.push(event),
    });
    // The call path passes a signal derived from the caller's (it also ends a stopped stream): aborting the
    // caller's signal aborts the one the model received.
    const received = calls[0]?.options?.signal;
    expect(received?.aborted).toBe(false);
    controller.abort();
    expect(received?.aborted).toBe(true);
    expect(events.map((event) => event.type)).toEqual(["llm-call-start", "llm-call-end", "postprocess-end"]);
    expect(events[0]).toMatchObject({ mode: "rerank", step: { kind: "rerank", index: 0, count: 1 } });
    // Prompt and context are counted with the model's tokenizer (cl100k_base when the model names none).
    const cl100k = resolveTokenizer("cl100k_base");
    expect(events[0]).toMatchObject({
      promptTokens: cl100k.count(calls[0]?.prompt ?? ""),
      contextTokens: cl100k.count(formatNodeBatch(nodes(1).map(({ node }) => node))),
    });
  });

  it("stops between batches when aborted", async () => {
    const controller = new AbortController();
    const { llm, calls } = scriptedLLM(["Doc: 1, Relevance: 5", "Doc: 1, Relevance: 5"]);
    const aborting: LLM = {
      ...llm,
      complete: async (prompt, options) => {
        const result = await llm.complete(prompt, options);
        controller.abort();
        return result;
      },
    };
    await expect(
      new LLMRerank({ llm: aborting, choiceBatchSize: 1 }).postprocessNodes(nodes(2), {
        query: "q",
        signal: controller.signal,
      }),
    ).rejects.toThrow(/abort/i);
    expect(calls).toHaveLength(1);
  });

  it("validates its options and prompts", () => {
    const { llm } = scriptedLLM([]);
    expect(() => new LLMRerank({ llm, topN: 0 })).toThrow(
      /Expected `topN` to be a positive integer, got `0`/,
    );
    expect(() => new LLMRerank({ llm, choiceBatchSize: 2.5 })).toThrow(InvalidArgumentError);
    expect(() => new LLMRerank({ llm, onParseError: "skip" as "error" })).toThrow(/onParseError/);
    expect(
      () => new LLMRerank({ llm, choiceSelectPrompt: new PromptTemplate({ template: "{context_str}" }) }),
    ).toThrow(/\{query_str\}/);
    const rerank = new LLMRerank({ llm });
    const custom = new PromptTemplate({ template: "Docs:\n{context_str}\nQ: {query_str}" });
    rerank.updatePrompts({ choice_select_prompt: custom });
    expect(rerank.getPrompts()).toEqual({ choice_select_prompt: custom });
    expect(() => rerank.updatePrompts({ text_qa_template: custom })).toThrow(/choice_select_prompt/);
  });
});

describe("LLMRerank and the model's window", () => {
  const long = (id: string) => ({ node: new TextNode({ id, text: `${id} ${"word ".repeat(150)}` }) });

  it("packs a batch that does not fit into several calls, each prompt within the window", async () => {
    const { llm, calls } = scriptedLLM([
      "Doc: 1, Relevance: 5",
      "Doc: 1, Relevance: 7",
      "Doc: 1, Relevance: 6",
    ]);
    (llm.metadata as { contextWindow: number }).contextWindow = 600;
    const rerank = new LLMRerank({ llm, choiceBatchSize: 10, maxTokens: 64 });
    const result = await rerank.postprocessNodes([long("a"), long("b"), long("c")], { query: "q" });
    // 10 nodes may share a batch, but the three together do not fit 600 − 64 tokens: more than one call.
    expect(calls.length).toBeGreaterThan(1);
    const cl100k = resolveTokenizer("cl100k_base");
    for (const call of calls) expect(cl100k.count(call.prompt) + 64).toBeLessThanOrEqual(600);
    expect(result.length).toBeGreaterThan(0);
  });

  it("throws ContextOverflowError before any call when one node cannot fit on its own", async () => {
    const { llm, calls } = scriptedLLM(["Doc: 1, Relevance: 5"]);
    // Room for the prompt with the small node, not with the huge one.
    const small = { node: new TextNode({ id: "small", text: "tiny" }) };
    const prompt = DEFAULT_CHOICE_SELECT_PROMPT.format({
      context_str: formatNodeBatch([small.node]),
      query_str: "q",
    });
    const window = resolveTokenizer("cl100k_base").count(prompt) + 64 + 20;
    (llm.metadata as { contextWindow: number }).contextWindow = window;
    const error = await new LLMRerank({ llm, maxTokens: 64 })
      .postprocessNodes([small, long("huge")], { query: "q" })
      .catch((caught: unknown) => caught);
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ contextWindow: window, numOutput: 64 });
    expect((error as ContextOverflowError).overBy).toBeGreaterThan(0);
    expect((error as Error).message).toContain('node "huge" alone');
    expect(calls).toHaveLength(0);
  });
});
