import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { MetadataMode, TextNode } from "../schema/text-node.js";
import { MockEmbedding } from "../testing/mock-embedding.js";
import { bySpace, D_TABLE, optimize } from "./optimizer-fixtures.test.util.js";
import { OptimizerZeroSentencesError } from "./optimizer-zero-sentences-error.js";
import { SentenceEmbeddingOptimizer } from "./sentence-embedding-optimizer.js";

const byComma = (text: string) => text.split(",");

// Conformance H: hello=e1, world=e2, foo=e3, bar=e4, abc=e5.
const unit = (axis: number) => [0, 0, 0, 0, 0].map((_, index) => (index === axis ? 1 : 0));
const H_TABLE = { hello: unit(0), world: unit(1), foo: unit(2), bar: unit(3), abc: unit(4) };

describe("SentenceEmbeddingOptimizer: conformance H (OPT-1..OPT-5)", () => {
  const zero = { contextBefore: 0, contextAfter: 0 };
  it("OPT-1: percentile 0.5 keeps the best half", async () => {
    const { text } = await optimize("hello world", unit(0), H_TABLE, {
      splitter: bySpace,
      percentileCutoff: 0.5,
      ...zero,
    });
    expect(text).toBe("hello");
  });
  it("OPT-2: threshold 0.3", async () => {
    const { text } = await optimize("hello world", unit(1), H_TABLE, {
      splitter: bySpace,
      thresholdCutoff: 0.3,
      ...zero,
    });
    expect(text).toBe("world");
  });
  it("OPT-3: threshold 0.3 with a comma splitter", async () => {
    const { text } = await optimize("hello,world,foo,bar", unit(2), H_TABLE, {
      splitter: byComma,
      thresholdCutoff: 0.3,
      ...zero,
    });
    expect(text).toBe("foo");
  });
  it("OPT-4: one sentence of context after", async () => {
    const { text } = await optimize("hello,world,foo,bar", unit(2), H_TABLE, {
      splitter: byComma,
      thresholdCutoff: 0.3,
      contextBefore: 0,
      contextAfter: 1,
    });
    expect(text).toBe("foo bar");
  });
  it("OPT-5: one sentence of context on each side", async () => {
    const { text } = await optimize("hello,world,foo,bar", unit(2), H_TABLE, {
      splitter: byComma,
      thresholdCutoff: 0.3,
      contextBefore: 1,
      contextAfter: 1,
    });
    expect(text).toBe("world foo bar");
  });
  it("clips windows at the ends", async () => {
    const { text } = await optimize("hello,world,foo,bar", unit(0), H_TABLE, {
      splitter: byComma,
      thresholdCutoff: 0.3,
    });
    expect(text).toBe("hello world");
  });
});

describe("SentenceEmbeddingOptimizer: conformance H (OPT-D)", () => {
  const q = [1, 0, 0];
  const zero = { splitter: bySpace, contextBefore: 0, contextAfter: 0 };
  it("D1: keeps document order (LlamaIndex gives score order, 'a b d')", async () => {
    expect((await optimize("c d a e b", q, D_TABLE, { ...zero, percentileCutoff: 0.6 })).text).toBe("d a b");
  });
  it("D2: default context 1/1 without repeats (LlamaIndex gives 'd a e e b')", async () => {
    expect((await optimize("c d a e b", q, D_TABLE, { splitter: bySpace, percentileCutoff: 0.4 })).text).toBe(
      "d a e b",
    );
  });
  it("D3: floor(5 × 0.1) = 0 means no limit (LlamaIndex gives 'a b d c e')", async () => {
    expect((await optimize("c d a e b", q, D_TABLE, { ...zero, percentileCutoff: 0.1 })).text).toBe(
      "c d a e b",
    );
  });
  it("D4: the threshold is strict", async () => {
    expect((await optimize("c d a e b", q, D_TABLE, { ...zero, thresholdCutoff: 0.9 })).text).toBe("a b");
  });
  it("D5: a threshold nothing exceeds throws the zero-sentences error", async () => {
    const error = await optimize("c d a e b", q, D_TABLE, { ...zero, thresholdCutoff: 1.0 }).catch(
      (caught) => caught,
    );
    expect(error).toBeInstanceOf(OptimizerZeroSentencesError);
    expect(RagsynthError.isInstance(error, "optimizer_zero_sentences")).toBe(true);
    expect(error.message).toMatch(/^Optimizer returned zero sentences\. /);
    expect(error.message).toContain(
      'None of the 5 sentences of node "n" scored above thresholdCutoff 1 (best similarity 1)',
    );
    expect(error.message).toContain('onEmpty: "keep_best"');
    expect(error).toMatchObject({ nodeId: "n", sentenceCount: 5, bestSimilarity: 1, thresholdCutoff: 1 });
  });
  it("D6: no cutoffs keeps every sentence (LlamaIndex reorders them by score)", async () => {
    expect((await optimize("c d a e b", q, D_TABLE, zero)).text).toBe("c d a e b");
  });
  it("D7: overlapping windows never repeat a sentence (LlamaIndex gives 'c a b a b e')", async () => {
    expect((await optimize("c a b e", q, D_TABLE, { splitter: bySpace, percentileCutoff: 0.5 })).text).toBe(
      "c a b e",
    );
  });
  it("D8: an empty query is an error (LlamaIndex returns the nodes unchanged without a query bundle)", async () => {
    const embedModel = new MockEmbedding({ embeddings: D_TABLE });
    await expect(
      new SentenceEmbeddingOptimizer({ embedModel }).postprocessNodes(
        [{ node: new TextNode({ text: "c a" }) }],
        {
          query: " ",
        },
      ),
    ).rejects.toThrow(InvalidArgumentError);
    expect(embedModel.calls).toEqual([]);
  });
  it("D9: the metadata header is analysed with the text, but not copied into the new text", async () => {
    const node = new TextNode({ id: "n", text: "a e b", metadata: { x: "c" } });
    // Sentences analysed: "x:", "c" (header), "a", "e", "b" (text). n = 5, so k = floor(5 × 0.2) = 1:
    // the header sentence "c" wins, and its one sentence of context after is the text's "a".
    const { result, embedModel } = await optimize(
      node,
      [0, 1, 0],
      { ...D_TABLE, "x:": [0, 0, 1] },
      {
        splitter: bySpace,
        percentileCutoff: 0.2,
        contextBefore: 0,
        contextAfter: 1,
      },
    );
    expect(embedModel.calls[1]?.texts).toEqual(["x:", "c", "a", "e", "b"]);
    const optimized = result[0]?.node as TextNode;
    // LlamaIndex bakes "c a" into the content, so the model would read "x: c\n\nc a".
    expect(optimized.text).toBe("a");
    expect(optimized.metadata).toEqual({ x: "c" });
    expect(optimized.getContent(MetadataMode.LLM)).toBe("x: c\n\na");
  });
});
