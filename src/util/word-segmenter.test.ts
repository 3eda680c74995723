import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { asciiWordSegments, wordSegmenter, wordSegments } from "./word-segmenter.js";

// The oracle: the running Node's ICU, whose word granularity asciiWordSegments must reproduce.
const icuSegments = (text: string) =>
  Array.from(wordSegmenter().segment(text), ({ segment, isWordLike }) => ({
    segment,
    isWordLike: Boolean(isWordLike),
  }));

// Every word-break class ASCII has, and characters of none (Other).
const ASCII_PARTS = [
  ..."aqZ09",
  "ab",
  "12",
  ..."  :,;.'\"_",
  "__",
  ..."\r\n\v\f\t",
  "\r\n",
  ..."-#$%&*+/<=>?@[]^`{|}~!()\\\x00\x7f",
];

describe("asciiWordSegments", () => {
  it("gives ICU's word segments and word-likeness on random ASCII text (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ASCII_PARTS), { maxLength: 30 }), (parts) => {
        const text = parts.join("");
        expect(asciiWordSegments(text)).toEqual(icuSegments(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it("gives ICU's word segments on real documents: this repository's Markdown, line by line", () => {
    let compared = 0;
    for (const folder of ["examples/docs", "."]) {
      for (const name of readdirSync(folder)) {
        if (!name.endsWith(".md")) continue;
        for (const line of readFileSync(`${folder}/${name}`, "utf8").split(/(?<=\n)/)) {
          if (/[^\x20-\x7e\t\r\n]/.test(line)) continue;
          expect(asciiWordSegments(line)).toEqual(icuSegments(line));
          compared += line.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(100_000);
  });

  it("keeps words with their inner marks and numbers with their separators", () => {
    expect(
      asciiWordSegments("can't stop: 3,141.5 e.g. snake_case __init__ a:b").map((s) => s.segment),
    ).toEqual([
      "can't",
      " ",
      "stop",
      ":",
      " ",
      "3,141.5",
      " ",
      "e.g",
      ".",
      " ",
      "snake_case",
      " ",
      "__init__",
      " ",
      "a:b",
    ]);
  });
});

describe("wordSegments", () => {
  it("takes ICU's segments for text beyond ASCII and the hand-written ones for ASCII, both ICU's", () => {
    for (const text of ["naïve café, 東京タワー!", "plain ASCII, with 3.5 words."]) {
      expect([...wordSegments(text)]).toEqual(icuSegments(text));
    }
  });
});
