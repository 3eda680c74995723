import { describe, expect, it } from "vitest";
import { pngOfSize } from "../schema/png.test.util.js";
import { withImageDimensions } from "./image-dimensions.js";

/** A GIF's first bytes: signature, then width and height (little-endian), then an empty screen descriptor. */
function gifHeader(width: number, height: number): Uint8Array {
  const bytes = Buffer.alloc(13);
  bytes.write("GIF89a", 0, "ascii");
  bytes.writeUInt16LE(width, 6);
  bytes.writeUInt16LE(height, 8);
  return new Uint8Array(bytes);
}

describe("withImageDimensions", () => {
  it("fills size and media type from the header, the media type through the one extension table", async () => {
    expect(await withImageDimensions({ type: "image", data: pngOfSize(3, 2) })).toMatchObject({
      width: 3,
      height: 2,
      mediaType: "image/png",
    });
    expect(await withImageDimensions({ type: "image", data: gifHeader(7, 5) })).toMatchObject({
      width: 7,
      height: 5,
      mediaType: "image/gif",
    });
  });

  it("keeps a media type the caller gave", async () => {
    const image = await withImageDimensions({
      type: "image",
      data: pngOfSize(1, 1),
      mediaType: "image/x-mine",
    });
    expect(image.mediaType).toBe("image/x-mine");
  });
});
