import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { RagsynthEvent } from "../events/events.js";
import { type NodeWithScore, TextNode } from "../schema/text-node.js";
import { SimilarityPostprocessor } from "./similarity-postprocessor.js";

const whitespace = (text: string) => text.split(/\s+/).filter(Boolean);

function scored(id: string, score?: number): NodeWithScore {
  const node = new TextNode({ id, text: `text of ${id}` });
  return score === undefined ? { node } : { node, score };
}

const ids = (nodes: NodeWithScore[]) => nodes.map((node) => node.node.id);

describe("SimilarityPostprocessor", () => {
  it("keeps scores at or above the cutoff, in the given order", async () => {
    const nodes = [scored("a", 0.9), scored("b", 0.5), scored("c", 0.75), scored("d", 0.7499)];
    const result = await new SimilarityPostprocessor({ similarityCutoff: 0.75 }).postprocessNodes(nodes, {
      query: "q",
    });
    expect(ids(result)).toEqual(["a", "c"]);
    expect(result[0]).toBe(nodes[0]);
  });

  it("keeps a score of 0 at cutoff 0 (LlamaIndex.TS drops it as falsy)", async () => {
    const result = await new SimilarityPostprocessor({ similarityCutoff: 0 }).postprocessNodes(
      [scored("zero", 0), scored("negative", -0.1)],
      { query: "q" },
    );
    expect(ids(result)).toEqual(["zero"]);
  });

  it("keeps unscored nodes by default (LlamaIndex Python drops them when a cutoff is set)", async () => {
    const result = await new SimilarityPostprocessor({ similarityCutoff: 0.5 }).postprocessNodes(
      [scored("unscored"), scored("low", 0.1)],
      { query: "q" },
    );
    expect(ids(result)).toEqual(["unscored"]);
  });

  it("drops unscored nodes with keepUnscored: false", async () => {
    const result = await new SimilarityPostprocessor({
      similarityCutoff: 0.5,
      keepUnscored: false,
    }).postprocessNodes([scored("unscored"), scored("high", 0.9)], { query: "q" });
    expect(ids(result)).toEqual(["high"]);
  });

  it("drops NaN scores (a NaN is not at or above any cutoff)", async () => {
    const result = await new SimilarityPostprocessor({ similarityCutoff: -1 }).postprocessNodes(
      [scored("nan", Number.NaN), scored("ok", -1)],
      { query: "q" },
    );
    expect(ids(result)).toEqual(["ok"]);
  });

  it("reports what it dropped in a postprocess-end event", async () => {
    const events: RagsynthEvent[] = [];
    await new SimilarityPostprocessor({ similarityCutoff: 0.5 }).postprocessNodes(
      [scored("a", 0.9), scored("b", 0.1), scored("c")],
      { query: "q", tokenizer: whitespace, onEvent: (event) => events.push(event) },
    );
    expect(events).toEqual([
      {
        type: "postprocess-end",
        name: "SimilarityPostprocessor",
        nodesBefore: 3,
        nodesAfter: 2,
        tokensBefore: 9,
        tokensAfter: 6,
        durationMs: expect.any(Number),
        detail: { similarityCutoff: 0.5, keepUnscored: true, unscored: 1, droppedIds: ["b"] },
      },
    ]);
  });

  it("rejects a cutoff that is not a number", () => {
    expect(() => new SimilarityPostprocessor({ similarityCutoff: "0.5" as unknown as number })).toThrow(
      InvalidArgumentError,
    );
    expect(() => new SimilarityPostprocessor({ similarityCutoff: Number.NaN })).toThrow(
      /Expected `similarityCutoff` to be a number, got `NaN` \(number\)/,
    );
  });

  it("throws at once when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      new SimilarityPostprocessor({ similarityCutoff: 0 }).postprocessNodes([scored("a", 1)], {
        query: "q",
        signal: controller.signal,
      }),
    ).rejects.toThrow(/abort/i);
  });
});
