import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resolveTokenizer } from "./resolve-tokenizer.js";
import { TokenIndex } from "./token-index.js";
import type { Tokenizer } from "./tokenizer.js";

const numRuns = Number(process.env.RAGSYNTH_PROPERTY_RUNS ?? 200);
const encodings = ["cl100k_base", "o200k_base", "r50k_base"] as const;

// Text that stresses pre-tokenizers: case changes, contractions, digits, punctuation before newlines,
// whitespace runs of every kind, CJK, emoji, combining marks and lone surrogates.
const unit = fc.oneof(
  fc.constantFrom(
    " ",
    "  ",
    "\n",
    "\n\n",
    "\t",
    "\r\n",
    " \u00a0",
    "\u3000",
    ".",
    "?!\n\n",
    "'s",
    "'",
    "{",
    "}",
  ),
  fc.constantFrom(
    "a",
    "word",
    "The",
    "WORLD",
    "fooBar",
    "123",
    "4567",
    "é",
    "e\u0301",
    "中文",
    "教育的",
    "😀",
    "👩‍👩‍👧",
  ),
  fc.constantFrom("\uD800", "\uDC00", "<|endoftext|>"),
  fc.string({ unit: "grapheme", maxLength: 3 }),
  fc.string({ unit: "binary-ascii", maxLength: 3 }),
);
const text = fc.array(unit, { maxLength: 40 }).map((units) => units.join(""));

/** A span [start, end) of `value` that does not split a surrogate pair. */
function span(value: string, a: number, b: number): [number, number] {
  const boundary = (offset: number) => {
    const code = value.charCodeAt(offset);
    const previous = value.charCodeAt(offset - 1);
    return code >= 0xdc00 && code <= 0xdfff && previous >= 0xd800 && previous <= 0xdbff ? offset - 1 : offset;
  };
  const start = boundary(a % (value.length + 1));
  const end = boundary(b % (value.length + 1));
  return start <= end ? [start, end] : [end, start];
}

describe("TokenIndex with a pre-tokenizer", () => {
  it.each(encodings)("%s: a span's count equals tokenizing the span on its own", (name) => {
    const tokenizer = resolveTokenizer(name);
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (value, a, b) => {
        const index = new TokenIndex(tokenizer, value);
        expect(index.exact).toBe(true);
        expect(index.totalTokens).toBe(tokenizer.count(value));
        const [start, end] = span(value, a, b);
        expect(index.count(start, end)).toBe(tokenizer.count(value.slice(start, end)));
      }),
      { numRuns },
    );
  });

  it.each(encodings)("%s: a span inside a prompt counts like the whole prompt", (name) => {
    const tokenizer = resolveTokenizer(name);
    fc.assert(
      fc.property(text, text, text, fc.nat(), fc.nat(), (value, prefix, suffix, a, b) => {
        const index = new TokenIndex(tokenizer, value);
        const [start, end] = span(value, a, b);
        expect(index.countFramed(prefix, start, end, suffix)).toBe(
          tokenizer.count(prefix + value.slice(start, end) + suffix),
        );
      }),
      { numRuns },
    );
  });

  it("finds the furthest piece boundary within a budget", () => {
    const tokenizer = resolveTokenizer("cl100k_base");
    const value = "one two three four five six";
    const index = new TokenIndex(tokenizer, value);
    const { fit, fitTokens, next } = index.reach(4, 3);
    expect(value.slice(4, fit)).toBe("two three four");
    expect(fitTokens).toBe(tokenizer.count("two three four"));
    expect(value.slice(fit, next)).toBe(" five");
    expect(index.reach(0, 100)).toEqual({
      fit: value.length,
      fitTokens: index.totalTokens,
      next: value.length,
    });
  });
});

describe("TokenIndex without a pre-tokenizer", () => {
  const words = (value: string) => value.split(/\s+/).filter(Boolean);

  it("estimates from words and counts spans for real", () => {
    const index = new TokenIndex(resolveTokenizer(words), "alpha beta\n\ngamma delta");
    expect(index.exact).toBe(false);
    expect(index.totalTokens).toBe(4);
    expect(index.count(6, 16)).toBe(2);
    expect(index.countFramed("x y ", 0, 10, " z")).toBe(5);
  });

  it("falls back to words when a pre-tokenizer leaves gaps", () => {
    const gappy: Tokenizer = {
      name: "gappy",
      count: (value) => words(value).length,
      encode: words,
      pretokenizer: /a/g,
    };
    const index = new TokenIndex(gappy, "a b a");
    expect(index.exact).toBe(false);
    expect(index.totalTokens).toBe(3);
  });
});
