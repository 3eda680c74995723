import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ImageNode } from "../schema/image-node.js";
import { pngOfSize } from "../schema/png.test.util.js";
import { TextNode } from "../schema/text-node.js";
import { SentenceSplitter } from "../splitter/sentence-splitter.js";
import { findImageReferences, withReferencedImages } from "./image-references.js";
import { readDocuments } from "./read-documents.js";

const dir = mkdtempSync(join(tmpdir(), "ragsynth-refs-"));
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

describe("withReferencedImages", () => {
  it("puts each referenced image that exists right after its chunk, captioned with its alt text", async () => {
    const chunk = new TextNode({
      id: "notes.md#0",
      text: "![A chart](img/chart.png) ![Gone](img/missing.png) ![Remote](https://x/y.png) [not an image](a.md)",
      metadata: { file_path: join(dir, "notes.md") },
    });
    const other = new TextNode({ id: "other", text: "plain" });
    const nodes = await withReferencedImages([{ node: chunk, score: 0.5 }, { node: other }]);
    expect(nodes.map(({ node }) => node.id)).toEqual(["notes.md#0", "notes.md#0#image0", "other"]);
    const image = nodes[1]?.node as ImageNode;
    expect(ImageNode.isInstance(image)).toBe(true);
    expect(image.text).toBe("A chart");
    expect(image.imagePath).toBe(join(dir, "img", "chart.png"));
    expect(nodes[1]?.score).toBe(0.5);
    const remote = await withReferencedImages([{ node: chunk }], { remote: true });
    expect((remote.at(-1)?.node as ImageNode | undefined)?.imageUrl).toBe("https://x/y.png");
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
