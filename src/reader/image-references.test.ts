import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ImageNode } from "../schema/image-node.js";
import { pngOfSize } from "../schema/png.test.util.js";
import { TextNode } from "../schema/text-node.js";
import { SentenceSplitter } from "../splitter/sentence-splitter.js";
import type { SkippedImage } from "./image-guard.js";
import { findImageReferences, withoutImages, withReferencedImages } from "./image-references.js";
import { readDocuments } from "./read-documents.js";

const dir = mkdtempSync(join(tmpdir(), "ragsynth-refs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, "img"));
writeFileSync(join(dir, "img", "chart.png"), pngOfSize(8, 8));
writeFileSync(join(dir, "img", "sales-by-quarter.png"), pngOfSize(8, 8));
writeFileSync(join(dir, "notes.md"), "Intro.\n\n![A chart](img/chart.png)\n\nEnd.");

describe("findImageReferences", () => {
  it("finds Markdown and HTML images in order, with alt text (or title)", () => {
    const text =
      'See ![Chart: sales](img/a.png "Sales") and <img alt="Logo" src="logo.svg"> then ![](b.jpg "Title only").';
    expect(findImageReferences(text)).toEqual([
      { src: "img/a.png", alt: "Chart: sales" },
      { src: "logo.svg", alt: "Logo" },
      { src: "b.jpg", alt: "Title only" },
    ]);
  });
});

describe("withoutImages", () => {
  it("leaves a text's images out, or gives their alt texts when the text is nothing else", () => {
    expect(withoutImages("better-sqlite3 ![Build Status](https://x.test/badge.svg) ![npm](n.svg)")).toBe(
      "better-sqlite3",
    );
    expect(withoutImages('Setup <img src="a.png" alt="diagram"> guide')).toBe("Setup guide");
    expect(withoutImages("![Logo](logo.png)")).toBe("Logo");
    expect(withoutImages("![](logo.png)")).toBe("![](logo.png)");
    expect(withoutImages("Plain heading")).toBe("Plain heading");
  });
});

describe("withReferencedImages", () => {
  it("puts each referenced image that passes the checks right after its chunk, as checked bytes", async () => {
    const chunk = new TextNode({
      id: "notes.md#0",
      text: "![A chart](img/chart.png) ![Gone](img/missing.png) ![Remote](https://x/y.png) [not an image](a.md)",
      metadata: { file_path: join(dir, "notes.md") },
    });
    const other = new TextNode({ id: "other", text: "plain" });
    const skipped: SkippedImage[] = [];
    const nodes = await withReferencedImages([{ node: chunk, score: 0.5 }, { node: other }], {
      roots: [dir],
      onSkip: (entry) => skipped.push(entry),
    });
    expect(nodes.map(({ node }) => node.id)).toEqual(["notes.md#0", "notes.md#0#image0", "other"]);
    const image = nodes[1]?.node as ImageNode;
    expect(ImageNode.isInstance(image)).toBe(true);
    expect(image.text).toBe("A chart");
    expect(image.image).toEqual(new Uint8Array(pngOfSize(8, 8)));
    expect(image.imagePath).toBeUndefined();
    expect({ mediaType: image.mediaType, width: image.width, height: image.height }).toEqual({
      mediaType: "image/png",
      width: 8,
      height: 8,
    });
    expect(nodes[1]?.score).toBe(0.5);
    // Nothing is left out silently: the missing file and the remote image are named with their reasons.
    expect(skipped.map(({ src, code }) => [src, code])).toEqual([
      ["img/missing.png", "missing"],
      ["https://x/y.png", "remote"],
    ]);
    const remote = await withReferencedImages([{ node: chunk }], { roots: [dir], remote: true });
    expect((remote.at(-1)?.node as ImageNode | undefined)?.imageUrl).toBe("https://x/y.png");
  });

  it("leaves out images outside the roots (by default the working folder)", async () => {
    const chunk = new TextNode({
      id: "notes.md#0",
      text: "![A chart](img/chart.png)",
      metadata: { file_path: join(dir, "notes.md") },
    });
    const skipped: SkippedImage[] = [];
    const nodes = await withReferencedImages([{ node: chunk }], { onSkip: (entry) => skipped.push(entry) });
    expect(nodes.map(({ node }) => node.id)).toEqual(["notes.md#0"]);
    expect(skipped).toMatchObject([{ src: "img/chart.png", nodeId: "notes.md#0", code: "outside_roots" }]);
  });
});

describe("readDocuments with image files", () => {
  it("reads listed image endings as ImageNodes captioned by file name, which the splitter keeps whole", async () => {
    const { documents } = await readDocuments([dir], { extensions: [".md", ".png"] });
    const images = documents.filter((document) => ImageNode.isInstance(document));
    expect(images.map((image) => image.text).sort()).toEqual(["chart", "sales by quarter"]);
    expect((images[0] as ImageNode).mediaType).toBe("image/png");
    const nodes = new SentenceSplitter({ chunkSize: 64, chunkOverlap: 0 }).getNodesFromDocuments(documents);
    expect(nodes.filter((node) => ImageNode.isInstance(node))).toHaveLength(2);
  });
});
