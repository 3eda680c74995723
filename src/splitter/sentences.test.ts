import fc from "fast-check";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { CHINESE_TEXT, EDGE_CASE_TEXT, ENGLISH_TEXT } from "./conformance-fixtures.test.util.js";
import { splitSentences } from "./sentences.js";

const nonWhitespace = (text: string) => text.replace(/\s+/g, "");

describe("splitSentences", () => {
  it("splits English sentences and keeps the following whitespace with each", () => {
    expect(splitSentences("Hello! How are you? I am fine. And you?")).toEqual([
      "Hello! ",
      "How are you? ",
      "I am fine. ",
      "And you?",
    ]);
  });

  it("splits Chinese on 。！？ and keeps closing quotes with their sentence", () => {
    expect(splitSentences("你好。今天天气很好！你呢？我很好。")).toEqual([
      "你好。",
      "今天天气很好！",
      "你呢？",
      "我很好。",
    ]);
    expect(splitSentences("他说：“你好。”然后走了。")).toEqual(["他说：“你好。”", "然后走了。"]);
  });

  it("splits mixed English and Chinese text", () => {
    expect(splitSentences("English sentence. 中文句子。Another one! 然后呢？")).toEqual([
      "English sentence. ",
      "中文句子。",
      "Another one! ",
      "然后呢？",
    ]);
  });

  it("does not split after titles, e.g./i.e., initials and dotted initialisms", () => {
    expect(splitSentences("Mr. Smith met Dr. Jones. They talked.")).toEqual([
      "Mr. Smith met Dr. Jones. ",
      "They talked.",
    ]);
    expect(splitSentences("Use a fruit, e.g. Apples. Or not.")).toEqual([
      "Use a fruit, e.g. Apples. ",
      "Or not.",
    ]);
    expect(splitSentences("J. K. Rowling wrote it. The U.S. Army read it.")).toEqual([
      "J. K. Rowling wrote it. ",
      "The U.S. Army read it.",
    ]);
    expect(splitSentences("See (e.g. Figure 2) here. Done.")).toEqual([
      "See (e.g. Figure 2) here. ",
      "Done.",
    ]);
  });

  it("still splits after sentence-final words that look like abbreviations", () => {
    expect(splitSentences("Apples, pears, etc. Then we left.")).toEqual([
      "Apples, pears, etc. ",
      "Then we left.",
    ]);
    expect(splitSentences("He said no. Then he left.")).toEqual(["He said no. ", "Then he left."]);
  });

  it("documents a trade-off: a sentence ending in an initialism is joined to the next", () => {
    expect(splitSentences("I live in the U.S. Next sentence.")).toEqual([
      "I live in the U.S. Next sentence.",
    ]);
  });

  it("breaks at blank lines but not at single line breaks (as punkt does, unlike raw ICU)", () => {
    const text = "A sentence that is\nhard-wrapped here. Next\n\nNew paragraph\r\n\r\nThird";
    expect(splitSentences(text)).toEqual([
      "A sentence that is\nhard-wrapped here. ",
      "Next\n\n",
      "New paragraph\r\n\r\n",
      "Third",
    ]);
  });

  it("keeps leading whitespace with the first sentence", () => {
    expect(splitSentences("\n\n  First. Second.")).toEqual(["\n\n  First. ", "Second."]);
  });

  it("trims and drops blank sentences with `trim`", () => {
    expect(splitSentences("\n\nOne.  Two!\n\n\n", { trim: true })).toEqual(["One.", "Two!"]);
    expect(splitSentences("   ", { trim: true })).toEqual([]);
  });

  it("returns [] for empty text", () => {
    expect(splitSentences("")).toEqual([]);
  });

  it("loses no text: the sentences join back to the input", () => {
    for (const text of [ENGLISH_TEXT, CHINESE_TEXT, EDGE_CASE_TEXT]) {
      const sentences = splitSentences(text);
      expect(sentences.length).toBeGreaterThan(1);
      expect(sentences.join("")).toBe(text);
      expect(nonWhitespace(splitSentences(text, { trim: true }).join(""))).toBe(nonWhitespace(text));
    }
  });

  it("loses no text for arbitrary strings (property)", () => {
    const alphabet = fc.constantFrom(
      "a",
      "B",
      " ",
      "\n",
      ".",
      "。",
      "？",
      "!",
      "Mr.",
      "U.S.",
      "é",
      "😀",
      "\r\n",
    );
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 200 }), fc.string({ unit: "grapheme" }), (parts, extra) => {
        const text = parts.join("") + extra;
        expect(splitSentences(text).join("")).toBe(text);
      }),
    );
  });

  it("stays linear on a 1 MB paragraph (ICU segments each character a bounded number of times) and never cuts a surrogate pair", () => {
    const inputs = [
      "Short sentence here. ".repeat(50_000),
      "x".repeat(1_000_000),
      "word ".repeat(200_000),
      "你好。".repeat(300_000),
      "😀".repeat(500_000),
    ];
    // Intl.Segmenter's cost grows with its input times the segments it returns, so the windows must stay
    // small: count the characters handed to it (one call over the whole paragraph would be quadratic).
    const segment = vi.spyOn(Intl.Segmenter.prototype, "segment");
    onTestFinished(() => segment.mockRestore());
    for (const text of inputs) {
      segment.mockClear();
      const sentences = splitSentences(text);
      const inputsSegmented = segment.mock.calls.map(([input]) => input.length);
      expect(Math.max(...inputsSegmented)).toBeLessThanOrEqual(32_768);
      expect(inputsSegmented.reduce((sum, length) => sum + length, 0)).toBeLessThanOrEqual(4 * text.length);
      expect(sentences.join("")).toBe(text);
      const broken = sentences.filter((sentence) => /^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(sentence));
      expect(broken).toEqual([]);
    }
  });

  it("cuts a run without any sentence break at whitespace, into pieces of at most 32K characters", () => {
    const sentences = splitSentences("word ".repeat(20_000));
    expect(sentences.length).toBeGreaterThan(1);
    for (const sentence of sentences) {
      expect(sentence.length).toBeLessThanOrEqual(32_768);
      expect(sentence.endsWith(" ")).toBe(true);
    }
  });

  it("finds the same sentences across window boundaries as in a short text", () => {
    const sentence = "This sentence is exactly long enough to straddle windows, more or less. ";
    const sentences = splitSentences(sentence.repeat(500));
    expect(sentences).toHaveLength(500);
    expect(new Set(sentences)).toEqual(new Set([sentence]));
  });

  it("builds no ICU segmenter for plain text (ASCII, accents, typographic punctuation), and one for other text", () => {
    const Original = Intl.Segmenter;
    const intl = Intl as { Segmenter: typeof Intl.Segmenter };
    let built = 0;
    intl.Segmenter = class extends Original {
      constructor(...args: ConstructorParameters<typeof Intl.Segmenter>) {
        super(...args);
        built++;
      }
    };
    onTestFinished(() => {
      intl.Segmenter = Original;
    });
    // A locale no other test uses, so no segmenter is held for it yet.
    expect(splitSentences("Mr. Smith arrived. He sat down.\n\nThen he left!", { locale: "en-NZ" })).toEqual([
      "Mr. Smith arrived. ",
      "He sat down.\n\n",
      "Then he left!",
    ]);
    expect(built).toBe(0);
    expect(splitSentences("Il est arrivé — « enfin ». Il est parti…", { locale: "en-NZ" })).toEqual([
      "Il est arrivé — « enfin ». ",
      "Il est parti…",
    ]);
    expect(built).toBe(0);
    expect(splitSentences("他来了。他走了。", { locale: "en-NZ" })).toEqual(["他来了。", "他走了。"]);
    expect(built).toBe(1);
  });

  it("refuses a locale that is not a language tag with an InvalidArgumentError, for ASCII text too", () => {
    for (const locale of ["not a locale!", 42]) {
      const call = () => splitSentences("Plain text. Two sentences.", { locale } as never);
      expect(call).toThrow(InvalidArgumentError);
      expect(call).toThrow(/Expected `options.locale` to be a BCP 47 language tag/);
    }
    expect(splitSentences("Plain text. Two.", { locale: "de-CH" })).toEqual(["Plain text. ", "Two."]);
  });
});
