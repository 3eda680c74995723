// Ports LlamaIndex's tests/query_engine/test_citation_query_engine.py (text cases); the multimodal cases are
// documented as a difference in docs/citations.md.
import { describe, expect, it } from "vitest";
import type { Retriever } from "../retrieval/retriever.js";
import { type NodeWithScore, TextNode } from "../schema/text-node.js";
import { SentenceSplitter } from "../splitter/sentence-splitter.js";
import { MockLLM } from "../testing/mock-llm.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { createCitationNodes } from "./citation-nodes.js";
import { CITATION_QA_TEMPLATE, CITATION_REFINE_TEMPLATE } from "./citation-prompts.js";
import { CitationQueryEngine } from "./citation-query-engine.js";

const fixed = (nodes: NodeWithScore[]): Retriever => ({ retrieve: async () => nodes });

describe("CitationQueryEngine (LlamaIndex parity)", () => {
  it("uses the citation QA and refine templates by default", () => {
    const engine = new CitationQueryEngine({ retriever: fixed([]), llm: new MockLLM({ response: "x" }) });
    const prompts = engine.engine.getPrompts();
    expect(prompts["response_synthesizer:text_qa_template"]).toBe(CITATION_QA_TEMPLATE);
    expect(prompts["response_synthesizer:refine_template"]).toBe(CITATION_REFINE_TEMPLATE);
  });

  it("prefixes each chunk with its source label, numbered from 1 (test_create_citation_nodes_text)", () => {
    const splitter = new SentenceSplitter({ chunkSize: 32, chunkOverlap: 0 });
    const { nodes } = createCitationNodes({
      nodes: [{ node: new TextNode({ text: "A. ".repeat(200) }), score: 0.5 }],
      splitter,
    });
    expect(nodes.length).toBeGreaterThanOrEqual(2);
    for (const [index, item] of nodes.entries())
      expect(item.node.getContent()).toMatch(new RegExp(`^Source ${index + 1}:\\n`));
  });

  it("numbers globally across nodes and keeps metadata and score (test_..._preserves_source_node_metadata)", () => {
    const splitter = new SentenceSplitter({ chunkSize: 64, chunkOverlap: 0 });
    const source = (id: string, score: number): NodeWithScore => ({
      node: new TextNode({ id, text: "abc ".repeat(50), metadata: { file_path: `${id}.txt` } }),
      score,
    });
    const { nodes, sources } = createCitationNodes({
      nodes: [source("one", 0.42), source("two", 0.3)],
      splitter,
    });
    expect(sources.map((item) => item.number)).toEqual(nodes.map((_, index) => index + 1));
    expect(new Set(sources.map((item) => item.node.node.id))).toEqual(new Set(["one", "two"]));
    for (const [index, item] of nodes.entries()) {
      const from = sources[index]?.node;
      expect(item.node.metadata).toEqual(from?.node.metadata);
      expect(item.score).toBe(from?.score);
      const { startChar = -1, endChar = -1 } = sources[index]?.location ?? {};
      expect(from?.node.text.slice(startChar, endChar)).toBe(sources[index]?.text);
      expect(sources[index]?.location.filePath).toBe(`${from?.node.id}.txt`);
    }
  });

  it("sends the labelled pieces to the model (test_query__synthesizer_called_..._citation_nodes)", async () => {
    const llm = new MockLLM({ response: "mock response" });
    const engine = new CitationQueryEngine({
      retriever: fixed([{ node: new TextNode({ id: "src-1", text: "abc ".repeat(50) }) }]),
      llm,
      citationChunkSize: 64,
      citationChunkOverlap: 0,
    });
    const response = await engine.query({ query: "mock query" });
    expect(String(response)).toBe("mock response");
    expect(llm.calls).toHaveLength(1);
    expect(llm.calls[0]?.prompt).toContain(`Source 1:\n${"abc ".repeat(50).trim()}\n`);
    expect(llm.calls[0]?.prompt).toContain(
      "Now it's your turn. Below are several numbered sources of information:",
    );
    expect(response.citations.sources).toHaveLength(1);
  });

  it("rejects bad sizes and splitters with the option's own name", () => {
    const llm = new MockLLM({ response: "x" });
    const retriever = fixed([]);
    expect(() => new CitationQueryEngine({ retriever, llm, citationChunkSize: 0 })).toThrow(
      /citationChunkSize/,
    );
    expect(
      () => new CitationQueryEngine({ retriever, llm, citationChunkSize: 20, citationChunkOverlap: 21 }),
    ).toThrow(/citationChunkOverlap.*at most `citationChunkSize` \(20\)/);
    expect(() => new CitationQueryEngine({ retriever, llm, textSplitter: {} as never })).toThrow(
      /textSplitter/,
    );
    expect(() => new CitationQueryEngine({ retriever: undefined as never, llm })).toThrow(/retriever/);
  });

  it("streams with markers cut across deltas, and an early break ends the model's stream", async () => {
    const nodes = [{ node: new TextNode({ text: "Water is wet when the sky is red." }) }];
    const llm = new MockLLM({ response: "Water is wet [1] [7] when red [1].", streamBy: "character" });
    const engine = new CitationQueryEngine({ retriever: fixed(nodes), llm });
    const streaming = await engine.stream({ query: "When?" });
    expect(streaming.sources.map((source) => source.number)).toEqual([1]);
    let shown = "";
    for await (const delta of streaming.textStream) shown += delta;
    expect(shown).toBe("Water is wet [1] when red [1].");
    expect((await streaming.response).citations.invalid.map((item) => item.marker)).toEqual(["[7]"]);

    const early = await engine.stream({ query: "When?" });
    for await (const _delta of early.textStream) break;
    expect(llm.calls[1]?.endedAt).toBeDefined();
    await expect(early.response).rejects.toThrow(/closed before it ended/);
  });

  it("passes the signal: an aborted query rejects", async () => {
    const engine = new CitationQueryEngine({ retriever: fixed([]), llm: new MockLLM({ response: "x" }) });
    const controller = new AbortController();
    controller.abort();
    await expect(engine.query({ query: "q", signal: controller.signal })).rejects.toThrow(/abort/i);
  });

  for (const responseMode of [
    "compact",
    "refine",
    "tree_summarize",
    "accumulate",
    "compact_accumulate",
  ] as const) {
    it(`keeps every ${responseMode} prompt within a small window, labels and template counted`, async () => {
      const contextWindow = 700;
      const tokenizer = resolveTokenizer("cl100k_base");
      const llm = new MockLLM({ response: "Water is wet [1].", contextWindow });
      const text =
        "The sky is red in the evening and blue in the morning. Water is wet when the sky is red. ".repeat(
          40,
        );
      const engine = new CitationQueryEngine({
        retriever: fixed([
          { node: new TextNode({ text }) },
          { node: new TextNode({ text: text.toUpperCase() }) },
        ]),
        llm,
        responseMode,
        citationChunkSize: 120,
        citationChunkOverlap: 10,
      });
      const response = await engine.query({ query: "When is water wet?" });
      expect(response.citations.sources.length).toBeGreaterThan(4);
      expect(llm.calls.length).toBeGreaterThan(1);
      for (const call of llm.calls) {
        expect(call.prompt).toContain("Source ");
        expect(tokenizer.count(call.prompt ?? "")).toBeLessThanOrEqual(contextWindow);
      }
    });
  }
});
