import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isPlainText } from "../util/plain-text.js";
import { plainCharactersInContexts } from "../util/plain-text.test.util.js";
import { EDGE_CASE_TEXT, ENGLISH_TEXT } from "./conformance-fixtures.test.util.js";
import { plainSentenceEnds } from "./plain-sentences.js";

// The oracle: the running Node's ICU, whose sentence granularity plainSentenceEnds must reproduce.
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
// Plain characters beyond ASCII, one or more of each sentence-break class they fall in.
const BEYOND_ASCII_PARTS = [
  ..."éÉßªжЖΩω",
  ..."\u00a0\u202f",
  ..."’‘“”«»‹›",
  ..."–—",
  ..."…•→─€§±",
  ..."‼‽⁇",
  "\u2024",
  "\u2028",
  ..."ℵℓ",
];
const PLAIN_PARTS = [...ASCII_PARTS, ...BEYOND_ASCII_PARTS];

// Sentences around one character, whose class decides where they end (SB6–SB11); X is the character.
const CONTEXTS = [
  "Go.X Now",
  "Go. X now",
  "Go. X Now",
  "go.X",
  "Go.XNow",
  "Go!X Now",
  "X. now",
  "X. Now",
  "Hi X. a",
  "Hi. X a",
  "Hi. X A",
  "a.X.b c",
  "Hi.)X now",
  "X",
  "1.X2",
  "aX. B",
  "Go. XXa b",
  "Hi! X",
  "Hi.X",
  "Hi. XX Now",
  "Hi.X) now",
];

describe("plainSentenceEnds", () => {
  it("ends ASCII sentences where ICU does, on random text (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ASCII_PARTS), { maxLength: 40 }), (parts) => {
        const text = parts.join("");
        expect(plainSentenceEnds(text, 0, text.length)).toEqual(icuEnds(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it("ends sentences where ICU does around every plain character beyond ASCII", () => {
    let checked = 0;
    for (const { code, text } of plainCharactersInContexts(CONTEXTS)) {
      expect({ code, ends: plainSentenceEnds(text, 0, text.length) }).toEqual({ code, ends: icuEnds(text) });
      checked++;
    }
    expect(checked).toBeGreaterThan(1_000 * CONTEXTS.length);
  });

  it("ends sentences of plain text beyond ASCII where ICU does, on random text (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PLAIN_PARTS), { maxLength: 40 }), (parts) => {
        const text = parts.join("");
        expect(plainSentenceEnds(text, 0, text.length)).toEqual(icuEnds(text));
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
          expect(plainSentenceEnds(text, start, end)).toEqual(icuEnds(text.slice(start, end), start));
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it("ends sentences where ICU does on real documents: this repository's plain Markdown and LlamaIndex's fixtures", () => {
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
          if (!isPlainText(window)) continue;
          const ends = plainSentenceEnds(window, 0, window.length);
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
    expect(plainSentenceEnds("abc", 1, 1)).toEqual([]);
    expect(plainSentenceEnds("no terminator here", 0, 18)).toEqual([18]);
    expect(plainSentenceEnds("One. Two? Three! four", 0, 21)).toEqual([5, 10, 17, 21]);
    expect(plainSentenceEnds("see e.g. this. And 3.14", 0, 23)).toEqual([15, 23]);
  });
});
