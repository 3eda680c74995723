import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { eachAsciiIdentifierWord, IDENTIFIER_WORD } from "./words.js";

function scanned(text: string): Array<[number, number]> {
  const words: Array<[number, number]> = [];
  eachAsciiIdentifierWord(text, (start, end) => words.push([start, end]));
  return words;
}

function matched(text: string): Array<[number, number]> {
  return Array.from(text.matchAll(IDENTIFIER_WORD), (match) => [match.index, match.index + match[0].length]);
}

// Word characters, the three joiners in runs and at the ends, and what ends a word.
const edge = fc.constantFrom(
  ..."aZ09_'./-- \t\n,;:()[]`\"#*@\u0000\u007f".split(""),
  "v2.9.1",
  "a-",
  "..",
  "./",
  "x.y",
);
const edgyText = fc.array(edge, { maxLength: 40 }).map((parts) => parts.join(""));
const asciiText = fc.string({
  unit: fc.integer({ min: 0, max: 127 }).map((code) => String.fromCharCode(code)),
});

describe("eachAsciiIdentifierWord", () => {
  it("finds IDENTIFIER_WORD's matches in ASCII text, at the same offsets", () => {
    let words = 0;
    fc.assert(
      fc.property(fc.oneof(edgyText, asciiText), (text) => {
        const found = scanned(text);
        words += found.length;
        expect(found).toEqual(matched(text));
      }),
      { numRuns: 5000 },
    );
    expect(words).toBeGreaterThan(3_000);
  });

  it("joins parts only through a joiner followed by a word character", () => {
    const words = (text: string) => scanned(text).map(([start, end]) => text.slice(start, end));
    expect(words("see src/a.ts, v2.9.1. and no-color-")).toEqual([
      "see",
      "src/a.ts",
      "v2.9.1",
      "and",
      "no-color",
    ]);
    expect(words("a..b -c- it's")).toEqual(["a", "b", "c", "it's"]);
  });
});
