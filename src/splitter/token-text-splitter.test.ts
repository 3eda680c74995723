import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { CHINESE_TEXT, ENGLISH_TEXT } from "./conformance-fixtures.test.util.js";
import { splitTextKeepSeparator } from "./split-functions.js";
import { TokenTextSplitter, truncateText } from "./token-text-splitter.js";

// Conformance section B (LlamaIndex tests/text_splitter/test_token_splitter.py plus runs of 0.14.14).
// MOCK: split on " " or "\n", drop pieces that are blank. GPT2 cases use r50k_base, GPT-2's encoding.
const MOCK = (text: string) => text.split(/[ \n]/).filter((piece) => piece.trim() !== "");
const CL100K = resolveTokenizer("cl100k_base");
const GPT2 = resolveTokenizer("r50k_base");

describe("TokenTextSplitter (conformance B)", () => {
  it("TS-1 splits at words with cl100k", () => {
    const splitter = new TokenTextSplitter({ chunkSize: 1, chunkOverlap: 0 });
    expect(splitter.splitText("foo bar")).toEqual(["foo", "bar"]);
  });

  it("TS-2 overlaps by whole words", () => {
    const splitter = new TokenTextSplitter({ chunkSize: 2, chunkOverlap: 1 });
    expect(splitter.splitText("foo bar hello world")).toEqual(["foo bar", "bar hello", "hello world"]);
  });

  it("TS-3 truncateText keeps the first chunk", () => {
    expect(truncateText("foo bar", new TokenTextSplitter({ chunkSize: 1, chunkOverlap: 0 }))).toBe("foo");
  });

  it("TS-4 falls back to characters and loses nothing (GPT2)", () => {
    const text = "a".repeat(100);
    const chunks = new TokenTextSplitter({ chunkSize: 20, chunkOverlap: 0, tokenizer: GPT2 }).splitText(text);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join("").replaceAll(" ", "")).toBe(text);
    for (const chunk of chunks) expect(GPT2.count(chunk)).toBeLessThanOrEqual(20);
  });

  it("TS-5 uses the newline backup separator (GPT2)", () => {
    const text = `${"a".repeat(49)}\n${"a".repeat(50)}`;
    const chunks = new TokenTextSplitter({ chunkSize: 20, chunkOverlap: 0, tokenizer: GPT2 }).splitText(text);
    expect(chunks.map((chunk) => chunk.length)).toEqual([49, 50]);
  });

  it("TS-6 splits the Chinese fixture into 2 chunks", () => {
    const chunks = new TokenTextSplitter({ chunkSize: 512, chunkOverlap: 0 }).splitText(CHINESE_TEXT);
    expect(chunks).toHaveLength(2);
    for (const chunk of chunks) expect(CL100K.count(chunk)).toBeLessThanOrEqual(512);
  });

  it("TS-7 splits contiguous text into 10 chunks", () => {
    const chunks = new TokenTextSplitter({ chunkSize: 100, chunkOverlap: 0 }).splitText("abcde".repeat(200));
    expect(chunks).toHaveLength(10);
    expect(chunks.join("")).toBe("abcde".repeat(200));
  });

  it("TS-8 splits the English fixture, metadata-aware too (GPT2)", () => {
    const splitter = new TokenTextSplitter({ chunkSize: 100, chunkOverlap: 0, tokenizer: GPT2 });
    expect(splitter.splitText(ENGLISH_TEXT)).toHaveLength(2);
    const metadata = "word ".repeat(50);
    const chunks = splitter.splitTextMetadataAware(ENGLISH_TEXT, metadata);
    expect(chunks).toHaveLength(4);
    for (const chunk of chunks) expect(GPT2.count(chunk) + GPT2.count(metadata)).toBeLessThanOrEqual(100);
  });

  // TS-9 checks a node parser's start/end offsets. Our splitter returns strings; the property behind it is
  // that every chunk is an exact substring of the document, found in order.
  it("TS-9 chunks are substrings of the document, in order", () => {
    const text = "foo bar hello world baz bbq";
    const chunks = new TokenTextSplitter({ chunkSize: 3, chunkOverlap: 1 }).splitText(text);
    let from = 0;
    for (const chunk of chunks) {
      const at = text.indexOf(chunk, from);
      expect(at).toBeGreaterThanOrEqual(0);
      expect(text.slice(at, at + chunk.length)).toBe(chunk);
      from = at + 1;
    }
    expect(chunks.length).toBeGreaterThan(1);
  });

  it("TS-D1/D2 overlap 1 and 2 with the mock tokenizer", () => {
    const text = "a b c d e f g";
    expect(new TokenTextSplitter({ chunkSize: 3, chunkOverlap: 1, tokenizer: MOCK }).splitText(text)).toEqual(
      ["a b c", "c d e", "e f g"],
    );
    expect(new TokenTextSplitter({ chunkSize: 3, chunkOverlap: 2, tokenizer: MOCK }).splitText(text)).toEqual(
      ["a b c", "b c d", "c d e", "d e f", "e f g"],
    );
  });

  it("TS-D3 uses the backup separator", () => {
    const splitter = new TokenTextSplitter({ chunkSize: 2, chunkOverlap: 0, tokenizer: MOCK });
    expect(splitter.splitText("aaa\nbbb\nccc")).toEqual(["aaa\nbbb", "ccc"]);
  });

  it("TS-D4 falls back to characters", () => {
    const splitter = new TokenTextSplitter({
      chunkSize: 3,
      chunkOverlap: 0,
      tokenizer: (text) => Array.from(text),
    });
    expect(splitter.splitText("abcdefgh")).toEqual(["abc", "def", "gh"]);
  });

  it("TS-D5/D6 strips whitespace unless asked to keep it", () => {
    expect(
      new TokenTextSplitter({ chunkSize: 2, chunkOverlap: 0, tokenizer: MOCK }).splitText("  a b   c d  "),
    ).toEqual(["a b", "c d"]);
    const keeping = new TokenTextSplitter({
      chunkSize: 2,
      chunkOverlap: 0,
      tokenizer: MOCK,
      keepWhitespaces: true,
    });
    expect(keeping.splitText("a b c d")).toEqual(["a b", " c d"]);
  });

  it("TS-D7 splits the empty text into one empty chunk", () => {
    expect(new TokenTextSplitter().splitText("")).toEqual([""]);
  });

  it("TS-D8 rejects an overlap larger than the chunk size, in LlamaIndex's words", () => {
    const build = () => new TokenTextSplitter({ chunkSize: 2, chunkOverlap: 3 });
    expect(build).toThrow(InvalidArgumentError);
    expect(build).toThrow("Got a larger chunk overlap (3) than chunk size (2), should be smaller.");
    expect(new TokenTextSplitter({ chunkSize: 2, chunkOverlap: 2 }).chunkOverlap).toBe(2);
  });

  it("TS-D9 leaves room for the metadata and its 2 separator tokens", () => {
    const splitter = new TokenTextSplitter({ chunkSize: 6, chunkOverlap: 0, tokenizer: MOCK });
    expect(splitter.splitTextMetadataAware("a b c d e f", "m1 m2")).toEqual(["a b", "c d", "e f"]);
  });

  it("TS-D10 rejects metadata that fills the chunk, in LlamaIndex's words", () => {
    const splitter = new TokenTextSplitter({ chunkSize: 4, chunkOverlap: 0, tokenizer: MOCK });
    const split = () => splitter.splitTextMetadataAware("a b", "m1 m2");
    expect(split).toThrow(InvalidArgumentError);
    expect(split).toThrow(
      "Metadata length (4) is longer than chunk size (4). Consider increasing the chunk size or decreasing the size of your metadata to avoid this.",
    );
  });

  it("TS-D11 keeps the separator at the start of later pieces", () => {
    expect(splitTextKeepSeparator("a  b c", " ")).toEqual(["a", " ", " b", " c"]);
    expect(splitTextKeepSeparator(" a b ", " ")).toEqual([" a", " b", " "]);
  });
});

describe("TokenTextSplitter edge cases LlamaIndex loops on", () => {
  it("throws when one character needs more tokens than the chunk size", () => {
    const splitter = new TokenTextSplitter({ chunkSize: 1, chunkOverlap: 0 });
    const emoji = "\u{1F9EC}";
    expect(CL100K.count(emoji)).toBeGreaterThan(1);
    expect(() => splitter.splitText(`ab ${emoji}`)).toThrow(/be at least \d+, the tokens of the character/);
  });

  it("never splits a surrogate pair", () => {
    const text = "\u{1F600}".repeat(30);
    const chunks = new TokenTextSplitter({ chunkSize: 8, chunkOverlap: 0 }).splitText(text);
    expect(chunks.join("")).toBe(text);
    for (const chunk of chunks) {
      expect(chunk.length % 2).toBe(0);
      expect(CL100K.count(chunk)).toBeLessThanOrEqual(8);
    }
  });

  it("moves pieces on when, joined, they tokenize to more than the chunk size", () => {
    // A tokenizer where two words together cost more than apart: "x y" is 3 tokens, "x" and " y" 1 each.
    const tokenizer = (text: string) => (text.includes("x y") ? ["1", "2", "3"] : MOCK(text));
    const chunks = new TokenTextSplitter({ chunkSize: 2, chunkOverlap: 0, tokenizer }).splitText("x y z");
    expect(chunks).toEqual(["x", "y z"]);
  });

  it("rejects bad options and input with the parameter named", () => {
    expect(() => new TokenTextSplitter({ chunkSize: 0 })).toThrow("`chunkSize`");
    expect(() => new TokenTextSplitter({ chunkOverlap: -1 })).toThrow("`chunkOverlap`");
    expect(() => new TokenTextSplitter({ separator: "" })).toThrow("`separator`");
    expect(() => new TokenTextSplitter({ backupSeparators: ["\n", ""] })).toThrow("`backupSeparators[1]`");
    expect(() => new TokenTextSplitter().splitText(42 as unknown as string)).toThrow("`text`");
  });
});
