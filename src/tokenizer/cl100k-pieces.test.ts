import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cl100kPieceEnd } from "./cl100k-pieces.js";
import { resolveTokenizer } from "./resolve-tokenizer.js";

const require = createRequire(import.meta.url);
const { CL100K_TOKEN_SPLIT_REGEX } = require("gpt-tokenizer/cjs/encodingParams/constants") as {
  CL100K_TOKEN_SPLIT_REGEX: RegExp;
};
const gptCl100k = require("gpt-tokenizer/cjs/encoding/cl100k_base") as { countTokens(text: string): number };

function regexPieces(text: string): string[] {
  return Array.from(text.matchAll(new RegExp(CL100K_TOKEN_SPLIT_REGEX.source, "gu")), (match) => match[0]);
}

// The scanner's pieces, the regular expression's where it answers -1 (as countUpTo uses it); how often it did.
function scannedPieces(text: string): { pieces: string[]; fallbacks: number } {
  const pattern = new RegExp(CL100K_TOKEN_SPLIT_REGEX.source, "gu");
  const pieces: string[] = [];
  let fallbacks = 0;
  for (let start = 0; start < text.length; ) {
    let end = cl100kPieceEnd(text, start);
    if (end < 0) {
      fallbacks++;
      pattern.lastIndex = start;
      const match = pattern.exec(text) as RegExpExecArray;
      expect(match.index).toBe(start);
      end = start + match[0].length;
    }
    pieces.push(text.slice(start, end));
    start = end;
  }
  return { pieces, fallbacks };
}

// Every ASCII class the pattern tells apart, contractions in every case, runs of digits and of line breaks, and
// the characters above ASCII next to which the scanner must hand over: a letter, a combining mark, a digit (²),
// no-break and ideographic spaces, a dash.
const edge = fc.constantFrom(
  ..."aZq09.,;:/'`\"#-_|*()[]{}<>!?@$%^&~+=\\ \t\n\r\v\f\u0000\u001f\u007f".split(""),
  ..."é字\u0301²\u00a0\u3000—".split(""),
  "'s",
  "'S",
  "'ll",
  "'LL",
  "'lL",
  "'ve",
  "'Re",
  "'d",
  "'M",
  "'t",
  "'x",
  "12345",
  "\r\n",
  "\n\n",
  "  ",
  " \n ",
  "word",
);
const edgyText = fc.array(edge, { maxLength: 40 }).map((parts) => parts.join(""));
const asciiText = fc.string({
  unit: fc.integer({ min: 0, max: 127 }).map((code) => String.fromCharCode(code)),
});

describe("cl100kPieceEnd", () => {
  it("cuts text into the pieces cl100k_base's pre-tokenizer matches (the regex where it hands over)", () => {
    let scanned = 0;
    let handedOver = 0;
    fc.assert(
      fc.property(fc.oneof(edgyText, asciiText, fc.string({ unit: "grapheme", maxLength: 30 })), (text) => {
        const { pieces, fallbacks } = scannedPieces(text);
        scanned += pieces.length - fallbacks;
        handedOver += fallbacks;
        expect(pieces).toEqual(regexPieces(text));
      }),
      { numRuns: 5000 },
    );
    // Most pieces must come from the scanner itself for the property to say something about it, and the hand-over
    // must be reached too.
    expect(scanned).toBeGreaterThan(5_000);
    expect(scanned).toBeGreaterThan(handedOver);
    expect(handedOver).toBeGreaterThan(500);
  });

  it("answers on ASCII alone and hands over at a character above it", () => {
    expect(cl100kPieceEnd("Hello world", 0)).toBe(5);
    expect(cl100kPieceEnd("Hello world", 5)).toBe(11);
    expect(cl100kPieceEnd("it's", 2)).toBe(4);
    expect(cl100kPieceEnd("we'll", 2)).toBe(5);
    expect(cl100kPieceEnd("12345", 0)).toBe(3);
    expect(cl100kPieceEnd("a  \n\n  b", 1)).toBe(5); // up to the last line break in the run
    expect(cl100kPieceEnd("a   b", 1)).toBe(3); // the run's last space goes with the word
    expect(cl100kPieceEnd("end   ", 3)).toBe(6);
    expect(cl100kPieceEnd("x ((;\n\ny", 1)).toBe(7);
    expect(cl100kPieceEnd("café", 0)).toBe(-1);
    expect(cl100kPieceEnd("a \u00a0b", 1)).toBe(-1);
    expect(cl100kPieceEnd("12²", 0)).toBe(-1);
  });

  it("leaves the tokenizer's counts as gpt-tokenizer's own", () => {
    const tokenizer = resolveTokenizer("cl100k_base");
    fc.assert(
      fc.property(fc.oneof(edgyText, asciiText), (text) => {
        expect(tokenizer.count(text)).toBe(gptCl100k.countTokens(text));
      }),
      { numRuns: 1000 },
    );
  });
});
