import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { MetadataMode, TextNode } from "../schema/text-node.js";
import { recordingTokenizer } from "../tokenizer/recording-tokenizer.test.util.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import {
  CHINESE_TEXT,
  EDGE_CASE_TEXT,
  ENGLISH_TEXT,
  NO_OVERFLOW_METADATA,
  NO_OVERFLOW_TEXT,
} from "./conformance-fixtures.test.util.js";
import { SentenceSplitter } from "./sentence-splitter.js";

// Conformance section C (LlamaIndex tests/text_splitter/test_sentence_splitter.py). Cases marked †
// use NLTK punkt upstream; here they run with our Intl.Segmenter splitter, and every one of them gives
// the same result as punkt. GPT2 cases use r50k_base, GPT-2's encoding.
const MOCK = (text: string) => text.split(/[ \n]/).filter((piece) => piece.trim() !== "");
const splitOnDots = (text: string) => text.split(".");
const CL100K = resolveTokenizer("cl100k_base");
const words = (word: string, count: number) => Array.from({ length: count }, () => word).join(" ");
const FOO = words("foo", 15);
const BAR = words("bar", 15);

describe("SentenceSplitter (conformance C)", () => {
  it("SS-1 splits at the paragraph separator", () => {
    const splitter = new SentenceSplitter({ chunkSize: 20, chunkOverlap: 0 });
    expect(splitter.splitText(`${FOO}\n\n\n${BAR}`)).toEqual([FOO, BAR]);
  });

  it("SS-2† splits at a sentence end (same as punkt)", () => {
    const splitter = new SentenceSplitter({ chunkSize: 20, chunkOverlap: 0 });
    expect(splitter.splitText(`${FOO}. ${BAR}`)).toEqual([`${FOO}.`, BAR]);
  });

  it("SS-3 splits Chinese text into 2 chunks of 512", () => {
    expect(new SentenceSplitter({ chunkSize: 512, chunkOverlap: 0 }).splitText(CHINESE_TEXT)).toHaveLength(2);
  });

  it("SS-4 falls back to characters for a run without separators", () => {
    const chunks = new SentenceSplitter({ chunkSize: 100, chunkOverlap: 0 }).splitText("abcde".repeat(200));
    expect(chunks).toHaveLength(10);
    expect(chunks.join("")).toBe("abcde".repeat(200));
  });

  it("SS-5† splits english_text into 2 chunks, 4 with metadata, each within 100 tokens (same as punkt)", () => {
    const splitter = new SentenceSplitter({ chunkSize: 100, chunkOverlap: 0 });
    expect(splitter.splitText(ENGLISH_TEXT)).toHaveLength(2);
    const metadata = "word ".repeat(50);
    const chunks = splitter.splitTextMetadataAware(ENGLISH_TEXT, metadata);
    expect(chunks).toHaveLength(4);
    for (const chunk of chunks) expect(CL100K.count(chunk) + CL100K.count(metadata)).toBeLessThanOrEqual(100);
  });

  it("SS-6† splits the edge-case table into 2 chunks with GPT2 and 1 with cl100k (same as punkt)", () => {
    expect(new SentenceSplitter({ tokenizer: "r50k_base" }).splitText(EDGE_CASE_TEXT)).toHaveLength(2);
    expect(new SentenceSplitter().splitText(EDGE_CASE_TEXT)).toHaveLength(1);
  });

  it("SS-7† overlaps whole sentences (same as punkt)", () => {
    const splitter = new SentenceSplitter({ chunkSize: 15, chunkOverlap: 10 });
    expect(splitter.splitText("Hello! How are you? I am fine. And you?")).toHaveLength(1);
    const chunks = splitter.splitText(
      "Hello! How are you? I am fine. And you? This is a slightly longer sentence.",
    );
    expect(chunks).toEqual([
      "Hello! How are you? I am fine.",
      "How are you? I am fine. And you?",
      "And you? This is a slightly longer sentence.",
    ]);
  });

  it("SS-8 splitTexts splits each text and flattens in order", () => {
    const splitter = new SentenceSplitter({ chunkSize: 20, chunkOverlap: 0 });
    expect(splitter.splitTexts([`${FOO}\n\n\n${BAR}`])).toEqual([FOO, BAR]);
    expect(splitter.splitTexts([`${FOO}\n\n\n${BAR}`, `${BAR}\n\n\n${FOO}`])).toEqual([FOO, BAR, BAR, FOO]);
  });

  it("SS-9† splitTexts on english_text twice gives 4 chunks, 8 with metadata (same as punkt)", () => {
    const splitter = new SentenceSplitter({ chunkSize: 100, chunkOverlap: 0 });
    expect(splitter.splitTexts([ENGLISH_TEXT, ENGLISH_TEXT])).toHaveLength(4);
    const metadata = "word ".repeat(50);
    expect(splitter.splitTextsMetadataAware([ENGLISH_TEXT, ENGLISH_TEXT], [metadata, metadata])).toHaveLength(
      8,
    );
  });

  it("SS-10† keeps every node's full content, metadata included, within chunkSize", () => {
    const splitter = new SentenceSplitter({ chunkSize: 512, chunkOverlap: 64 });
    const document = new TextNode({ id: "doc", text: NO_OVERFLOW_TEXT, metadata: NO_OVERFLOW_METADATA });
    const nodes = splitter.getNodesFromDocuments([document]);
    expect(nodes.length).toBeGreaterThan(1);
    for (const node of nodes)
      expect(CL100K.count(node.getContent(MetadataMode.ALL))).toBeLessThanOrEqual(512);
  });

  it.each([2, 16])("SS-11† gives consistent character offsets (size %i, overlap 1)", (chunkSize) => {
    const text = "foo bar hello world baz bbq";
    const splitter = new SentenceSplitter({ chunkSize, chunkOverlap: 1 });
    const nodes = splitter.getNodesFromDocuments([new TextNode({ id: "doc", text })]);
    for (const node of nodes) {
      const start = node.metadata.start_char_idx as number;
      const end = node.metadata.end_char_idx as number;
      expect(end - start).toBe(node.text.length);
      expect(text.slice(start, end)).toBe(node.text);
    }
  });

  it("SS-D1 splits paragraphs first (MOCK tokenizer, sentences split on '.')", () => {
    const splitter = new SentenceSplitter({
      chunkSize: 4,
      chunkOverlap: 0,
      tokenizer: MOCK,
      chunkingTokenizerFn: splitOnDots,
    });
    expect(splitter.splitText("a b c\n\n\nd e f")).toEqual(["a b c", "d e f"]);
  });

  it("SS-D2 seeds each chunk with the previous chunk's tail", () => {
    const splitter = new SentenceSplitter({
      chunkSize: 6,
      chunkOverlap: 3,
      tokenizer: MOCK,
      chunkingTokenizerFn: splitOnDots,
    });
    expect(splitter.splitText("a b c d e f g h i j")).toEqual(["a b c d e f", "d e f g h i", "g h i j"]);
  });

  it("SS-D3 subtracts the metadata tokens with no +2", () => {
    const splitter = new SentenceSplitter({ chunkSize: 6, chunkOverlap: 0, tokenizer: MOCK });
    expect(splitter.splitTextMetadataAware("a b c d e f", "m1 m2")).toEqual(["a b c d", "e f"]);
  });

  it("SS-D4 has LlamaIndex's defaults", () => {
    const splitter = new SentenceSplitter();
    expect(splitter.chunkSize).toBe(1024);
    expect(splitter.chunkOverlap).toBe(200);
    expect(splitter.separator).toBe(" ");
    expect(splitter.paragraphSeparator).toBe("\n\n\n");
    expect(splitter.secondaryChunkingRegex).toBe("[^,.;。？！]+[,.;。？！]?|[,.;。？！]");
    expect(splitter.tokenizer.name).toBe("cl100k_base");
    expect(splitter.includeMetadata).toBe(true);
  });
});

describe("SentenceSplitter (ragsynth behaviour)", () => {
  it("rejects an overlap larger than the chunk size, with both numbers", () => {
    expect(() => new SentenceSplitter({ chunkSize: 2, chunkOverlap: 3 })).toThrow(
      "Expected `chunkOverlap` to be an integer from 0 to `chunkSize` (2), got `3` (number). Lower chunkOverlap or raise chunkSize.",
    );
    expect(() => new SentenceSplitter({ chunkSize: 2, chunkOverlap: 2 })).not.toThrow();
  });

  it.each([0, -1, 1.5, Number.NaN])("rejects chunkSize %s", (chunkSize) => {
    expect(() => new SentenceSplitter({ chunkSize, chunkOverlap: 0 })).toThrow(InvalidArgumentError);
  });

  it("rejects an invalid secondaryChunkingRegex with the parse error as cause", () => {
    const create = () => new SentenceSplitter({ secondaryChunkingRegex: "[unclosed" });
    expect(create).toThrow(InvalidArgumentError);
    expect(create).toThrow(/secondaryChunkingRegex/);
  });

  it("rejects metadata that leaves no room, saying how many tokens it takes", () => {
    const splitter = new SentenceSplitter({ chunkSize: 4, chunkOverlap: 0, tokenizer: MOCK });
    expect(() => splitter.splitTextMetadataAware("a b", "m1 m2 m3 m4")).toThrow(
      /Expected `chunkSize` to be larger than the metadata, which takes 4 tokens, got `4` \(number\)\. Raise chunkSize/,
    );
  });

  it("cuts a word longer than chunkSize at character boundaries instead of failing (LlamaIndex raises)", () => {
    const word = "internationalization";
    expect(CL100K.count(word)).toBeGreaterThan(1);
    const chunks = new SentenceSplitter({ chunkSize: 1, chunkOverlap: 0 }).splitText(word);
    expect(chunks.join("")).toBe(word);
    for (const chunk of chunks) expect(CL100K.count(chunk)).toBeLessThanOrEqual(1);
  });

  it("splits a 200K-letter run without counting it whole (BPE counting is quadratic there)", () => {
    const text = `Intro. ${"x".repeat(200_000)} outro.`;
    // What the splitter hands its tokenizer: no text with a letter run above 4096 (hasLongRun's limit).
    const { tokenizer: recording, counted } = recordingTokenizer(CL100K);
    const chunks = new SentenceSplitter({ chunkSize: 1024, chunkOverlap: 0, tokenizer: recording }).splitText(
      text,
    );
    let longestRun = 0;
    for (const piece of counted) {
      for (const run of piece.match(/x+/g) ?? []) longestRun = Math.max(longestRun, run.length);
    }
    expect(counted.length).toBeGreaterThan(0);
    expect(longestRun).toBeLessThanOrEqual(4096);
    expect(chunks.join("").replace(/\s+/g, "")).toBe(text.replace(/\s+/g, ""));
    for (const chunk of chunks) expect(CL100K.count(chunk)).toBeLessThanOrEqual(1024);
  });

  it("fails with a typed error only when a single character cannot fit", () => {
    const twoPerCharacter = (text: string) => Array.from(text + text);
    const splitter = new SentenceSplitter({ chunkSize: 1, chunkOverlap: 0, tokenizer: twoPerCharacter });
    expect(() => splitter.splitText("ab")).toThrow(/single character "a", which takes 2 tokens/);
  });

  it("returns no chunks for empty or blank text (LlamaIndex returns [''] for '')", () => {
    const splitter = new SentenceSplitter({ chunkSize: 5, chunkOverlap: 0 });
    expect(splitter.splitText("")).toEqual([]);
    expect(splitter.splitText(" \n\n ")).toEqual([]);
  });

  it("keeps text that a custom regex does not match", () => {
    const splitter = new SentenceSplitter({
      chunkSize: 2,
      chunkOverlap: 0,
      tokenizer: MOCK,
      chunkingTokenizerFn: (text) => [text],
      secondaryChunkingRegex: "x+",
    });
    const chunks = splitter.splitText("a b xx c d");
    expect(chunks.join(" ").replace(/\s+/g, "")).toBe("abxxcd");
  });

  it("loses no text and respects chunkSize for random input (property)", () => {
    const piece = fc.constantFrom(
      "foo",
      "bar",
      " ",
      "\n",
      "\n\n\n",
      ".",
      ",",
      "。",
      "xyzzyplugh",
      "Mr.",
      "你好",
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 80 }),
        fc.integer({ min: 1, max: 12 }),
        (pieces, chunkSize) => {
          const text = pieces.join("");
          const splitter = new SentenceSplitter({ chunkSize, chunkOverlap: 0, tokenizer: MOCK });
          const chunks = splitter.splitText(text);
          expect(chunks.join("").replace(/\s+/g, "")).toBe(text.replace(/\s+/g, ""));
          for (const chunk of chunks) expect(MOCK(chunk).length).toBeLessThanOrEqual(chunkSize);
        },
      ),
    );
  });

  it("builds nodes that copy the document's metadata and hide the offsets from the LLM and embedder", () => {
    const document = new TextNode({
      id: "docs/a.md",
      text: "First sentence here. Second sentence here. Third sentence here.",
      metadata: { file_path: "docs/a.md", file_name: "a.md" },
      excludedLlmMetadataKeys: ["file_name"],
      excludedEmbedMetadataKeys: ["file_name"],
    });
    const splitter = new SentenceSplitter({ chunkSize: 10, chunkOverlap: 0 });
    const nodes = splitter.getNodesFromDocuments([document]);
    expect(nodes.map((node) => node.id)).toEqual(nodes.map((_, index) => `docs/a.md#${index}`));
    expect(nodes.length).toBeGreaterThan(1);
    for (const node of nodes) {
      expect(node.metadata).toMatchObject({ file_path: "docs/a.md", file_name: "a.md" });
      expect(node.getContent(MetadataMode.LLM)).toBe(`file_path: docs/a.md\n\n${node.text}`);
      expect(node.getContent(MetadataMode.EMBED)).toBe(`file_path: docs/a.md\n\n${node.text}`);
      // The budget is tokens(text) + tokens(metadata) (no +2, as in LlamaIndex); the "\n\n" that
      // getContent puts between them is not counted, so the rendered content may take one more token.
      expect(CL100K.count(node.text) + CL100K.count("file_path: docs/a.md")).toBeLessThanOrEqual(10);
    }
    expect(nodes[0]?.metadata.start_char_idx).toBe(0);
  });

  it("leaves no room for metadata when includeMetadata is false", () => {
    const document = new TextNode({ text: words("foo", 12), metadata: { title: words("long", 20) } });
    const splitter = new SentenceSplitter({ chunkSize: 12, chunkOverlap: 0, includeMetadata: false });
    expect(splitter.getNodesFromDocuments([document]).map((node) => node.text)).toEqual([words("foo", 12)]);
  });
});
