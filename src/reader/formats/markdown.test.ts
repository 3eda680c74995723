import { describe, expect, it } from "vitest";
import { markdownBlocks, markdownReader } from "./markdown.js";
import { DEFAULT_READER_LIMITS, ReaderSkipError } from "./types.js";

const read = (text: string) =>
  markdownReader.read({
    bytes: new TextEncoder().encode(text),
    path: "doc.md",
    limits: DEFAULT_READER_LIMITS,
  });

describe("markdownReader", () => {
  it("reads headings, paragraphs, code, list items and table rows with their 1-based lines", () => {
    const text = [
      "---", // 1 front matter: left out
      "title: ignored",
      "---",
      "# Guide", // 4
      "",
      "Some **bold** text with a [link](https://example.com)", // 6
      "and `inline code`.", // 7
      "",
      "## Setup", // 9
      "",
      "- first item", // 11
      "  still first", // 12
      "  - nested", // 13
      "- second", // 14
      "",
      "```ts", // 16
      "const a = 1;",
      "```", // 18
      "",
      "| key | value |", // 20
      "|-----|-------|",
      "| a   | 1     |", // 22
      "",
      "    indented code", // 24
    ].join("\n");
    expect(markdownBlocks(text)).toEqual([
      { kind: "heading", depth: 1, text: "Guide", lines: { start: 4, end: 4 } },
      {
        kind: "paragraph",
        text: "Some bold text with a link\nand `inline code`.",
        lines: { start: 6, end: 7 },
      },
      { kind: "heading", depth: 2, text: "Setup", lines: { start: 9, end: 9 } },
      { kind: "list_item", text: "first item\nstill first", lines: { start: 11, end: 12 } },
      { kind: "list_item", text: "nested", lines: { start: 13, end: 13 } },
      { kind: "list_item", text: "second", lines: { start: 14, end: 14 } },
      { kind: "code", language: "ts", text: "const a = 1;", lines: { start: 16, end: 18 } },
      { kind: "table_row", text: "key | value", lines: { start: 20, end: 20 } },
      { kind: "table_row", text: "a | 1", lines: { start: 22, end: 22 } },
      { kind: "code", text: "indented code", lines: { start: 24, end: 24 } },
    ]);
  });

  it("keeps HTML's text without tags, and images (Markdown and <img>) as ![alt](src) for the image finder", () => {
    const blocks = markdownBlocks(
      [
        '<div align="center"><img src="logo.png" alt="Logo"><!-- hidden --> Hello <b>world</b></div>',
        "",
        "A chart: ![revenue](img/chart.png) and a ref ![arch][a].",
        "",
        "[a]: img/arch.svg",
      ].join("\n"),
    );
    expect(blocks.map((block) => block.text)).toEqual([
      "![Logo](logo.png) Hello world",
      "A chart: ![revenue](img/chart.png) and a ref ![arch](img/arch.svg).",
    ]);
  });

  it("names the first level-1 heading as title, and counts a file of front matter alone as empty", async () => {
    expect(await read("Intro\n\n# The Title\n")).toMatchObject({ metadata: { title: "The Title" } });
    const error = await Promise.resolve()
      .then(() => read("---\na: 1\n---\n"))
      .catch((caught: unknown) => caught);
    expect(ReaderSkipError.isInstance(error) && error.code).toBe("empty");
  });

  it("reads a line nested past the parser's depth (lists in quotes in lists…) as paragraphs, losing nothing", async () => {
    // Short lines, no deep indentation: only the parser itself sees the depth (it would drop the rest of the file).
    const deep = `${"- > ".repeat(60)}deep text`;
    const result = await read(`# Title\n\nIntro.\n\n${deep}\n\nAfter the deep part.\n`);
    expect(result.metadata).toMatchObject({ markdown_nested_as_text: 1 });
    expect(result.blocks.map((block) => block.text)).toEqual([
      "# Title",
      "Intro.",
      deep,
      "After the deep part.",
    ]);
    expect(result.blocks[3]?.lines).toEqual({ start: 7, end: 7 });
    expect(markdownBlocks(`${"> - ".repeat(60)}x\n\nlast`).map((block) => block.text)).toContain("last");
  });

  it("keeps task-list marks, footnote text in place and TOML front matter out", () => {
    const blocks = markdownBlocks(
      [
        "+++", // 1
        'title = "ignored"',
        "+++",
        "- [ ] todo", // 4
        "- [X] done",
        "",
        "Text with a note[^1].", // 7
        "",
        "[^1]: The note itself.", // 9
        "",
        "After.", // 11
      ].join("\n"),
    );
    expect(blocks).toEqual([
      { kind: "list_item", text: "[ ] todo", lines: { start: 4, end: 4 } },
      { kind: "list_item", text: "[x] done", lines: { start: 5, end: 5 } },
      { kind: "paragraph", text: "Text with a note.", lines: { start: 7, end: 7 } },
      { kind: "paragraph", text: "The note itself.", lines: { start: 9, end: 9 } },
      { kind: "paragraph", text: "After.", lines: { start: 11, end: 11 } },
    ]);
  });

  it("refuses bytes that are not UTF-8 with invalid_utf8", async () => {
    const bytes = new Uint8Array([0x23, 0x20, 0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]);
    let error: unknown;
    try {
      await markdownReader.read({ bytes, path: "bad.md", limits: DEFAULT_READER_LIMITS });
    } catch (caught) {
      error = caught;
    }
    expect(ReaderSkipError.isInstance(error) && error.code).toBe("invalid_utf8");
  });
});
