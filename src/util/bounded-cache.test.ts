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
});
