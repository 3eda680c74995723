import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { markdownBlocks, markdownReader } from "./markdown.js";
import { isPathologicallyNested, markdownSegments } from "./markdown-segments.js";
import { DEFAULT_READER_LIMITS } from "./types.js";

const section = (index: number) =>
  [
    `## Section ${index}`,
    "",
    `Paragraph ${index} with \`code\` and words.`,
    "",
    "```ts",
    `const a${index} = 1;`,
    "",
    `const b${index} = 2;`,
    "```",
    "",
    `- item ${index}`,
    "  continued",
    "",
  ].join("\n");

describe("markdownSegments", () => {
  it("cuts at blank lines outside fences, before a line at the margin, and loses nothing", () => {
    const text = Array.from({ length: 40 }, (_, index) => section(index)).join("\n");
    const segments = markdownSegments(text, 300);
    expect(segments.length).toBeGreaterThan(5);
    expect(segments.map((segment) => segment.text).join("\n")).toBe(text);
    const lines = text.split("\n");
    for (const segment of segments) {
      expect(lines[segment.lineOffset]).toBe(segment.text.split("\n")[0]);
      // Never inside a fence: every segment holds whole code blocks.
      expect((segment.text.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
  });

  it("parses in segments to the same blocks, with the same line ranges, as in one piece", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 80, max: 2000 }), (count, size) => {
        const text = Array.from({ length: count }, (_, index) => section(index)).join("\n");
        const pieces = markdownSegments(text, size).flatMap((segment) =>
          markdownBlocks(segment.text, segment.lineOffset),
        );
        expect(pieces).toEqual(markdownBlocks(text));
      }),
      { numRuns: 40 },
    );
  });

  it("reads Markdown nested past what a parser does in reasonable time as paragraphs, and says so", async () => {
    const deep = Array.from({ length: 3000 }, (_, depth) => `${"  ".repeat(depth)}- level ${depth}`).join(
      "\n",
    );
    expect(isPathologicallyNested(deep)).toBe(true);
    expect(isPathologicallyNested(section(1))).toBe(false);
    const text = `# Title\n\nIntro.\n\n${deep}\n`;
    const result = await markdownReader.read({
      bytes: new TextEncoder().encode(text),
      path: "deep.md",
      limits: DEFAULT_READER_LIMITS,
    });
    expect(result.metadata).toMatchObject({ markdown_nested_as_text: 1 });
    expect(result.blocks.map((block) => block.text).join("\n")).toContain("- level 2999");
  });
});
