import { describe, expect, it } from "vitest";
import { BoundedCache } from "./bounded-cache.js";

describe("BoundedCache", () => {
  it("never holds more than two generations, however many keys pass through", () => {
    const cache = new BoundedCache<number, number>(100);
    for (let key = 0; key < 10_000; key++) cache.set(key, key);
    expect(cache.size).toBeLessThanOrEqual(200);
    expect(cache.get(9_999)).toBe(9_999);
    expect(cache.get(0)).toBeUndefined();
  });

  it("keeps an entry that is used while others stream past (no clear-all when full)", () => {
    const cache = new BoundedCache<string, number>(10);
    cache.set("hot", 1);
    for (let key = 0; key < 1_000; key++) {
      cache.set(`cold ${key}`, key);
      expect(cache.get("hot")).toBe(1);
    }
    // The most recent generation survives a rollover.
    expect(cache.get("cold 999")).toBe(999);
    expect(cache.get("cold 995")).toBe(995);
  });

  it("lists recent entries newest first, each key once, up to a limit", () => {
    const cache = new BoundedCache<string, number>(3);
    for (const [index, key] of ["a", "b", "c", "d", "e"].entries()) cache.set(key, index);
    // Generations now: old {a, b, c}, young {d, e}; a hit on "b" promotes it into the young one.
    expect(cache.get("b")).toBe(1);
    expect(cache.recent(10)).toEqual([
      ["b", 1],
      ["e", 4],
      ["d", 3],
      ["c", 2],
      ["a", 0],
    ]);
    expect(cache.recent(2)).toEqual([
      ["b", 1],
      ["e", 4],
    ]);
    expect(new BoundedCache<string, number>(3).recent(5)).toEqual([]);
  });
});
