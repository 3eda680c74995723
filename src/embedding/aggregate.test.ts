import { describe, expect, it } from "vitest";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { MockEmbedding } from "../testing/mock-embedding.js";
import { getAggregateQueryEmbedding, meanAggregate } from "./aggregate.js";

describe("meanAggregate", () => {
  it("EMB-D10: averages element-wise", () => {
    expect(
      meanAggregate([
        [1, 2],
        [3, 6],
      ]),
    ).toEqual([2, 4]);
    expect(meanAggregate([[5, -1]])).toEqual([5, -1]);
  });

  it("EMB-D11: an empty list throws a typed error saying there is nothing to aggregate", () => {
    expect(() => meanAggregate([])).toThrowError(/No embeddings to aggregate/);
    try {
      meanAggregate([]);
    } catch (error) {
      expect(RagsynthError.isInstance(error, "invalid_argument")).toBe(true);
    }
  });

  it("rejects embeddings of different lengths", () => {
    expect(() => meanAggregate([[1, 2], [3]])).toThrowError(
      "Expected `embeddings[1]` to have the length of the first embedding (2), but it has 1",
    );
  });
});

describe("getAggregateQueryEmbedding", () => {
  const embedModel = new MockEmbedding({ embeddings: { hello: [1, 0], world: [0, 4] } });

  it("embeds each query with getQueryEmbedding and takes the mean", async () => {
    const calls = embedModel.calls.length;
    await expect(getAggregateQueryEmbedding({ embedModel, queries: ["hello", "world"] })).resolves.toEqual([
      0.5, 2,
    ]);
    expect(embedModel.calls.slice(calls)).toEqual([
      { method: "getQueryEmbedding", texts: ["hello"] },
      { method: "getQueryEmbedding", texts: ["world"] },
    ]);
  });

  it("accepts a custom aggregate", async () => {
    const first = (embeddings: number[][]) => embeddings[0] ?? [];
    await expect(
      getAggregateQueryEmbedding({ embedModel, queries: ["world", "hello"], aggregate: first }),
    ).resolves.toEqual([0, 4]);
  });

  it("throws for no queries", async () => {
    await expect(getAggregateQueryEmbedding({ embedModel, queries: [] })).rejects.toThrowError(
      /No embeddings to aggregate/,
    );
  });

  it("stops on an aborted signal", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      getAggregateQueryEmbedding({ embedModel, queries: ["hello"], signal: controller.signal }),
    ).rejects.toMatchObject({ name: "AbortError" });
  });
});
