import { describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { CitationQueryEngine } from "../citations/citation-query-engine.js";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { ExtractiveLLM } from "../extractive/extractive-llm.js";
import { VectorStoreIndex } from "../index-store/index.js";
import type { LLM } from "../llm/types.js";
import { RetrieverQueryEngine } from "../query-engine/retriever-query-engine.js";
import { TextNode } from "../schema/text-node.js";
import { MockLLM } from "../testing/mock-llm.js";
import { indexQuery } from "./index-query.js";
import { type QuestionPrompts, questionEngine } from "./question-engine.js";

const TEXT = "The default response mode is compact. It packs retrieved chunks into as few calls as fit.";

/** The engine over a one-document index, as ask and batch build it. */
async function engineFor(llm: LLM, citations: boolean, prompts?: QuestionPrompts) {
  const index = await VectorStoreIndex.fromDocuments([new TextNode({ id: "modes.md", text: TEXT })], {
    embedModel: new HashingEmbedder(),
  });
  const promptHelper = PromptHelper.fromLLMMetadata(llm.metadata);
  const query = indexQuery(index, { topK: 2 });
  return questionEngine({ llm, query, mode: "compact", promptHelper, concurrency: 1, citations, prompts });
}

describe("questionEngine", () => {
  it("answers with the question's own template and system prompt", async () => {
    const llm = new MockLLM({ response: "compact" });
    const engine = await engineFor(llm, false, {
      textQaTemplate: "ANSWER FROM {context_str} TO {query_str}",
      systemPrompt: "Be brief.",
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
    const engine = await engineFor(llm, true);
    expect(engine).toBeInstanceOf(CitationQueryEngine);
    const response = await (engine as CitationQueryEngine).query({
      query: "Which response mode is the default?",
    });
    expect(response.citations.citations.length).toBeGreaterThan(0);
    expect(response.citations.unsupported).toEqual([]);
  });
});
