import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isAscii } from "../util/is-ascii.js";
import { asciiSentenceEnds } from "./ascii-sentences.js";
import { EDGE_CASE_TEXT, ENGLISH_TEXT } from "./conformance-fixtures.test.util.js";

// The oracle: the running Node's ICU, whose sentence granularity asciiSentenceEnds must reproduce.
const icu = new Intl.Segmenter("en", { granularity: "sentence" });
const icuEnds = (text: string, start = 0) =>
  [...icu.segment(text)].map((s) => start + s.index + s.segment.length);

// Every sentence-break class ASCII has, several members each, and characters of none (Other).
const ASCII_PARTS = [
  ..."aqzAQZ059",
  ".",
  ".",
  "!",
  "?",
  ..."\"'()[]{}",
  ..."  \t\v\f",
  ..."\r\n",
  "\r\n",
  ..."-,:;",
  ..."#*/_<>@&=+|~`^$%\\\x00\x1b\x7f",
  "e.g.",
  "U.S.",
  " a",
  " B",
  ". ",
  "...",
];

describe("asciiSentenceEnds", () => {
  it("ends ASCII sentences where ICU does, on random text (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ASCII_PARTS), { maxLength: 40 }), (parts) => {
        const text = parts.join("");
        expect(asciiSentenceEnds(text, 0, text.length)).toEqual(icuEnds(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it("segments a range of a longer text as ICU segments that range on its own (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...ASCII_PARTS), { minLength: 1, maxLength: 40 }),
        fc.nat(),
        fc.nat(),
        (parts, a, b) => {
          const text = parts.join("");
          const start = a % text.length;
          const end = start + (b % (text.length - start + 1));
          expect(asciiSentenceEnds(text, start, end)).toEqual(icuEnds(text.slice(start, end), start));
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it("ends sentences where ICU does on real documents: this repository's Markdown and LlamaIndex's fixtures", () => {
    const texts = [ENGLISH_TEXT, EDGE_CASE_TEXT];
    for (const folder of ["examples/docs", "."]) {
      for (const name of readdirSync(folder))
        if (name.endsWith(".md")) texts.push(readFileSync(`${folder}/${name}`, "utf8"));
    }
    let compared = 0;
    let sentences = 0;
    for (const text of texts) {
      for (const paragraph of text.split(/\n[^\S\n]*\n/)) {
        // Windows of the size splitSentences segments, as it hands them over.
        for (let start = 0; start < paragraph.length; start += 2048) {
          const window = paragraph.slice(start, start + 2048);
          if (!isAscii(window)) continue;
          const ends = asciiSentenceEnds(window, 0, window.length);
          expect(ends).toEqual(icuEnds(window));
          compared += window.length;
          sentences += ends.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(100_000);
    expect(sentences).toBeGreaterThan(1_000);
  });

  it("gives nothing for an empty range and one sentence for text without a terminator", () => {
    expect(asciiSentenceEnds("abc", 1, 1)).toEqual([]);
    expect(asciiSentenceEnds("no terminator here", 0, 18)).toEqual([18]);
    expect(asciiSentenceEnds("One. Two? Three! four", 0, 21)).toEqual([5, 10, 17, 21]);
    expect(asciiSentenceEnds("see e.g. this. And 3.14", 0, 23)).toEqual([15, 23]);
  });
});
