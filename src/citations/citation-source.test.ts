import { describe, expect, it } from "vitest";
import { sourceLabel } from "../schema/node-source.js";
import { TextNode } from "../schema/text-node.js";
import { citationSourceRows } from "./citation-source.js";

describe("citationSourceRows", () => {
  it("makes row N of source N: the piece's text, its node's metadata and score", () => {
    const node = new TextNode({
      id: "n1",
      text: "First part. Second part.",
      metadata: { file_path: "a.md" },
    });
    const rows = citationSourceRows([
      { number: 1, text: "First part.", node: { node, score: 0.7 }, location: { filePath: "a.md" } },
      { number: 2, text: "Second part.", node: { node }, location: { filePath: "a.md" } },
    ]);
    expect(rows.map((row) => [row.node.text, row.node.metadata.file_path, row.score])).toEqual([
      ["First part.", "a.md", 0.7],
      ["Second part.", "a.md", undefined],
    ]);
    expect("score" in (rows[1] ?? {})).toBe(false);
  });

  it("numbers the pieces of a node cut in several, so their labels differ; a node in one piece keeps its label", () => {
    const location = { file: "guide.md", headingPath: ["Setup"], lines: { start: 12, end: 60 } };
    const long = {
      node: new TextNode({ id: "n1", text: "One. Two.", metadata: { file_path: "guide.md", location } }),
    };
    const short = { node: new TextNode({ id: "n2", text: "Three.", metadata: { file_path: "notes.md" } }) };
    const rows = citationSourceRows([
      { number: 1, text: "One.", node: long, location: { filePath: "guide.md" } },
      { number: 2, text: "Three.", node: short, location: { filePath: "notes.md" } },
      { number: 3, text: "Two.", node: long, location: { filePath: "guide.md" } },
    ]);
    expect(rows.map((row) => sourceLabel(row.node))).toEqual([
      "guide.md:12–60 › Setup · part 1 of 2",
      "notes.md",
      "guide.md:12–60 › Setup · part 2 of 2",
    ]);
  });
});
