import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { sourceHref, sourceLabel, sourceName, sourceToJSON } from "./node-source.js";
import { TextNode } from "./text-node.js";

describe("how a node names its source", () => {
  it("names the file from the reader's metadata, else the node's id", () => {
    expect(sourceName(new TextNode({ id: "n1", text: "x", metadata: { file_path: "docs/a.md" } }))).toBe(
      "docs/a.md",
    );
    expect(sourceName(new TextNode({ id: "n1", text: "x", metadata: { fileName: "b.txt" } }))).toBe("b.txt");
    expect(sourceName(new TextNode({ id: "n1", text: "x" }))).toBe("n1");
  });

  it("labels the place in the file: its location, else a recorded line, else the file alone", () => {
    const located = new TextNode({
      text: "x",
      metadata: {
        file_path: "guide.md",
        location: { file: "guide.md", lines: { start: 120, end: 168 }, headingPath: ["Configuration"] },
      },
    });
    expect(sourceLabel(located)).toBe("guide.md:120–168 › Configuration");
    expect(sourceLabel(new TextNode({ text: "x", metadata: { file_path: "notes.txt", line: 12 } }))).toBe(
      "notes.txt:12",
    );
    expect(sourceLabel(new TextNode({ text: "x", metadata: { file_path: "notes.txt" } }))).toBe("notes.txt");
  });

  it("links to the file, at its first line when known; no link without a location", () => {
    const node = new TextNode({
      text: "x",
      metadata: { location: { file: "docs/a.md", lines: { start: 7, end: 9 } } },
    });
    expect(sourceHref(node)).toBe(`${pathToFileURL(resolve("docs/a.md")).href}#L7`);
    expect(sourceHref(new TextNode({ text: "x", metadata: { file_path: "a.md" } }))).toBeUndefined();
  });
});

describe("sourceToJSON", () => {
  it("gives rank, score, file, place, label, id, metadata and text", () => {
    const node = new TextNode({ id: "n1", text: "Body.", metadata: { file_path: "docs/a.md" } });
    expect(sourceToJSON({ node, score: 0.5 }, 0)).toEqual({
      rank: 1,
      score: 0.5,
      file: "docs/a.md",
      location: null,
      label: "docs/a.md",
      nodeId: "n1",
      metadata: { file_path: "docs/a.md" },
      text: "Body.",
    });
    expect(sourceToJSON({ node }, 2)).toMatchObject({ rank: 3, score: null });
  });
});
