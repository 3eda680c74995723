import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SentenceSplitter } from "../splitter/sentence-splitter.js";
import { boundedPieces, eachBoundedPiece } from "./bounded-pieces.js";
import { recordingTokenizer } from "./recording-tokenizer.test.util.js";
import { resolveTokenizer } from "./resolve-tokenizer.js";
import { countUpTo, type Tokenizer } from "./tokenizer.js";

const cl100k = resolveTokenizer("cl100k_base");
const prose = (n: number) =>
  Array.from({ length: n }, (_, i) => `Sentence ${i} says that the option number ${i * 7} can be set.`).join(
    " ",
  );

describe("countUpTo", () => {
  it("is the exact count up to the limit and above the limit past it (built-in encoding)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 6000 }), fc.integer({ min: 0, max: 3000 }), (text, limit) => {
        const exact = cl100k.count(text);
        const bounded = countUpTo(cl100k, text, limit);
        if (exact <= limit) expect(bounded).toBe(exact);
        else expect(bounded).toBeGreaterThan(limit);
      }),
      { numRuns: 200 },
    );
    const long = prose(5000);
    expect(countUpTo(cl100k, long, 100)).toBeGreaterThan(100);
    expect(countUpTo(cl100k, long, 100)).toBeLessThan(cl100k.count(long));
  });

  it("falls back to the full count for a tokenizer without it", () => {
    const plain: Tokenizer = {
      name: "words",
      count: (text) => text.split(" ").length,
      encode: (t) => t.split(" "),
    };
    expect(countUpTo(plain, "a b c d", 2)).toBe(4);
  });

  it("yields the same pieces one window at a time as boundedPieces", () => {
    for (const text of [prose(3000), "x".repeat(5000), `${"y".repeat(700)} ${prose(50)}`, "short"]) {
      expect([...eachBoundedPiece(text)]).toEqual(boundedPieces(text));
    }
  });
});

describe("SentenceSplitter with countUpTo", () => {
  it("asks 'does it fit?' with countUpTo only and splits exactly as with full counts", () => {
    const text = prose(4000);
    const { tokenizer: counting, counted: fullCounts } = recordingTokenizer(cl100k);
    let upToCalls = 0;
    const bounded: Tokenizer = {
      ...counting,
      count: (t) => {
        fullCounts.push(t);
        return cl100k.count(t);
      },
      countUpTo: (t, limit) => {
        upToCalls++;
        return countUpTo(cl100k, t, limit);
      },
    };
    const withFull = new SentenceSplitter({
      chunkSize: 256,
      chunkOverlap: 20,
      tokenizer: counting,
    }).splitText(text);
    const fullCharacters = fullCounts.reduce((sum, t) => sum + t.length, 0);
    fullCounts.length = 0;
    const withBounded = new SentenceSplitter({
      chunkSize: 256,
      chunkOverlap: 20,
      tokenizer: bounded,
    }).splitText(text);
    expect(withBounded).toEqual(withFull);
    expect(upToCalls).toBeGreaterThan(0);
    // The whole document (and each paragraph-level piece) was counted in full before; now only what fits is.
    expect(fullCharacters).toBeGreaterThan(text.length);
    expect(fullCounts.reduce((sum, t) => sum + t.length, 0)).toBeLessThan(fullCharacters);
  });
});
