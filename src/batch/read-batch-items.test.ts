import { describe, expect, it } from "vitest";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { parseBatchItems } from "./read-batch-items.js";

describe("parseBatchItems", () => {
  it("reads one item per line, skips blank lines and turns numeric ids into strings", () => {
    const items = parseBatchItems('{"id":"a","query":"one"}\n\n{"id":2,"query":"two","mode":"refine"}\n', {
      require: ["query"],
    });
    expect(items).toEqual([
      { id: "a", query: "one" },
      { id: "2", query: "two", mode: "refine" },
    ]);
  });

  it.each([
    ['{"id":"a","query":"x"}\nnot json', /Line 2: expected one JSON object per line/],
    ['["a"]', /Line 1: expected a JSON object/],
    ['{"query":"x"}', /Line 1: expected a non-empty string or number `id`, got none/],
    ['{"id":"a","query":"x"}\n{"id":"a","query":"y"}', /Line 2: id "a" was already used on line 1/],
    ['{"id":"a"}', /item "a" needs a non-empty string `query`, got none/],
  ])("rejects %j with a typed error naming the line", (text, message) => {
    let caught: unknown;
    try {
      parseBatchItems(text, { require: ["query"] });
    } catch (error) {
      caught = error;
    }
    expect(RagsynthError.isInstance(caught, "batch_input")).toBe(true);
    expect((caught as Error).message).toMatch(message);
  });
});

describe("MissingPeerDependencyError", () => {
  it("names the packages and the install command", async () => {
    const { MissingPeerDependencyError } = await import("./missing-peer-dependency-error.js");
    const error = new MissingPeerDependencyError({
      packages: ["bullmq", "ioredis"],
      feature: "The BullMQ backend",
    });
    expect(RagsynthError.isInstance(error, "missing_peer_dependency")).toBe(true);
    expect(error.message).toMatch(/npm i bullmq ioredis/);
    expect(error.packages).toEqual(["bullmq", "ioredis"]);
  });
});
