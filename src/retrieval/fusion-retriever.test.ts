import { describe, expect, it } from "vitest";
import { type NodeWithScore, TextNode } from "../schema/text-node.js";
import { createFusionRetriever } from "./fusion-retriever.js";
import { reciprocalRankFusion } from "./reciprocal-rank-fusion.js";
import type { Retriever } from "./retriever.js";

const node = (id: string) => new TextNode({ id, text: id });
const fixed = (list: NodeWithScore[]): Retriever => ({ retrieve: async () => list });

describe("reciprocalRankFusion", () => {
  it("sums 1 / (60 + rank) over the lists, rank from 0, as LlamaIndex does", () => {
    const lexical = [
      { node: node("a"), score: 9 },
      { node: node("b"), score: 3 },
    ];
    const dense = [
      { node: node("b"), score: 0.9 },
      { node: node("c"), score: 0.8 },
    ];
    const fused = reciprocalRankFusion([lexical, dense]);
    expect(fused.map((item) => item.node.id)).toEqual(["b", "a", "c"]);
    expect(fused[0]?.score).toBeCloseTo(1 / 61 + 1 / 60, 12);
    expect(fused[1]?.score).toBeCloseTo(1 / 60, 12);
    expect(fused[2]?.score).toBeCloseTo(1 / 61, 12);
  });

  it("ranks each list by its own scores, whatever order it came in", () => {
    const fused = reciprocalRankFusion([
      [
        { node: node("low"), score: 1 },
        { node: node("high"), score: 5 },
      ],
    ]);
    expect(fused.map((item) => item.node.id)).toEqual(["high", "low"]);
  });
});

describe("createFusionRetriever", () => {
  it("asks every retriever with the same query and signal, and keeps similarityTopK", async () => {
    const seen: string[] = [];
    const recording = (list: NodeWithScore[]): Retriever => ({
      retrieve: async ({ query }) => {
        seen.push(query);
        return list;
      },
    });
    const retriever = createFusionRetriever({
      retrievers: [recording([{ node: node("a"), score: 1 }]), recording([{ node: node("b"), score: 1 }])],
      similarityTopK: 1,
    });
    const result = await retriever.retrieve({ query: "q" });
    expect(seen).toEqual(["q", "q"]);
    expect(result).toHaveLength(1);
  });

  it("honours an aborted signal and rejects bad options", async () => {
    const retriever = createFusionRetriever({ retrievers: [fixed([])] });
    await expect(retriever.retrieve({ query: "q", signal: AbortSignal.abort() })).rejects.toThrow();
    expect(() => createFusionRetriever({ retrievers: [] })).toThrow(
      /Expected `retrievers` to be a non-empty array/,
    );
    expect(() => createFusionRetriever({ retrievers: [fixed([])], k: -1 })).toThrow(/Expected `k`/);
  });
});
