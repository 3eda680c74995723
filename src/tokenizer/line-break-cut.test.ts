import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cutsOnlyAtPieceStarts } from "./bounded-pieces.js";
import { lineBreakCut } from "./line-break-cut.js";
import { resolveTokenizer } from "./resolve-tokenizer.js";
import type { TokenizerName } from "./tokenizer.js";

const names: TokenizerName[] = ["cl100k_base", "o200k_base", "r50k_base"];

// Characters that sit on the edges of the split patterns' alternatives: letters (cased, CJK, a combining mark),
// digits, punctuation that takes trailing line breaks (and o200k's `/`), contractions, whitespace of every kind.
const edgy = fc.constantFrom(
  ..."aZé字語1.,/'`#-|*()\u0301 \t\n\r\u3000\u00a0".split(""),
  "'s",
  "```",
  "\n\n",
);
const text = fc.oneof(
  fc.array(edgy, { maxLength: 30 }).map((parts) => parts.join("")),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc
    .array(fc.constantFrom("word", "Café", "東京", "x.", "42", "(a)", " ", "\n"), { maxLength: 12 })
    .map((parts) => parts.join("")),
);

describe("lineBreakCut", () => {
  for (const name of names) {
    it(`${name}: where it allows a cut at a line-break joiner, the two counts add up to the whole text's`, () => {
      const tokenizer = resolveTokenizer(name);
      const cut = lineBreakCut(tokenizer);
      if (!cut) throw new Error(`${name} has no line-break cut`);
      let allowed = 0;
      fc.assert(
        fc.property(text, fc.constantFrom("\n", "\n\n"), text, text, (before, joiner, after, rest) => {
          if (!cut.allows(before, after)) return;
          allowed++;
          const whole = tokenizer.count(before + joiner + after + rest);
          const parts =
            cut.side === "after"
              ? tokenizer.count(before + joiner) + tokenizer.count(after + rest)
              : tokenizer.count(before) + tokenizer.count(joiner + after + rest);
          expect(parts).toBe(whole);
        }),
        { numRuns: 3000 },
      );
      // The generator must reach the cut often enough for the property to say something.
      expect(allowed).toBeGreaterThan(500);
    });
  }

  for (const name of ["cl100k_base", "o200k_base"] as const) {
    it(`${name}: the cut is exact before an indented paragraph (whitespace without a line break first)`, () => {
      const tokenizer = resolveTokenizer(name);
      const cut = lineBreakCut(tokenizer);
      if (!cut) throw new Error(`${name} has no line-break cut`);
      const indent = fc
        .array(fc.constantFrom(" ", "\t", "\u00a0", "\u3000", "\u2028", "\v"), { minLength: 1, maxLength: 6 })
        .map((parts) => parts.join(""));
      let allowed = 0;
      fc.assert(
        fc.property(text, fc.constantFrom("\n", "\n\n"), indent, text, (before, joiner, lead, rest) => {
          const after = lead + rest;
          if (!cut.allows(before, after)) return;
          allowed++;
          expect(tokenizer.count(before + joiner) + tokenizer.count(after)).toBe(
            tokenizer.count(before + joiner + after),
          );
        }),
        { numRuns: 3000 },
      );
      expect(allowed).toBeGreaterThan(1500);
      // A line break inside the indent joins the joiner's piece: not a cut.
      expect(cut.allows("Done", " \nNext")).toBe(false);
      expect(tokenizer.count("Done\n") + tokenizer.count(" \nNext")).not.toBe(
        tokenizer.count("Done\n \nNext"),
      );
      expect(cut.allows("Done", "    * Fix the build")).toBe(true);
      expect(cut.allows("Done", "   ")).toBe(false);
    });
  }

  it("is not the other side: `.` takes the joiner in cl100k, `\\n\\n` is one piece only at r50k's text end", () => {
    const cl100k = resolveTokenizer("cl100k_base");
    expect(lineBreakCut(cl100k)?.side).toBe("after");
    expect(cl100k.count("Done.") + cl100k.count("\n\nNext")).not.toBe(cl100k.count("Done.\n\nNext"));
    const r50k = resolveTokenizer("r50k_base");
    expect(lineBreakCut(r50k)?.side).toBe("before");
    expect(r50k.count("Done\n\n") + r50k.count("Next")).not.toBe(r50k.count("Done\n\nNext"));
    // o200k lets `/` follow punctuation and line breaks in one piece.
    const o200k = resolveTokenizer("o200k_base");
    expect(o200k.count("Done.\n\n") + o200k.count("/")).not.toBe(o200k.count("Done.\n\n/"));
    expect(lineBreakCut(o200k)?.allows("Done.", "/usr")).toBe(false);
    expect(lineBreakCut(o200k)?.allows("Done.", "usr")).toBe(true);
  });

  it("knows nothing of other tokenizers, even one named like a built-in encoding", () => {
    const cl100k = resolveTokenizer("cl100k_base");
    expect(lineBreakCut(resolveTokenizer((value: string) => value.split(" ")))).toBeUndefined();
    expect(
      lineBreakCut({ name: "cl100k_base", count: (value) => cl100k.count(value) + 1, encode: cl100k.encode }),
    ).toBe(undefined);
  });
});

describe("cutsOnlyAtPieceStarts", () => {
  it("holds for short text and prose, not for a long run the windows must cut mid-run", () => {
    expect(cutsOnlyAtPieceStarts("字".repeat(2000))).toBe(true);
    const prose = Array.from({ length: 600 }, (_, index) => `word${index}`).join(" ");
    expect(prose.length).toBeGreaterThan(4096);
    expect(cutsOnlyAtPieceStarts(prose)).toBe(true);
    expect(cutsOnlyAtPieceStarts("字".repeat(5000))).toBe(false);
    expect(cutsOnlyAtPieceStarts(`${prose}\n${"x".repeat(3000)}`)).toBe(false);
  });
});
