import { describe, expect, it } from "vitest";
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
});
