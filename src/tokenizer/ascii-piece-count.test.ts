import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { asciiPieceCounter } from "./ascii-piece-count.js";
import { resolveTokenizer } from "./resolve-tokenizer.js";
import type { TokenizerName } from "./tokenizer.js";

const require = createRequire(import.meta.url);
const plainText = { disallowedSpecial: new Set<string>() };
const NAMES: TokenizerName[] = ["cl100k_base", "o200k_base", "r50k_base"];

// Real text (prose, code, tables, a changelog) and random ASCII, whitespace runs and long words included.
function samples(): string[] {
  const texts = ["README.md", "CHANGELOG.md", "src/tokenizer/bpe-tokenizer.ts", "package-lock.json"].map(
    (file) => readFileSync(new URL(`../../${file}`, import.meta.url), "utf8").slice(0, 60_000),
  );
  let seed = 7;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const alphabet =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 \n\t.,;:-_/'\"()[]{}<>=+*&^%$#@!?~`|\\";
  for (let index = 0; index < 400; index++) {
    const length = 1 + Math.floor(random() * 200);
    let text = "";
    for (let char = 0; char < length; char++) text += alphabet[Math.floor(random() * alphabet.length)];
    texts.push(text);
  }
  return texts;
}

describe("asciiPieceCounter", () => {
  it.each(NAMES)(
    "%s: counts every piece of real and random ASCII text as gpt-tokenizer counts it",
    (name) => {
      const module = require(`gpt-tokenizer/cjs/encoding/${name}`) as {
        countTokens(text: string, options: object): number;
      };
      const gptCount = (text: string) => module.countTokens(text, plainText);
      const pattern = resolveTokenizer(name).pretokenizer as RegExp;
      const counter = asciiPieceCounter(module, resolveTokenizer(name).pretokenizer as RegExp, gptCount);
      expect(counter).toBeDefined();
      const count = counter as (text: string) => number | undefined;
      let pieces = 0;
      let merged = 0;
      for (const text of samples()) {
        const ascii = Array.from(text, (char) => (char.charCodeAt(0) > 127 ? "?" : char)).join("");
        // Whole texts (several pieces each) and each piece alone, as the piece memo hands them over.
        expect(count(ascii)).toBe(gptCount(ascii));
        for (const [piece] of ascii.matchAll(pattern)) {
          pieces++;
          const tokens = count(piece);
          if ((tokens ?? 0) > 1) merged++;
          expect(tokens, JSON.stringify(piece)).toBe(gptCount(piece));
        }
      }
      // The check covered many pieces that take more than one token (the merges themselves).
      expect(pieces).toBeGreaterThan(10_000);
      expect(merged).toBeGreaterThan(1_000);
    },
  );

  it("leaves text holding a non-ASCII character to gpt-tokenizer", () => {
    const module = require("gpt-tokenizer/cjs/encoding/cl100k_base") as {
      countTokens(text: string, options: object): number;
    };
    const counter = asciiPieceCounter(
      module,
      resolveTokenizer("cl100k_base").pretokenizer as RegExp,
      (text) => module.countTokens(text, plainText),
    );
    expect(counter?.("naïve café")).toBeUndefined();
    expect(counter?.("plain words")).toBe(2);
  });

  it("is not used for an encoding whose rank table is not where it expects, or whose counts disagree", () => {
    const pattern = resolveTokenizer("cl100k_base").pretokenizer as RegExp;
    expect(asciiPieceCounter({}, pattern, (text) => text.length)).toBeUndefined();
    const module = require("gpt-tokenizer/cjs/encoding/cl100k_base");
    // A count that disagrees on the probe texts (here: one token per character) turns the counter down.
    expect(asciiPieceCounter(module, pattern, (text) => text.length)).toBeUndefined();
  });

  it("gives the built-in tokenizers' counts unchanged (non-ASCII text included)", () => {
    const module = require("gpt-tokenizer/cjs/encoding/o200k_base") as {
      countTokens(text: string, options: object): number;
    };
    const tokenizer = resolveTokenizer("o200k_base");
    for (const text of [
      "naïve café, 東京 and keepAliveTimeout",
      "plain ascii words here",
      samples()[0] as string,
    ])
      expect(tokenizer.count(text)).toBe(module.countTokens(text, plainText));
  });
});
