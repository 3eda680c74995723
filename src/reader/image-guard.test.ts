import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { ImageNode } from "../schema/image-node.js";
import { pngOfSize } from "../schema/png.test.util.js";
import { TextNode } from "../schema/text-node.js";
import { guardImages, imageLimits } from "./image-guard.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "ragsynth-guard-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const png = pngOfSize(4, 4);
writeFileSync(join(dir, "a.png"), png);
writeFileSync(join(dir, "b.png"), png);
writeFileSync(join(dir, "c.png"), png);
// A PNG signature followed by garbage: right first bytes, no image.
writeFileSync(
  join(dir, "corrupt.png"),
  Buffer.concat([png.subarray(0, 8), Buffer.from("not an IHDR chunk")]),
);
const file = (name: string) => ({ node: new ImageNode({ id: name, imagePath: join(dir, name) }) });

describe("guardImages", () => {
  it("keeps text, and images under the roots as their bytes with size and type from the header", async () => {
    const text = { node: new TextNode({ id: "t", text: "hello" }) };
    const result = await guardImages([text, file("a.png")], { roots: [dir] });
    expect(result.nodes[0]).toBe(text);
    const image = result.nodes[1]?.node as ImageNode;
    expect({ bytes: image.image, path: image.imagePath, type: image.mediaType, width: image.width }).toEqual({
      bytes: new Uint8Array(png),
      path: undefined,
      type: "image/png",
      width: 4,
    });
    expect(result).toMatchObject({ attached: 1, bytes: png.byteLength, skipped: [] });
  });

  it("holds a request to its image count and byte caps, in order, naming the ones left out", async () => {
    const byCount = await guardImages([file("a.png"), file("b.png"), file("c.png")], {
      roots: [dir],
      limits: { maxImages: 2 },
    });
    expect(byCount.nodes.map(({ node }) => node.id)).toEqual(["a.png", "b.png"]);
    expect(byCount.skipped).toMatchObject([{ src: join(dir, "c.png"), code: "over_request_limit" }]);
    const byBytes = await guardImages([file("a.png"), file("b.png")], {
      roots: [dir],
      limits: { maxRequestBytes: png.byteLength + 1 },
    });
    expect(byBytes.nodes.map(({ node }) => node.id)).toEqual(["a.png"]);
    expect(byBytes.skipped[0]?.reason).toMatch(/would take the request's images over/);
    const perImage = await guardImages([file("a.png")], { roots: [dir], limits: { maxImageBytes: 10 } });
    expect(perImage.skipped).toMatchObject([{ code: "too_large" }]);
  });

  it("checks bytes and data: URLs like files, leaves out remote URLs unless asked, and corrupt headers", async () => {
    const nodes = [
      { node: new ImageNode({ id: "bytes", image: Buffer.from("#!/bin/sh\necho hi\n") }) },
      {
        node: new ImageNode({
          id: "data",
          imageUrl: `data:image/png;base64,${Buffer.from(png).toString("base64")}`,
        }),
      },
      { node: new ImageNode({ id: "remote", imageUrl: "https://example.com/x.png" }) },
      file("corrupt.png"),
    ];
    const result = await guardImages(nodes, { roots: [dir] });
    expect(result.nodes.map(({ node }) => node.id)).toEqual(["data"]);
    expect(result.skipped.map(({ nodeId, code }) => [nodeId, code])).toEqual([
      ["bytes", "not_an_image"],
      ["remote", "remote"],
      ["corrupt.png", "not_an_image"],
    ]);
    const remote = await guardImages([nodes[2] as { node: ImageNode }], { roots: [dir], remote: true });
    expect(remote.nodes).toHaveLength(1);
  });
});

describe("imageLimits", () => {
  it("defaults to OpenAI's published limits and refuses caps that are not positive whole numbers", () => {
    expect(imageLimits()).toEqual({ maxImageBytes: 20_000_000, maxRequestBytes: 50_000_000, maxImages: 500 });
    expect(imageLimits({ maxImages: 3 }).maxImages).toBe(3);
    const error = (() => {
      try {
        imageLimits({ maxImageBytes: -1 });
      } catch (caught) {
        return caught;
      }
    })();
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      "Expected `limits.maxImageBytes` to be a positive whole number, got `-1` (number). Leave it out for OpenAI's published limit (20000000).",
    );
  });
});
