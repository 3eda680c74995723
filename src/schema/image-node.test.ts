import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { blocksToText } from "./content-block.js";
import { ImageNode, mediaTypeFromPath } from "./image-node.js";
import { hasImageNodes, nodesToBlocks } from "./nodes-to-blocks.js";
import { MetadataMode, TextNode } from "./text-node.js";

const PNG_1PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

describe("ImageNode", () => {
  it("is a node whose text is the caption, so text-only paths see the caption", () => {
    const node = new ImageNode({
      imagePath: "docs/chart.PNG",
      text: "Sales by quarter",
      metadata: { page: 2 },
    });
    expect(node).toBeInstanceOf(TextNode);
    expect(node.getContent(MetadataMode.LLM)).toBe("page: 2\n\nSales by quarter");
    expect(node.mediaType).toBe("image/png");
    expect(ImageNode.isInstance(node)).toBe(true);
    expect(ImageNode.isInstance(new TextNode({ text: "x" }))).toBe(false);
  });

  it("takes bytes or base64, a path or a URL, exactly one", () => {
    const fromBase64 = new ImageNode({ image: PNG_1PX });
    expect(fromBase64.image?.byteLength).toBe(70);
    expect(new ImageNode({ imageUrl: "data:image/webp;base64,AAAA" }).mediaType).toBe("image/webp");
    expect(() => new ImageNode({})).toThrow(InvalidArgumentError);
    expect(() => new ImageNode({ imagePath: "a.png", imageUrl: "https://x/a.png" })).toThrow(
      "exactly one of `image` (bytes or base64), `imagePath` or `imageUrl`",
    );
    expect(() => new ImageNode({ imagePath: "a.png", detail: "max" as "low" })).toThrow("`detail`");
  });

  it("refuses an image, path or URL of the wrong type from JavaScript with a typed error", () => {
    // A JavaScript caller's mistakes TypeScript would have caught: each says what was expected.
    expect(() => new ImageNode({ image: { path: "a.png" } as never })).toThrow(
      /`image`.*bytes \(a Uint8Array or Buffer\) or a base64 string/s,
    );
    expect(() => new ImageNode({ image: { path: "a.png" } as never })).toThrow(InvalidArgumentError);
    expect(() => new ImageNode({ imagePath: 42 as never })).toThrow(/`imagePath`.*file path/s);
    expect(() => new ImageNode({ imageUrl: "" })).toThrow(/`imageUrl`.*URL/s);
    expect(new ImageNode({ image: Buffer.from([1, 2]) }).image?.byteLength).toBe(2);
  });

  it("copies with changes, keeping the image, and serializes the bytes as base64", () => {
    const node = new ImageNode({ id: "i1", image: PNG_1PX, detail: "low" });
    const copy = node.with({ text: "A dot" });
    expect(copy).toBeInstanceOf(ImageNode);
    expect(copy.image).toEqual(node.image);
    expect(copy.detail).toBe("low");
    const json = JSON.parse(JSON.stringify(node));
    expect(json).toMatchObject({ id: "i1", image: PNG_1PX, detail: "low", text: "" });
    expect(new ImageNode(json).image).toEqual(node.image);
    expect(node.with({ imageUrl: "https://x/y.jpg" }).image).toBeUndefined();
  });

  it("guesses media types from extensions", () => {
    expect(mediaTypeFromPath("a/b.jpeg")).toBe("image/jpeg");
    expect(mediaTypeFromPath("https://x/y.webp?v=2")).toBe("image/webp");
    expect(mediaTypeFromPath("notes.md")).toBeUndefined();
  });
});

describe("nodesToBlocks", () => {
  it("turns mixed nodes into text and image blocks in order, caption before its image", () => {
    const nodes = [
      { node: new TextNode({ text: "Intro." }) },
      { node: new ImageNode({ id: "img", imagePath: "a.png", text: "A chart" }) },
      { node: new ImageNode({ imageUrl: "https://x/b.jpg" }) },
      { node: new TextNode({ text: "  " }) },
    ];
    const blocks = nodesToBlocks(nodes);
    expect(blocks.map((block) => block.type)).toEqual(["text", "text", "image", "image"]);
    expect(blocks[1]).toEqual({ type: "text", text: "A chart" });
    expect(blocks[2]).toMatchObject({ type: "image", path: "a.png", mediaType: "image/png", nodeId: "img" });
    expect(blocksToText(blocks)).toBe("Intro.\n\nA chart\n\n[image]\n\n[image]");
    expect(hasImageNodes(nodes)).toBe(true);
    expect(hasImageNodes(nodes.slice(0, 1))).toBe(false);
  });
});
