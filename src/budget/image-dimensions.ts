import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { ImageBlock } from "../schema/content-block.js";
import { mediaTypeFromPath } from "../schema/image-node.js";

/**
 * The media type of an `image-size` format, through the one extension table (`schema/image-node.ts`): the
 * package names formats by their usual file extension (`png`, `jpg`, `svg`, `tiff`), HEIF/HEIC files `heif`.
 */
function mediaTypeOfFormat(format: string): string | undefined {
  return mediaTypeFromPath(`image.${format === "heif" ? "heic" : format}`);
}

/** Bytes of a `data:` URL, or undefined for other URLs. */
export function dataUrlBytes(url: string): Uint8Array | undefined {
  const match = /^data:[^,]*?(;base64)?,(.*)$/s.exec(url);
  if (!match) return undefined;
  const payload = match[2] ?? "";
  return new Uint8Array(match[1] ? Buffer.from(payload, "base64") : Buffer.from(decodeURIComponent(payload)));
}

/**
 * The image with `width`, `height` and `mediaType` filled in from its header where they were missing:
 * bytes and `data:` URLs are read in memory, files read only their first bytes (the `image-size` package
 * never decodes pixels). Remote URLs are never fetched; their size stays unknown. Unreadable images are
 * returned unchanged, so the budget counts them by its unknown-size assumption.
 */
export async function withImageDimensions(image: ImageBlock): Promise<ImageBlock> {
  if (image.width !== undefined && image.height !== undefined && image.mediaType !== undefined) return image;
  try {
    const bytes = image.data ?? (image.url === undefined ? undefined : dataUrlBytes(image.url));
    let size: { width?: number; height?: number; type?: string } | undefined;
    if (bytes) {
      const { imageSize } = await import("image-size");
      size = imageSize(bytes);
    } else if (image.path !== undefined) {
      const { imageSizeFromFile } = await import("image-size/fromFile");
      size = await imageSizeFromFile(image.path);
    }
    if (!size) return image;
    const mediaType = image.mediaType ?? (size.type ? mediaTypeOfFormat(size.type) : undefined);
    return {
      ...image,
      ...(image.width === undefined && size.width !== undefined ? { width: size.width } : {}),
      ...(image.height === undefined && size.height !== undefined ? { height: size.height } : {}),
      ...(mediaType !== undefined ? { mediaType } : {}),
    };
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") {
      throw new InvalidArgumentError({
        parameter: "image.path",
        value: image.path,
        expected: "be a readable image file",
        hint: "The file does not exist: check the path (relative paths resolve against the working directory).",
      });
    }
    return image;
  }
}
