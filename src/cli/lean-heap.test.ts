import { describe, expect, it } from "vitest";
import { HEAP_GROWING_PERCENT, LEAN_HEAP_MIN_BYTES, leanHeapFlag } from "./lean-heap.js";

describe("leanHeapFlag", () => {
  it("asks V8 to grow the heap less for a build of at least LEAN_HEAP_MIN_BYTES, not for a smaller one", () => {
    expect(leanHeapFlag(LEAN_HEAP_MIN_BYTES - 1, [])).toBeUndefined();
    expect(leanHeapFlag(0, [])).toBeUndefined();
    expect(leanHeapFlag(Number.NaN, [])).toBeUndefined();
    expect(leanHeapFlag(LEAN_HEAP_MIN_BYTES, [])).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(leanHeapFlag(300 * 1024 * 1024, ["--enable-source-maps"])).toBe(
      `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
    );
  });

  it("leaves a process started with its own growth alone, in either spelling", () => {
    for (const own of ["--heap-growing-percent=20", "--heap_growing_percent=20", "--heap-growing-percent"])
      expect(leanHeapFlag(300 * 1024 * 1024, ["--enable-source-maps", own])).toBeUndefined();
  });
});
