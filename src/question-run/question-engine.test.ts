import { describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { CitationQueryEngine } from "../citations/citation-query-engine.js";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { ExtractiveLLM } from "../extractive/extractive-llm.js";
import { VectorStoreIndex } from "../index-store/index.js";
import { RetrieverQueryEngine } from "../query-engine/retriever-query-engine.js";
import { TextNode } from "../schema/text-node.js";
import { MockLLM } from "../testing/mock-llm.js";
import { indexQuery } from "./index-query.js";
import { questionEngine } from "./question-engine.js";

const TEXT = "The default response mode is compact. It packs retrieved chunks into as few calls as fit.";

async function query() {
  const index = await VectorStoreIndex.fromDocuments([new TextNode({ id: "modes.md", text: TEXT })], {
    embedModel: new HashingEmbedder(),
  });
  return indexQuery(index, { topK: 2 });
}

describe("questionEngine", () => {
  it("answers with the question's own template and system prompt", async () => {
    const llm = new MockLLM({ response: "compact" });
    const engine = questionEngine({
      llm,
      query: await query(),
      mode: "compact",
      promptHelper: PromptHelper.fromLLMMetadata(llm.metadata),
      concurrency: 1,
      citations: false,
      prompts: { textQaTemplate: "ANSWER FROM {context_str} TO {query_str}", systemPrompt: "Be brief." },
    });
    expect(engine).toBeInstanceOf(RetrieverQueryEngine);
    const response = await engine.query({ query: "Which mode is the default?" });
    expect(response.response).toBe("compact");
    expect(llm.prompts.join("\n")).toMatch(
      /Be brief\.[\s\S]*ANSWER FROM [\s\S]*default response mode[\s\S]*TO Which mode/,
    );
  });

  it("cites with the offline answerer: its quotes are cited by construction", async () => {
    const llm = new ExtractiveLLM();
    const engine = questionEngine({
      llm,
      query: await query(),
      mode: "compact",
      promptHelper: PromptHelper.fromLLMMetadata(llm.metadata),
      concurrency: 1,
      citations: true,
    });
    expect(engine).toBeInstanceOf(CitationQueryEngine);
    const response = await (engine as CitationQueryEngine).query({
      query: "Which response mode is the default?",
    });
    expect(response.citations.citations.length).toBeGreaterThan(0);
    expect(response.citations.unsupported).toEqual([]);
  });
});
