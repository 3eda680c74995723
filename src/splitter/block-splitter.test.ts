import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { setDocumentBlocks } from "../reader/document-blocks.js";
import { markdownBlocks } from "../reader/formats/markdown.js";
import { formatNodeLocation, getNodeLocation, type NodeLocation } from "../schema/node-location.js";
import { MetadataMode, TextNode } from "../schema/text-node.js";
import { recordingTokenizer } from "../tokenizer/recording-tokenizer.test.util.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { BlockSplitter } from "./block-splitter.js";

const tokenizer = resolveTokenizer(undefined);

/** A Markdown document as the reader gives it: text, file metadata, and its blocks beside it. */
function markdownDocument(text: string, file = "docs/guide.md"): TextNode {
  const document = new TextNode({
    id: file,
    text,
    metadata: { file_path: file, file_size: text.length },
    excludedEmbedMetadataKeys: ["file_size"],
    excludedLlmMetadataKeys: ["file_size"],
  });
  setDocumentBlocks(document, markdownBlocks(text));
  return document;
}

const words = (count: number, seed: string) =>
  Array.from({ length: count }, (_, index) => `${seed}${index}`).join(" ");

function split(text: string, chunkSize: number, chunkOverlap = 0) {
  const nodes = new BlockSplitter({ chunkSize, chunkOverlap }).getNodesFromDocuments([
    markdownDocument(text),
  ]);
  return nodes.map((node) => ({ node, text: node.text, location: getNodeLocation(node) as NodeLocation }));
}

describe("BlockSplitter", () => {
  it("keeps each section to a chunk of its own when two do not fit together, with exact heading paths and lines", () => {
    const text = `# Alpha\n\n${words(25, "a")}\n\n# Beta\n\n${words(25, "b")}\n`;
    const chunks = split(text, 70);
    expect(chunks.map((chunk) => chunk.text)).toEqual([
      `# Alpha\n\n${words(25, "a")}`,
      `# Beta\n\n${words(25, "b")}`,
    ]);
    expect(chunks.map((chunk) => chunk.location)).toEqual([
      { file: "docs/guide.md", headingPath: ["Alpha"], lines: { start: 1, end: 3 } },
      { file: "docs/guide.md", headingPath: ["Beta"], lines: { start: 5, end: 7 } },
    ]);
    // Both fit in one chunk: neighbouring sections share it, under the (empty) path above them.
    const together = split(text, 1024);
    expect(together).toHaveLength(1);
    expect(together[0]?.location).toEqual({
      file: "docs/guide.md",
      headingPath: [],
      lines: { start: 1, end: 7 },
    });
  });

  it("names sections by their headings without the headings' images, keeping the images in the chunk's text", () => {
    const badge = "![Build Status](https://example.com/badge.svg)";
    const text = `# better-sqlite3 ${badge}\n\n${words(25, "a")}\n\n# ![Logo](logo.png)\n\n${words(25, "b")}\n`;
    const chunks = split(text, 90);
    expect(chunks.map((chunk) => chunk.location.headingPath)).toEqual([["better-sqlite3"], ["Logo"]]);
    expect(chunks[0]?.text.startsWith(`# better-sqlite3 ${badge}`)).toBe(true);
    expect(formatNodeLocation(chunks[0]?.location as NodeLocation)).toBe(
      "docs/guide.md:1–3 › better-sqlite3",
    );
  });

  it("starts every chunk of a long section with its heading path, nested headings included", () => {
    const text = `# Top\n\n## Middle\n\n### Deep\n\n${words(30, "x")}\n\n${words(30, "y")}\n\n${words(30, "z")}\n`;
    const chunks = split(text, 90);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.text.startsWith("# Top\n\n## Middle\n\n### Deep\n\n")).toBe(true);
      expect(chunk.location.headingPath).toEqual(["Top", "Middle", "Deep"]);
    }
    expect(chunks.map((chunk) => chunk.location.lines)).toEqual([
      { start: 5, end: 7 },
      { start: 9, end: 9 },
      { start: 11, end: 11 },
    ]);
  });

  it("never cuts a code block, list item or table row that fits in a chunk", () => {
    const code = Array.from({ length: 8 }, (_, line) => `call_${line}(argument_${line});`).join("\n");
    const items = Array.from({ length: 12 }, (_, item) => `- item ${item} ${words(6, `i${item}_`)}`).join(
      "\n",
    );
    const rows = Array.from({ length: 10 }, (_, row) => `| r${row} | ${words(4, `c${row}_`)} |`).join("\n");
    const text = `# Code\n\n${words(20, "p")}\n\n\`\`\`js\n${code}\n\`\`\`\n\n${words(20, "q")}\n\n# List\n\n${items}\n\n# Table\n\n| key | value |\n|---|---|\n${rows}\n`;
    const chunkSize = tokenizer.count(`# Code\n\n\`\`\`js\n${code}\n\`\`\``) + 10;
    const chunks = split(text, chunkSize);
    const texts = chunks.map((chunk) => chunk.text);
    const holding = texts.filter((chunk) => chunk.includes("call_0("));
    expect(holding.length).toBeGreaterThan(0);
    for (const chunk of holding) expect(chunk).toContain(`\`\`\`js\n${code}\n\`\`\``);
    for (let item = 0; item < 12; item++) {
      const whole = `- item ${item} ${words(6, `i${item}_`)}`;
      const found = texts.filter((chunk) => chunk.includes(`item ${item} i${item}_0`));
      expect(found.length).toBeGreaterThan(0);
      for (const chunk of found) expect(chunk).toContain(whole);
    }
    for (let row = 0; row < 10; row++) {
      const whole = `r${row} | ${words(4, `c${row}_`)}`;
      const found = texts.filter((chunk) => chunk.includes(`r${row} |`));
      expect(found.length).toBeGreaterThan(0);
      for (const chunk of found) expect(chunk).toContain(whole);
    }
    for (const chunk of chunks)
      expect(tokenizer.count(chunk.node.getContent(MetadataMode.EMBED))).toBeLessThanOrEqual(chunkSize + 1);
  });

  it("cuts a code block longer than a chunk into fenced pieces within its lines, each under the heading path", () => {
    const lines = Array.from(
      { length: 120 },
      (_, line) => `value_${line} = compute(${line}, "text ${line}")`,
    );
    const text = `# Big\n\n\`\`\`py\n${lines.join("\n")}\n\`\`\`\n`;
    const chunks = split(text, 120, 20);
    expect(chunks.length).toBeGreaterThan(3);
    const source = text.split("\n");
    for (const { node, text: chunk, location } of chunks) {
      expect(tokenizer.count(node.getContent(MetadataMode.EMBED))).toBeLessThanOrEqual(121);
      expect(chunk.startsWith("# Big\n\n```py\n")).toBe(true);
      expect(chunk.endsWith("\n```")).toBe(true);
      expect(location.headingPath).toEqual(["Big"]);
      const { start, end } = location.lines as { start: number; end: number };
      expect(start).toBeGreaterThanOrEqual(4);
      expect(end).toBeLessThanOrEqual(123);
      const body = chunk.split("\n").slice(3, -1);
      const range = source.slice(start - 1, end);
      for (const line of body) expect(range.some((sourceLine) => sourceLine.includes(line))).toBe(true);
    }
    // Nothing lost: every line of the block is in some chunk.
    for (const line of lines) expect(chunks.some((chunk) => chunk.text.includes(line))).toBe(true);
  });

  it("gives a plain document's nodes their file and the lines of their text", () => {
    const text = Array.from({ length: 40 }, (_, line) => `Line ${line} says ${words(8, `w${line}_`)}.`).join(
      "\n",
    );
    const document = new TextNode({ id: "notes.txt", text, metadata: { file_path: "notes.txt" } });
    const nodes = new BlockSplitter({ chunkSize: 80, chunkOverlap: 10 }).getNodesFromDocuments([document]);
    expect(nodes.length).toBeGreaterThan(2);
    const source = text.split("\n");
    for (const node of nodes) {
      const location = getNodeLocation(node) as NodeLocation;
      expect(location.file).toBe("notes.txt");
      const { start, end } = location.lines as { start: number; end: number };
      expect(source.slice(start - 1, end).join("\n")).toContain(node.text);
      expect(node.getContent(MetadataMode.LLM)).not.toContain("location");
      expect(node.getContent(MetadataMode.EMBED)).not.toContain("location");
    }
  });

  it("property: every chunk fits, and each line of its text comes from its line range (or is its heading path)", () => {
    const word = fc.stringMatching(/^[a-z]{1,8}$/);
    const line = fc.array(word, { minLength: 1, maxLength: 12 }).map((parts) => parts.join(" "));
    const block = fc.oneof(
      fc.array(line, { minLength: 1, maxLength: 4 }).map((lines) => ({ kind: "paragraph", lines })),
      fc.array(line, { minLength: 1, maxLength: 15 }).map((lines) => ({ kind: "code", lines })),
      fc.array(line, { minLength: 1, maxLength: 6 }).map((lines) => ({ kind: "list", lines })),
      // Tables and quotes: markup on every line, which a cut piece repeats.
      fc.array(line, { minLength: 1, maxLength: 30 }).map((lines) => ({ kind: "table", lines })),
      fc.array(line, { minLength: 1, maxLength: 20 }).map((lines) => ({ kind: "quote", lines })),
      // Headings of a few words: the heading path must leave room for whole words in a chunk.
      fc
        .tuple(fc.integer({ min: 1, max: 4 }), fc.array(word, { minLength: 1, maxLength: 4 }))
        .map(([depth, parts]) => ({ kind: "heading", depth, lines: [parts.join(" ")] })),
    );
    fc.assert(
      fc.property(
        fc.array(block, { minLength: 1, maxLength: 15 }),
        fc.integer({ min: 80, max: 300 }),
        (blocks, chunkSize) => {
          const text = blocks
            .map((part) =>
              part.kind === "heading"
                ? `${"#".repeat((part as { depth: number }).depth)} ${part.lines[0]}`
                : part.kind === "code"
                  ? `\`\`\`\n${part.lines.join("\n")}\n\`\`\``
                  : part.kind === "list"
                    ? part.lines.map((item) => `- ${item}`).join("\n")
                    : part.kind === "table"
                      ? [
                          "| a | b |",
                          "|---|---|",
                          ...part.lines.map((row) => `| ${row} | ${row.length} |`),
                        ].join("\n")
                      : part.kind === "quote"
                        ? part.lines.map((quoted) => `> ${quoted}`).join("\n")
                        : part.lines.join("\n"),
            )
            .join("\n\n");
          const source = text.split("\n");
          const chunks = split(text, chunkSize, 15);
          for (const { node, text: chunk, location } of chunks) {
            // The separator between metadata and text is counted too: no chunk is over chunkSize once rendered.
            expect(tokenizer.count(node.getContent(MetadataMode.EMBED))).toBeLessThanOrEqual(chunkSize);
            const { start, end } = location.lines as { start: number; end: number };
            const range = source.slice(start - 1, end);
            for (const chunkLine of chunk.split("\n")) {
              if (chunkLine === "" || chunkLine === "```") continue;
              const heading = /^#{1,6} (.*)$/.exec(chunkLine);
              if (heading && (location.headingPath ?? []).includes(heading[1] as string)) continue;
              // A heading longer than a chunk is cut too: its pieces keep their `#`s.
              const bare = chunkLine.replace(/^(- | {2}|#{1,6} )/, "");
              expect(range.some((sourceLine) => sourceLine.includes(bare))).toBe(true);
            }
          }
          // Nothing lost: every word of the source is in some chunk (a block cut in pieces may cut a line).
          const chunkWords = new Set(chunks.flatMap((chunk) => chunk.text.split(/\s+/)));
          for (const sourceWord of text.split(/\s+/)) {
            if (/^[a-z]+$/.test(sourceWord)) expect(chunkWords.has(sourceWord)).toBe(true);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("of PDF blocks (pages, no lines) give a chunk its page range", () => {
    const document = new TextNode({ id: "spec.pdf", text: "", metadata: { file_path: "spec.pdf" } });
    setDocumentBlocks(document, [
      { kind: "heading", depth: 2, text: "2.3 Glob weights", page: 12 },
      { kind: "paragraph", text: "A glob's weight is the number of its literal characters.", page: 12 },
      { kind: "paragraph", text: "Longer globs win over shorter ones.", page: 13 },
    ]);
    const [node, ...rest] = new BlockSplitter().getNodesFromDocuments([document]);
    expect(rest).toEqual([]);
    expect(getNodeLocation(node as TextNode)).toEqual({
      file: "spec.pdf",
      headingPath: ["2.3 Glob weights"],
      pages: { start: 12, end: 13 },
    });
    expect(formatNodeLocation(getNodeLocation(node as TextNode) ?? {})).toBe(
      "spec.pdf pp. 12–13 › 2.3 Glob weights",
    );
  });
});

describe("BlockSplitter's token counting", () => {
  it("counts the heading path of a block it cuts once, not once per use", () => {
    const { tokenizer: recording, counted } = recordingTokenizer(tokenizer);
    const sentences = Array.from(
      { length: 80 },
      (_, index) => `Sentence ${index} says ${words(5, `s${index}w`)}.`,
    );
    const document = markdownDocument(`# Guide\n\n## Part\n\n${sentences.join(" ")}\n`);
    const nodes = new BlockSplitter({
      chunkSize: 120,
      chunkOverlap: 20,
      tokenizer: recording,
    }).getNodesFromDocuments([document]);
    // The paragraph was cut, each piece under the heading path.
    expect(nodes.length).toBeGreaterThan(5);
    for (const node of nodes) expect(node.text.startsWith("# Guide\n\n## Part\n\nSentence")).toBe(true);
    expect(counted.filter((text) => text === "# Guide\n\n## Part\n\n")).toHaveLength(1);
  });
});
