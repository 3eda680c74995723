import { describe, expect, it, vi } from "vitest";
import { main as citations } from "../examples/library/citations.js";
import { main as customSynthesizer } from "../examples/library/custom-synthesizer.js";
import { main as langchainIntoRagsynth } from "../examples/library/langchain-into-ragsynth.js";
import { main as multimodal } from "../examples/library/multimodal.js";
import { main as queryEngine } from "../examples/library/query-engine.js";
import { main as ragsynthInLangchain } from "../examples/library/ragsynth-in-langchain.js";
import { main as streaming } from "../examples/library/streaming.js";
import { main as structuredOutput } from "../examples/library/structured-output.js";
import { main as synthesizer } from "../examples/library/synthesizer.js";
import { main as tracing } from "../examples/library/tracing.js";

// The README's library examples are these files: running them here keeps the README true.
describe("README library examples (examples/library)", () => {
  vi.spyOn(console, "log").mockImplementation(() => undefined);
  vi.spyOn(process.stdout, "write").mockImplementation(() => true);

  it("citations: the extractive quote cited with its source, file and range", async () => {
    const response = await citations();
    expect(response.response).toBe("Water is wet when the sky is red. [2]");
    expect(
      response.citations.citations.map((citation) => [citation.sourceNumber, citation.source.location]),
    ).toEqual([[2, { filePath: "water.md", startChar: 0, endChar: 33 }]]);
    expect(response.citations.unsupported).toEqual([]);
  });

  it("synthesizer: answers from the Paris node, with usage", async () => {
    const response = await synthesizer();
    // Extractive: it quotes the best-matching sentences, so the Paris sentence must be there.
    expect(response.toString()).toContain("Paris is the capital of France.");
    expect(response.usage.llmCalls).toBe(1);
    expect(response.sourceNodes).toHaveLength(2);
  });

  it("query engine: tree_summarize with the optimizer answers, offline, with sources", async () => {
    const response = await queryEngine();
    expect(response.toString()).toContain("finished in 1889");
    expect(response.sourceNodes.length).toBeGreaterThan(0);
    expect(response.sourceNodes[0]?.node.metadata.file_name).toBe("paris.txt");
  });

  it("streaming: the streamed text equals the final response", async () => {
    const { streamed, final } = await streaming();
    expect(streamed).toContain("Seine");
    expect(final.response).toBe(streamed);
  });

  it("structured output: a validated object", async () => {
    const response = await structuredOutput();
    expect(response.object).toEqual({ answer: expect.stringContaining("Paris") });
  });

  it("multimodal: text and an image in one call, and OpenAI's image-token rule", async () => {
    const { response, sent, tokens } = await multimodal();
    expect(response.toString()).toBe("Revenue grew everywhere.");
    expect(sent).toEqual(["text", "text", "text", "image", "text"]);
    expect(tokens).toBe(765);
  });

  it("custom synthesizer: its call is counted and evented", async () => {
    const { response, events } = await customSynthesizer();
    expect(response.toString()).toContain("William Shakespeare");
    expect(response.usage.llmCalls).toBe(1);
    expect(events).toEqual(["synthesize-start", "llm-call-start", "llm-call-end", "synthesize-end"]);
  });

  it("LangChain into ragsynth: a LangChain model, embeddings and vector store answer with scored sources", async () => {
    const { response, embedModel } = await langchainIntoRagsynth();
    expect(response.toString()).toBe("The Eiffel Tower was finished in 1889.");
    // SyntheticEmbeddings are not semantic, so only the set of sources and their scores are checked.
    const sources = response.sourceNodes.map((source) => source.node.metadata.source).sort();
    expect(sources).toEqual(["berlin.txt", "paris.txt"]);
    const scores = response.sourceNodes.map((source) => source.score as number);
    expect(scores.every((score) => typeof score === "number")).toBe(true);
    expect(scores).toEqual([...scores].sort((a, b) => b - a)); // best first
    expect(embedModel.id).toBe("langchain:SyntheticEmbeddings");
  });

  it("ragsynth in LangChain: an LCEL chain answers, and its stream equals the answer", async () => {
    const { answer, streamed } = await ragsynthInLangchain();
    expect(answer).toContain("Paris is the capital of France.");
    expect(streamed).toBe(answer);
  });

  it("tracing: one GenAI inference span per model call under ragsynth.synthesize", async () => {
    const spans = await tracing();
    const root = spans.find((span) => span.name === "ragsynth.synthesize");
    const calls = spans.filter((span) => span.parentSpanContext?.spanId === root?.spanContext().spanId);
    expect(calls.map((span) => span.name)).toEqual(["chat gpt-4o-mini"]);
    expect(calls[0]?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "gpt-4o-mini",
    });
  });
});
