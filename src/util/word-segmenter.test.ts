import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isPlainText } from "./plain-text.js";
import { plainCharactersInContexts } from "./plain-text.test.util.js";
import { plainWordSegments, wordSegmenter, wordSegments } from "./word-segmenter.js";

// The oracle: the running Node's ICU, whose word granularity plainWordSegments must reproduce.
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
// Plain characters beyond ASCII, one or more of each word-break class they fall in.
const BEYOND_ASCII_PARTS = [
  ..."éÉßªжΩ",
  "щука",
  ..."·‧’‘\u2024",
  ..."\u202f‿⁀",
  ..."\u00a0–—…•→─€±“”«»",
  "\u2028",
];
const PLAIN_PARTS = [...ASCII_PARTS, ...BEYOND_ASCII_PARTS];
// Words around one character, whose class decides where they break (WB3–WB13b); X is the character.
const CONTEXTS = [
  "aXb",
  "1X2",
  "X",
  "XX",
  "a X b",
  "aX",
  "Xa",
  "1X",
  "X1",
  "_X",
  "X_",
  "a.X",
  "X.a",
  "1,X",
  "  X  ",
  "X X",
  "a:X:b",
  "X'X",
  "\nX\n",
  "X\n",
  "#X#",
  "a1X1a",
  "XXX",
];

describe("plainWordSegments", () => {
  it("gives ICU's word segments and word-likeness on random ASCII text (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ASCII_PARTS), { maxLength: 30 }), (parts) => {
        const text = parts.join("");
        expect(plainWordSegments(text)).toEqual(icuSegments(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it("gives ICU's word segments and word-likeness around every plain character beyond ASCII", () => {
    let checked = 0;
    for (const { code, text } of plainCharactersInContexts(CONTEXTS)) {
      expect({ code, segments: plainWordSegments(text) }).toEqual({ code, segments: icuSegments(text) });
      checked++;
    }
    expect(checked).toBeGreaterThan(1_000 * CONTEXTS.length);
  });

  it("gives ICU's word segments on random plain text beyond ASCII (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PLAIN_PARTS), { maxLength: 30 }), (parts) => {
        const text = parts.join("");
        expect(plainWordSegments(text)).toEqual(icuSegments(text));
      }),
      { numRuns: 10_000 },
    );
  });

  it("gives ICU's word segments on real documents: this repository's Markdown, line by line", () => {
    let compared = 0;
    for (const folder of ["examples/docs", "."]) {
      for (const name of readdirSync(folder)) {
        if (!name.endsWith(".md")) continue;
        for (const line of readFileSync(`${folder}/${name}`, "utf8").split(/(?<=\n)/)) {
          if (!isPlainText(line)) continue;
          expect(plainWordSegments(line)).toEqual(icuSegments(line));
          compared += line.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(100_000);
  });

  it("keeps words with their inner marks and numbers with their separators", () => {
    expect(
      plainWordSegments("can't stop: 3,141.5 e.g. snake_case __init__ a:b").map((s) => s.segment),
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
    for (const text of [
      "東京タワー! 3.5",
      "naïve café — “quoted”, 3.5 words…",
      "plain ASCII, with 3.5 words.",
    ]) {
      expect([...wordSegments(text)]).toEqual(icuSegments(text));
    }
  });
});
