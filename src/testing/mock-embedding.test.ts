import { describe, expect, it } from "vitest";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { MockEmbedding } from "./mock-embedding.js";

const table = {
  hello: [1, 0, 0, 0, 0],
  world: [0, 1, 0, 0, 0],
  foo: [0, 0, 1, 0, 0],
};

describe("MockEmbedding", () => {
  it("looks texts up in its table and records each call's texts", async () => {
    const embedder = new MockEmbedding({ embeddings: table });
    expect(await embedder.getTextEmbeddings(["hello", "world"])).toEqual([table.hello, table.world]);
    expect(await embedder.getTextEmbeddings(["foo"])).toEqual([table.foo]);
    expect(await embedder.getQueryEmbedding("world")).toEqual(table.world);
    expect(embedder.calls).toEqual([
      { method: "getTextEmbeddings", texts: ["hello", "world"] },
      { method: "getTextEmbeddings", texts: ["foo"] },
      { method: "getQueryEmbedding", texts: ["world"] },
    ]);
    expect(embedder.batchCount).toBe(2);
    expect(embedder.id).toBe("mock-embedding");
  });

  it("returns copies, so callers cannot change the table", async () => {
    const embedder = new MockEmbedding({ embeddings: table });
    const [vector] = await embedder.getTextEmbeddings(["hello"]);
    (vector as number[])[0] = 99;
    expect(await embedder.getQueryEmbedding("hello")).toEqual(table.hello);
  });

  it("throws a clear error for an unknown text", async () => {
    const embedder = new MockEmbedding({ embeddings: table });
    const error = await embedder.getTextEmbeddings(["hello", "bar"]).catch((caught: unknown) => caught);
    expect(RagsynthError.isInstance(error, "invalid_argument")).toBe(true);
    expect((error as Error).message).toBe(
      'Expected `text` to be a key of the mock\'s embeddings table ("hello", "world", "foo"), got `"bar"` (string). ' +
        'Add the text to `embeddings`, or set `fallback: "derived"`.',
    );
  });

  it("uses a configured fallback for unknown texts", async () => {
    const derived = new MockEmbedding({ embeddings: table, fallback: "derived" });
    const [vector] = await derived.getTextEmbeddings(["bar"]);
    expect(vector).toHaveLength(5);
    const custom = new MockEmbedding({ embeddings: table, fallback: () => [0, 0, 0, 0, 1] });
    expect(await custom.getQueryEmbedding("bar")).toEqual([0, 0, 0, 0, 1]);
  });

  it("derives deterministic unit vectors from text when there is no table", async () => {
    const embedder = new MockEmbedding({ dimensions: 16 });
    const [a, b, a2] = await embedder.getTextEmbeddings(["alpha", "beta", "alpha"]);
    expect(a).toHaveLength(16);
    expect(a).toEqual(a2);
    expect(a).not.toEqual(b);
    expect(await new MockEmbedding({ dimensions: 16 }).getQueryEmbedding("alpha")).toEqual(a);
    const length = Math.hypot(...(a as number[]));
    expect(length).toBeCloseTo(1, 12);
    expect(await new MockEmbedding().getQueryEmbedding("x")).toHaveLength(8);
  });

  it("compares with cosine by default", () => {
    const embedder = new MockEmbedding({ embeddings: table });
    expect(embedder.similarity([1, 0], [0.6, 0.8])).toBeCloseTo(0.6, 12);
    expect(embedder.similarity([1, 2], [3, 4], "dot_product")).toBe(11);
  });

  it("records the call, then honours an aborted signal", async () => {
    const controller = new AbortController();
    controller.abort();
    const embedder = new MockEmbedding({ embeddings: table });
    await expect(embedder.getTextEmbeddings(["hello"], { signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(embedder.calls).toHaveLength(1);
  });
});
