// Linear time: no Intl.Segmenter call, and no BPE call, receives unbounded text anywhere on the way from
// documents to an offline answer. Counts only; timings are the bench's business.
import { ExtractiveLLM, HashingEmbedder, TextNode, VectorStoreIndex } from "ragsynth";
import { afterEach, describe, expect, it, vi } from "vitest";
import { lexicalTerms } from "../../src/analysis/lexical-terms.js";
import { BPE_WINDOW, boundedPieces } from "../../src/tokenizer/bounded-pieces.js";
import { TEXT_WINDOW } from "../../src/util/text-windows.js";

// splitSentences grows its window up to this for one sentence without a break (see splitter/sentences.ts).
const SENTENCE_WINDOW_MAX = 32_768;

function longDocument(): string {
  const prose = "Zebras graze on the open plain while the herd keeps watch. ".repeat(2000);
  const base64 = Buffer.from("x".repeat(60_000)).toString("base64");
  const chinese = "斑马在草原上吃草，它们的条纹是黑白相间的。".repeat(2000);
  return `${prose}\n\n${base64}\n\n${chinese}\n\n${prose}`;
}

describe("windowed segmenter and tokenizer calls", () => {
  const inputs: Array<{ granularity: string; length: number }> = [];
  afterEach(() => {
    vi.restoreAllMocks();
    inputs.length = 0;
  });

  function spySegmenter() {
    const segment = Intl.Segmenter.prototype.segment;
    vi.spyOn(Intl.Segmenter.prototype, "segment").mockImplementation(function (this: Intl.Segmenter, input) {
      inputs.push({ granularity: this.resolvedOptions().granularity, length: String(input).length });
      return segment.call(this, input);
    });
  }

  it("no segmenter call gets more than its window while indexing, fitting IDF and answering", async () => {
    spySegmenter();
    const text = longDocument();
    expect(text.length).toBeGreaterThan(300_000);
    const document = new TextNode({ id: "long.md", text });
    const embedModel = new HashingEmbedder({ corpus: [text], applyIdf: "query" });
    const index = await VectorStoreIndex.fromDocuments([document], { embedModel });
    const engine = index.asQueryEngine({ llm: new ExtractiveLLM(), similarityTopK: 3 });
    const streamed = await engine.stream({ query: "What do zebras eat?" });
    let answer = "";
    for await (const delta of streamed.textStream) answer += delta;
    expect(answer).toMatch(/[Zz]ebra/);
    expect(lexicalTerms(text).length).toBeGreaterThan(10_000);

    const words = inputs.filter((input) => input.granularity === "word");
    const sentences = inputs.filter((input) => input.granularity === "sentence");
    expect(words.length).toBeGreaterThan(100);
    // Only the Chinese paragraph reaches Intl.Segmenter for sentences (42K characters: ~21 windows); the English
    // prose and the base64 are plain text, segmented by hand in the same windows.
    expect(sentences.length).toBeGreaterThan(15);
    expect(Math.max(...words.map((input) => input.length))).toBeLessThanOrEqual(TEXT_WINDOW);
    expect(Math.max(...sentences.map((input) => input.length))).toBeLessThanOrEqual(SENTENCE_WINDOW_MAX);
  });

  it("the BPE tokenizer only ever sees bounded pieces of a long document", () => {
    const pieces = boundedPieces(longDocument());
    expect(pieces.length).toBeGreaterThan(100);
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(BPE_WINDOW);
  });
});
