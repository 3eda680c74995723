import { describe, expect, it } from "vitest";
import { formatNodeLocation, getNodeLocation } from "./node-location.js";
import { TextNode } from "./text-node.js";

describe("node locations", () => {
  it("read as people read them: lines, pages, cells and the heading path", () => {
    expect(
      formatNodeLocation({
        file: "guide.md",
        lines: { start: 120, end: 168 },
        headingPath: ["Configuration", "Timeouts"],
      }),
    ).toBe("guide.md:120–168 › Configuration › Timeouts");
    expect(
      formatNodeLocation({
        file: "spec.pdf",
        pages: { start: 12, end: 12 },
        headingPath: ["2.3 Glob weights"],
      }),
    ).toBe("spec.pdf p. 12 › 2.3 Glob weights");
    expect(formatNodeLocation({ file: "spec.pdf", pages: { start: 12, end: 13 } })).toBe(
      "spec.pdf pp. 12–13",
    );
    expect(formatNodeLocation({ file: "nb.ipynb", cells: { start: 4, end: 4 } }, "work/nb.ipynb")).toBe(
      "work/nb.ipynb cell 4",
    );
  });

  it("from an untrusted index: malformed parts are left out, not shown", () => {
    const node = (location: unknown) => new TextNode({ text: "x", metadata: { location } });
    expect(getNodeLocation(node("guide.md"))).toBeUndefined();
    expect(
      getNodeLocation(
        node({ file: 3, headingPath: ["a", 1], lines: { start: 5, end: 2 }, pages: { start: 2, end: 3 } }),
      ),
    ).toEqual({ pages: { start: 2, end: 3 } });
  });
});
