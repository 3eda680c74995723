import { describe, expect, it } from "vitest";
import { convertArrayToAsyncIterable } from "./array-to-async-iterable.js";

describe("convertArrayToAsyncIterable", () => {
  it("yields the values in order", async () => {
    const values: string[] = [];
    for await (const value of convertArrayToAsyncIterable(["a", "b", "c"])) values.push(value);
    expect(values).toEqual(["a", "b", "c"]);
  });

  it("yields nothing for an empty array and can stop early", async () => {
    const empty: never[] = [];
    for await (const value of convertArrayToAsyncIterable<never>([])) empty.push(value);
    expect(empty).toEqual([]);
    const seen: number[] = [];
    for await (const value of convertArrayToAsyncIterable([1, 2, 3])) {
      seen.push(value);
      if (value === 2) break;
    }
    expect(seen).toEqual([1, 2]);
  });
});
