import { describe, expect, it } from "vitest";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { thrownBy } from "../util/thrown-by.test.util.js";
import { createTextPacker, joinChunks, type PackOptions, type TextPacker } from "./text-packer.js";

const cl100k = resolveTokenizer("cl100k_base");
const MOCK = (text: string) => text.split(/[ \n]/).filter((piece) => piece.trim() !== "");
const nonWhitespace = (text: string) => text.replace(/\s+/g, "");

function drain(packer: TextPacker, maxTokens: number, options?: PackOptions): string[] {
  const pieces: string[] = [];
  for (
    let piece = packer.next(maxTokens, options);
    piece !== undefined;
    piece = packer.next(maxTokens, options)
  ) {
    pieces.push(piece);
  }
  return pieces;
}

describe("joinChunks", () => {
  it("trims, drops blank chunks and joins with a blank line, as LlamaIndex's repack does", () => {
    expect(joinChunks(["  a b ", "\n", "", "c\n"])).toBe("a b\n\nc");
  });

  it("names the chunk that is not a string", () => {
    expect(() => joinChunks(["a", 3 as unknown as string])).toThrow(InvalidArgumentError);
    expect(() => joinChunks(["a", 3 as unknown as string])).toThrow("`chunks[1]`");
    expect(() => joinChunks("a" as unknown as string[])).toThrow("`chunks`");
  });
});

describe("TextPacker", () => {
  it("takes the longest prefix that fits, cut at a word boundary", () => {
    const packer = createTextPacker({ chunks: ["one two three", "four five"] });
    expect(packer.next(2)).toBe("one two");
    expect(packer.next(3)).toBe("three\n\nfour");
    expect(packer.done).toBe(false);
    expect(packer.next(100)).toBe("five");
    expect(packer.done).toBe(true);
    expect(packer.next(100)).toBeUndefined();
  });

  it("nextPiece gives next's piece with its exact token count on its own", () => {
    const chunks = [
      "In a quaint little village, nestled deep within a lush, green valley, there lived a curious girl.",
      `教育是人类社会发展的基石，😀👩‍👩‍👧🧬 ${"abcde".repeat(300)} tail words`,
    ];
    const tokenizers = [
      ["cl100k_base", cl100k.count],
      [MOCK, (text: string) => MOCK(text).length],
    ] as const;
    for (const [tokenizer, count] of tokenizers) {
      for (const budget of [4, 7, 40, 500]) {
        for (const maxWaste of [0, Number.POSITIVE_INFINITY]) {
          const texts = createTextPacker({ chunks, tokenizer });
          const pieces = createTextPacker({ chunks, tokenizer });
          for (let text = texts.next(budget, { maxWaste }); text !== undefined; ) {
            const piece = pieces.nextPiece(budget, { maxWaste });
            expect(piece?.text).toBe(text);
            expect(piece?.tokens).toBe(count(text));
            text = texts.next(budget, { maxWaste });
          }
          expect(pieces.nextPiece(budget)).toBeUndefined();
        }
      }
    }
  });

  it("reports the remaining tokens of the text on its own", () => {
    const packer = createTextPacker({ chunks: ["alpha beta gamma delta epsilon"] });
    expect(packer.remainingTokens).toBe(cl100k.count("alpha beta gamma delta epsilon"));
    packer.next(3);
    expect(packer.remainingTokens).toBe(cl100k.count("delta epsilon"));
  });

  it("keeps every chunk within budget when tokenized on its own, and loses no text", () => {
    const text =
      "In a quaint little village, nestled deep within a lush, green valley, there lived a curious young girl " +
      "named Lily! She had sparkling blue eyes that glimmered like the morning dew—yes, like tiny sapphires.\n\n" +
      "Every day, Lily would embark on new adventures; she was like a butterfly dancing on the winds of curiosity.";
    for (const budget of [1, 2, 3, 5, 8, 13, 40]) {
      const pieces = drain(createTextPacker({ chunks: [text] }), budget);
      for (const piece of pieces) expect(cl100k.count(piece)).toBeLessThanOrEqual(budget);
      expect(nonWhitespace(pieces.join(""))).toBe(nonWhitespace(text));
    }
  });

  it("cuts inside a word at a token boundary when no word fits", () => {
    const text = "abcde".repeat(200);
    const pieces = drain(createTextPacker({ chunks: [text] }), 10);
    expect(pieces.join("")).toBe(text);
    for (const piece of pieces) expect(cl100k.count(piece)).toBeLessThanOrEqual(10);
    expect(pieces.length).toBeLessThanOrEqual(Math.ceil(cl100k.count(text) / 10) + 1);
  });

  it("cuts a long run of letters (one BPE piece) without re-tokenizing the whole run for each piece", () => {
    const run = "教育是人类社会发展的基石也是培养人才传承文化的重要途径".repeat(120);
    const packer = createTextPacker({ chunks: [run] });
    const first = packer.next(50) ?? "";
    expect(cl100k.count(first)).toBeLessThanOrEqual(50);
    const actual = cl100k.count(run.slice(first.length));
    expect(Math.abs(packer.remainingTokens - actual)).toBeLessThanOrEqual(actual * 0.05);
    const pieces = [first, ...drain(packer, 50)];
    expect(pieces.join("")).toBe(run);
    for (const piece of pieces) expect(cl100k.count(piece)).toBeLessThanOrEqual(50);
    expect(pieces.length).toBeLessThanOrEqual(Math.ceil(cl100k.count(run) / 50) + 1);
  });

  it("never splits a character, in CJK or emoji", () => {
    const text = `教育是人类社会发展的基石，也是培养人才、传承文化的重要途径。${"😀👩‍👩‍👧🧬".repeat(20)}`;
    const pieces = drain(createTextPacker({ chunks: [text] }), 6);
    expect(pieces.join("")).toBe(text);
    for (const piece of pieces) {
      expect(cl100k.count(piece)).toBeLessThanOrEqual(6);
      expect(piece).toBe(Array.from(piece).join(""));
      expect(/[\uD800-\uDBFF]$/.test(piece)).toBe(false);
    }
  });

  it("cuts mid-word instead of wasting more than maxWaste tokens at a word boundary", () => {
    const text = "aaaaaaaaaa bbbbbbbbbb cccccccccc dddddddddd";
    const wordCuts = createTextPacker({ chunks: [text] });
    const byWord = wordCuts.next(5);
    const tight = createTextPacker({ chunks: [text] });
    const byToken = tight.next(5, { maxWaste: 0 });
    expect(byWord).toBe("aaaaaaaaaa");
    expect(byToken?.startsWith("aaaaaaaaaa b")).toBe(true);
    expect(cl100k.count(byToken ?? "")).toBe(5);
  });

  it("fits the chunk into its prompt frame", () => {
    const frame = { prefix: "Context: ", suffix: "\nAnswer:", maxTokens: 8 };
    const frameTokens = cl100k.count("Context: \nAnswer:");
    const packer = createTextPacker({ chunks: ["one two three four five six seven eight"] });
    const piece = packer.next(100, { frame }) ?? "";
    expect(cl100k.count(`Context: ${piece}\nAnswer:`)).toBeLessThanOrEqual(8);
    expect(cl100k.count(piece)).toBeGreaterThanOrEqual(8 - frameTokens - 1);
  });

  it("shortens the chunk until the caller's check passes, and fails when nothing passes", () => {
    const packer = createTextPacker({ chunks: ["one two three four five"] });
    expect(packer.next(5, { fits: (chunk) => chunk.length <= 8 })).toBe("one two");
    expect(() => packer.next(5, { fits: () => false })).toThrow(RagsynthError);
    expect(
      RagsynthError.isInstance(
        thrownBy(() => packer.next(5, { fits: () => false })),
        "context_overflow",
      ),
    ).toBe(true);
  });

  it("rejects budgets that hold nothing, and characters larger than the budget", () => {
    const packer = createTextPacker({ chunks: ["🧬 a"] });
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => packer.next(bad)).toThrow(InvalidArgumentError);
      expect(() => packer.next(bad)).toThrow("`maxTokens`");
    }
    expect(() => packer.next(1)).toThrow(ContextOverflowError);
    expect(() => packer.next(1)).toThrow(/The character "🧬" \(\d tokens on its own\)/);
    expect(() => packer.next(5, { maxWaste: -1 })).toThrow("`maxWaste`");
  });

  it("works with tokenizer functions, by counting candidates", () => {
    const packer = createTextPacker({ chunks: ["a b c d e f g"], tokenizer: MOCK });
    expect(drain(packer, 3)).toEqual(["a b c", "d e f", "g"]);
    const characters = createTextPacker({
      chunks: ["abcdefgh"],
      tokenizer: (text: string) => Array.from(text),
    });
    expect(drain(characters, 3)).toEqual(["abc", "def", "gh"]);
  });

  it("walks past pessimistic word estimates with a tokenizer function", () => {
    // Counts distinct words: the word-by-word estimate (7) is far above the real count of the text (2).
    const distinct = (text: string) => [...new Set(text.split(/\s+/).filter(Boolean))];
    expect(drain(createTextPacker({ chunks: ["a a a a a a b c"], tokenizer: distinct }), 2)).toEqual([
      "a a a a a a b",
      "c",
    ]);
  });

  it("uses the separator and the newline backup as word boundaries", () => {
    const packer = createTextPacker({
      chunks: ["Hello", "world", "foo", "Hello"],
      tokenizer: MOCK,
      separator: "\n\n",
    });
    expect(drain(packer, 3)).toEqual(["Hello\n\nworld\n\nfoo", "Hello"]);
    expect(() => createTextPacker({ chunks: [], separator: "" })).toThrow("`separator`");
  });
});

describe("each piece names the chunks it holds", () => {
  it("by their index in `chunks`, blank chunks skipped, a chunk cut across pieces named by both", () => {
    const packer = createTextPacker({ chunks: ["a b c", "  ", "d e f g h", "i"], tokenizer: MOCK });
    const pieces: Array<{ text: string; sources: number[] }> = [];
    for (let piece = packer.nextPiece(4); piece; piece = packer.nextPiece(4)) {
      pieces.push({ text: piece.text, sources: piece.sources });
    }
    expect(pieces).toEqual([
      { text: "a b c\n\nd", sources: [0, 2] },
      { text: "e f g h", sources: [2] },
      { text: "i", sources: [3] },
    ]);
  });
});
