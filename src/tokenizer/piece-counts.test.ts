import { describe, expect, it } from "vitest";
import { MAX_CACHED_PIECE, PieceCounts, pieceCountsOf } from "./piece-counts.js";
import { resolveTokenizer } from "./resolve-tokenizer.js";
import { TokenIndex } from "./token-index.js";
import type { Tokenizer } from "./tokenizer.js";

function countingTokenizer(): Tokenizer & { calls: string[] } {
  const calls: string[] = [];
  return {
    name: "words",
    calls,
    count: (text) => {
      calls.push(text);
      return text.split(/\s+/).filter(Boolean).length;
    },
    encode: (text) => text.split(/\s+/).filter(Boolean),
  };
}

describe("PieceCounts", () => {
  it("counts each distinct piece once, and a piece over the cache limit every time", () => {
    const tokenizer = countingTokenizer();
    const counts = new PieceCounts((piece) => tokenizer.count(piece));
    for (let round = 0; round < 3; round++) {
      expect(counts.count(" hello")).toBe(1);
      expect(counts.count(" a somewhat longer piece")).toBe(4);
    }
    const long = " word".repeat(MAX_CACHED_PIECE);
    expect(counts.count(long)).toBe(MAX_CACHED_PIECE);
    expect(counts.count(long)).toBe(MAX_CACHED_PIECE);
    expect(tokenizer.calls).toEqual([" hello", " a somewhat longer piece", long, long]);
    expect(counts.size).toBe(2);
  });

  it("gives a custom tokenizer one memo per object, used by every TokenIndex over it", () => {
    const tokenizer = countingTokenizer();
    expect(pieceCountsOf(tokenizer)).toBe(pieceCountsOf(tokenizer));
    expect(pieceCountsOf(tokenizer)).not.toBe(pieceCountsOf(countingTokenizer()));
  });

  it("is shared by a built-in encoding's count and its TokenIndex, with the same counts", () => {
    const tokenizer = resolveTokenizer("cl100k_base");
    const memo = pieceCountsOf(tokenizer);
    const text = `ragsynth-piece-counts-${Date.now()} shares one memo between count and the index`;
    const before = memo.size;
    const tokens = tokenizer.count(text);
    const afterCount = memo.size;
    expect(afterCount).toBeGreaterThan(before);
    // The index finds every piece already counted: nothing new enters the memo.
    expect(new TokenIndex(tokenizer, text).totalTokens).toBe(tokens);
    expect(memo.size).toBe(afterCount);
    expect(tokens).toBe(tokenizer.encode(text).length);
  });
});
