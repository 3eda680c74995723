import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { joinedCount } from "./joined-count.js";
import { resolveTokenizer } from "./resolve-tokenizer.js";

const cl100k = resolveTokenizer("cl100k_base");

// Words, sentence ends and the seams a splitter makes (a sentence's trailing space, a word's leading one), next to
// what must not be joined this way: other whitespace, letters above ASCII, digits, apostrophes (contractions),
// letter runs longer than a bounded piece, and text over a count window without spaces.
const word = fc.constantFrom(
  "Hello",
  "Next",
  "a",
  "is",
  "OK",
  "zebra",
  "über",
  "東京",
  "12",
  "3.5",
  "'s",
  "don't",
);
const gap = fc.constantFrom(" ", " ", " ", ". ", ", ", "! ", "\n", "  ", "\t", "\u00a0", "", "-", "(", ") ");
const long = fc.constantFrom("x".repeat(600), `${"ab".repeat(1100)} end`, `${"word ".repeat(500)}`);
const prose = fc
  .array(
    fc.oneof({ weight: 8, arbitrary: fc.tuple(word, gap) }, { weight: 1, arbitrary: fc.tuple(long, gap) }),
    {
      minLength: 1,
      maxLength: 30,
    },
  )
  .map((pairs) => pairs.map(([w, g]) => w + g).join(""));

describe("joinedCount", () => {
  for (const name of ["cl100k_base", "o200k_base", "r50k_base"] as const)
    it(`${name}: is the count of the joined, trimmed text whenever it answers`, () => {
      const tokenizer = resolveTokenizer(name);
      let answered = 0;
      let joinedSeams = 0;
      fc.assert(
        fc.property(
          prose,
          fc.array(fc.nat(), { maxLength: 6 }),
          fc.boolean(),
          fc.boolean(),
          (text, cuts, leadingSpace, trailingSpace) => {
            const whole = `${leadingSpace ? " " : ""}${text}${trailingSpace ? " " : ""}`;
            // Mostly where a splitter cuts (before or after a space), some anywhere.
            const spaces = [...whole.matchAll(/ /g)].flatMap((match) => [match.index, match.index + 1]);
            const at = [
              ...new Set(
                cuts.map((cut) =>
                  cut % 4 === 0 || spaces.length === 0
                    ? cut % (whole.length + 1)
                    : (spaces[cut % spaces.length] as number),
                ),
              ),
            ].sort((a, b) => a - b);
            const texts: string[] = [];
            let from = 0;
            for (const cut of [...at, whole.length]) {
              if (cut > from) texts.push(whole.slice(from, cut));
              from = Math.max(from, cut);
            }
            const parts = texts.map((part) => ({ text: part, tokens: tokenizer.count(part) }));
            const counted = joinedCount(tokenizer, parts);
            if (counted === undefined) return;
            answered++;
            if (parts.slice(0, -1).some((part) => part.text.endsWith(" "))) joinedSeams++;
            expect(counted).toBe(tokenizer.count(whole.trim()));
          },
        ),
        { numRuns: 3000 },
      );
      // The property must reach answers, and the seam after a sentence's space among them.
      expect(answered).toBeGreaterThan(1500);
      expect(joinedSeams).toBeGreaterThan(60);
    });

  it("adds up a sentence's trailing space and the next sentence's first word", () => {
    const parts = ["It ends here. ", "Next one, ", "and more."].map((text) => ({
      text,
      tokens: cl100k.count(text),
    }));
    expect(joinedCount(cl100k, parts)).toBe(cl100k.count("It ends here. Next one, and more."));
  });

  it("answers the joined count at any seam with a word break near it, and nothing without one", () => {
    const counted = (texts: string[], tokenizer = cl100k) =>
      joinedCount(
        tokenizer,
        texts.map((text) => ({ text, tokens: tokenizer.count(text) })),
      );
    for (const texts of [
      ["two ", " spaces"],
      ["line\n", "break"],
      ["mid", "word and more"],
      ["a ", "café au lait"],
      ["   * indented ", "comment\n   */"],
    ])
      expect(counted(texts)).toBe(cl100k.count(texts.join("").trim()));
    const o200k = resolveTokenizer("o200k_base");
    expect(counted(["It ends. ", "Next"], o200k)).toBe(o200k.count("It ends. Next"));
    // No single space within a count window on either side of the seam.
    expect(counted(["x".repeat(1500), "y".repeat(1500)])).toBeUndefined();
    expect(counted([])).toBeUndefined();
    const custom = { name: "words", count: (text: string) => text.split(" ").length, encode: () => [] };
    expect(joinedCount(custom, [{ text: "a b", tokens: 2 }])).toBeUndefined();
  });
});
