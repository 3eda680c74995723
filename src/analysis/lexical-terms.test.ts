import { describe, expect, it } from "vitest";
import { BIGRAM_PREFIX, lexicalTerms, stem } from "./lexical-terms.js";

const SEGMENTER = new Intl.Segmenter("en", { granularity: "word" });

/** What lexicalTerms gave when every word came from Intl.Segmenter (no stop words, no stemming). */
function segmenterWords(text: string): string[] {
  return Array.from(SEGMENTER.segment(text.normalize("NFKC").toLowerCase()))
    .filter((segment) => segment.isWordLike)
    .map((segment) => segment.segment);
}

const words = (text: string) =>
  lexicalTerms(text, { stopWords: false, stemming: false }).filter((term) => !term.startsWith(BIGRAM_PREFIX));

describe("lexicalTerms words", () => {
  it.each([
    "Install version 8: npm install ajv@8 --save (see e.g. https://ajv.js.org/guide.html).",
    "Don't call res.send() twice; v2.9.1 fixed 1,234 issues at 12:30 on 2024-05-01.",
    "snake_case, camelCase and SCREAMING_CASE names; naïve café déjà-vu ÆON.",
    "fastify.register(require('@fastify/cors'), { origin: '*' }) // O'Reilly’s",
    "斑马在草原上吃草。Zebras 在 Kenya 吃草，东京は日本の首都です。",
    "ราคา 100 บาท and Ελληνικά κείμενα, русский текст, 한국어 문장.",
  ])("finds the words Intl.Segmenter finds: %s", (text) => {
    expect(words(text)).toEqual(segmenterWords(text));
  });

  it("keeps every word of a long document (windows cut between words)", () => {
    // The reference segments the unit once: the segmenter over the whole text would copy it per word.
    const unit = "alpha beta gamma delta epsilon ";
    const expected = Array.from({ length: 5000 }, () => segmenterWords(unit)).flat();
    expect(words(unit.repeat(5000))).toEqual(expected);
  });
});

describe("stem", () => {
  it("gives a word ending in -ie and its plural one stem, as it does for -y and -ies", () => {
    // Failed before: "cookies" stemmed to "cooky" and "cookie" stayed "cookie", so neither found the other.
    for (const [singular, plural] of [
      ["cookie", "cookies"],
      ["movie", "movies"],
      ["tie", "ties"],
      ["library", "libraries"],
      ["query", "queries"],
    ] as const) {
      expect(stem(singular), singular).toBe(stem(plural));
    }
    expect(stem("cookie's")).toBe(stem("cookies"));
    // Other words keep Harman's rules.
    expect(["cases", "status", "class", "is", "die"].map(stem)).toEqual([
      "case",
      "status",
      "class",
      "is",
      "dy",
    ]);
  });
});
