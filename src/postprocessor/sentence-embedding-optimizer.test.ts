import { describe, expect, it } from "vitest";
import type { Embedder } from "../embedding/types.js";
import type { RagsynthEvent } from "../events/events.js";
import { type NodeWithScore, TextNode } from "../schema/text-node.js";
import { MockEmbedding } from "../testing/mock-embedding.js";
import { bySpace, D_TABLE, optimize, QUERY } from "./optimizer-fixtures.test.util.js";
import {
  SentenceEmbeddingOptimizer,
  type SentenceEmbeddingOptimizerOptions,
} from "./sentence-embedding-optimizer.js";

describe("SentenceEmbeddingOptimizer", () => {
  it("splits Chinese and English by default and joins Chinese sentences without a space", async () => {
    const text = "巴黎是法国的首都。柏林是德国的首都。Rome is in Italy. Paris has the Louvre.";
    const { text: optimized } = await optimize(
      text,
      [1, 0, 0],
      {
        "巴黎是法国的首都。": [1, 0, 0],
        "柏林是德国的首都。": [0.8, 0.6, 0],
        "Rome is in Italy.": [0, 1, 0],
        "Paris has the Louvre.": [0.9, 0, 0.1],
      },
      { thresholdCutoff: 0.7, contextBefore: 0, contextAfter: 0 },
    );
    expect(optimized).toBe("巴黎是法国的首都。柏林是德国的首都。 Paris has the Louvre.");
  });

  it("embeds the query once and the sentences of all nodes in shared batches, each distinct sentence once", async () => {
    const embedModel = new MockEmbedding({
      fallback: "derived",
      embeddings: { [QUERY]: [1, 0, 0, 0] },
      dimensions: 4,
    });
    const optimizer = new SentenceEmbeddingOptimizer({ embedModel, splitter: bySpace, batchSize: 4 });
    await optimizer.postprocessNodes(
      [{ node: new TextNode({ text: "s1 s2 s3" }) }, { node: new TextNode({ text: "s3 s4 s5" }) }],
      { query: QUERY },
    );
    expect(embedModel.calls).toEqual([
      { method: "getQueryEmbedding", texts: [QUERY] },
      { method: "getTextEmbeddings", texts: ["s1", "s2", "s3", "s4"] },
      { method: "getTextEmbeddings", texts: ["s5"] },
    ]);
  });

  it("returns new nodes with the same ids, metadata and scores, and never changes the caller's", async () => {
    const node = new TextNode({
      id: "keep-me",
      text: "c d a e b",
      metadata: { file: "f.md" },
      excludedLlmMetadataKeys: ["file"],
    });
    const input: NodeWithScore[] = [{ node, score: 0.42 }];
    const embedModel = new MockEmbedding({ embeddings: { ...D_TABLE, [QUERY]: [1, 0, 0] } });
    const result = await new SentenceEmbeddingOptimizer({
      embedModel,
      splitter: bySpace,
      thresholdCutoff: 0.9,
      contextBefore: 0,
      contextAfter: 0,
    }).postprocessNodes(input, { query: QUERY });
    expect(result[0]?.node).not.toBe(node);
    expect(result[0]?.node.toJSON()).toEqual({ ...node.toJSON(), text: "a b" });
    expect(result[0]?.score).toBe(0.42);
    expect(input[0]).toEqual({ node, score: 0.42 });
    expect(node.text).toBe("c d a e b");
  });

  it("keeps the exact text when every sentence survives, and passes empty nodes through", async () => {
    const embedModel = new MockEmbedding({ fallback: "derived", dimensions: 4 });
    const full = new TextNode({ text: "First line.\n\nSecond  line." });
    const empty = new TextNode({ text: "", metadata: { k: 1 } });
    const result = await new SentenceEmbeddingOptimizer({ embedModel }).postprocessNodes(
      [{ node: full }, { node: empty }],
      { query: "q" },
    );
    expect(result.map((item) => item.node)).toEqual([full, empty]);
  });

  it("makes no embedding call for no nodes", async () => {
    const embedModel = new MockEmbedding({ fallback: "derived" });
    expect(await new SentenceEmbeddingOptimizer({ embedModel }).postprocessNodes([], { query: "q" })).toEqual(
      [],
    );
    expect(embedModel.calls).toEqual([]);
  });

  describe("onEmpty", () => {
    const nodes = () => [
      { node: new TextNode({ id: "x", text: "c d a e b" }) },
      { node: new TextNode({ id: "y", text: "c e" }) },
    ];
    const run = async (onEmpty: "keep_best" | "drop_node", contextBefore = 1) => {
      const events: RagsynthEvent[] = [];
      const embedModel = new MockEmbedding({ embeddings: { ...D_TABLE, [QUERY]: [1, 0, 0] } });
      const result = await new SentenceEmbeddingOptimizer({
        embedModel,
        splitter: bySpace,
        thresholdCutoff: 0.95,
        contextBefore,
        contextAfter: 0,
        onEmpty,
      }).postprocessNodes(nodes(), {
        query: QUERY,
        tokenizer: bySpace,
        onEvent: (event) => events.push(event),
      });
      return { result, event: events[0] };
    };

    it('"keep_best" keeps the best sentence with its context and reports it', async () => {
      const { result, event } = await run("keep_best");
      // Node x: a (1.0) and b (0.994) pass 0.95, with one sentence before each. Node y: nothing passes;
      // its best sentence is c (0 ties with e; the first wins), which has no sentence before it.
      expect(result.map((item) => item.node.text)).toEqual(["d a e b", "c"]);
      expect(event).toMatchObject({
        type: "postprocess-end",
        name: "SentenceEmbeddingOptimizer",
        nodesBefore: 2,
        nodesAfter: 2,
        tokensBefore: 7,
        tokensAfter: 5,
        detail: {
          onEmpty: "keep_best",
          embeddingCalls: 1,
          sentencesEmbedded: 5,
          nodes: [
            { id: "x", sentences: 5, kept: 4, tokensBefore: 5, tokensAfter: 4 },
            { id: "y", sentences: 2, kept: 1, tokensBefore: 2, tokensAfter: 1, fallback: "keep_best" },
          ],
        },
      });
    });

    it('"drop_node" drops the node and reports it', async () => {
      const { result, event } = await run("drop_node", 0);
      expect(result.map((item) => item.node.id)).toEqual(["x"]);
      expect(result[0]?.node.text).toBe("a b");
      expect(event).toMatchObject({
        nodesAfter: 1,
        tokensAfter: 2,
        detail: { nodes: [{ id: "x" }, { id: "y", kept: 0, tokensAfter: 0, fallback: "drop_node" }] },
      });
    });
  });

  it("counts the header in tokens: the event reports what the model will read", async () => {
    const events: RagsynthEvent[] = [];
    const embedModel = new MockEmbedding({
      embeddings: { ...D_TABLE, [QUERY]: [1, 0, 0], "k: v": [0, 0, 1] },
    });
    await new SentenceEmbeddingOptimizer({
      embedModel,
      splitter: (text) => (text === "k: v" ? [text] : text.split(" ")),
      thresholdCutoff: 0.9,
      contextBefore: 0,
      contextAfter: 0,
    }).postprocessNodes([{ node: new TextNode({ text: "c d a e b", metadata: { k: "v" } }) }], {
      query: QUERY,
      tokenizer: (text: string) => text.split(/\s+/).filter(Boolean),
      onEvent: (event) => events.push(event),
    });
    expect(events[0]).toMatchObject({ tokensBefore: 7, tokensAfter: 4 });
  });

  it("forwards the signal and stops between embedding batches when aborted", async () => {
    const controller = new AbortController();
    const seen: (AbortSignal | undefined)[] = [];
    const inner = new MockEmbedding({ fallback: "derived", dimensions: 4 });
    const embedModel: Embedder = {
      id: "aborting",
      getQueryEmbedding: async (query, options) => {
        seen.push(options?.signal);
        return inner.getQueryEmbedding(query, options);
      },
      getTextEmbeddings: async (texts, options) => {
        seen.push(options?.signal);
        const result = await inner.getTextEmbeddings(texts, options);
        controller.abort();
        return result;
      },
    };
    await expect(
      new SentenceEmbeddingOptimizer({ embedModel, splitter: bySpace, batchSize: 2 }).postprocessNodes(
        [{ node: new TextNode({ text: "s1 s2 s3 s4" }) }],
        { query: "q", signal: controller.signal },
      ),
    ).rejects.toThrow(/abort/i);
    expect(seen).toEqual([controller.signal, controller.signal]);
    expect(inner.batchCount).toBe(1);
  });

  it("rejects an embedder that returns the wrong number of vectors", async () => {
    const embedModel: Embedder = {
      id: "broken",
      getQueryEmbedding: async () => [1],
      getTextEmbeddings: async () => [[1]],
    };
    await expect(
      new SentenceEmbeddingOptimizer({ embedModel, splitter: bySpace }).postprocessNodes(
        [{ node: new TextNode({ text: "a b" }) }],
        { query: "q" },
      ),
    ).rejects.toThrow(/return one embedding per text from getTextEmbeddings \(2\)/);
  });

  it("validates its options", () => {
    const embedModel = new MockEmbedding({ fallback: "derived" });
    const make = (options: Partial<SentenceEmbeddingOptimizerOptions>) => () =>
      new SentenceEmbeddingOptimizer({ embedModel, ...options } as SentenceEmbeddingOptimizerOptions);
    expect(make({ embedModel: {} as unknown as Embedder })).toThrow(
      /Expected `embedModel` to be an Embedder \(getTextEmbeddings and getQueryEmbedding\)/,
    );
    // Left out, it is the offline HashingEmbedder (a local default, not a global setting).
    expect(make({ embedModel: undefined as unknown as Embedder })).not.toThrow();
    expect(make({ percentileCutoff: 1.5 })).toThrow(
      /Expected `percentileCutoff` to be a number from 0 to 1, got `1.5`/,
    );
    expect(make({ thresholdCutoff: Number.NaN })).toThrow(/thresholdCutoff/);
    expect(make({ contextBefore: -1 })).toThrow(/contextBefore/);
    expect(make({ contextAfter: 0.5 })).toThrow(/contextAfter/);
    expect(make({ onEmpty: "skip" as "error" })).toThrow(/"error", "keep_best", "drop_node"/);
    expect(make({ batchSize: 0 })).toThrow(/batchSize/);
    expect(make({ splitter: "," as unknown as (text: string) => string[] })).toThrow(/splitter/);
  });
});
