import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TEXT_WINDOW, textWindowSlices, textWindows } from "./text-windows.js";

describe("textWindows", () => {
  it("covers the text in order with windows of at most the size", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 3000 }),
        fc.integer({ min: 4, max: 600 }),
        (text, size) => {
          const windows = textWindows(text, size);
          let position = 0;
          for (const [start, end] of windows) {
            expect(start).toBe(position);
            expect(end).toBeGreaterThan(start);
            expect(end - start).toBeLessThanOrEqual(size);
            position = end;
          }
          expect(position).toBe(text.length);
        },
      ),
    );
  });

  it("cuts after whitespace or CJK punctuation when there is one in the last quarter", () => {
    const words = "alpha beta gamma delta ".repeat(400);
    for (const window of textWindowSlices(words).slice(0, -1)) expect(window.endsWith(" ")).toBe(true);
    const chinese = "这是一个很长的句子，".repeat(400);
    for (const window of textWindowSlices(chinese).slice(0, -1)) expect(window.endsWith("，")).toBe(true);
  });

  it("cuts a run without breaks at the size, never inside a surrogate pair", () => {
    const run = "😀".repeat(3000);
    const slices = textWindowSlices(run);
    expect(slices.join("")).toBe(run);
    for (const slice of slices) {
      expect(slice.length).toBeLessThanOrEqual(TEXT_WINDOW);
      expect(Array.from(slice).every((character) => character === "😀")).toBe(true);
    }
  });
});
